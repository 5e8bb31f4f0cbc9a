//! Helpers shared by the makehyper integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

#[allow(unused_imports)] // each test binary uses only some of them
pub use test_support::{assert_success, describe, error_line_problems, run_with_timeout, Running};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// gnubg's reference implementation.
pub const GNUBG_MAKEHYPER: &str = "/usr/games/makehyper";

/// Longest we let one of our runs take before failing the test.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// Longest we let gnubg's 2-chequer run take (about 50 s on an idle core).
pub const GNUBG_TIMEOUT: Duration = Duration::from_secs(480);

/// Header length and record length of a Hypergammon file.
pub const HEADER_LEN: usize = 40;
pub const RECORD_LEN: usize = 28;

/// Positions per side: C(25 + c, c).
pub fn side_positions(chequers: usize) -> usize {
    match chequers {
        1 => 26,
        2 => 351,
        3 => 3276,
        _ => panic!("Hypergammon has 1 to 3 chequers"),
    }
}

/// Size of a complete `chequers`-chequer database.
pub fn file_size(chequers: usize) -> usize {
    HEADER_LEN + RECORD_LEN * side_positions(chequers).pow(2)
}

/// Our binary.
pub fn ours() -> Command {
    Command::new(env!("CARGO_BIN_EXE_makehyper"))
}

/// gnubg's makehyper. A missing reference is a test failure, never a skip.
pub fn gnubg() -> Command {
    test_support::gnubg_tool(GNUBG_MAKEHYPER)
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    test_support::tempdir("bgkit-makehyper-test.")
}

/// Our binary in `dir` with `args`.
pub fn ours_in(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = ours();
    cmd.current_dir(dir).args(args);
    cmd
}

/// Runs our binary in `dir` with `args` to completion.
pub fn run_ours(dir: &Path, args: &[&str]) -> Output {
    run_with_timeout(ours_in(dir, args), RUN_TIMEOUT)
}

/// One "sweep N: norm of delta X, T s" line of our progress report.
#[derive(Debug, Clone, Copy)]
pub struct Sweep {
    pub number: usize,
    pub norm: f64,
    pub seconds: f64,
}

/// The sweeps our binary reported on stderr, in order.
pub fn sweeps(stderr: &str) -> Vec<Sweep> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once(": sweep ")?.1;
            let (number, rest) = rest.split_once(": norm of delta ")?;
            let (norm, rest) = rest.split_once(", ")?;
            let seconds = rest.strip_suffix(" s")?;
            Some(Sweep {
                number: number.trim().parse().ok()?,
                norm: norm.trim().parse().ok()?,
                seconds: seconds.trim().parse().ok()?,
            })
        })
        .collect()
}

/// The sweeps of a finished run of ours, checked to be numbered 1, 2, ...
pub fn reported_sweeps(out: &Output) -> Vec<Sweep> {
    let s = sweeps(&String::from_utf8_lossy(&out.stderr));
    assert!(
        !s.is_empty(),
        "no \"sweep N: norm of delta X, T s\" lines on stderr\n{}",
        describe(out)
    );
    for (i, sw) in s.iter().enumerate() {
        assert_eq!(sw.number, i + 1, "sweeps are not numbered 1, 2, ...: {s:?}");
    }
    s
}

/// Asserts the run stopped at the first sweep whose norm is at most the
/// threshold (the norms are printed with 6 decimals).
pub fn assert_stopped_at_threshold(sweeps: &[Sweep], threshold: f64, what: &str) {
    let (last, before) = sweeps.split_last().expect("at least one sweep");
    assert!(
        last.norm <= threshold,
        "{what}: stopped with norm {} above the threshold {threshold}: {sweeps:?}",
        last.norm
    );
    assert!(
        before.iter().all(|s| s.norm > threshold - 0.5e-6),
        "{what}: went on after a sweep within the threshold {threshold}: {sweeps:?}"
    );
}

/// The "norm of delta: X" values gnubg printed, in order.
pub fn gnubg_norms(out: &Output) -> Vec<f64> {
    String::from_utf8_lossy(&out.stdout)
        .replace('\r', "\n")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("norm of delta:")?.trim().parse().ok())
        .collect()
}

/// Every entry under `dir` (recursively, relative paths) with the contents
/// of regular files (`None` for directories).
pub fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, acc: &mut BTreeMap<String, Option<Vec<u8>>>) {
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
            if entry.file_type().expect("file type").is_dir() {
                acc.insert(rel, None);
                walk(root, &path, acc);
            } else {
                acc.insert(rel, Some(std::fs::read(&path).expect("read file")));
            }
        }
    }
    let mut acc = BTreeMap::new();
    walk(dir, dir, &mut acc);
    acc
}

/// The names in `dir` (not recursive), sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The fields of a record, in file order.
pub const FIELDS: [&str; 9] = [
    "win",
    "win gammon",
    "win backgammon",
    "lose gammon",
    "lose backgammon",
    "equity owned",
    "equity centred",
    "equity centred Jacoby",
    "equity opponent owns",
];

/// The nine values of record `i` of a database, decoded as gnubg reads them
/// (docs/formats.md#hypergammon-records): probabilities `u / 16777215`, equities
/// `(u / 16777215 - 0.5) * 6`.
pub fn record_values(file: &[u8], i: usize) -> [f64; 9] {
    let rec = &file[HEADER_LEN + RECORD_LEN * i..HEADER_LEN + RECORD_LEN * (i + 1)];
    std::array::from_fn(|k| {
        let u = u32::from_le_bytes([rec[3 * k], rec[3 * k + 1], rec[3 * k + 2], 0]);
        let x = f64::from(u) / 16_777_215.0;
        if k < 5 {
            x
        } else {
            (x - 0.5) * 6.0
        }
    })
}

/// Largest difference of each field over all records, and where.
pub struct Comparison {
    pub records: usize,
    pub max: [f64; 9],
    pub worst: [usize; 9],
    pub over: usize,
}

/// Compares two complete `chequers`-chequer databases record by record.
pub fn compare(a: &[u8], b: &[u8], chequers: usize, tolerance: f64) -> Comparison {
    let n = side_positions(chequers);
    assert_eq!(
        a.len(),
        file_size(chequers),
        "first file has the wrong size"
    );
    assert_eq!(
        b.len(),
        file_size(chequers),
        "second file has the wrong size"
    );
    let mut c = Comparison {
        records: n * n,
        max: [0.0; 9],
        worst: [0; 9],
        over: 0,
    };
    for i in 0..n * n {
        let (x, y) = (record_values(a, i), record_values(b, i));
        let mut bad = false;
        for k in 0..9 {
            let d = (x[k] - y[k]).abs();
            if d > c.max[k] {
                c.max[k] = d;
                c.worst[k] = i;
            }
            bad |= d > tolerance;
        }
        c.over += usize::from(bad);
    }
    c
}

/// Asserts every value of every record of `a` is within `tolerance` of `b`
/// and the headers are identical.
pub fn assert_close(a: (&str, &[u8]), b: (&str, &[u8]), chequers: usize, tolerance: f64) {
    let ((an, a), (bn, b)) = (a, b);
    let expected = format!("gnubg-H{chequers}{}\n", "x".repeat(31));
    assert_eq!(
        String::from_utf8_lossy(&a[..HEADER_LEN.min(a.len())]),
        expected,
        "{an}: header"
    );
    assert_eq!(
        String::from_utf8_lossy(&b[..HEADER_LEN.min(b.len())]),
        expected,
        "{bn}: header"
    );
    let c = compare(a, b, chequers, tolerance);
    let n = side_positions(chequers);
    let report: Vec<String> = (0..9)
        .map(|k| {
            let i = c.worst[k];
            format!(
                "  {:<22} max |diff| {:.3e} at record {i} (us {}, them {}): {an} {:.7}, {bn} {:.7}",
                FIELDS[k],
                c.max[k],
                i / n,
                i % n,
                record_values(a, i)[k],
                record_values(b, i)[k]
            )
        })
        .collect();
    assert!(
        c.over == 0,
        "{an} vs {bn}: {} of {} records have a value more than {tolerance:e} apart\n{}",
        c.over,
        c.records,
        report.join("\n")
    );
    eprintln!(
        "{an} vs {bn}: {} records, all within {tolerance:e}\n{}",
        c.records,
        report.join("\n")
    );
}

/// `FILE.tmp` for an output `FILE`.
pub fn ckpt_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}
