//! `trainer round` trusts its plan no more than any other input: it writes
//! only files it made or was told to make, refuses plans whose paths
//! collide, refuses a stage done with other settings, checks every setting
//! before the first stage, reads the plan as every input is read, stops on
//! SIGINT/SIGTERM with 130 after telling the stage under way, and a failed
//! stage's error carries the stage's own reason.

mod common;

use common::{ok, s, BIN, GNUBG_WD};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use test_support::{assert_one_line_failure, describe, gnubg_file, tempdir, wait_until, Running};

/// A tiny round's plan (every kind of stage, seconds to run) as JSON.
fn tiny() -> serde_json::Value {
    gnubg_file(GNUBG_WD);
    serde_json::json!({
        "player": GNUBG_WD, "teacher": GNUBG_WD,
        "games": 6, "crashed_games": 4, "explore": 0.1, "seed": 3,
        "held": "held.db", "holdout": 0.15, "plies": 1, "prune": true,
        "start": "start.wd", "hidden": 8,
        "train": {"epochs": 2, "alpha_start": 1.0, "alpha_low": 0.1},
        "crashed_from_contact": true, "prune_games": 3,
        "prune_train": {"epochs": 2, "schedule": "gnubg", "alpha_start": 1.0, "alpha_low": 0.1},
        "opponent": "start.wd", "match_games": 4, "threads": 1
    })
}

/// Writes `plan` as `dir/plan.json`.
fn write_plan(dir: &Path, plan: &serde_json::Value) -> PathBuf {
    let path = dir.join("plan.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    path
}

/// `plan` with the fields of `change` replaced.
fn with(plan: &serde_json::Value, change: serde_json::Value) -> serde_json::Value {
    let mut p = plan.clone();
    for (k, v) in change.as_object().unwrap() {
        p[k] = v.clone();
    }
    p
}

/// Every file under `dir` (hidden ones too) with its bytes, sorted.
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

/// Asserts that `refused` (a plan's directory) holds only what `before`
/// listed: the failed run wrote nothing.
fn assert_nothing_written(dir: &Path, before: &[(String, Vec<u8>)]) {
    assert_eq!(all_files(dir), before, "the refused round wrote files");
}

/// Runs `trainer round PLAN` and returns its output.
fn round(plan: &Path) -> std::process::Output {
    Command::new(BIN).args(["round", s(plan)]).output().unwrap()
}

#[test]
fn an_existing_database_named_as_held_out_output_is_refused_untouched() {
    let dir = tempdir("bgkit-round-safety.");
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    let held = old.join("held.db");
    ok(&[
        "db",
        "generate",
        "--weights",
        GNUBG_WD,
        "--games",
        "2",
        "--seed",
        "1",
        "-o",
        s(&held),
        "-q",
    ]);
    let bytes = std::fs::read(&held).unwrap();
    let round_dir = dir.path().join("round");
    std::fs::create_dir(&round_dir).unwrap();
    let plan = write_plan(
        &round_dir,
        &with(&tiny(), serde_json::json!({"held": "../old/held.db"})),
    );
    let before = all_files(&round_dir);
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", s(&plan)],
        "held.db: exists, but this round did not write it",
    );
    assert_eq!(
        std::fs::read(&held).unwrap(),
        bytes,
        "the outside database changed"
    );
    assert_nothing_written(&round_dir, &before);
}

#[test]
fn plans_whose_paths_collide_are_refused_before_any_stage() {
    let dir = tempdir("bgkit-round-safety.");
    let cases = [
        (
            serde_json::json!({"held": "train.db"}),
            "held train.db: is a file of stage \"training set\"",
        ),
        (
            serde_json::json!({"start": "contact.wd"}),
            "start contact.wd: is a file of stage \"train contact\"",
        ),
        (
            serde_json::json!({"start": "round.wd"}),
            "start round.wd: is a file of stage",
        ),
        (
            serde_json::json!({"start": "crashed-start.wd"}),
            "start crashed-start.wd: is a file of stage \"crashed start\"",
        ),
        (
            serde_json::json!({"held": "new.db.journal"}),
            "held new.db.journal: is a file of stage \"label new\"",
        ),
        (
            serde_json::json!({"start": "round-stages.json"}),
            "is the round's record",
        ),
        (
            serde_json::json!({"held": "start.wd"}),
            "held and start are the same file",
        ),
        (
            serde_json::json!({"holdout": 0.0, "held": "old.db", "include": ["old.db"]}),
            "held old.db: is also include[0]",
        ),
        (
            serde_json::json!({"holdout": 0.0, "held": "old.db", "exclude": ["old.db"]}),
            "held old.db: is also exclude[0]",
        ),
        (
            serde_json::json!({"exclude": ["train.db"]}),
            "exclude[0] train.db: is a file of stage \"training set\"",
        ),
        (
            serde_json::json!({"start": "player.wd.json", "player": "player.wd"}),
            "side file",
        ),
    ];
    for (change, why) in cases {
        let plan = write_plan(dir.path(), &with(&tiny(), change));
        let before = all_files(dir.path());
        assert_one_line_failure(BIN, "trainer", &["round", s(&plan)], why);
        assert_nothing_written(dir.path(), &before);
    }
}

#[test]
fn bad_settings_and_bad_plan_files_are_refused_before_any_stage() {
    let dir = tempdir("bgkit-round-safety.");
    let train = |alpha: f64| serde_json::json!({"train": {"epochs": 2, "alpha_start": alpha, "alpha_low": 0.1}});
    let cases = [
        (serde_json::json!({"hidden": 0}), "hidden"),
        (serde_json::json!({"hidden": 100_000_000}), "hidden"),
        (
            train(5000.0),
            "train.alpha_start 5000: must be above 0 and at most 1000",
        ),
        (train(-1.0), "train.alpha_start -1"),
        (train(1e40), "train.alpha_start inf"),
        (serde_json::json!({"threads": 0}), "threads 0: must be 1 to"),
        (
            serde_json::json!({"train": {"epochs": 2, "alpha_start": 1.0, "alpha_low": 0.1, "weight_decay": 0.1}}),
            "train.weight_decay 0.1: weight decay needs the Adam optimizer",
        ),
        (
            serde_json::json!({"train": {"epochs": 2, "alpha_start": 1.0, "alpha_low": 0.1, "equity_weight": -1.0}}),
            "train.equity_weight -1.0: must be from 0 to 100",
        ),
        (serde_json::json!({"start": "a\u{0}b.wd"}), "has a NUL byte"),
        (
            serde_json::json!({"start_seed": 1u64 << 40}),
            "stage start weights",
        ),
        (
            serde_json::json!({"train": {"epochs": 1, "schedule": "fast", "alpha_start": 1.0, "alpha_low": 0.1}}),
            "unknown variant `fast`",
        ),
        (
            serde_json::json!({"train_by_class": {"bearoff": tiny()["train"].clone()}}),
            "unknown variant `bearoff`",
        ),
    ];
    for (change, why) in cases {
        let plan = write_plan(dir.path(), &with(&tiny(), change));
        let before = all_files(dir.path());
        assert_one_line_failure(BIN, "trainer", &["round", s(&plan)], why);
        assert_nothing_written(dir.path(), &before);
    }
    // The plan is read as every input is: no FIFO (no hang), no device,
    // nothing larger than a plan can be.
    let fifo = dir.path().join("fifo.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    assert_one_line_failure(BIN, "trainer", &["round", s(&fifo)], "not a regular file");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", "/dev/zero"],
        "not a regular file",
    );
    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(600 << 20)
        .unwrap();
    let started = Instant::now();
    assert_one_line_failure(
        BIN,
        "trainer",
        &["round", s(&huge)],
        "larger than any round plan",
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the huge plan was read"
    );
}

#[test]
fn a_rerun_refuses_stages_done_with_other_settings_and_a_finished_round_runs_nothing() {
    let dir = tempdir("bgkit-round-safety.");
    let good = tiny();
    let plan = write_plan(dir.path(), &good);
    let out = round(&plan);
    assert!(out.status.success(), "{}", describe(&out));
    let done = all_files(dir.path());
    let edits = [
        (
            serde_json::json!({"seed": 4}),
            "stage \"generate positions\" was run with other settings (--seed 3 → 4)",
        ),
        (serde_json::json!({"games": 7}), "(--games 6 → 7)"),
        (
            serde_json::json!({"plies": 2}),
            "stage \"label held\" was run with other settings (--plies 1 → 2)",
        ),
        (
            serde_json::json!({"teacher": s(&dir.path().join("start.wd"))}),
            "stage \"label held\"",
        ),
        (
            serde_json::json!({"hidden": 12}),
            "stage \"start weights\" was run with other settings (--hidden 8 → 12)",
        ),
        (
            serde_json::json!({"train": {"epochs": 3, "alpha_start": 1.0, "alpha_low": 0.1}}),
            "(--epochs 2 → 3)",
        ),
        (serde_json::json!({"match_games": 5}), "stage \"match\""),
    ];
    for (change, why) in edits {
        std::fs::write(&plan, with(&good, change).to_string()).unwrap();
        assert_one_line_failure(BIN, "trainer", &["round", s(&plan)], why);
        assert_one_line_failure(BIN, "trainer", &["round", "--print", s(&plan)], why);
        let mut now = all_files(dir.path());
        now.retain(|f| f.0 != "plan.json");
        let mut then = done.clone();
        then.retain(|f| f.0 != "plan.json");
        assert_eq!(now, then, "a refused rerun changed the round's files");
    }
    // The same plan again: nothing runs, nothing changes; a thread count
    // changes no result and so no stage.
    std::fs::write(
        &plan,
        with(&good, serde_json::json!({"threads": 2})).to_string(),
    )
    .unwrap();
    let again = round(&plan);
    assert!(again.status.success(), "{}", describe(&again));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        !stderr.contains("(resuming)") && stderr.contains("match: done before"),
        "{stderr}"
    );
    let mut now = all_files(dir.path());
    now.retain(|f| f.0 != "plan.json");
    let mut then = done;
    then.retain(|f| f.0 != "plan.json");
    assert_eq!(now, then);
}

#[test]
fn a_failed_stage_says_why_in_its_own_words() {
    let dir = tempdir("bgkit-round-safety.");
    let held = dir.path().join("held.db");
    std::fs::write(&held, b"BGKITPDB but not a database").unwrap();
    let plan = write_plan(
        dir.path(),
        &with(&tiny(), serde_json::json!({"holdout": 0.0})),
    );
    let out = round(&plan);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("trainer: error: stage new positions failed")
            && last.contains("held.db")
            && last.contains("(command: "),
        "{stderr}"
    );
}

/// Starts `trainer round PLAN` in a process group of its own.
fn start_round(plan: &Path) -> Running {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(BIN);
    cmd.args(["round", s(plan)]).process_group(0);
    Running::start(cmd)
}

/// True while a `trainer` process other than the round runs in `dir`
/// (a stage's command: its working directory is the round's).
fn stage_running(dir: &Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        let cwd = std::fs::read_link(p.path().join("cwd"));
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        cwd.is_ok_and(|c| c == dir) && !cmdline.windows(5).any(|w| w == b"round")
    })
}

#[test]
fn sigterm_and_sigint_stop_the_round_after_the_stage_under_way_with_130() {
    for signal in ["-TERM", "-INT"] {
        let dir = tempdir("bgkit-round-safety.");
        let plan = write_plan(dir.path(), &tiny());
        let run = start_round(&plan);
        // Signal the round alone (not its stage) once a stage runs.
        wait_until(Duration::from_secs(120), "a stage", || {
            stage_running(dir.path())
        });
        let killed = Command::new("kill")
            .args([signal, &run.pid().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = run.finish(Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(130), "{signal}: {}", describe(&out));
        assert!(
            !stage_running(dir.path()),
            "{signal}: a stage outlived the round"
        );
        assert!(
            !dir.path().join("match.json").exists(),
            "{signal}: the round went on"
        );
        let rest = round(&plan);
        assert!(rest.status.success(), "{signal}: {}", describe(&rest));
    }
}

/// The command line `--print` shows for stage `name` (without the
/// executable).
fn printed_command(plan: &Path, name: &str) -> Vec<String> {
    let print = ok(&["round", "--print", s(plan)]);
    let mut lines = print.lines();
    lines
        .by_ref()
        .find(|l| l.starts_with(&format!("# {name} (")))
        .unwrap_or_else(|| panic!("no stage {name} in\n{print}"));
    let line = lines.next().unwrap();
    line.split_whitespace().skip(1).map(String::from).collect()
}

/// `exclude` lists databases (earlier rounds' held-out sets) whose
/// positions the round neither labels nor trains on.
#[test]
fn excluded_databases_stay_out_of_the_pool_and_the_training_set() {
    let dir = tempdir("bgkit-round-exclude.");
    let change = serde_json::json!({"exclude": ["old-held.db"]});
    let plan = write_plan(dir.path(), &with(&tiny(), change));
    let print = ["round", "--print", s(&plan)];
    assert_one_line_failure(BIN, "trainer", &print, "exclude old-held.db");
    std::fs::copy(dir.path().join("plan.json"), dir.path().join("old-held.db")).unwrap();
    for stage in ["pool", "training set"] {
        let command = printed_command(&plan, stage);
        assert!(
            command
                .windows(2)
                .any(|w| w == ["--exclude", "old-held.db"]),
            "{stage}: {command:?}"
        );
    }
    let plain = write_plan(dir.path(), &tiny());
    let command = printed_command(&plain, "training set");
    assert!(!command.iter().any(|a| a == "old-held.db"), "{command:?}");
}

#[test]
fn label_stages_run_by_hand_in_shards_are_not_redone() {
    let whole = tempdir("bgkit-round-safety.");
    let plan = write_plan(whole.path(), &tiny());
    let out = round(&plan);
    assert!(out.status.success(), "{}", describe(&out));

    let dir = tempdir("bgkit-round-safety.");
    let plan = write_plan(dir.path(), &tiny());
    let paused = ok(&["round", "--stop-before", "label held", s(&plan)]);
    assert!(paused.contains("stopped before \"label held\""), "{paused}");
    assert!(!dir.path().join("held.db.labelled").exists());
    // Each label stage by hand: two shards on copies, merged back.
    for (stage, db) in [("label held", "held.db"), ("label new", "new.db")] {
        let command = printed_command(&plan, stage);
        let mut copies = Vec::new();
        for k in 1..=2 {
            let copy = format!("{db}.shard{k}.db");
            std::fs::copy(dir.path().join(db), dir.path().join(&copy)).unwrap();
            let mut args: Vec<String> = command
                .iter()
                .map(|a| if a == db { copy.clone() } else { a.clone() })
                .collect();
            args.extend(["--shard".into(), format!("{k}/2")]);
            let out = Command::new(BIN)
                .args(&args)
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {}", describe(&out));
            copies.push(copy);
        }
        let out = Command::new(BIN)
            .args(["db", "merge", &copies[0], &copies[1], "-o", db])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(&out));
        for copy in copies {
            for f in [copy.clone(), format!("{copy}.json")] {
                std::fs::remove_file(dir.path().join(f)).unwrap();
            }
        }
    }
    // A database rewritten (relabelled) is a new file: atomic writes
    // rename a new inode into place.
    let inode = |db: &str| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir.path().join(db)).unwrap().ino()
    };
    let before = [inode("held.db"), inode("new.db")];
    let rest = round(&plan);
    assert!(rest.status.success(), "{}", describe(&rest));
    assert_eq!(
        [inode("held.db"), inode("new.db")],
        before,
        "a label stage labelled again"
    );
    for f in ["held.db", "new.db", "train.db", "round.wd", "match.json"] {
        assert!(
            std::fs::read(dir.path().join(f)).unwrap()
                == std::fs::read(whole.path().join(f)).unwrap(),
            "{f} differs from the round run through"
        );
    }
}
