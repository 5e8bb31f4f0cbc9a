//! Helpers shared by bgkit's integration tests: child processes bounded in
//! time whose output can be read while they run, failure summaries, and the
//! check that an error is one clean line.
#![deny(missing_docs)]

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

/// Debian's one-sided database (package gnubg-data).
pub const GNUBG_OS0: &str = "/usr/share/gnubg/gnubg_os0.bd";
/// The two-sided database Debian's post-install step makes (`makebearoff -t 6x6`).
pub const GNUBG_TS0: &str = "/var/lib/gnubg/gnubg_ts0.bd";
/// gnubg's bearoff database generator.
pub const GNUBG_MAKEBEAROFF: &str = "/usr/games/makebearoff";
/// gnubg's Hypergammon generator.
pub const GNUBG_MAKEHYPER: &str = "/usr/games/makehyper";
/// gnubg's record dumper.
pub const GNUBG_BEAROFFDUMP: &str = "/usr/games/bearoffdump";

/// A file installed by gnubg; a missing one fails the test, never skips it.
pub fn gnubg_file(path: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(path);
    assert!(
        p.is_file(),
        "{path} is missing: this test reads gnubg 1.07's own files and tools as the \
         reference; install them with `apt-get install -y gnubg` (CI installs it)"
    );
    p.to_path_buf()
}

/// Runs a gnubg tool and returns its standard output.
pub fn run_gnubg(tool: &str, args: &[&str]) -> String {
    let out = gnubg_tool(tool)
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
pub fn gnubg_makebearoff(dir: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut all = args.to_vec();
    all.extend(["-f", path_str(&path)]);
    run_gnubg(GNUBG_MAKEBEAROFF, &all);
    path
}

/// Makes a Hypergammon database with gnubg's makehyper in `dir`. (makehyper
/// overflows a buffer on long output paths, so it runs inside `dir` with a
/// short relative name.)
pub fn gnubg_makehyper(dir: &std::path::Path, chequers: u8) -> std::path::PathBuf {
    let name = format!("h{chequers}.bd");
    let out = gnubg_tool(GNUBG_MAKEHYPER)
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

/// `path` as a `&str`.
pub fn path_str(path: &std::path::Path) -> &str {
    path.to_str().expect("UTF-8 path")
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
    /// The child process.
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

/// Runs `bin` with `args` (10 minutes at most), asserts it succeeded and
/// returns its standard output; `tool` names it in the failure message.
pub fn run_ok(bin: &str, tool: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(bin);
    cmd.args(args);
    let out = run_with_timeout(cmd, Duration::from_secs(600));
    assert_success(&out, &format!("{tool} {}", args.join(" ")));
    String::from_utf8(out.stdout).expect("UTF-8 output")
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

/// Exit status every bgkit tool gives bad arguments and unusable input.
pub const ERROR_STATUS: i32 = 2;

/// Runs the tool `bin` (named `tool` in its messages) with `args` and
/// asserts what every bgkit tool does on bad arguments or unusable input:
/// exit status 2, nothing on stdout, and exactly one line on stderr of the
/// form `TOOL: error: …` containing `needle`.
pub fn assert_one_line_failure(bin: &str, tool: &str, args: &[&str], needle: &str) {
    let out = run_with_timeout(
        {
            let mut cmd = Command::new(bin);
            cmd.args(args);
            cmd
        },
        Duration::from_secs(60),
    );
    let what = format!("{tool} {}", args.join(" "));
    assert_eq!(
        out.status.code(),
        Some(ERROR_STATUS),
        "{what}: exit status\n{}",
        describe(&out)
    );
    assert!(out.stdout.is_empty(), "{what}: stdout\n{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(
        problems.is_empty(),
        "{what}: {problems:?}\n{}",
        describe(&out)
    );
    assert!(
        line.starts_with(&format!("{tool}: error: ")),
        "{what}: {line}"
    );
    assert!(line.contains(needle), "{what}: {line:?} lacks {needle:?}");
}

/// Polls `done` every 5 ms until it is true; fails the test (naming
/// `what`) after `timeout`.
pub fn wait_until(timeout: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The write end of a pipe whose read end is already closed, so that every
/// write to it fails with EPIPE: a reader that went away (`… | head`). A
/// FIFO in a temporary directory: its read end is opened without blocking,
/// the write end opened, then the read end closed.
pub fn pipe_without_reader() -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempdir("bgkit-pipe.");
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", fifo.display());
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .expect("open the FIFO's read end");
    let writer = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("open the FIFO's write end");
    drop(reader);
    writer
}
