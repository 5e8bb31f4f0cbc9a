//! `trainer td` end to end: determinism whatever the threads, TD(λ),
//! resuming after kill -9, learning from random weights, damaged
//! checkpoints and bad input.

mod common;

use common::play::{gnubg_weights, play};
use common::{kill_9_when, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;
use test_support::{
    assert_one_line_failure, assert_success, describe, run_with_timeout, tempdir, wait_until,
    Running,
};

fn trainer(args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    run_with_timeout(cmd, Duration::from_secs(600))
}

/// TD from gnubg's weights: short games, so runs take seconds.
fn td_from_gnubg(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["td", "-q", "--weights", gnubg_weights(), "-o", s(out)];
    args.extend_from_slice(extra);
    trainer(&args)
}

#[test]
fn same_seed_and_batch_give_the_same_bytes_whatever_the_threads() {
    let dir = tempdir("bgkit-td.");
    let a = dir.path().join("a.wd");
    let c = dir.path().join("c.wd");
    let common = ["--games", "96", "--batch-games", "8", "--seed", "5"];
    // One thread plays a batch and then trains it; more threads train
    // each game in order as soon as it is played (more threads than
    // cores, too, to vary the interleavings).
    for threads in ["1", "2", "3", "5"] {
        let out = dir.path().join(format!("t{threads}.wd"));
        let mut args = common.to_vec();
        args.extend(["--threads", threads]);
        assert_success(&td_from_gnubg(&out, &args), "td");
        if threads == "1" {
            std::fs::copy(&out, &a).unwrap();
        }
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&out).unwrap(),
            "{threads} threads changed the weights"
        );
    }
    let wa = std::fs::read(&a).unwrap();
    assert_ne!(wa, std::fs::read(GNUBG_WD).unwrap(), "nothing was trained");
    let mut args = common.to_vec();
    args[5] = "6";
    assert_success(&td_from_gnubg(&c, &args), "td, another seed");
    assert_ne!(wa, std::fs::read(&c).unwrap(), "the seed changed nothing");
    // Provenance beside the weights.
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("t1.wd.json")).unwrap())
            .unwrap();
    assert_eq!(p["games"], 96);
    assert_eq!(p["seed"], 5);
    assert!(p["n_trained"]["contact"].as_u64().unwrap() > 96 * 10);
    assert_eq!(p["parent"]["md5"].as_str().unwrap().len(), 32);
    assert!(
        !dir.path().join("t1.wd.ckpt").exists(),
        "checkpoint removed at the end"
    );
}

#[test]
fn sequential_td_is_deterministic() {
    let dir = tempdir("bgkit-td.");
    let a = dir.path().join("a.weights");
    let b = dir.path().join("b.weights");
    for out in [&a, &b] {
        assert_success(&td_from_gnubg(out, &["--games", "30", "--seed", "2"]), "td");
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn td_lambda_is_deterministic_and_differs_from_td0() {
    let dir = tempdir("bgkit-td.");
    let runs: Vec<Vec<u8>> = [("l1", "0.7"), ("l2", "0.7"), ("l0", "0")]
        .iter()
        .map(|(name, lambda)| {
            let out = dir.path().join(format!("{name}.wd"));
            let args = ["--games", "48", "--batch-games", "8", "--lambda", lambda];
            assert_success(&td_from_gnubg(&out, &args), "td lambda");
            std::fs::read(&out).unwrap()
        })
        .collect();
    assert_eq!(runs[0], runs[1], "TD(λ) is not deterministic");
    assert_ne!(runs[0], runs[2], "λ = 0.7 trained the same as λ = 0");
}

#[test]
fn kill_9_then_resume_gives_identical_weights() {
    let dir = tempdir("bgkit-td.");
    let whole = dir.path().join("whole.wd");
    let cut = dir.path().join("cut.wd");
    let settings = [
        "--games",
        "3000",
        "--batch-games",
        "8",
        "--checkpoint-every",
        "16",
        "--eval-every",
        "1000",
        "--eval-games",
        "20",
        "--seed",
        "9",
    ];
    assert_success(&td_from_gnubg(&whole, &settings), "uninterrupted td");
    let mut cmd = Command::new(BIN);
    cmd.args(["td", "-q", "--weights", gnubg_weights(), "-o", s(&cut)])
        .args(settings);
    let mut run = Running::start(cmd);
    let ckpt = dir.path().join("cut.wd.ckpt");
    wait_until(Duration::from_secs(300), "a checkpoint exists", || {
        ckpt.exists() || run.try_status().is_some()
    });
    // Let it write a few more checkpoints.
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = run.finish(Duration::from_secs(30));
    assert!(
        !out.status.success(),
        "the run ended before it was killed; make it longer\n{}",
        describe(&out)
    );
    assert!(!cut.exists(), "no output before the end");
    let mut resume = settings.to_vec();
    resume.push("--resume");
    assert_success(&td_from_gnubg(&cut, &resume), "resumed td");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&cut).unwrap(),
        "resumed weights differ from an uninterrupted run"
    );
    let curve = |p: &str| {
        let text = std::fs::read_to_string(dir.path().join(p)).unwrap();
        // games, alpha, win rate, ppg, ci: all but the wall-clock speed.
        text.lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(curve("whole.wd.curve.csv"), curve("cut.wd.curve.csv"));
    assert_eq!(
        curve("whole.wd.curve.csv").len(),
        1 + 4,
        "points at 0, 1000, 2000, 3000"
    );
}

#[test]
fn td_from_new_weights_beats_its_random_start() {
    let dir = tempdir("bgkit-td.");
    let start = dir.path().join("start.wd");
    let trained = dir.path().join("trained.wd");
    ok(&["new", "-o", s(&start), "--seed", "11"]);
    let info = ok(&["weights", "info", s(&start)]);
    assert!(info.contains("contact             250    128"), "{info}");
    // From random weights: α 1 and TD(0.7) (docs/trainer.md explains why).
    let td = [
        "td",
        "-q",
        "--weights",
        s(&start),
        "-o",
        s(&trained),
        "--games",
        "3000",
        "--batch-games",
        "20",
        "--alpha",
        "1",
        "--lambda",
        "0.7",
        "--seed",
        "4",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    ok(&td);
    let (ppg, ci, v) = play(&[
        "--weights",
        s(&trained),
        "--vs",
        s(&start),
        "--games",
        "500",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ]);
    assert!(ppg - ci > 0.5, "3,000 TD games vs the random start: {v}");
}

#[test]
fn bad_input_is_one_line_and_leaves_files_alone() {
    let dir = tempdir("bgkit-td-bad.");
    let out = dir.path().join("out.wd");
    let o = s(&out);
    let corrupt = dir.path().join("corrupt.wd");
    std::fs::write(&corrupt, b"GNU Backgammon 1.00\n250 128 5 0 0.1 1\n0.5\n").unwrap();
    let w = gnubg_weights();
    let td = |extra: &[&str], needle: &str| {
        let mut args = vec!["td", "-o", o];
        args.extend_from_slice(extra);
        assert_one_line_failure(BIN, "trainer", &args, needle);
    };
    td(
        &["--weights", "/nonexistent.wd", "--games", "5"],
        "/nonexistent.wd",
    );
    td(&["--weights", s(&corrupt), "--games", "5"], "corrupt.wd");
    td(
        &["--weights", w, "--games", "0"],
        "games must be at least 1",
    );
    td(&["--weights", w, "--games", "5", "--alpha", "0"], "α 0:");
    td(
        &["--weights", w, "--games", "5", "--alpha", "1.5"],
        "α 1.5:",
    );
    td(&["--weights", w, "--games", "5", "--lambda", "2"], "λ 2:");
    td(
        &["--weights", w, "--games", "5", "--lambda", "-0.5"],
        "λ -0.5:",
    );
    td(&["--weights", w, "--games", "5", "--resume"], "checkpoint");
    assert_one_line_failure(
        BIN,
        "trainer",
        &[
            "td",
            "--weights",
            w,
            "--games",
            "5",
            "-o",
            "/nonexistent/dir/out.wd",
        ],
        "/nonexistent/dir",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["new", "-o", o, "--hidden", "30"],
        "multiple of 4",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["play", "--weights", w, "--games", "7"],
        "even",
    );
    assert!(!out.exists(), "a failed run wrote its output");
    // A checkpoint from other settings is refused and kept.
    let ckpt = dir.path().join("out.wd.ckpt");
    kill_9_after_a_checkpoint(w, o, &ckpt);
    let before = std::fs::read(&ckpt).unwrap();
    td(
        &[
            "--weights",
            w,
            "--games",
            "4000",
            "--batch-games",
            "4",
            "--alpha",
            "0.2",
            "--resume",
        ],
        "learning rate α 0.1, now 0.2",
    );
    td(
        &["--weights", w, "--games", "4000", "--batch-games", "4"],
        "--resume",
    );
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        before,
        "the checkpoint was changed"
    );
    assert!(!out.exists());
}

/// The settings of the TD runs [`kill_9_after_a_checkpoint`] kills.
const KILLED_TD: [&str; 4] = ["--games", "4000", "--batch-games", "4"];

/// Starts `td --weights w -o out` with [`KILLED_TD`], checkpointing every 4
/// games, and kills it with -9 once `ckpt` exists.
fn kill_9_after_a_checkpoint(w: &str, out: &str, ckpt: &Path) {
    let mut cmd = Command::new(BIN);
    cmd.args(["td", "-q", "--weights", w, "-o", out])
        .args(["--checkpoint-every", "4"])
        .args(KILLED_TD);
    let run = Running::start(cmd);
    wait_until(Duration::from_secs(120), "a checkpoint", || ckpt.exists());
    Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status()
        .unwrap();
    let _ = run.finish(Duration::from_secs(30));
}

/// A TD checkpoint carries a checksum and the
/// evaluator's arithmetic and bearoff databases. A flipped bit in the
/// weights, an edited game count, a checkpoint of an older format, another
/// arithmetic or other bearoff databases are refused (the checkpoint
/// kept), never resumed from.
#[test]
fn damaged_checkpoints_and_other_evaluators_are_refused() {
    let dir = tempdir("bgkit-td-ckpt.");
    let out = dir.path().join("out.wd");
    let ckpt = dir.path().join("out.wd.ckpt");
    let w = gnubg_weights();
    let settings = KILLED_TD;
    kill_9_after_a_checkpoint(w, s(&out), &ckpt);
    let good = std::fs::read(&ckpt).unwrap();
    let resume = |extra: &[&str], needle: &str| {
        let mut args = vec!["td", "-q", "--weights", w, "-o", s(&out), "--resume"];
        args.extend(settings);
        args.extend(extra);
        assert_one_line_failure(BIN, "trainer", &args, needle);
    };
    resume(&["--ieee"], "arithmetic gnubg-fastmath, now ieee");
    resume(&["--bearoff", OS0], "bearoff");
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        good,
        "the checkpoint changed"
    );
    let mut flipped = good.clone();
    flipped[good.len() - 1000] ^= 0x10;
    let games = br#""games":"#;
    let at = games.len() + good.windows(games.len()).position(|w| w == games).unwrap();
    let mut edited = good.clone();
    edited[at] = if good[at] == b'1' { b'2' } else { b'1' };
    // What the trainer wrote before checkpoints were support checkpoints.
    let old = [&b"bgkit td checkpoint 2\n"[..], &good].concat();
    assert!(good.starts_with(b"bgkit-ckpt-v1\n"));
    for (bytes, needle) in [
        (flipped, "checksum"),
        (edited, "checksum"),
        (old, "another version of the trainer"),
    ] {
        std::fs::write(&ckpt, &bytes).unwrap();
        resume(&[], needle);
        assert_eq!(std::fs::read(&ckpt).unwrap(), bytes);
    }
    assert!(!out.exists());
}

/// `--pipeline` plays each batch against the weights from before the
/// previous batch trained: another run than without it, but the same bytes
/// on one thread and two, and after kill -9 and `--resume` (its checkpoint
/// keeps the weights that play the next batch).
#[test]
fn pipelined_td_keeps_its_bytes_on_any_threads_and_after_kill_9() {
    let dir = tempdir("bgkit-td-pipe.");
    let path = |name: &str| dir.path().join(name);
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec!["--games", "96", "--batch-games", "8", "--seed", "5"];
        args.extend_from_slice(extra);
        assert_success(&td_from_gnubg(&path(name), &args), name);
        std::fs::read(path(name)).unwrap()
    };
    let one = run("one.wd", &["--pipeline", "--threads", "1"]);
    let two = run("two.wd", &["--pipeline", "--threads", "2"]);
    let plain = run("plain.wd", &["--threads", "2"]);
    assert_eq!(one, two, "threads changed the pipelined weights");
    assert_ne!(one, plain, "pipelining changed nothing");
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("one.wd.json")).unwrap()).unwrap();
    assert_eq!(p["settings"]["pipeline"], true, "{p}");

    let settings = [
        "--games",
        "3000",
        "--batch-games",
        "8",
        "--pipeline",
        "--checkpoint-every",
        "16",
        "--seed",
        "9",
    ];
    let whole = path("whole.wd");
    assert_success(&td_from_gnubg(&whole, &settings), "uninterrupted td");
    let cut = path("cut.wd");
    let mut cmd = Command::new(BIN);
    cmd.args(["td", "-q", "--weights", gnubg_weights(), "-o", s(&cut)])
        .args(settings);
    let ckpt = path("cut.wd.ckpt");
    kill_9_when(
        cmd,
        "a checkpoint exists",
        || ckpt.exists(),
        Duration::from_millis(300),
    );
    let mut resume = settings.to_vec();
    resume.push("--resume");
    // Resuming without --pipeline is refused by name, the checkpoint kept.
    let saved = std::fs::read(&ckpt).unwrap();
    let mut args = vec!["td", "-q", "--weights", gnubg_weights(), "-o", s(&cut)];
    args.extend(resume.iter().filter(|a| **a != "--pipeline"));
    assert_one_line_failure(BIN, "trainer", &args, "pipelining on, now off");
    assert_eq!(std::fs::read(&ckpt).unwrap(), saved);
    assert_success(&td_from_gnubg(&cut, &resume), "resumed td");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&cut).unwrap(),
        "resumed pipelined weights differ from an uninterrupted run"
    );
}

#[test]
fn pipelining_needs_batches() {
    let dir = tempdir("bgkit-td-pipe.");
    let out = dir.path().join("out.wd");
    let args = [
        "td",
        "-q",
        "--weights",
        gnubg_weights(),
        "-o",
        s(&out),
        "--games",
        "8",
        "--pipeline",
    ];
    assert_one_line_failure(BIN, "trainer", &args, "--batch-games");
    assert!(!out.exists());
}
