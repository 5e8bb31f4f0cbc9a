//! `trainer db generate` end to end: positions over the 0-ply/1-ply
//! threshold, exploration with random moves.

mod common;

use common::db::evaluator;
use common::{dump, ok, s, BIN};
use test_support::{assert_one_line_failure, tempdir};

#[test]
fn generate_keeps_unique_positions_over_the_threshold() {
    let dir = tempdir("bgkit-db.");
    let db = dir.path().join("gen.db");
    let mut args = vec![
        "db",
        "generate",
        "--games",
        "12",
        "--threshold",
        "0.04",
        "--classes",
        "contact,race",
        "-o",
        s(&db),
        "--seed",
        "5",
    ];
    args.extend(evaluator());
    let report = ok(&args);
    let rows = dump(&db);
    assert!(!rows.is_empty(), "{report}");
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "repeated positions");
    for r in &rows {
        assert!(
            ["CONTACT", "RACE"].contains(&r["class"].as_str().unwrap()),
            "{r}"
        );
    }
    let equities = |plies: &str| {
        let mut a = vec!["--plies", plies];
        a.extend(evaluator());
        common::eval_equities(&a, &ids)
    };
    for ((id, e0), e1) in ids.iter().zip(equities("0")).zip(equities("1")) {
        assert!(
            (e0 - e1).abs() >= 0.04 - 1e-6,
            "{id}: 0-ply {e0}, 1-ply {e1}"
        );
    }
}

#[test]
fn generate_explores_with_random_moves_of_its_own_stream() {
    let dir = tempdir("bgkit-db.");
    let run = |name: &str, explore: &str| {
        let db = dir.path().join(name);
        let mut args = vec!["db", "generate", "--games", "6", "--threshold", "0"];
        args.extend(["--explore", explore, "--seed", "9", "-q", "-o", s(&db)]);
        args.extend(evaluator());
        ok(&args);
        dump(&db)
    };
    let ids = |rows: &[serde_json::Value]| -> Vec<String> {
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let best = ids(&run("best.db", "0"));
    let explored = ids(&run("explored.db", "0.5"));
    assert_eq!(
        explored,
        ids(&run("again.db", "0.5")),
        "same seed, same games"
    );
    assert_ne!(
        best, explored,
        "half the moves random must change the games"
    );
    let never = dir.path().join("never.db");
    let mut args = vec!["db", "generate", "--games", "1", "--explore", "1.5"];
    args.extend(["-o", s(&never)]);
    args.extend(evaluator());
    assert_one_line_failure(
        BIN,
        "trainer",
        &args,
        "--explore 1.5: must be between 0 and 1",
    );
    assert!(!never.exists());
}
