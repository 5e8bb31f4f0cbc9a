//! `db candidates --best K`: of each position's moves for its roll, the K
//! with the highest 0-ply equity by the weights given.

mod common;

use common::db::evaluator;
use common::{dump, ok, s, GNUBG_WD, OS0, TS0};
use std::collections::HashSet;
use test_support::{assert_one_line_failure, tempdir};
use trainer::evaluator_args::EvaluatorArgs;

/// The positions of a database dump, as position IDs.
fn ids(db: &std::path::Path) -> Vec<String> {
    dump(db)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_best_candidates_are_the_moves_gnubg_would_weigh_first() {
    let dir = tempdir("bgkit-candidates.");
    let path = |name: &str| dir.path().join(name);
    let games = path("games.db");
    let mut generate = vec![
        "db",
        "generate",
        "--games",
        "6",
        "--threshold",
        "0",
        "--seed",
        "4",
        "-q",
        "-o",
        s(&games),
    ];
    generate.extend(evaluator());
    ok(&generate);
    let candidates = |out: &str, best: Option<&str>| {
        let out = path(out);
        let mut a = vec!["db", "candidates", s(&games), "-o", s(&out), "--seed", "7"];
        if let Some(k) = best {
            a.extend(["--best", k]);
            a.extend(evaluator());
        } else {
            a.extend(["--bearoff", OS0, "--bearoff", TS0]);
        }
        ok(&a);
        ids(&out).into_iter().collect::<HashSet<_>>()
    };
    let (all, best2, best1) = (
        candidates("all.db", None),
        candidates("best2.db", Some("2")),
        candidates("best1.db", Some("1")),
    );
    let positions = ids(&games);
    assert!(best1.is_subset(&best2) && best2.is_subset(&all));
    assert!(best1.len() < best2.len() && best2.len() < all.len());
    assert!(best2.len() <= 2 * positions.len());

    // --best 1: the move gnubg's 0-ply play picks for each position's roll
    // (where it leads to a class the database keeps).
    let eval = EvaluatorArgs {
        weights: Some(GNUBG_WD.into()),
        bearoff: vec![OS0.into(), TS0.into()],
        ..EvaluatorArgs::default()
    }
    .build()
    .unwrap();
    let mut scratch = eval.scratch();
    let played: HashSet<String> = positions
        .iter()
        .filter_map(|id| {
            let board = board::Board::from_position_id(id).unwrap();
            let (d0, d1) = trainer::positions::candidates::roll_for(&board, 7);
            let after = eval
                .best_move(&board, d0, d1, false, &mut scratch)?
                .swapped();
            let class = eval.classify(&after);
            matches!(
                class,
                nets::Class::Contact | nets::Class::Crashed | nets::Class::Race
            )
            .then(|| after.position_id())
        })
        .collect();
    assert_eq!(
        best1.symmetric_difference(&played).collect::<Vec<_>>(),
        Vec::<&String>::new()
    );

    // The same on one thread as on two.
    let boards: Vec<board::Board> = positions
        .iter()
        .map(|id| board::Board::from_position_id(id).unwrap())
        .collect();
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| trainer::positions::candidates::best_candidates(&boards, 7, &eval, 3))
    };
    assert_eq!(on(1), on(2));

    // --weights belongs to --best.
    let out = path("refused.db");
    let mut a = vec!["db", "candidates", s(&games), "-o", s(&out)];
    a.extend(evaluator());
    assert_one_line_failure(
        common::BIN,
        "trainer",
        &a,
        "--weights is used with --best K",
    );
    assert!(!out.exists());
    // The weights are an input: writing over them is refused.
    let weights = path("w.wd");
    std::fs::copy(GNUBG_WD, &weights).unwrap();
    let before = std::fs::read(&weights).unwrap();
    let a = [
        "db",
        "candidates",
        s(&games),
        "-o",
        s(&weights),
        "--best",
        "2",
        "--weights",
        s(&weights),
    ];
    assert_one_line_failure(common::BIN, "trainer", &a, "refusing to overwrite an input");
    assert_eq!(std::fs::read(&weights).unwrap(), before);
}
