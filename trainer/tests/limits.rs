//! Values and counts a careless or hostile user may give the training half
//! (docs/guarantees.md): targets and learning rates out of range, absurd
//! counts, huge thread counts, SIGINT during `db generate`.

mod common;

use common::{ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use test_support::{
    assert_one_line_failure, describe, gnubg_file, run_with_timeout, tempdir, wait_until, Running,
};
use trainer::positions::db::{PositionDb, Record, HAS_TARGETS};

const START_KEY: &str = "OAHDPAABDAOAHDPAABDA";

fn evaluator() -> [&'static str; 6] {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    ["--weights", GNUBG_WD, "--bearoff", OS0, "--bearoff", TS0]
}

/// The files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn import_refuses_targets_that_are_not_probabilities() {
    let dir = tempdir("bgkit-limits.");
    let out = dir.path().join("out.db");
    for (targets, needle) in [
        ("1e30 0 0 0 0", "win target 1e30 is not a probability"),
        ("-0.5 0 0 0 0", "win target -0.5"),
        ("0.5 0 0 1.5 0", "lose-gammon target 1.5"),
        (
            "0.3 0.9 0 0 0",
            "win-gammon target 0.9 is more than the win target",
        ),
    ] {
        let dat = dir.path().join("bad.dat");
        std::fs::write(
            &dat,
            format!("# good, then bad\n{START_KEY} 0.5 0.1 0 0.1 0\n{START_KEY} {targets}\n"),
        )
        .unwrap();
        let args = ["db", "import", s(&dat), "-o", s(&out), "--bearoff", OS0];
        assert_one_line_failure(BIN, "trainer", &args, needle);
        assert_one_line_failure(BIN, "trainer", &args, "line 3");
        assert_eq!(files_in(dir.path()), ["bad.dat"], "nothing written");
    }
}

/// A database whose one record's targets are `targets` (as a damaged or
/// hand-made file may hold).
fn db_with_targets(path: &Path, targets: [f32; 5]) {
    let board = board::Board::starting();
    let mut r = Record::new(board.id_bytes(), nets::Class::Contact);
    r.flags = HAS_TARGETS;
    r.targets = targets;
    let db = PositionDb::from(vec![r]);
    db.save(path).unwrap();
}

#[test]
fn train_refuses_absurd_rates_and_targets_before_writing() {
    let dir = tempdir("bgkit-limits.");
    let good = dir.path().join("good.db");
    db_with_targets(&good, [0.5, 0.1, 0.0, 0.1, 0.0]);
    let bad = dir.path().join("bad.db");
    db_with_targets(&bad, [1e30, 0.0, 0.0, 0.0, 0.0]);
    let out = dir.path().join("out.weights");
    let train = |db: &Path, extra: &[&str], needle: &str| {
        let mut args = vec![
            "train",
            "--db",
            s(db),
            "--class",
            "contact",
            "-o",
            s(&out),
            "--epochs",
            "2",
            "-q",
        ];
        args.extend(evaluator());
        args.extend(extra);
        assert_one_line_failure(BIN, "trainer", &args, needle);
        assert_eq!(
            files_in(dir.path()),
            ["bad.db", "good.db"],
            "nothing written"
        );
    };
    train(&good, &["--alpha-start", "1e30"], "--alpha-start 1e30");
    train(&good, &["--alpha-start", "inf"], "--alpha-start inf");
    train(&bad, &[], "record 0 (4HPwATDgc/ABMA): the win target 1e30");
}

/// Starts `args`, lets it run `seconds`, and asserts it was still running
/// (an absurd count did not abort it) with a peak resident memory below
/// 300 MB; then kills it.
fn runs_in_bounded_memory(args: &[&str], seconds: u64) {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    let mut run = Running::start(cmd);
    let until = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < until && run.try_status().is_none() {
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", run.pid()));
    let ended = run.try_status().is_some();
    let _ = Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status();
    let out = run.finish(Duration::from_secs(30));
    assert!(
        !ended,
        "trainer {} ended\n{}",
        args.join(" "),
        describe(&out)
    );
    // Linux says how much memory the process held at its peak.
    if let Some(kb) = status.ok().and_then(|st| {
        st.lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    }) {
        assert!(kb < 300 << 10, "trainer {}: {kb} kB", args.join(" "));
    }
}

#[test]
fn absurd_game_and_trial_counts_run_in_bounded_memory() {
    runs_in_bounded_memory(&["play", "--pubeval", "--games", "1000000000000"], 3);
    let dir = tempdir("bgkit-limits.");
    let td_out = dir.path().join("td.wd");
    let mut td = vec![
        "td",
        "-q",
        "-o",
        s(&td_out),
        "--games",
        "10",
        "--eval-every",
        "10",
        "--eval-games",
        "1000000000000",
    ];
    td.extend(evaluator());
    runs_in_bounded_memory(&td, 3);
    let db = dir.path().join("one.db");
    db_with_targets(&db, [0.0; 5]);
    let mut rollout = vec!["db", "rollout", s(&db), "--trials", "4294967295", "-q"];
    rollout.extend(evaluator());
    runs_in_bounded_memory(&rollout, 3);
}

#[test]
fn absurd_batches_are_refused_before_any_file() {
    let dir = tempdir("bgkit-limits.");
    let out = dir.path().join("td.wd");
    let max = u64::MAX.to_string();
    let mut args = vec![
        "td",
        "-o",
        s(&out),
        "--games",
        &max,
        "--batch-games",
        &max,
        "--eval-every",
        "0",
    ];
    args.extend(evaluator());
    assert_one_line_failure(
        BIN,
        "trainer",
        &args,
        "games per batch 18446744073709551615",
    );
    assert!(files_in(dir.path()).is_empty(), "nothing written");
}

#[test]
fn thousands_of_threads_are_capped() {
    let start = Instant::now();
    let out = run_with_timeout(
        {
            let mut cmd = Command::new(BIN);
            cmd.args(["play", "--pubeval", "--games", "2", "--threads", "10000"]);
            cmd
        },
        Duration::from_secs(120),
    );
    assert!(out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("trainer: note: --threads 10000 is more than 4 per core"),
        "{err}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn sigint_stops_generate_and_keeps_the_games_finished() {
    let dir = tempdir("bgkit-limits.");
    let cut = dir.path().join("cut.db");
    let mut args = vec![
        "db",
        "generate",
        "--games",
        "1000000000",
        "--threshold",
        "0.05",
        "-o",
        s(&cut),
    ];
    args.extend(evaluator());
    let mut cmd = Command::new(BIN);
    cmd.args(&args);
    let run = Running::start(cmd);
    // A progress line (every 10 s without a terminal): games are under way.
    wait_until(Duration::from_secs(120), "a progress line", || {
        run.stderr_so_far().contains("% (")
    });
    let sent = Command::new("kill")
        .args(["-INT", &run.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = run.finish(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped after"), "{err}");
    let provenance: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cut.db.json")).unwrap())
            .unwrap();
    let games = provenance["settings"]["games"].as_u64().unwrap();
    assert!(games > 0 && games < 1_000_000_000, "{provenance}");
    // What was written is what a run of that many games writes.
    let whole = dir.path().join("whole.db");
    let games = games.to_string();
    args[3] = &games;
    let whole_arg = s(&whole).to_owned();
    args[7] = &whole_arg;
    ok(&args);
    assert_eq!(std::fs::read(&cut).unwrap(), std::fs::read(&whole).unwrap());
}
