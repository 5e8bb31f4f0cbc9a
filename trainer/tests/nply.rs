//! `trainer db label eval --plies N [--prune]`: journaled n-ply labels
//! (kill -9 then `--resume` gives the same bytes; shards on copies merge
//! into the unsharded result), `trainer eval --plies` in parallel, and
//! bad input refused before anything is written.

mod common;

use common::{dump, kill_9_when, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::{assert_one_line_failure, gnubg_file, tempdir};

fn evaluator() -> [&'static str; 6] {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    ["--weights", GNUBG_WD, "--bearoff", OS0, "--bearoff", TS0]
}

/// A database of the first `n` positions of the fixture (gnubg's 0-ply
/// evaluations of positions of every class) at `path`.
fn positions(dir: &Path, name: &str, n: usize) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gnubg_0ply_200.dat");
    let text: String = std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .take(n)
        .map(|l| format!("{l}\n"))
        .collect();
    let dat = dir.join(format!("{name}.dat"));
    std::fs::write(&dat, text).unwrap();
    let db = dir.join(name);
    ok(&["db", "import", s(&dat), "-o", s(&db)]);
    db
}

/// `db label eval DB --plies 2 --prune` with `extra` arguments.
fn label(db: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "db",
        "label",
        "eval",
        s(db),
        "--plies",
        "2",
        "--prune",
        "-q",
    ];
    args.extend(extra);
    args.extend(evaluator());
    ok(&args)
}

#[test]
fn labels_are_the_evaluations_of_trainer_eval() {
    let dir = tempdir("bgkit-nply.");
    let db = positions(dir.path(), "a.db", 12);
    let report = label(&db, &[]);
    assert!(
        report.contains("12 positions labelled with the 2-ply pruned evaluation"),
        "{report}"
    );
    let rows = dump(&db);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut args = vec!["eval", "--json", "--plies", "2", "--prune"];
    args.extend(evaluator());
    args.extend(ids.iter().copied());
    let evaluated: Vec<serde_json::Value> = ok(&args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(evaluated.len(), rows.len());
    for (r, e) in rows.iter().zip(&evaluated) {
        assert_eq!(r["id"], e["id"]);
        let f32s = |v: &serde_json::Value| -> Vec<f32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        };
        assert_eq!(f32s(&r["targets"]), f32s(&e["outputs"]), "{}", r["id"]);
    }
    let provenance: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("a.db.json")).unwrap())
            .unwrap();
    let settings = &provenance["settings"];
    assert_eq!(
        (&settings["plies"], &settings["prune"]),
        (&2.into(), &true.into()),
        "{provenance}"
    );
}

#[test]
fn kill_9_during_labelling_then_resume_is_identical() {
    let dir = tempdir("bgkit-nply.");
    let whole = positions(dir.path(), "whole.db", 60);
    let cut = dir.path().join("cut.db");
    std::fs::copy(&whole, &cut).unwrap();
    label(&whole, &[]);
    let mut cmd = Command::new(BIN);
    cmd.args([
        "db",
        "label",
        "eval",
        s(&cut),
        "--plies",
        "2",
        "--prune",
        "-q",
    ])
    .args(["--chunk", "2", "--threads", "1"])
    .args(evaluator());
    let journal = dir.path().join("cut.db.journal");
    let before = std::fs::read(&cut).unwrap();
    // Some chunks are in the journal (its head is shorter than 600 bytes).
    let ready = || std::fs::metadata(&journal).is_ok_and(|m| m.len() > 600);
    kill_9_when(cmd, "the journal holds positions", ready, Duration::ZERO);
    assert_eq!(
        std::fs::read(&cut).unwrap(),
        before,
        "the database is untouched until the end"
    );
    let report = label(&cut, &["--resume"]);
    assert!(
        report.contains("from the journal"),
        "nothing was resumed: {report}"
    );
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
    assert!(!journal.exists(), "journal removed at the end");
}

#[test]
fn three_shards_merged_equal_one_run() {
    let dir = tempdir("bgkit-nply.");
    let one = positions(dir.path(), "one.db", 30);
    let parts: Vec<PathBuf> = (1..=3)
        .map(|k| {
            let copy = dir.path().join(format!("part{k}.db"));
            std::fs::copy(&one, &copy).unwrap();
            let shard = format!("{k}/3");
            let report = label(&copy, &["--shard", &shard, "--threads", "1"]);
            assert!(report.contains("10 positions labelled"), "{report}");
            copy
        })
        .collect();
    label(&one, &[]);
    let merged = dir.path().join("merged.db");
    let mut args = vec!["db", "merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["-o", s(&merged)]);
    ok(&args);
    assert_eq!(
        std::fs::read(&one).unwrap(),
        std::fs::read(&merged).unwrap(),
        "sharded + merged differs from one run"
    );
}

#[test]
fn bad_plies_shards_and_journals_are_refused_and_nothing_is_written() {
    let dir = tempdir("bgkit-nply.");
    let db = positions(dir.path(), "a.db", 8);
    let before = std::fs::read(&db).unwrap();
    let run = |extra: &[&str], needle: &str| {
        let mut args = vec!["db", "label", "eval", s(&db)];
        args.extend(extra);
        args.extend(evaluator());
        assert_one_line_failure(BIN, "trainer", &args, needle);
        assert_eq!(
            std::fs::read(&db).unwrap(),
            before,
            "{extra:?} changed the database"
        );
    };
    run(&["--plies", "4"], "4");
    run(&["--plies", "2", "--shard", "4/3"], "K/N");
    run(&["--plies", "2", "--shard", "0/3"], "K/N");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["eval", "--plies", "4", "4HPwATDgc/ABMA"],
        "4",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["db", "rollout", s(&db), "--plies", "9"],
        "9",
    );
    // An interrupted 3-ply labelling's journal (3 plies: slow enough to be
    // caught running): a 2-ply run, or one with other weights or pruning,
    // refuses to resume it.
    let mut cmd = Command::new(BIN);
    cmd.args([
        "db",
        "label",
        "eval",
        s(&db),
        "--plies",
        "3",
        "--chunk",
        "1",
        "--threads",
        "1",
    ])
    .args(evaluator());
    let journal = dir.path().join("a.db.journal");
    kill_9_when(
        cmd,
        "the journal exists",
        || journal.exists(),
        Duration::ZERO,
    );
    assert!(journal.exists(), "the journal is kept");
    let journal_bytes = std::fs::read(&journal).unwrap();
    run(&["--plies", "2", "--resume"], "other settings");
    let other = dir.path().join("other.wd");
    ok(&["new", "-o", s(&other), "--seed", "5"]);
    let args = [
        "db",
        "label",
        "eval",
        s(&db),
        "--plies",
        "3",
        "--resume",
        "--weights",
        s(&other),
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    assert_one_line_failure(BIN, "trainer", &args, "other settings");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    run(&["--plies", "3", "--prune", "--resume"], "other settings");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        journal_bytes,
        "the journal is kept"
    );
}

#[test]
fn bench_at_the_labelling_plies_finds_no_error() {
    let dir = tempdir("bgkit-nply.");
    let db = positions(dir.path(), "a.db", 10);
    label(&db, &[]);
    let bench = |plies: &str| -> serde_json::Value {
        let mut args = vec![
            "bench",
            "--db",
            s(&db),
            "--json",
            "--plies",
            plies,
            "--prune",
        ];
        args.extend(evaluator());
        serde_json::from_str(ok(&args).lines().last().unwrap()).unwrap()
    };
    let at_2 = bench("2");
    let at_0 = bench("0");
    assert!(at_2["positions"].as_u64().unwrap() > 0, "{at_2}");
    for (class, errors) in at_2["classes"].as_object().unwrap() {
        assert_eq!(errors["eqerr_max"].as_f64(), Some(0.0), "{class}: {at_2}");
    }
    let worst = |r: &serde_json::Value| {
        r["classes"]
            .as_object()
            .unwrap()
            .values()
            .map(|e| e["eqerr_max"].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    assert!(worst(&at_0) > 0.0, "0-ply equals 2-ply everywhere? {at_0}");
}

#[test]
fn generate_keeps_positions_where_0_ply_and_2_ply_disagree() {
    let dir = tempdir("bgkit-nply.");
    let db = dir.path().join("g.db");
    let mut args = vec![
        "db",
        "generate",
        "--games",
        "2",
        "--plies",
        "2",
        "--prune",
        "--threshold",
        "0.05",
        "-q",
        "-o",
        s(&db),
    ];
    args.extend(evaluator());
    ok(&args);
    let rows = dump(&db);
    assert!(!rows.is_empty());
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let equities = |plies: &str| {
        let mut a = vec!["--prune", "--plies", plies];
        a.extend(evaluator());
        common::eval_equities(&a, &ids)
    };
    for ((r, e0), e2) in rows.iter().zip(equities("0")).zip(equities("2")) {
        assert!(
            (e0 - e2).abs() >= 0.05 - 1e-6,
            "{}: 0-ply {e0}, 2-ply {e2}",
            r["id"]
        );
    }
}

#[test]
fn play_and_rollout_choose_moves_at_n_plies() {
    let dir = tempdir("bgkit-nply.");
    // Two games, each side at its own plies.
    let mut args = vec![
        "play",
        "--games",
        "2",
        "--plies",
        "1",
        "--vs",
        GNUBG_WD,
        "--vs-plies",
        "2",
        "--json",
        "-q",
    ];
    args.extend(evaluator());
    let result: serde_json::Value =
        serde_json::from_str(ok(&args).lines().last().unwrap()).unwrap();
    assert_eq!(result["games"], 2, "{result}");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["play", "--pubeval", "--plies", "1"],
        "pubeval",
    );
    // A short 2-ply rollout of race positions: its fingerprint differs from
    // the 0-ply one, so the database records which it was.
    let db = positions(dir.path(), "r.db", 3);
    let mut args = vec![
        "db",
        "rollout",
        s(&db),
        "--trials",
        "2",
        "--plies",
        "2",
        "-q",
    ];
    args.extend(evaluator());
    ok(&args);
    let rows = dump(&db);
    assert!(rows.iter().all(|r| r["trials"] == 2), "{rows:?}");
}
