//! Helpers shared by bgkit's integration tests: child processes bounded in
//! time whose output can be read while they run, failure summaries, and the
//! check that an error is one clean line.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One of gnubg 1.07's tools (e.g. `/usr/games/makebearoff`), the reference
/// of a differential test. A missing reference is a test failure, never a
/// skip.
pub fn gnubg_tool(path: &str) -> Command {
    let tool = std::path::Path::new(path);
    let name = tool
        .file_name()
        .map_or(path.into(), |n| n.to_string_lossy());
    assert!(
        tool.is_file(),
        "{path} is missing: these differential tests need gnubg 1.07's {name} as the \
         reference; install it with `apt-get install -y gnubg` (CI installs it)"
    );
    Command::new(tool)
}

/// A fresh temporary directory whose name starts with `prefix`.
pub fn tempdir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
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
