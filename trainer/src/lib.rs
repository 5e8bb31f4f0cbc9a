//! bgkit's training library: evaluation of positions with gnubg-compatible
//! nets today; TD self-play, matches, position databases, rollouts and
//! supervised training are built here, with `trainer` as their thin
//! command line.
#![deny(missing_docs)]

pub mod defaults;
pub mod eval;
pub mod evaluator_args;
