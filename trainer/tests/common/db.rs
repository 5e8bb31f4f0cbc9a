//! What the position database and training tests share: fixtures,
//! gnubg's evaluator, small databases, splits and held-out errors.

use super::{ok, s, GNUBG_WD, OS0, TS0};
use std::path::{Path, PathBuf};
use test_support::gnubg_file;

/// The test fixture `name` (`trainer/tests/fixtures/NAME`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// gnubg's evaluator as options: its weights and bearoff databases (each
/// checked to be installed).
pub fn evaluator() -> [&'static str; 6] {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    ["--weights", GNUBG_WD, "--bearoff", OS0, "--bearoff", TS0]
}

/// A database of `ids` (targets 0: they are to be rolled out).
pub fn db_of_ids(dir: &Path, name: &str, ids: &[String]) -> PathBuf {
    let boards: Vec<board::Board> = ids
        .iter()
        .map(|id| board::Board::from_position_id(id).unwrap())
        .collect();
    super::db_of(dir, name, &boards)
}

/// Imports the fixture `name` (a `.dat`) into `db`.
pub fn import_fixture(name: &str, db: &Path) {
    ok(&["db", "import", s(&fixture(name)), "-o", s(db)]);
}

/// `fixture` imported and split 3:1 (seed 2): the training and held-out
/// databases.
pub fn split_fixture(dir: &Path, fixture_name: &str) -> (PathBuf, PathBuf) {
    let all = dir.join("all.db");
    import_fixture(fixture_name, &all);
    split(&all, "0.25", "2")
}

/// `db split` of `all` into `train.db` and `held.db` beside it (`holdout`
/// of the positions held out, by `seed`); their paths.
pub fn split(all: &Path, holdout: &str, seed: &str) -> (PathBuf, PathBuf) {
    let dir = all.parent().unwrap();
    let (train, held) = (dir.join("train.db"), dir.join("held.db"));
    ok(&[
        "db",
        "split",
        s(all),
        "--holdout",
        holdout,
        "--seed",
        seed,
        "-o",
        s(&train),
        "-o",
        s(&held),
    ]);
    (train, held)
}

/// `bench`'s equity RMS of `weights` on `class` in `db`, and the positions.
pub fn held_rms(db: &Path, class: &str, weights: &Path) -> (f64, u64) {
    let mut args = vec![
        "bench",
        "--json",
        "--class",
        class,
        "--db",
        s(db),
        "--weights",
        s(weights),
    ];
    args.extend(["--bearoff", OS0, "--bearoff", TS0]);
    let v: serde_json::Value = serde_json::from_str(ok(&args).lines().last().unwrap()).unwrap();
    let c = &v["classes"][class];
    (
        c["eqerr_rms"].as_f64().unwrap(),
        c["positions"].as_u64().unwrap(),
    )
}

/// Every race position (`--threshold 0`) of `games` self-play games with
/// gnubg's weights and dice `seed`, into `db`.
pub fn generate_races(db: &Path, games: &str, seed: &str) {
    self_play(db, games, "race", seed);
}

/// Every position of `classes` (`--threshold 0`) of `games` self-play
/// games with gnubg's weights and dice `seed`, into `db`.
fn self_play(db: &Path, games: &str, classes: &str, seed: &str) {
    let mut args = vec![
        "db",
        "generate",
        "--games",
        games,
        "--threshold",
        "0",
        "--classes",
        classes,
        "--seed",
        seed,
        "-o",
        s(db),
        "-q",
    ];
    args.extend(evaluator());
    ok(&args);
}

/// Every position of `classes` (`--threshold 0`) of `games` self-play
/// games with gnubg's weights and dice `seed`, into `db`, labelled by
/// gnubg's 0-ply evaluation.
pub fn labelled_self_play(db: &Path, games: &str, classes: &str, seed: &str) {
    self_play(db, games, classes, seed);
    let mut args = vec!["db", "label", "eval", s(db), "--plies", "0", "-q"];
    args.extend(evaluator());
    ok(&args);
}
