//! Helpers shared by the makebearoff integration tests.
//!
//! Each test binary uses only some of them.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
    let path = Path::new(GNUBG_MAKEBEAROFF);
    assert!(
        path.is_file(),
        "{GNUBG_MAKEBEAROFF} is missing: these differential tests need gnubg 1.07's \
         makebearoff as the reference; install it with `apt-get install -y gnubg` \
         (CI installs it)"
    );
    Command::new(path)
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("bgkit-makebearoff-test.")
        .tempdir()
        .expect("create a temporary directory")
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    })
}

/// A started process whose stdout and stderr are collected in the background.
pub struct Running {
    pub child: Child,
    what: String,
    out: Option<JoinHandle<Vec<u8>>>,
    err: Option<JoinHandle<Vec<u8>>>,
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
        let out = Some(drain(child.stdout.take()));
        let err = Some(drain(child.stderr.take()));
        Running {
            child,
            what,
            out,
            err,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
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
                panic!(
                    "{} did not finish within {timeout:?}: pick a smaller size for this test",
                    self.what
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Output {
            status,
            stdout: self
                .out
                .take()
                .expect("once")
                .join()
                .expect("stdout reader"),
            stderr: self
                .err
                .take()
                .expect("once")
                .join()
                .expect("stderr reader"),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Never leave a child behind when a test panics.
        if self.out.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `cmd` to completion (bounded by [`RUN_TIMEOUT`]).
pub fn run(cmd: Command) -> Output {
    Running::start(cmd).finish(RUN_TIMEOUT)
}

/// Runs our binary in `dir` with `args`.
pub fn run_ours(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = ours();
    cmd.current_dir(dir).args(args);
    run(cmd)
}

/// Human-readable summary of a finished process for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts the run succeeded.
pub fn assert_success(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} failed\n{}", describe(out));
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
    databases::published::md5_hex(std::io::BufReader::new(file))
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
    // An error chain printed twice ("...: X: X") reads as a glitch.
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
