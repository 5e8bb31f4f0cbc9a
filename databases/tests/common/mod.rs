//! Helpers shared by the databases integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

use databases::{Job, OneSidedJob, OneSidedOptions, TwoSidedJob, TwoSidedOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Debian's one-sided database (gnubg-data).
pub const GNUBG_OS0: &str = "/usr/share/gnubg/gnubg_os0.bd";
/// The two-sided database Debian's post-install step makes (`makebearoff -t 6x6`).
pub const GNUBG_TS0: &str = "/var/lib/gnubg/gnubg_ts0.bd";
/// gnubg's generators and dumper.
pub const GNUBG_MAKEBEAROFF: &str = "/usr/games/makebearoff";
/// gnubg's Hypergammon generator.
pub const GNUBG_MAKEHYPER: &str = "/usr/games/makehyper";
/// gnubg's record dumper.
pub const GNUBG_BEAROFFDUMP: &str = "/usr/games/bearoffdump";

/// A file installed by gnubg; a missing one fails the test, never skips it.
pub fn gnubg_file(path: &str) -> PathBuf {
    let p = Path::new(path);
    assert!(
        p.is_file(),
        "{path} is missing: this test reads gnubg 1.07's own files and tools as the \
         reference; install them with `apt-get install -y gnubg` (CI installs it)"
    );
    p.to_path_buf()
}

/// Runs a gnubg tool and returns its standard output.
pub fn run_gnubg(tool: &str, args: &[&str]) -> String {
    let out = Command::new(gnubg_file(tool))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("gnubg prints ASCII")
}

/// Makes a database with gnubg's makebearoff in `dir` and returns its path.
pub fn gnubg_makebearoff(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut all = args.to_vec();
    let p = path.to_str().expect("UTF-8 temp path");
    all.extend(["-f", p]);
    run_gnubg(GNUBG_MAKEBEAROFF, &all);
    path
}

/// Makes a Hypergammon database with gnubg's makehyper in `dir`. (makehyper
/// overflows a buffer on long output paths, so it runs inside `dir` with a
/// short relative name.)
pub fn gnubg_makehyper(dir: &Path, chequers: u8) -> PathBuf {
    let name = format!("h{chequers}.bd");
    let out = Command::new(gnubg_file(GNUBG_MAKEHYPER))
        .args(["-c", &chequers.to_string(), "-f", &name])
        .current_dir(dir)
        .output()
        .expect("run makehyper");
    assert!(
        out.status.success(),
        "makehyper -c {chequers} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join(name)
}

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
    tempfile::Builder::new()
        .prefix("bgkit-databases-test.")
        .tempdir()
        .expect("create a temporary directory")
}

fn run_job(mut job: impl Job) -> Vec<u8> {
    while !job.is_done() {
        job.compute_next();
    }
    let mut bytes = Vec::with_capacity(job.output_len() as usize);
    job.write(&mut bytes).expect("write to memory");
    bytes
}

/// A one-sided database made by bgkit's generator.
pub fn ours_one_sided(opts: OneSidedOptions) -> Vec<u8> {
    run_job(OneSidedJob::new(opts, None))
}

/// A two-sided database made by bgkit's generator.
pub fn ours_two_sided(opts: TwoSidedOptions) -> Vec<u8> {
    run_job(TwoSidedJob::new(opts, None))
}

/// `path` as a `&str`.
pub fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}
