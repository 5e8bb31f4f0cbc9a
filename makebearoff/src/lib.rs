//! Generation of gnubg's bearoff databases, byte-identical to gnubg 1.07's
//! makebearoff (docs/formats.md#bearoff-databases): one-sided exact and
//! normal-distribution databases computed in parallel pip-count waves,
//! two-sided databases computed in parallel shells, reuse of a smaller
//! database, and regeneration of an existing file to compare it byte for
//! byte. Every generation is a [`support::Job`], so the driver can
//! checkpoint and resume it.
#![deny(missing_docs)]

pub mod one_sided;
pub mod regenerate;
pub mod two_sided;
pub mod waves;

pub use one_sided::{one_sided_job, ExactJob, NormalJob, OneSidedJob, OneSidedOptions};
pub use two_sided::{TwoSidedJob, TwoSidedOptions};

use support::Job;

/// Generates a one-sided database in memory, without checkpoints (for
/// tests and small sizes; the `makebearoff` tool drives the same job).
pub fn one_sided_bytes(opts: OneSidedOptions) -> std::io::Result<Vec<u8>> {
    let mut job = one_sided_job(opts, None);
    job.compute_all();
    job.to_bytes()
}

/// Generates a two-sided database in memory, without checkpoints.
pub fn two_sided_bytes(opts: TwoSidedOptions) -> std::io::Result<Vec<u8>> {
    let mut job = TwoSidedJob::new(opts, None);
    job.compute_all();
    job.to_bytes()
}
