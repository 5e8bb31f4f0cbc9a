//! Hostile and careless input to `trainer eval` (docs/guarantees.md): lines
//! that are not UTF-8 or endless, special weights files, SIGBUS.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use test_support::{describe, error_line_problems};

const BIN: &str = env!("CARGO_BIN_EXE_trainer");
const START: &str = "4HPwATDgc/ABMA";

/// `trainer eval` reading stdin, all three streams piped.
fn spawn_eval() -> std::process::Child {
    Command::new(BIN)
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `trainer eval` with `input` on stdin.
fn eval_stdin(input: Vec<u8>) -> std::process::Output {
    let mut child = spawn_eval();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    out
}

/// Case 10: a line that is not UTF-8 is reported and the next IDs are
/// still evaluated.
#[test]
fn a_non_utf8_line_is_reported_and_skipped() {
    let mut input = format!("{START}\n").into_bytes();
    input.extend_from_slice(b"\xff\xfe\n");
    input.extend_from_slice(format!("{START}\n").as_bytes());
    let out = eval_stdin(input);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not UTF-8"), "{err}");
}

/// Case 8: an endless line (as from /dev/zero) is read in bounded memory,
/// reported once, and the stream goes on.
#[test]
fn an_endless_line_is_bounded() {
    let mut input = vec![b'0'; 32 << 20];
    input.extend_from_slice(format!("\n{START}\n").as_bytes());
    let out = eval_stdin(input);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("longer than"), "{err}");
    assert!(err.len() < 300, "{} bytes of error", err.len());
}

/// Case 8: a FIFO or a directory as the weights file is refused at once.
#[test]
fn special_weights_files_are_refused_at_once() {
    let dir = test_support::tempdir("bgkit-trainer-hardening.");
    let fifo = dir.path().join("fifo.wd");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for path in [fifo.as_path(), dir.path()] {
        let start = Instant::now();
        let out = test_support::run_with_timeout(
            {
                let mut cmd = Command::new(BIN);
                cmd.args(["eval", "--weights"]).arg(path).arg(START);
                cmd
            },
            Duration::from_secs(20),
        );
        assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
        let (line, problems) = error_line_problems(&out);
        assert!(problems.is_empty(), "{problems:?}: {line}");
        assert!(line.contains("not a regular file"), "{line}");
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}

/// Case 7: SIGBUS (what reading a mapped file that another process
/// truncated raises) ends the tool with one line and status 2, not a silent
/// crash.
#[test]
fn sigbus_is_reported_on_one_line() {
    let mut child = spawn_eval();
    let stdin = child.stdin.take().unwrap();
    // Wait until the handler is installed (SIGBUS, 7, among the caught
    // signals in /proc), then send the signal.
    let status = format!("/proc/{}/status", child.id());
    test_support::wait_until(
        Duration::from_secs(20),
        "the SIGBUS handler is installed",
        || {
            let text = std::fs::read_to_string(&status).unwrap_or_default();
            let caught = text
                .lines()
                .find_map(|l| l.strip_prefix("SigCgt:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
                .unwrap_or(0);
            caught & (1 << (7 - 1)) != 0
        },
    );
    let killed = Command::new("kill")
        .args(["-BUS", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(
        line.starts_with("trainer: error:") && line.contains("SIGBUS"),
        "{line}"
    );
}

/// Case 16: a missing weights file is named once, its OS error said once.
#[test]
fn a_missing_weights_file_is_reported_once() {
    let out = Command::new(BIN)
        .args(["eval", "--weights", "/nonexistent/missing.wd", START])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(line.matches("missing.wd").count(), 1, "{line}");
    assert_eq!(line.matches("No such file").count(), 1, "{line}");
}
