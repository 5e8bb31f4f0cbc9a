//! Helpers shared by the databases integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code, unused_imports)]

pub use test_support::{
    gnubg_file, gnubg_makebearoff, gnubg_makehyper, path_str as s, run_gnubg, GNUBG_MAKEBEAROFF,
    GNUBG_OS0, GNUBG_TS0,
};

use makebearoff::{OneSidedOptions, TwoSidedOptions};

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    test_support::tempdir("bgkit-databases-test.")
}

/// A one-sided database made by bgkit's generator.
pub fn ours_one_sided(opts: OneSidedOptions) -> Vec<u8> {
    makebearoff::one_sided_bytes(opts).expect("write to memory")
}

/// A two-sided database made by bgkit's generator.
pub fn ours_two_sided(opts: TwoSidedOptions) -> Vec<u8> {
    makebearoff::two_sided_bytes(opts).expect("write to memory")
}
