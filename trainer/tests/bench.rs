//! `trainer bench` end to end: gnubg-nn's error measures of gnubg on its
//! own outputs, the move error of `m` benchmark lines.

mod common;

use common::db::{db_of_ids, evaluator, fixture};
use common::{ok, s, BIN, GNUBG_WD, OS0, TS0};
use test_support::{assert_one_line_failure, tempdir};

#[test]
fn bench_of_gnubg_on_its_own_outputs_is_about_zero() {
    let dat = fixture("gnubg_0ply_200.dat");
    let mut args = vec!["bench", "--json", "--db", s(&dat)];
    args.extend(evaluator());
    let out = ok(&args);
    let v: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(v["positions"], 200);
    let classes = v["classes"].as_object().unwrap();
    assert_eq!(classes.len(), 3, "{v}");
    for (name, c) in classes {
        for key in ["eqerr_rms", "eqerr_max", "nobg_rms", "nobg_max"] {
            let e = c[key].as_f64().unwrap();
            assert!((0.0..2e-4).contains(&e), "{name} {key} = {e}");
        }
    }
    // The same positions as a database give the same report.
    let dir = tempdir("bgkit-bench.");
    let db = dir.path().join("b.db");
    ok(&["db", "import", s(&dat), "-o", s(&db)]);
    let mut args = vec!["bench", "--json", "--db", s(&db)];
    args.extend(evaluator());
    assert_eq!(ok(&args).lines().last(), out.lines().last());
    // A class the file does not hold is an error.
    let only_bearoff = db_of_ids(dir.path(), "bo", &["KwAAgB0AAAAAAA".to_string()]);
    let mut args = vec!["bench", "--db", s(&only_bearoff)];
    args.extend(evaluator());
    assert_one_line_failure(BIN, "trainer", &args, "no positions");
}

#[test]
fn move_benchmark_scores_the_nets_choice_as_referr_does() {
    let eval = trainer::evaluator_args::EvaluatorArgs {
        weights: Some(GNUBG_WD.into()),
        bearoff: vec![OS0.into(), TS0.into()],
        ..Default::default()
    }
    .build()
    .unwrap();
    let mut scratch = eval.scratch();
    let letters = |b: &board::Board| trainer::positions::dat::key_to_letters(&b.id_bytes());
    let mut text = String::from("# gnubg-nn move benchmark\no KwAAgB0AAAAAAA 0.5 0 0 0 0\n");
    let mut want = 0.0;
    for (k, (id, d0, d1)) in [
        ("4HPwATDgc/ABMA", 3, 1),
        ("4HPwATDgc/ABMA", 6, 5),
        ("sGfwATDgc/ABMA", 4, 2),
    ]
    .into_iter()
    .enumerate()
    {
        let board = board::Board::from_position_id(id).unwrap();
        let best = eval.best_move(&board, d0, d1, false, &mut scratch).unwrap();
        let mut list = board::MoveList::new();
        let others: Vec<board::Board> = list
            .generate(&board, d0.max(d1), d0.min(d1))
            .iter()
            .copied()
            .filter(|b| *b != best)
            .collect();
        let (p, b, x, y) = (
            letters(&board),
            letters(&best),
            letters(&others[0]),
            letters(&others[1]),
        );
        text.push_str(&match k {
            // The net's choice is the listed best: loss 0.
            0 => format!("m {p} {d0} {d1} {b} {x} 0.1\n"),
            // Listed second, 0.05 worse.
            1 => format!("m {p} {d0} {d1} {x} {b} 0.05 {y} 0.2\n"),
            // Not listed: the worst listed loss.
            _ => format!("m {p} {d0} {d1} {x} {y} 0.02\n"),
        });
        want += [0.0, 0.05, 0.02][k];
    }
    let dir = tempdir("bgkit-moves.");
    let file = dir.path().join("moves.txt");
    std::fs::write(&file, &text).unwrap();
    let mut args = vec!["bench", "--json", "--moves", s(&file)];
    args.extend(evaluator());
    let v: serde_json::Value = serde_json::from_str(ok(&args).lines().last().unwrap()).unwrap();
    assert_eq!(v["positions"], 3, "{v}");
    assert_eq!(v["moves"]["best_chosen"], 1, "{v}");
    let got = v["moves"]["move_error"].as_f64().unwrap();
    assert!((got - want / 3.0).abs() < 1e-12, "{got} vs {}", want / 3.0);
    // A malformed line is reported with its number.
    std::fs::write(&file, format!("{text}m AAAA 3 1 BBBB\n")).unwrap();
    let mut args = vec!["bench", "--moves", s(&file)];
    args.extend(evaluator());
    assert_one_line_failure(BIN, "trainer", &args, "line 6: bad position key");
}
