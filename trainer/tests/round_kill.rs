//! `trainer round` killed with -9 (with every stage it runs) at random
//! moments, then run again, ends with every file byte-identical to a round
//! run through, records and provenance included, and no temporary or lock
//! file left.

mod common;

use common::{s, BIN, GNUBG_WD};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use test_support::{describe, gnubg_file, tempdir, Running};

/// A tiny round's plan (every kind of stage, about 3 s to run).
fn write_plan(dir: &Path) -> std::path::PathBuf {
    gnubg_file(GNUBG_WD);
    let plan = serde_json::json!({
        "player": GNUBG_WD, "teacher": GNUBG_WD,
        "games": 6, "crashed_games": 4, "explore": 0.1, "seed": 3,
        "held": "held.db", "holdout": 0.15, "plies": 1, "prune": true,
        "start": "start.wd", "hidden": 8,
        "train": {"epochs": 2, "alpha_start": 1.0, "alpha_low": 0.1},
        "crashed_from_contact": true, "prune_games": 3,
        "prune_train": {"epochs": 2, "schedule": "gnubg", "alpha_start": 1.0, "alpha_low": 0.1},
        "opponent": "start.wd", "match_games": 4, "threads": 1
    });
    let path = dir.join("plan.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    path
}

/// Every file in `dir` (hidden ones too) with its bytes, sorted.
fn all_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Runs the round to its end, which must succeed.
fn finish(plan: &Path) {
    let out = Command::new(BIN).args(["round", s(plan)]).output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
}

/// `trainer train` (run alone, as by hand) removes the temporaries of its
/// Pareto saves (`.OUT.save.E-M.XXXXXX.tmp`) that a killed run left.
fn train_removes_the_pareto_temporaries_a_killed_run_left(round: &Path) {
    let dir = tempdir("bgkit-round-kill.");
    let out = dir.path().join("x.wd");
    let stale = dir.path().join(".x.wd.save.1234-567.AbC123.tmp");
    std::fs::write(&stale, b"half a net").unwrap();
    common::ok(&[
        "train",
        "--db",
        s(&round.join("train.db")),
        "--class",
        "contact",
        "--weights",
        s(&round.join("start.wd")),
        "-o",
        s(&out),
        "--epochs",
        "1",
        "--alpha-start",
        "1",
        "--alpha-low",
        "0.5",
        "-q",
    ]);
    assert!(!stale.exists(), "{} was left", stale.display());
}

/// A deterministic stream of delays below `max` (xorshift64).
struct Delays(u64);

impl Delays {
    fn next(&mut self, max: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        max.mul_f64((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

#[test]
fn a_round_killed_at_random_moments_and_rerun_ends_with_the_same_files() {
    let whole = tempdir("bgkit-round-kill.");
    let plan = write_plan(whole.path());
    let started = Instant::now();
    finish(&plan);
    let took = started.elapsed();
    let expected = all_files(whole.path());
    assert!(
        expected.iter().all(|(name, _)| !name.starts_with('.')),
        "a round run through left {:?}",
        expected.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    train_removes_the_pareto_temporaries_a_killed_run_left(whole.path());
    let mut delays = Delays(0x9E37_79B9_7F4A_7C15);
    let mut kills = 0;
    let mut history = Vec::new();
    // Rounds each killed up to 4 times at random moments within half a
    // whole round's time (a rerun finds part of the work done), until 20
    // kills have landed.
    while kills < 20 {
        assert!(history.len() < 200, "too few kills landed: {history:?}");
        let cut = tempdir("bgkit-round-kill.");
        let plan = write_plan(cut.path());
        for _ in 0..4 {
            use std::os::unix::process::CommandExt;
            let delay = delays.next(took / 2);
            let mut cmd = Command::new(BIN);
            cmd.args(["round", s(&plan)]).process_group(0);
            let mut run = Running::start(cmd);
            std::thread::sleep(delay);
            let killed = run.try_status().is_none();
            if killed {
                kills += 1;
                Command::new("kill")
                    .args(["-9", "--", &format!("-{}", run.pid())])
                    .status()
                    .unwrap();
            }
            let out = run.finish(Duration::from_secs(60));
            history.push(format!(
                "{delay:.2?} {}",
                if killed { "killed" } else { "ended" }
            ));
            if !killed {
                assert!(out.status.success(), "{}", describe(&out));
                break;
            }
        }
        finish(&plan);
        let got = all_files(cut.path());
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&expected), "kills: {history:?}");
        for ((name, x), (_, y)) in got.iter().zip(&expected) {
            assert!(x == y, "{name} differs after kills {history:?}");
        }
    }
}
