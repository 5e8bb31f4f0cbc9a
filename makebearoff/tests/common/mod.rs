//! Helpers shared by the makebearoff integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

#[allow(unused_imports)] // each test binary uses only some of them
pub use test_support::{assert_success, describe, error_line_problems, run_with_timeout, Running};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// gnubg's reference implementation.
pub const GNUBG_MAKEBEAROFF: &str = "/usr/games/makebearoff";

/// Longest we let a single gnubg or bgkit run take before failing the test.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// Our binary.
pub fn ours() -> Command {
    Command::new(env!("CARGO_BIN_EXE_makebearoff"))
}

/// gnubg's makebearoff. A missing reference is a test failure, never a skip.
pub fn gnubg() -> Command {
    test_support::gnubg_tool(GNUBG_MAKEBEAROFF)
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    test_support::tempdir("bgkit-makebearoff-test.")
}

/// Runs `cmd` to completion (bounded by [`RUN_TIMEOUT`]).
pub fn run(cmd: Command) -> Output {
    run_with_timeout(cmd, RUN_TIMEOUT)
}

/// Runs our binary in `dir` with `args`.
pub fn run_ours(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = ours();
    cmd.current_dir(dir).args(args);
    run(cmd)
}

/// Every file and directory under `dir` (recursively), as relative paths.
pub fn listing(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, acc: &mut BTreeSet<String>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let entry = entry.expect("directory entry");
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned();
            let is_dir = entry.file_type().expect("file type").is_dir();
            acc.insert(rel);
            if is_dir {
                walk(root, &path, acc);
            }
        }
    }
    let mut acc = BTreeSet::new();
    walk(dir, dir, &mut acc);
    acc
}

/// Hex MD5 of a file.
pub fn md5_file(path: &Path) -> String {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    support::digest::md5_hex(std::io::BufReader::new(file))
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// gnubg's published MD5 for a default-options one-sided database.
pub fn published_one_sided(points: u8) -> &'static str {
    databases::published::published_md5(databases::Kind::OneSided {
        points,
        gammons: true,
        compressed: true,
    })
    .expect("gnubg publishes this one-sided checksum")
}

/// gnubg's published MD5 for a default-options (cubeful) two-sided database.
pub fn published_two_sided(points: u8, chequers: u8) -> &'static str {
    databases::published::published_md5(databases::Kind::TwoSided {
        points,
        chequers,
        cubeful: true,
    })
    .expect("gnubg publishes this two-sided checksum")
}

/// Asserts two labelled byte strings are equal, reporting the first
/// difference instead of dumping megabytes.
pub fn assert_same_bytes(left: (&str, &[u8]), right: (&str, &[u8]), what: &str) {
    let ((lname, l), (rname, r)) = (left, right);
    if l == r {
        return;
    }
    let first = l
        .iter()
        .zip(r)
        .position(|(a, b)| a != b)
        .unwrap_or(l.len().min(r.len()));
    let differing = l.iter().zip(r).filter(|(a, b)| a != b).count();
    let window = |b: &[u8]| b[first.min(b.len())..(first + 16).min(b.len())].to_vec();
    panic!(
        "{what}: outputs differ: {lname} {} bytes, {rname} {} bytes; first difference at \
         offset {first} ({differing} differing bytes in the common part); \
         {lname} {:02x?} vs {rname} {:02x?}",
        l.len(),
        r.len(),
        window(l),
        window(r)
    );
}

/// Asserts [`error_line_problems`] finds nothing; returns the line.
pub fn assert_one_line_error(out: &Output, what: &str) -> String {
    let (line, problems) = error_line_problems(out);
    assert!(
        problems.is_empty(),
        "{what}:\n  - {}\n{}",
        problems.join("\n  - "),
        describe(out)
    );
    line
}

/// Size of a file, or `None` if it does not exist.
pub fn file_len(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// `FILE.ckpt` for an output `FILE`.
pub fn ckpt_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}
