//! The journals of `trainer db rollout` and `db label race`: kill -9 and
//! `--resume` to identical bytes, a journal bound to its settings and to
//! its database, commands refusing a database with a journal.

mod common;

use common::db::{evaluator, fixture, generate_races};
use common::{kill_9_when, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::{assert_one_line_failure, tempdir};

/// [`kill_9_when`] a rollout or label job's `journal` holds more than four
/// finished positions.
fn kill_9_once_journaled(cmd: Command, journal: &Path) {
    use support::checkpoint::BLOCK_OVERHEAD;
    use trainer::rollouts::job::{ENTRY_LEN, HEAD_LEN};
    // The jobs sync chunks of two positions, a block each.
    let two_blocks = HEAD_LEN + 2 * (BLOCK_OVERHEAD + 2 * ENTRY_LEN);
    let ready = || std::fs::metadata(journal).is_ok_and(|m| m.len() as usize > two_blocks);
    kill_9_when(cmd, "the journal holds positions", ready, Duration::ZERO);
}

#[test]
fn kill_9_during_rollout_then_resume_is_identical() {
    let dir = tempdir("bgkit-db.");
    let text: String = std::fs::read_to_string(fixture("gnubg_0ply_200.dat"))
        .unwrap()
        .lines()
        .take(60)
        .map(|l| format!("{l}\n"))
        .collect();
    let dat = dir.path().join("p.dat");
    std::fs::write(&dat, text).unwrap();
    let (whole, cut) = (dir.path().join("whole.db"), dir.path().join("cut.db"));
    for db in [&whole, &cut] {
        ok(&["db", "import", s(&dat), "-o", s(db)]);
    }
    let settings = ["--trials", "144", "--seed", "3", "-q"];
    let mut args = vec!["db", "rollout", s(&whole)];
    args.extend(settings);
    args.extend(evaluator());
    ok(&args);
    let mut cmd = Command::new(BIN);
    cmd.args(["db", "rollout", s(&cut), "--chunk", "2"])
        .args(settings)
        .args(evaluator());
    let journal = dir.path().join("cut.db.journal");
    kill_9_once_journaled(cmd, &journal);
    let before = std::fs::read(&cut).unwrap();
    let mut again = vec!["db", "rollout", s(&cut), "--resume"];
    again.extend(settings);
    again.extend(evaluator());
    let report = ok(&again);
    assert!(
        !report.contains(" 0 from the journal"),
        "nothing was resumed: {report}"
    );
    assert_ne!(before, std::fs::read(&cut).unwrap());
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
    assert!(!journal.exists(), "journal removed at the end");
}

/// The settings of the race labellings below.
const RACE_LABEL: [&str; 5] = ["--games", "144", "--seed", "2", "-q"];

/// `whole.db`, race positions labelled by an uninterrupted `db label
/// race`, and `cut.db`, the same positions whose labelling was killed
/// with -9 after its journal `cut.db.journal` held some: (whole, cut,
/// journal).
fn interrupted_race_labelling(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (whole, cut) = (dir.join("whole.db"), dir.join("cut.db"));
    generate_races(&whole, "60", "3");
    std::fs::copy(&whole, &cut).unwrap();
    let mut args = vec!["db", "label", "race", s(&whole)];
    args.extend(RACE_LABEL);
    ok(&args);
    let mut cmd = Command::new(BIN);
    cmd.args(["db", "label", "race", s(&cut), "--chunk", "2"])
        .args(RACE_LABEL);
    let journal = dir.join("cut.db.journal");
    kill_9_once_journaled(cmd, &journal);
    (whole, cut, journal)
}

#[test]
fn kill_9_during_race_labelling_then_resume_is_identical() {
    let dir = tempdir("bgkit-db.");
    let (whole, cut, journal) = interrupted_race_labelling(dir.path());
    // The journal is refused for other settings, the database and the
    // journal left as they were.
    let read = |p: &Path| std::fs::read(p).unwrap();
    let before = (read(&cut), read(&journal));
    let other = [
        "db",
        "label",
        "race",
        s(&cut),
        "--resume",
        "--seed",
        "9",
        "-q",
    ];
    assert_one_line_failure(BIN, "trainer", &other, "other settings");
    assert!(
        before == (read(&cut), read(&journal)),
        "the database or the journal changed"
    );
    let mut again = vec!["db", "label", "race", s(&cut), "--resume"];
    again.extend(RACE_LABEL);
    let report = ok(&again);
    assert!(
        report.contains("from the journal"),
        "nothing was resumed: {report}"
    );
    assert_eq!(read(&whole), read(&cut));
    assert!(!journal.exists(), "journal removed at the end");
}

/// Lines `lines` of the 200-position fixture as the database `dir/NAME.db`.
fn fixture_part(dir: &Path, name: &str, lines: std::ops::Range<usize>) -> PathBuf {
    let text: String = std::fs::read_to_string(fixture("gnubg_0ply_200.dat"))
        .unwrap()
        .lines()
        .skip(lines.start)
        .take(lines.len())
        .map(|l| format!("{l}\n"))
        .collect();
    let dat = dir.join(format!("{name}.dat"));
    std::fs::write(&dat, text).unwrap();
    let db = dir.join(format!("{name}.db"));
    ok(&["db", "import", s(&dat), "-o", s(&db)]);
    db
}

/// `trainer db rollout DB` with `settings`, gnubg's evaluator and `extra`.
fn rollout_args<'a>(db: &'a Path, settings: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["db", "rollout", s(db)];
    args.extend(settings);
    args.extend(evaluator());
    args.extend(extra);
    args
}

/// A journal belongs to the database it was made for.
/// Writing a database over one with an interrupted job's journal is
/// refused; a journal is never applied to a database with other positions
/// (replaced behind bgkit's back, or the journal copied).
#[test]
fn a_journal_applies_only_to_the_database_it_was_made_for() {
    let dir = tempdir("bgkit-db-journal.");
    let d = dir.path();
    let x = fixture_part(d, "x", 0..60);
    let y = fixture_part(d, "y", 60..120);
    let settings = ["--trials", "144", "--seed", "3", "-q"];
    let mut cmd = Command::new(BIN);
    cmd.args(rollout_args(&x, &settings, &["--chunk", "2"]));
    let journal = d.join("x.db.journal");
    kill_9_once_journaled(cmd, &journal);
    let read = |p: &Path| std::fs::read(p).unwrap();
    let (x_before, journal_before) = (read(&x), read(&journal));
    let mut generate = vec!["db", "generate", "--games", "2", "-o", s(&x)];
    generate.extend(evaluator());
    let y_dat = d.join("y.dat");
    let rewrites = [
        vec!["db", "import", s(&y_dat), "-o", s(&x)],
        generate,
        vec!["db", "merge", s(&y), "-o", s(&x)],
    ];
    for args in &rewrites {
        assert_one_line_failure(BIN, "trainer", args, "x.db.journal");
    }
    assert_eq!(read(&x), x_before, "the database was replaced");
    assert_eq!(read(&journal), journal_before, "the journal was changed");
    // Replaced by other means, the database does not take the journal.
    std::fs::copy(&y, &x).unwrap();
    let resume = rollout_args(&x, &settings, &["--resume"]);
    assert_one_line_failure(BIN, "trainer", &resume, "another database");
    assert_eq!(read(&x), read(&y));
    // Nor does the database a journal is copied to.
    let y_before = read(&y);
    std::fs::copy(&journal, d.join("y.db.journal")).unwrap();
    let resume = rollout_args(&y, &settings, &["--resume"]);
    assert_one_line_failure(BIN, "trainer", &resume, "another database");
    assert_eq!(read(&y), y_before);
    // The journal's own database still resumes from it.
    std::fs::write(&x, &x_before).unwrap();
    let report = ok(&rollout_args(&x, &settings, &["--resume"]));
    assert!(!report.contains(" 0 from the journal"), "{report}");
    assert!(!journal.exists());
    // With the job done there is no journal: `--resume` says so and
    // changes nothing.
    let done = read(&x);
    let resume = rollout_args(&x, &settings, &["--resume"]);
    assert_one_line_failure(BIN, "trainer", &resume, "there is none to resume");
    assert_eq!(read(&x), done);
}

/// `db label eval`, with or without `--resume`,
/// refuses a database whose race labelling was interrupted (it would
/// relabel it and leave a journal behind), and the race labelling then
/// resumes to what an uninterrupted run gives.
#[test]
fn label_eval_refuses_a_database_with_an_interrupted_race_labelling() {
    let dir = tempdir("bgkit-db-journal.");
    let (whole, cut, journal) = interrupted_race_labelling(dir.path());
    let settings = RACE_LABEL;
    let before = (
        std::fs::read(&cut).unwrap(),
        std::fs::read(&journal).unwrap(),
    );
    // Without --resume the journal is named; with it, the race job's
    // journal is not eval's (other settings).
    for (extra, needle) in [
        (None, "has an interrupted rollout or labelling"),
        (Some("--resume"), "other settings"),
    ] {
        let mut args = vec!["db", "label", "eval", s(&cut), "-q"];
        args.extend(extra);
        args.extend(evaluator());
        assert_one_line_failure(BIN, "trainer", &args, needle);
    }
    let after = (
        std::fs::read(&cut).unwrap(),
        std::fs::read(&journal).unwrap(),
    );
    assert!(before == after, "the database or its journal was changed");
    let mut again = vec!["db", "label", "race", s(&cut), "--resume"];
    again.extend(settings);
    let report = ok(&again);
    assert!(report.contains("from the journal"), "{report}");
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
}

/// A rollout's fingerprint holds the arithmetic and the
/// bearoff databases (by content, not by path): `--resume` with another
/// arithmetic or other databases is refused, shards rolled with another
/// arithmetic do not merge, and the same files under other names resume.
#[test]
fn rollout_fingerprints_hold_the_arithmetic_and_the_bearoff_files() {
    let dir = tempdir("bgkit-db-fingerprint.");
    let d = dir.path();
    let settings = ["--trials", "144", "--seed", "3", "-q"];
    let whole = fixture_part(d, "whole", 0..60);
    ok(&rollout_args(&whole, &settings, &[]));
    let cut = fixture_part(d, "cut", 0..60);
    let mut cmd = Command::new(BIN);
    cmd.args(rollout_args(&cut, &settings, &["--chunk", "2"]));
    kill_9_once_journaled(cmd, &d.join("cut.db.journal"));
    let before = std::fs::read(&cut).unwrap();
    for other in [&["--ieee"][..], &["--reference"], &["--bearoff", OS0]] {
        let mut args = vec!["db", "rollout", s(&cut), "--resume"];
        args.extend(settings);
        args.extend(["--weights", GNUBG_WD]);
        args.extend(other);
        assert_one_line_failure(BIN, "trainer", &args, "other settings");
    }
    assert_eq!(std::fs::read(&cut).unwrap(), before);
    let (one, two) = (d.join("one.bd"), d.join("two.bd"));
    std::fs::copy(OS0, &one).unwrap();
    std::fs::copy(TS0, &two).unwrap();
    let mut args = vec!["db", "rollout", s(&cut), "--resume"];
    args.extend(settings);
    args.extend([
        "--weights",
        GNUBG_WD,
        "--bearoff",
        s(&two),
        "--bearoff",
        s(&one),
    ]);
    ok(&args);
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
    // Shards of one database rolled out with different arithmetic.
    let parts: Vec<PathBuf> = (1..=2)
        .map(|k| fixture_part(d, &format!("part{k}"), 0..10))
        .collect();
    ok(&rollout_args(&parts[0], &settings, &["--shard", "1/2"]));
    ok(&rollout_args(
        &parts[1],
        &settings,
        &["--shard", "2/2", "--ieee"],
    ));
    let merged = d.join("merged.db");
    let args = ["db", "merge", s(&parts[0]), s(&parts[1]), "-o", s(&merged)];
    assert_one_line_failure(BIN, "trainer", &args, "different settings");
    assert!(!merged.exists());
}
