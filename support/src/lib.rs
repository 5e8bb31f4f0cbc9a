//! What every bgkit tool shares: atomic output files, input files opened
//! safely, the one checkpoint file format (append-only and snapshots) and
//! checkpointable jobs, MD5 digests, a cache prefetch hint, and (with the
//! `cli` feature) the claim of a run's files (output locks, side files),
//! progress display, signal handling, memory and disk checks and the `main`
//! helper that gives every binary the same one-line errors and exit
//! statuses.
//!
//! Libraries that must stay free of command-line dependencies (`nets`) use
//! it without the `cli` feature.
#![deny(missing_docs)]

pub mod atomic;
pub mod checkpoint;
pub mod child;
pub mod digest;
pub mod input;
pub mod job;
pub mod prefetch;
pub mod stdio;

#[cfg(feature = "cli")]
pub mod claim;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod lock;
#[cfg(feature = "cli")]
pub mod progress;
#[cfg(feature = "cli")]
pub mod resources;
#[cfg(feature = "cli")]
pub mod side;
#[cfg(feature = "cli")]
pub mod signals;

pub use atomic::{AtomicFile, RecycledFile};
pub use checkpoint::{Checkpoint, CheckpointError, Snapshot};
pub use job::{Chain, Cursor, Job, PayloadError};
