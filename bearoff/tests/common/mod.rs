//! Helpers shared by the `bearoff` integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code, unused_imports)]

pub use test_support::{
    gnubg_file, gnubg_makebearoff, gnubg_makehyper, path_str as s, run_gnubg, GNUBG_BEAROFFDUMP,
    GNUBG_MAKEBEAROFF, GNUBG_MAKEHYPER, GNUBG_OS0, GNUBG_TS0,
};

use makebearoff::{OneSidedOptions, TwoSidedOptions};
use std::process::{Command, Output};
/// Runs our `bearoff` binary.
pub fn bearoff(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bearoff"))
        .args(args)
        .output()
        .expect("run bearoff")
}

/// Runs `bearoff` and returns its standard output, asserting success.
pub fn bearoff_ok(args: &[&str]) -> String {
    let out = bearoff(args);
    assert!(
        out.status.success(),
        "bearoff {args:?} failed ({:?}): {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    test_support::tempdir("bgkit-bearoff-test.")
}

/// A one-sided database made by bgkit's generator.
pub fn ours_one_sided(opts: OneSidedOptions) -> Vec<u8> {
    makebearoff::one_sided_bytes(opts).expect("write to memory")
}

/// A two-sided database made by bgkit's generator.
pub fn ours_two_sided(opts: TwoSidedOptions) -> Vec<u8> {
    makebearoff::two_sided_bytes(opts).expect("write to memory")
}
