//! `trainer play --engine/--vs-engine` trusts an external engine no more
//! than any input: an engine that crashes, hangs, answers garbage or an
//! illegal move, closes its pipe or fails its handshake ends the match
//! with one line naming the engine, the position, the dice and the reply,
//! exit 2 and no result; its children never outlive `trainer`.

mod common;

use common::{s, BIN};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::{describe, tempdir, wait_until, Running};

/// A fake engine: a Python script that shakes hands (unless `hello` is
/// false) and then answers each move request with `reply(position, d0,
/// d1)` (a Python expression; `None` ends the script).
fn fake(dir: &Path, name: &str, hello: &str, reply: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        r#"#!/usr/bin/env python3
import sys, time, os
def out(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
line = sys.stdin.readline()
{hello}
for line in sys.stdin:
    w = line.split()
    if w[0] == "quit":
        break
    position, d0, d1 = w[1], w[2], w[3]
    r = {reply}
    if r is None:
        break
    out(r)
"#
    );
    std::fs::write(&path, script).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path
}

const HELLO: &str = r#"out("ready fake engine 1")"#;

/// Runs `trainer play` against `engine` and checks the one-line failure.
fn assert_engine_failure(dir: &Path, engine: &Path, needles: &[&str]) {
    let log = dir.join("engines.log");
    let out = Command::new(BIN)
        .args([
            "play",
            "--vs-engine",
            s(engine),
            "--pubeval",
            "--games",
            "4",
            "--threads",
            "2",
            "--engine-timeout",
            "2",
            "--engine-log",
            s(&log),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        out.stdout.is_empty(),
        "a result was shown: {}",
        describe(&out)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let line = lines[0];
    assert!(line.starts_with("trainer: error: engine `"), "{line}");
    assert!(line.contains(s(engine)), "{line}");
    assert!(line.contains(s(&log)), "the log is not named: {line}");
    for needle in needles {
        assert!(line.contains(needle), "{line:?} lacks {needle:?}");
    }
}

#[test]
fn engines_that_misbehave_end_the_match_with_one_line() {
    let dir = tempdir("bgkit-duel.");
    let d = dir.path();
    let cases: [(&str, &str, &str, &[&str]); 7] = [
        (
            "crash",
            HELLO,
            r#"os._exit(3)"#,
            &["ended (exit status: 3) at position ", " dice "],
        ),
        (
            "hang",
            HELLO,
            r#"time.sleep(30)"#,
            &["did not answer within 2s at position "],
        ),
        (
            "garbage",
            HELLO,
            r#""hello""#,
            &["answered garbage at position ", "reply \"hello\""],
        ),
        (
            "illegal",
            HELLO,
            r#""move " + position"#,
            &["answered an illegal move at position ", "reply \"move "],
        ),
        (
            "notid",
            HELLO,
            r#""move 12345""#,
            &["answered no Position ID", "reply \"move 12345\""],
        ),
        (
            "closes",
            HELLO,
            r#"(sys.stdout.close(), os.close(1), time.sleep(10))[2]"#,
            &["closed its output at position "],
        ),
        (
            "handshake",
            r#"out("hi there")"#,
            r#"None"#,
            &["answered the handshake wrongly", "reply \"hi there\""],
        ),
    ];
    for (name, hello, reply, needles) in cases {
        let engine = fake(d, name, hello, reply);
        assert_engine_failure(d, &engine, needles);
    }
    // An engine that reports an error, and one that cannot start.
    let erring = fake(d, "erring", HELLO, r#""error no idea""#);
    assert_engine_failure(
        d,
        &erring,
        &["reported an error", "reply \"error no idea\""],
    );
    let out = Command::new(BIN)
        .args([
            "play",
            "--pubeval",
            "--vs-engine",
            "/nonexistent/engine --x",
            "--games",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("trainer: error: engine `/nonexistent/engine --x`: cannot start")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
}

/// The pids of processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|p| {
            let pid: u32 = p.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(p.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(marker)
                .then_some(pid)
        })
        .collect()
}

#[test]
fn engines_never_outlive_trainer() {
    let dir = tempdir("bgkit-duel.");
    // A slow engine, named uniquely so that its processes can be found.
    let engine = fake(
        dir.path(),
        "slow-engine-for-reaping",
        HELLO,
        r#"time.sleep(30)"#,
    );
    for signal in ["-TERM", "-INT", "-KILL"] {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "play",
            "--pubeval",
            "--vs-engine",
            s(&engine),
            "--games",
            "40",
            "--threads",
            "4",
            "--engine-timeout",
            "60",
            "--engine-log",
            s(&dir.path().join("log")),
        ]);
        let run = Running::start(cmd);
        let marker = s(&engine).to_owned();
        wait_until(Duration::from_secs(60), "the engines", || {
            !processes_with(&marker).is_empty()
        });
        Command::new("kill")
            .args([signal, &run.pid().to_string()])
            .status()
            .unwrap();
        let out = run.finish(Duration::from_secs(60));
        assert!(!out.status.success(), "{signal}: {}", describe(&out));
        wait_until(Duration::from_secs(10), "the engines to end", || {
            processes_with(&marker).is_empty()
        });
    }
}
