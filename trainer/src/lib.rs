//! bgkit's training library: new weights, TD self-play training,
//! matches between players (gnubg-style nets and pubeval), learning curves
//! and their charts, position databases (gnubg-nn `.dat` import/export,
//! generation, resumable sharded rollouts), and evaluation of positions
//! with gnubg-compatible nets; `trainer` is its thin command line.
//!
//! Every random choice is keyed by a seed ([`keyed`]), so results never
//! depend on thread counts. A match of pubeval against itself with
//! duplicate dice (each pair of games replays the same dice with the sides
//! swapped) is exactly even:
//!
//! ```
//! use trainer::play::game::Player;
//! use trainer::play::matches::{play_match, DiceMode};
//! let result = play_match(Player::Pubeval, Player::Pubeval, 20, 7, DiceMode::Duplicate, &mut |_| {})?;
//! assert_eq!((result.games, result.ppg), (20, 0.0));
//! // The same seed gives the same dice, whatever else runs.
//! let mut a = trainer::keyed::dice(7, &[1, 2]);
//! let mut b = trainer::keyed::dice(7, &[1, 2]);
//! assert_eq!(a.roll(), b.roll());
//! # Ok::<(), trainer::play::matches::MatchError>(())
//! ```
#![deny(missing_docs)]

pub mod chart;
pub mod curve;
pub mod defaults;
pub mod eval;
pub mod evaluator_args;
pub mod init;
pub mod keyed;
pub mod pipeline;
pub mod play;
pub mod positions;
pub mod provenance;
pub mod rollouts;
pub mod scratch_pool;
pub mod supervised;
pub mod td;
pub mod team;
pub mod weights_npz;
