//! Interrupting a run (SIGKILL, SIGTERM, SIGINT) and resuming it from its
//! checkpoint, plus the guards around `--resume`.
//!
//! The size, 6 points × 8 chequers, takes a few seconds in the test profile
//! and has a published MD5, so a resumed file is checked against gnubg's
//! checksum.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const SIZE: &str = "6x8";

fn args() -> Vec<&'static str> {
    // Two threads keep the run time about the same on any machine.
    vec![
        "-t",
        SIZE,
        "-f",
        "X",
        "--checkpoint-every",
        "0.2",
        "--threads",
        "2",
    ]
}

fn expected_md5() -> &'static str {
    published_two_sided(6, 8)
}

/// A checkpoint larger than this holds completed work, not just its header
/// (magic, length and a fingerprint of at most 4 KiB).
const PAST_HEADER: u64 = 64 * 1024;

/// Starts `makebearoff args` in `dir` and waits until `X.ckpt` holds some
/// completed work. Panics if the run ends first.
fn start_and_wait_for_checkpoint(dir: &Path, args: &[&str]) -> Running {
    let mut cmd = ours();
    cmd.current_dir(dir).args(args);
    let mut running = Running::start(cmd);
    let ckpt = dir.join("X.ckpt");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if file_len(&ckpt).is_some_and(|n| n > PAST_HEADER) {
            break;
        }
        if let Some(status) = running.try_status() {
            let out = running.finish(Duration::from_secs(1));
            panic!(
                "makebearoff {} ended ({status}) before its checkpoint grew past the header: \
                 use a bigger size for this test\n{}",
                args.join(" "),
                describe(&out)
            );
        }
        assert!(
            Instant::now() < deadline,
            "no checkpoint progress within a minute"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        running.try_status().is_none(),
        "the run finished before it could be interrupted: use a bigger size"
    );
    running
}

/// Sends `signal` (e.g. "TERM") to `pid` with kill(1).
fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Interrupts a run with `signal` once it has checkpointed; asserts the
/// graceful exit (130) and that only the checkpoint is left.
fn interrupt_gracefully(dir: &Path, signal: &str) {
    let running = start_and_wait_for_checkpoint(dir, &args());
    send_signal(running.pid(), signal);
    let out = running.finish(Duration::from_secs(60));
    assert_eq!(
        out.status.code(),
        Some(130),
        "SIG{signal} should stop the run with exit status 130\n{}",
        describe(&out)
    );
    let left: Vec<String> = listing(dir).into_iter().collect();
    assert_eq!(
        left,
        ["X.ckpt"],
        "after SIG{signal} only the checkpoint may remain\n{}",
        describe(&out)
    );
    assert!(
        file_len(&dir.join("X.ckpt")).unwrap() > PAST_HEADER,
        "the checkpoint lost its work"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--resume"),
        "the interruption message does not say how to continue\n{}",
        describe(&out)
    );
}

/// Resumes in `dir` and checks the result: success, units really reused,
/// checkpoint gone, published MD5.
fn resume_and_check(dir: &Path) {
    let out = run_ours(dir, &[&args()[..], &["--resume"]].concat());
    assert_success(&out, "makebearoff --resume");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let resumed: Option<u64> = stderr
        .split("resumed ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    assert!(
        resumed.is_some_and(|n| n > 0),
        "the resumed run did not reuse any checkpointed work\n{}",
        describe(&out)
    );
    assert!(
        !dir.join("X.ckpt").exists(),
        "the checkpoint was not removed after a successful resume"
    );
    assert_eq!(
        md5_file(&dir.join("X")),
        expected_md5(),
        "resumed -t {SIZE} differs from gnubg's published database"
    );
    // Nothing else may be left, not even a temporary file of the killed run.
    assert_eq!(
        listing(dir).into_iter().collect::<Vec<_>>(),
        ["X"],
        "files left behind after a successful resume"
    );
}

#[test]
fn sigkill_mid_run_then_resume_gives_published_md5() {
    let dir = tempdir();
    let d = dir.path();
    let mut running = start_and_wait_for_checkpoint(d, &args());
    running.child.kill().expect("SIGKILL"); // SIGKILL: no chance to clean up
    let out = running.finish(Duration::from_secs(30));
    assert!(
        out.status.code().is_none(),
        "expected death by SIGKILL\n{}",
        describe(&out)
    );
    assert!(!d.join("X").exists(), "X exists after the run was killed");
    assert!(d.join("X.ckpt").exists(), "no checkpoint after the kill");
    resume_and_check(d);
}

#[test]
fn sigterm_mid_run_checkpoints_then_resume_gives_published_md5() {
    let dir = tempdir();
    interrupt_gracefully(dir.path(), "TERM");
    resume_and_check(dir.path());
}

#[test]
fn existing_checkpoint_without_resume_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    interrupt_gracefully(d, "INT");
    let before = std::fs::read(d.join("X.ckpt")).unwrap();
    let out = run_ours(d, &args());
    assert!(
        !out.status.success(),
        "a run over an existing checkpoint must be refused\n{}",
        describe(&out)
    );
    let line = assert_one_line_error(&out, "run without --resume over X.ckpt");
    assert!(
        line.contains("--resume"),
        "the error does not mention --resume: {line}"
    );
    assert_eq!(
        std::fs::read(d.join("X.ckpt")).unwrap(),
        before,
        "the checkpoint was modified"
    );
    assert_eq!(listing(d).into_iter().collect::<Vec<_>>(), ["X.ckpt"]);
}

#[test]
fn resume_with_different_options_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    interrupt_gracefully(d, "TERM");
    let before = std::fs::read(d.join("X.ckpt")).unwrap();
    for other in [
        &["-t", SIZE, "-C"][..],
        &["-t", "6x7"],
        &["-t", SIZE, "-H"],
        &["-o", "6"],
    ] {
        let args = [other, &["-f", "X", "--resume"]].concat();
        let what = format!("makebearoff {}", args.join(" "));
        let out = run_ours(d, &args);
        assert!(
            !out.status.success(),
            "{what}: resuming another configuration's checkpoint must fail\n{}",
            describe(&out)
        );
        let line = assert_one_line_error(&out, &what);
        assert!(
            line.contains("different options"),
            "{what}: the error does not say the options differ: {line}"
        );
        assert_eq!(
            std::fs::read(d.join("X.ckpt")).unwrap(),
            before,
            "{what}: the checkpoint was modified"
        );
        assert_eq!(
            listing(d).into_iter().collect::<Vec<_>>(),
            ["X.ckpt"],
            "{what}: files created or removed"
        );
    }
}
