//! Board core for bgkit: positions as gnubg stores them, Position IDs and keys,
//! the combinatorial bearoff index, game-over scoring and move generation that
//! reproduces gnubg's move list content and order.
//!
//! Conventions follow gnubg (see `docs/formats.md`): a [`Board`] is two
//! 25-entry arrays, `sides[1]` is the side on roll, each array in its own side's
//! numbering (index 0 = ace point, 24 = bar).
//!
//! # Example
//!
//! The opening 3-1, from a Position ID to gnubg's list of plays and back:
//!
//! ```
//! use board::{Board, MoveList};
//!
//! let start = Board::from_position_id("4HPwATDgc/ABMA")?;
//! assert_eq!(start, Board::starting());
//! assert_eq!(start.pips(1), 167);
//!
//! // Every distinct play of 3-1, in gnubg's order; reuse the list for speed.
//! let mut moves = MoveList::new();
//! let plays = moves.generate(&start, 3, 1);
//! assert_eq!(plays.len(), 16);
//!
//! // 8/5 6/5 makes the 5-point (index 4). Plays are seen before the sides
//! // are swapped: `sides[1]` is still the side that moved.
//! let best = plays
//!     .iter()
//!     .find(|b| b.sides[1][4] == 2)
//!     .expect("8/5 6/5 is legal");
//! assert_eq!(best.pips(1), 167 - 4);
//! assert_eq!((best.sides[1][5], best.sides[1][7]), (4, 2));
//!
//! // The opponent is on roll next: swap the sides, as gnubg does.
//! let next = best.swapped();
//! assert_eq!(next.position_id(), "sGfwATDgc/ABMA");
//! # Ok::<(), board::PositionIdError>(())
//! ```
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
