//! Helpers shared by the makehyper integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
    let path = Path::new(GNUBG_MAKEHYPER);
    assert!(
        path.is_file(),
        "{GNUBG_MAKEHYPER} is missing: these differential tests need gnubg 1.07's \
         makehyper as the reference; install it with `apt-get install -y gnubg` \
         (CI installs it)"
    );
    Command::new(path)
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("bgkit-makehyper-test.")
        .tempdir()
        .expect("create a temporary directory")
}

/// Collects a pipe into a shared buffer that can be read while the process runs.
fn drain(pipe: Option<impl Read + Send + 'static>, buf: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        if let Some(mut p) = pipe {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = p.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        }
    })
}

/// A started process whose stdout and stderr are collected in the background.
pub struct Running {
    pub child: Child,
    what: String,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Option<[JoinHandle<()>; 2]>,
}

impl Running {
    /// Starts `cmd` with piped stdout/stderr and no stdin.
    pub fn start(mut cmd: Command) -> Running {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let readers = Some([
            drain(child.stdout.take(), Arc::clone(&stdout)),
            drain(child.stderr.take(), Arc::clone(&stderr)),
        ]);
        Running {
            child,
            what,
            stdout,
            stderr,
            readers,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the process has written to stderr so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Exit status if the process has ended.
    pub fn try_status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("wait for child")
    }

    /// Waits (at most `timeout`, then kills it and panics) and collects the output.
    pub fn finish(mut self, timeout: Duration) -> Output {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.try_status() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} did not finish within {timeout:?}", self.what);
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        for r in self.readers.take().expect("once") {
            r.join().expect("pipe reader");
        }
        Output {
            status,
            stdout: std::mem::take(&mut *self.stdout.lock().unwrap()),
            stderr: std::mem::take(&mut *self.stderr.lock().unwrap()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Never leave a child behind when a test panics.
        if self.readers.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `cmd` to completion (bounded by `timeout`).
pub fn run_with_timeout(cmd: Command, timeout: Duration) -> Output {
    Running::start(cmd).finish(timeout)
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

/// Human-readable summary of a finished process for assertion messages
/// (long outputs are cut to their last lines).
pub fn describe(out: &Output) -> String {
    let tail = |b: &[u8]| {
        let s = String::from_utf8_lossy(b).replace('\r', "\n");
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    format!(
        "status: {:?}\n--- stdout (end) ---\n{}\n--- stderr (end) ---\n{}",
        out.status,
        tail(&out.stdout),
        tail(&out.stderr)
    )
}

/// Asserts the run succeeded.
pub fn assert_success(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} failed\n{}", describe(out));
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

/// Problems with the stderr of a failed run, which must be exactly one
/// non-empty line that is a message (not a panic) and does not repeat itself.
/// Returns the line (or all of stderr) and the problems found.
pub fn error_line_problems(out: &Output) -> (String, Vec<String>) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().collect();
    let mut problems = Vec::new();
    if lines.len() != 1 || lines[0].trim().is_empty() {
        problems.push(format!(
            "expected exactly one non-empty line on stderr, got {}",
            lines.len()
        ));
    }
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        if stderr.contains(bad) {
            problems.push(format!("stderr contains {bad:?}: a panic, not a message"));
        }
    }
    for line in &lines {
        let parts: Vec<&str> = line.split(": ").collect();
        for pair in parts.windows(2) {
            if pair[0] == pair[1] {
                problems.push(format!("the error message repeats {:?}", pair[0]));
            }
        }
    }
    let line = if lines.len() == 1 {
        lines[0].to_owned()
    } else {
        stderr
    };
    (line, problems)
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
/// (bearoff-formats.md §6): probabilities `u / 16777215`, equities
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
