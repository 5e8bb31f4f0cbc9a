//! gnubg 1.07's neural-net evaluation, reproduced: the nets and their
//! weights files (text `gnubg.weights`, binary `gnubg.wd`), position classes
//! and net inputs, the table-sigmoid forward pass, bearoff and race
//! backgammon evaluation, the sanity check, 0-ply and n-ply evaluation, move
//! selection with gnubg's pruning nets, and Tesauro's pubeval.
//!
//! Conventions follow gnubg (docs/formats.md#board-arrays): a [`board::Board`]'s `sides[1]`
//! is the side on roll and every evaluation is from its view.
//!
//! ```no_run
//! use nets::{Arithmetic, BearoffDatabases, Evaluator};
//! let nets = nets::weights::load("/usr/lib/gnubg/gnubg.wd".as_ref())?;
//! let db = BearoffDatabases::open(&["/usr/share/gnubg/gnubg_os0.bd"])?;
//! let eval = Evaluator::new(nets, db, Arithmetic::default())?;
//! let mut scratch = eval.scratch();
//! let e = eval.evaluate(&board::Board::starting(), &mut scratch);
//! println!("{} {:?} {}", e.class, e.outputs, e.equity());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod aligned;
pub mod approx_reciprocal;
pub mod arith;
pub mod bearoff_eval;
pub mod classify;
pub mod cpu;
pub mod error;
pub mod evaluate;
mod first_off;
pub mod forward;
pub mod forward_batch;
pub mod gradient_chunk;
pub mod inputs;
pub mod move_select;
pub mod net;
mod occupancy;
pub mod optimizer;
pub mod plied;
pub mod pubeval;
pub mod race_backgammon;
mod rcp_table;
pub mod sanity;
mod search_cache;
pub mod sigmoid;
#[cfg(test)]
mod test_rng;
pub mod train;
pub mod weights;
pub mod weights_binary;
pub mod weights_text;

pub use aligned::Aligned;
pub use arith::Arithmetic;
pub use bearoff_eval::{BearoffDatabases, BearoffError, BearoffFile};
pub use classify::{classify, Class};
pub use error::WeightsError;
pub use evaluate::{EvalError, Evaluation, Evaluator, Scratch};
pub use forward::Simd;
pub use gradient_chunk::{GradientChunk, PlannedStep, TeamStep};
pub use move_select::{prune_moves, ChosenMove, Reply, MAX_PRUNE_MOVES, MIN_PRUNE_MOVES};
pub use net::{Net, NetKind, NetShape, Nets, Parameters};
pub use optimizer::{Adam, Gradient};
pub use plied::{FILTER_EQUITY, FILTER_MOVES, MAX_PLIES};
pub use train::{accumulate_gradient, train_net, train_net_deferred, Loss, TrainScratch};

pub use board::{Probabilities, NUM_OUTPUTS};
