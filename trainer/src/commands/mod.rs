//! The subcommands of `trainer`: each parses its typed arguments and calls
//! the library.

pub mod args;
pub mod bench;
pub mod common;
pub mod db;
pub mod eval;
pub mod new;
pub mod play;
pub mod plot;
pub mod round;
pub mod td;
pub mod train;
pub mod weights;
