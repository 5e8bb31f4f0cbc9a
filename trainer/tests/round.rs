//! `trainer round`: a training round on small data lowers the held-out
//! error below the random start's and trains pruning nets that rank moves
//! far better than random ones, and a round killed with -9 (during its
//! labelling and during its training) and run again ends with the same
//! files as a round run through; bad plans are refused in one line.

mod common;

use common::{kill_9_when, net_md5, ok, s, BIN, GNUBG_WD};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::{assert_one_line_failure, gnubg_file, tempdir};

/// A small round's plan in `dir`: gnubg's weights play and label (1 ply),
/// the nets train from random weights, which are also the match opponent.
fn plan(dir: &Path) -> PathBuf {
    gnubg_file(GNUBG_WD);
    let plan = dir.join("plan.json");
    let text = serde_json::json!({
        "player": GNUBG_WD, "teacher": GNUBG_WD,
        "games": 40, "crashed_games": 60, "race_games": 40, "disagreement_games": 30,
        "disagreement_threshold": 0.1, "explore": 0.1, "seed": 5,
        "held": "held.db", "holdout": 0.15,
        "plies": 1, "prune": true,
        "start": "start.wd",
        "train": {"epochs": 4, "schedule": "cosine", "alpha_start": 1.0, "alpha_low": 0.05},
        "train_by_class": {"race": {"epochs": 4, "schedule": "cosine", "optimizer": "adam",
                                    "batch": 32, "weight_decay": 0.5, "equity_weight": 1.5,
                                    "alpha_start": 0.01, "alpha_low": 0.0001}},
        "crashed_from_contact": true,
        "prune_games": 30,
        "prune_train": {"epochs": 10, "schedule": "gnubg", "alpha_start": 5.0, "alpha_low": 0.001},
        "opponent": "start.wd", "match_games": 40,
        "threads": 1
    });
    std::fs::write(&plan, text.to_string()).unwrap();
    plan
}

/// [`plan`] with the fields of `changes` replaced.
fn plan_with(dir: &Path, changes: serde_json::Value) -> PathBuf {
    let plan = plan(dir);
    let mut p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    for (k, v) in changes.as_object().unwrap() {
        p[k] = v.clone();
    }
    std::fs::write(&plan, p.to_string()).unwrap();
    plan
}

/// RMS equity error per class of a `trainer bench` table.
fn rms(table: &str) -> Vec<(String, f64)> {
    table
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_owned(), f[2].parse().unwrap())
        })
        .collect()
}

/// The round's files (name, bytes), without provenance records (they name
/// the directory) and lock files.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !(name.ends_with(".wd.json") || name.ends_with(".db.json") || name.starts_with('.'))
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Kills `trainer round PLAN` (every stage it runs) with SIGKILL once
/// `file` exists.
fn kill_9_once(plan: &Path, file: &Path) {
    let mut cmd = Command::new(BIN);
    cmd.args(["round", s(plan)]);
    kill_9_when(cmd, "the stage under way", || file.exists(), Duration::ZERO);
}

#[test]
fn a_small_round_trains_nets_better_than_its_start_and_resumes_after_kill_9_to_the_same_files() {
    let whole = tempdir("bgkit-round.");
    let plan_whole = plan(whole.path());
    let run = Command::new(BIN)
        .args(["round", s(&plan_whole)])
        .output()
        .unwrap();
    let (report, notes) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert!(run.status.success(), "{notes}");
    assert!(report.contains("every stage done"), "{report}");
    // Every stage says what it cost when done, and the run what they took.
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(whole.path().join("round-stages.json")).unwrap(),
    )
    .unwrap();
    let stages = record["stages"].as_array().unwrap();
    assert!(stages.len() > 10, "{record}");
    for stage in stages {
        let name = stage["stage"].as_str().unwrap();
        let done = format!("trainer round: {name}: done (");
        let line = notes.lines().find(|l| l.contains(&done));
        assert!(
            line.is_some_and(|l| l.ends_with(" core-hours)")),
            "no cost of {name}: {notes}"
        );
    }
    assert!(
        notes.contains("trainer round: the stages done in this run took "),
        "{notes}"
    );
    let trained = rms(&std::fs::read_to_string(whole.path().join("bench.txt")).unwrap());
    let start = rms(&std::fs::read_to_string(whole.path().join("bench-opponent.txt")).unwrap());
    assert_eq!(trained.len(), 3, "{trained:?}");
    for ((class, ours), (_, random)) in trained.iter().zip(&start) {
        assert!(
            *ours < random / 2.0,
            "{class}: held-out RMS {ours} after the round, {random} at the start"
        );
    }
    let game: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.path().join("match.json")).unwrap())
            .unwrap();
    assert!(game["ppg"].as_f64().unwrap() > 0.5, "{game}");
    // The class-only games kept their class alone.
    for (db, class) in [("crashed.db", "CRASHED"), ("race.db", "RACE")] {
        let stats = ok(&["db", "stats", s(&whole.path().join(db))]);
        let classes: Vec<&str> = stats
            .lines()
            .skip(2)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(classes, [class], "{db}: {stats}");
    }
    // The race net trained with its own settings (Adam), the others with
    // the plan's `train`.
    let schedule = |net: &str| {
        let path = whole.path().join(format!("{net}.wd.json"));
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        record["settings"]["schedule"].clone()
    };
    assert_eq!(
        schedule("race")["optimizer"],
        serde_json::json!({"Adam": {"batch": 32, "weight_decay": 0.5}})
    );
    assert_eq!(schedule("race")["equity_weight"], serde_json::json!(1.5));
    assert_eq!(schedule("crashed")["optimizer"], serde_json::json!("Sgd"));
    assert_eq!(
        schedule("crashed").get("equity_weight"),
        None,
        "no equity term unless the plan asks"
    );
    // The crashed net started from the trained contact net.
    let crashed_start = whole.path().join("crashed-start.wd");
    assert_eq!(
        net_md5(&crashed_start, "contact"),
        net_md5(&crashed_start, "crashed")
    );
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(whole.path().join("crashed.wd.json")).unwrap(),
    )
    .unwrap();
    assert!(
        record["parent"]["path"]
            .as_str()
            .unwrap()
            .ends_with("crashed-start.wd"),
        "{record}"
    );
    // The disagreement games kept only what 0 and 1 ply disagree on.
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(whole.path().join("disagreements.db.json")).unwrap(),
    )
    .unwrap();
    let threshold = record["settings"]["threshold"].as_f64().unwrap();
    assert!((threshold - 0.1).abs() < 1e-6, "{record}");
    assert_eq!(record["settings"]["plies"], 1, "{record}");
    assert_eq!(record["settings"]["seed"], 9, "{record}");
    // The trained pruning nets keep the 1-ply best move far more often than
    // the random ones of the start.
    let kept = |report: &str| -> f64 {
        let pct = report.rsplit('(').next().unwrap();
        pct.trim_end_matches([')', '%', ' ', '\n']).parse().unwrap()
    };
    let trained = kept(&std::fs::read_to_string(whole.path().join("prune-check.txt")).unwrap());
    let held = whole.path().join("held.db");
    let start = whole.path().join("start.wd");
    let random = kept(&ok(&[
        "bench",
        "--prune-check",
        "--db",
        s(&held),
        "--weights",
        s(&start),
    ]));
    assert!(
        trained > random + 20.0,
        "pruning nets keep {trained} %, random ones {random} %"
    );

    // Killed while labelling, then while training; run again to the end.
    let cut = tempdir("bgkit-round.");
    let plan_cut = plan(cut.path());
    kill_9_once(&plan_cut, &cut.path().join("new.db.journal"));
    kill_9_once(&plan_cut, &cut.path().join("crashed.wd.ckpt"));
    let report = ok(&["round", s(&plan_cut)]);
    assert!(report.contains("every stage done"), "{report}");
    let (a, b) = (files(whole.path()), files(cut.path()));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs after kill -9 and a rerun");
    }
    // A finished round runs nothing again.
    let again = ok(&["round", s(&plan_cut)]);
    assert!(again.contains("every stage done"), "{again}");
    assert_eq!(files(cut.path()), b);
}

#[test]
fn bad_plans_are_refused_in_one_line_before_any_stage_runs() {
    let dir = tempdir("bgkit-round.");
    let plan = plan(dir.path());
    let good: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let cases: [(&str, serde_json::Value); 9] = [
        (
            "crashed_from w.wd and crashed_from_contact: the crashed net starts from one or the other",
            serde_json::json!({"crashed_from": "w.wd"}),
        ),
        (
            "crashed_from missing.wd: ",
            serde_json::json!({"crashed_from": "missing.wd", "crashed_from_contact": false}),
        ),
        (
            "explore 2: must be between 0 and 1",
            serde_json::json!({"explore": 2.0}),
        ),
        ("plies 4: must be 1 to 3", serde_json::json!({"plies": 4})),
        (
            "disagreement_threshold 0: must be above 0",
            serde_json::json!({"disagreement_threshold": 0.0}),
        ),
        (
            "unknown variant `fast`, expected `gnubg` or `cosine`",
            serde_json::json!({"train": {"epochs": 1, "schedule": "fast", "alpha_start": 1.0, "alpha_low": 0.1}}),
        ),
        ("unknown field `gamez`", serde_json::json!({"gamez": 3})),
        (
            "unknown variant `bearoff`, expected one of `contact`, `crashed`, `race`",
            serde_json::json!({"train_by_class": {"bearoff": good["train"].clone()}}),
        ),
        (
            "unknown variant `lbfgs`, expected `sgd` or `adam`",
            serde_json::json!({"train_by_class": {"race": {"epochs": 1, "optimizer": "lbfgs",
                "alpha_start": 1.0, "alpha_low": 0.1}}}),
        ),
    ];
    for (why, change) in cases {
        let mut bad = good.clone();
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        std::fs::write(&plan, bad.to_string()).unwrap();
        assert_one_line_failure(BIN, "trainer", &["round", s(&plan)], why);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "a stage ran: {left:?}");
    }
}

#[test]
fn held_out_games_give_a_labelled_set_disjoint_from_the_training_positions() {
    let dir = tempdir("bgkit-round.");
    let plan = plan_with(
        dir.path(),
        serde_json::json!({"holdout": 0.0, "held_games": 20}),
    );
    ok(&["round", s(&plan), "--stop-before", "training set"]);
    let keys = |name: &str| -> std::collections::HashSet<String> {
        common::dump(&dir.path().join(name))
            .iter()
            .map(|r| r["id"].as_str().expect("an id").to_string())
            .collect()
    };
    let (held, new) = (keys("held.db"), keys("new.db"));
    assert!(!held.is_empty(), "the held-out games left no position");
    assert!(held.is_disjoint(&new), "a held-out position is trained on");
    // Labelled: every position has its five targets.
    let labelled = common::dump(&dir.path().join("held.db"));
    assert!(labelled
        .iter()
        .all(|r| r["targets"].as_array().is_some_and(|t| t.len() == 5)));
    // A plan cannot take the held-out set from both sources.
    let both = tempdir("bgkit-round.");
    let plan = plan_with(
        both.path(),
        serde_json::json!({"holdout": 0.1, "held_games": 20}),
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", s(&plan), "--print"],
        "the held-out set comes from one or the other",
    );
}

/// `crashed_from`: the round's crashed net starts from the crashed net of
/// the given weights (inside the trained contact net's file) and is
/// fine-tuned from there.
#[test]
fn the_crashed_net_can_start_from_given_weights() {
    let dir = tempdir("bgkit-round.");
    let plan = plan_with(
        dir.path(),
        serde_json::json!({"crashed_from_contact": false, "crashed_from": GNUBG_WD}),
    );
    let printed = ok(&["round", s(&plan), "--print"]);
    let splice = format!(
        "weights splice --from {GNUBG_WD} --net crashed --into contact.wd -o crashed-start.wd"
    );
    assert!(printed.contains(&splice), "{printed}");
    ok(&["round", s(&plan), "--stop-before", "train crashed"]);
    let start = dir.path().join("crashed-start.wd");
    assert_eq!(
        net_md5(&start, "crashed"),
        net_md5(Path::new(GNUBG_WD), "crashed")
    );
    assert_eq!(
        net_md5(&start, "contact"),
        net_md5(&dir.path().join("contact.wd"), "contact")
    );
}

/// `--threads N` gives every stage N worker threads instead of the plan's
/// `threads`, and cannot be asked of Slurm jobs (their CPUs are
/// `--cpus-per-task`).
#[test]
fn threads_on_the_command_line_take_the_place_of_the_plans() {
    let dir = tempdir("bgkit-round.");
    let plan = plan_with(dir.path(), serde_json::json!({"threads": 1}));
    let threads = |printed: &str| -> Vec<String> {
        printed
            .lines()
            .filter_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "--threads")?;
                Some(words[at + 1].to_string())
            })
            .collect()
    };
    let planned = threads(&ok(&["round", s(&plan), "--print"]));
    assert!(
        planned.len() > 5 && planned.iter().all(|t| t == "1"),
        "{planned:?}"
    );
    let given = threads(&ok(&["round", s(&plan), "--print", "--threads", "3"]));
    assert!(
        given.len() == planned.len() && given.iter().all(|t| t == "3"),
        "{given:?}"
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", s(&plan), "--slurm", "--threads", "3"],
        "--threads",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", s(&plan), "--print", "--threads", "0"],
        "--threads",
    );
}
