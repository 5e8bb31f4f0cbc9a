//! Generation of gnubg's Hypergammon databases (1–3 chequers) by value
//! iteration with the cube, on all cores, with checkpoints after every
//! sweep and restart from any complete file
//! (docs/formats.md#hypergammon-databases). The file format itself is
//! `databases::hyper`.
#![deny(missing_docs)]

pub mod solver;

pub use solver::{memory_estimate, HyperSolver, RestoreError};
