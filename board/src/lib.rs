//! Board core for bgkit: positions as gnubg stores them, Position IDs and keys,
//! the combinatorial bearoff index, game-over scoring and move generation that
//! reproduces gnubg's move list content and order.
//!
//! Conventions follow gnubg (see `docs/architecture.md`): a [`Board`] is two
//! 25-entry arrays, `board[1]` is the side on roll, each array in its own side's
//! numbering (index 0 = ace point, 24 = bar).
#![deny(missing_docs)]

pub mod bearoff_index;
pub mod bearoff_moves;
pub mod combination;
pub mod dice;
pub mod game_over;
pub mod key;
pub mod movegen;
pub mod position;
pub mod position_id;
pub mod probabilities;

pub use bearoff_index::{rank, unrank, BearoffIndexer};
pub use bearoff_moves::BearoffPlays;
pub use combination::combination;
pub use dice::{Dice, Roll, ROLLS};
pub use game_over::{eval_over, Variant};
pub use key::PositionKey;
pub use movegen::{generate_plays, MoveList, PlaySink, Position};
pub use position::{Board, SideArray, BAR, POINTS};
pub use position_id::{PositionIdError, ID_LEN};
pub use probabilities::{cubeless_equity, invert, jacoby_equity, Probabilities, NUM_OUTPUTS};
