//! bgkit's training library: new weights, TD self-play training,
//! matches between players (gnubg-style nets and pubeval), learning curves
//! and their charts, position databases (gnubg-nn `.dat` import/export,
//! generation, resumable sharded rollouts), and evaluation of positions
//! with gnubg-compatible nets; `trainer` is its thin command line.
#![deny(missing_docs)]

pub mod chart;
pub mod curve;
pub mod defaults;
pub mod eval;
pub mod evaluator_args;
pub mod init;
pub mod keyed;
pub mod play;
pub mod positions;
pub mod provenance;
pub mod rollouts;
pub mod supervised;
pub mod td;
