//! Position databases and what fills them: the database format, its label
//! stamp and merges, gnubg-nn `.dat` files, NumPy export, self-play
//! generation, candidate moves, splitting and summaries.

pub mod candidates;
pub mod dat;
pub mod db;
pub mod generate;
pub mod labels;
mod merge;
pub mod npz;
pub mod split;
pub mod stats;
