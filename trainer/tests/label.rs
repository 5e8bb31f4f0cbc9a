//! `trainer db label race`: exact one-sided labels and one-sided rollouts.

mod common;

use board::Board;
use common::{db_of, dump, ok, s, BIN, GNUBG_WD};
use nets::{Arithmetic, BearoffDatabases};
use test_support::GNUBG_OS0;
use trainer::rollouts::race_label::label;

fn bearoff() -> BearoffDatabases {
    BearoffDatabases::open(&[GNUBG_OS0])
        .expect("gnubg's one-sided database (apt-get install gnubg)")
}

fn board(on_roll: &[(usize, u8)], other: &[(usize, u8)]) -> Board {
    let mut b = Board::EMPTY;
    for &(p, n) in on_roll {
        b.sides[1][p] = n;
    }
    for &(p, n) in other {
        b.sides[0][p] = n;
    }
    b
}

#[test]
fn exact_labels_are_gnubgs_one_sided_evaluation() {
    let db = bearoff();
    let cases = [
        board(
            &[(0, 3), (1, 3), (2, 3), (3, 2), (4, 2), (5, 2)],
            &[(3, 5), (4, 5), (5, 5)],
        ),
        board(&[(5, 15)], &[(0, 2), (1, 1)]),
        board(&[(0, 1), (5, 2)], &[(4, 15)]),
    ];
    for b in cases {
        let l = label(&db, &b, 1296, 1).unwrap();
        let want = db.evaluate_one_sided(&b, Arithmetic::Ieee);
        assert_eq!(l.games, 0);
        assert_eq!(l.std_errors, [0.0; 5]);
        for k in 0..5 {
            assert!(
                (l.targets[k] - want[k]).abs() < 1e-6,
                "{} {k}: {:?} vs {want:?}",
                b.position_id(),
                l.targets
            );
        }
    }
}

/// Race positions without gammon chances (both sides have chequers off):
/// the one-sided play heuristic matters least there.
const NO_GAMMON_RACES: [&str; 4] = [
    "u/UGAIBtdyMAAA",
    "9+5CAAC3tQcAAA",
    "1+wBAODeXQgAAA",
    "o3t2AADb2QwYAA",
];

#[test]
fn label_cli_labels_races_only_the_same_with_any_threads() {
    let dir = test_support::tempdir("bgkit-label.");
    let mut boards: Vec<Board> = NO_GAMMON_RACES
        .iter()
        .map(|id| Board::from_position_id(id).unwrap())
        .collect();
    // An exact one (both sides within the one-sided database) and a contact
    // position, which stays as it was.
    boards.push(board(
        &[(0, 3), (1, 3), (2, 3), (3, 2), (4, 2), (5, 2)],
        &[(3, 5), (4, 5), (5, 5)],
    ));
    boards.push(Board::from_position_id("4HPwATDgc/ABMA").unwrap());
    let a = db_of(dir.path(), "a", &boards);
    let b = dir.path().join("b.db");
    std::fs::copy(&a, &b).unwrap();
    for (db, threads) in [(&a, "1"), (&b, "2")] {
        let out = ok(&[
            "db",
            "label",
            "race",
            s(db),
            "--games",
            "324",
            "--threads",
            threads,
            "--bearoff",
            GNUBG_OS0,
            "-q",
        ]);
        assert!(
            out.contains("5 race positions labelled (1 exact, 4 by one-sided rollouts"),
            "{out}"
        );
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let rows = dump(&a);
    assert_eq!(rows.len(), 6);
    for r in &rows[..4] {
        assert_eq!(r["trials"], 324, "{r}");
        assert!(r["targets"].is_array(), "{r}");
    }
    assert_eq!(rows[4]["trials"], 0);
    assert!(rows[4]["targets"].is_array());
    // The contact position keeps its imported (zero) targets.
    assert_eq!(rows[5]["trials"], 0);
    assert_eq!(
        rows[5]["targets"],
        serde_json::json!([0.0, 0.0, 0.0, 0.0, 0.0]),
        "the contact position is not labelled"
    );
}

#[test]
fn osr_labels_agree_with_rollouts_where_play_cannot_matter_for_gammons() {
    let dir = test_support::tempdir("bgkit-label-roll.");
    let boards: Vec<Board> = NO_GAMMON_RACES
        .iter()
        .map(|id| Board::from_position_id(id).unwrap())
        .collect();
    let labelled = db_of(dir.path(), "l", &boards);
    let rolled = db_of(dir.path(), "r", &boards);
    ok(&[
        "db",
        "label",
        "race",
        s(&labelled),
        "--bearoff",
        GNUBG_OS0,
        "-q",
    ]);
    ok(&[
        "db",
        "rollout",
        s(&rolled),
        "--trials",
        "1296",
        "--weights",
        GNUBG_WD,
        "--bearoff",
        GNUBG_OS0,
        "--bearoff",
        test_support::GNUBG_TS0,
        "-q",
    ]);
    for (l, r) in dump(&labelled).iter().zip(dump(&rolled)) {
        let (el, er) = (l["equity"].as_f64().unwrap(), r["equity"].as_f64().unwrap());
        let se = l["equity_std_error"]
            .as_f64()
            .unwrap()
            .hypot(r["equity_std_error"].as_f64().unwrap());
        assert!(
            (el - er).abs() <= 3.0 * se + 0.01,
            "{}: label {el} vs rollout {er} (combined SE {se})",
            l["id"]
        );
    }
}

#[test]
fn label_refuses_a_database_without_races() {
    let dir = test_support::tempdir("bgkit-label-bad.");
    let db = db_of(
        dir.path(),
        "c",
        &[Board::from_position_id("4HPwATDgc/ABMA").unwrap()],
    );
    let before = std::fs::read(&db).unwrap();
    test_support::assert_one_line_failure(
        BIN,
        "trainer",
        &["db", "label", "race", s(&db), "--bearoff", GNUBG_OS0],
        "no race positions",
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "database unchanged");
}
