//! Move selection: edge cases and agreement between the entry points. (Its
//! agreement with gnubg is covered by the 1-ply references, where every one
//! of the 21 rolls × 185 positions must pick gnubg's move to match.)

mod common;

use board::{Board, MoveList};
use nets::{prune_moves, Arithmetic};

#[test]
fn no_legal_move_and_forced_moves() {
    let eval = common::evaluator(Arithmetic::Ieee);
    let mut s = eval.scratch();
    // On the bar against a closed board: nothing to play, 1-ply keeps the
    // position for every roll.
    let mut b = Board::EMPTY;
    b.sides[1][24] = 1;
    b.sides[1][5] = 14;
    for p in 0..6 {
        b.sides[0][p] = 2;
    }
    b.sides[0][10] = 3;
    for (d0, d1) in [(6, 6), (3, 1), (1, 6)] {
        assert_eq!(eval.best_move(&b, d0, d1, false, &mut s), None);
        assert_eq!(eval.best_move(&b, d0, d1, true, &mut s), None);
    }
    let e = eval.evaluate_plied(&b, 1, false, &mut s);
    assert!(e.outputs[0] < 0.5);
    // One chequer left: every roll bears it off and wins.
    let mut last = Board::EMPTY;
    last.sides[1][0] = 1;
    last.sides[0][5] = 15;
    let after = eval.best_move(&last, 2, 1, false, &mut s).unwrap();
    assert_eq!(after.chequers(1), 0);
    let e = eval.evaluate_plied(&last, 1, true, &mut s);
    assert_eq!(e.outputs, [1.0, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn chosen_move_is_the_best_scored_and_pruning_keeps_gnubgs_count() {
    let eval = common::evaluator(Arithmetic::GnubgFastMath);
    let mut s = eval.scratch();
    let mut moves = MoveList::new();
    let refs = common::reference_0ply();
    for r in refs.iter().filter(|r| r.class == "CONTACT").take(40) {
        for roll in board::ROLLS {
            let list = moves.generate(&r.board, roll.high, roll.low).to_vec();
            let Some(chosen) = eval.choose_move(&r.board, roll.high, roll.low, false, &mut s)
            else {
                assert!(list.is_empty());
                continue;
            };
            assert_eq!(list[chosen.index], chosen.board);
            let scores: Vec<f32> = list.iter().map(|m| eval.move_equity(m, &mut s)).collect();
            let best = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let first_best = scores.iter().position(|&x| x == best).unwrap();
            assert_eq!(chosen.index, first_best, "{} {roll:?}", r.id);
            // Pruning picks one of the moves, never a better one.
            let pruned = eval
                .choose_move(&r.board, roll.high, roll.low, true, &mut s)
                .unwrap();
            assert!(scores[pruned.index] <= best);
            if list.len() <= prune_moves(list.len()) {
                assert_eq!(pruned.index, chosen.index);
            }
        }
    }
    assert_eq!(prune_moves(16), 9);
    assert_eq!(prune_moves(26), 9);
    assert_eq!(prune_moves(122), 11);
    assert_eq!(prune_moves(3875), 16);
}

#[test]
fn batch_evaluation_equals_single_evaluations() {
    let eval = common::evaluator(Arithmetic::Ieee);
    let mut s = eval.scratch();
    let boards: Vec<Board> = common::reference_0ply()
        .iter()
        .step_by(97)
        .map(|r| r.board)
        .collect();
    let mut out = vec![eval.evaluate(&boards[0], &mut s); boards.len()];
    eval.evaluate_many(&boards, &mut out, &mut s);
    for (b, e) in boards.iter().zip(&out) {
        assert_eq!(*e, eval.evaluate(b, &mut s));
        let inv = board::invert(&e.outputs);
        assert_eq!(
            inv[1..],
            [e.outputs[3], e.outputs[4], e.outputs[1], e.outputs[2]]
        );
        assert_eq!(inv[0], 1.0 - e.outputs[0]);
        assert!((board::cubeless_equity(&inv) + e.equity()).abs() < 1e-6);
    }
}

/// gnubg 1.07's own choice at 0 ply (Python `findbestmove`, cubeless money,
/// which is what its computer player plays) in (position, dice) pairs whose
/// best score several moves share (fixtures/gnubg_ties.tsv): `best_move`
/// plays it, including the pairs where the dice order decides; the first
/// best move in list order (`choose_move`, as gnubg's searches choose)
/// often differs.
#[test]
fn best_move_breaks_ties_as_gnubg_plays() {
    let eval = common::evaluator(Arithmetic::default());
    let mut s = eval.scratch();
    let (mut cases, mut first_differs) = (0, 0);
    for line in include_str!("fixtures/gnubg_ties.tsv").lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let board = Board::from_position_id(f[0]).unwrap();
        let (d0, d1): (u8, u8) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let played = eval.best_move(&board, d0, d1, false, &mut s).unwrap();
        assert_eq!(played.position_id(), f[3], "{line}");
        let (_, value) = eval.best_move_evaluated(&board, d0, d1, &mut s).unwrap();
        assert_eq!(value, eval.evaluate(&played.swapped(), &mut s), "{line}");
        let first = eval.choose_move(&board, d0, d1, false, &mut s).unwrap();
        first_differs += usize::from(first.board != played);
        // `hint`'s list: every move once, the played move first, then by
        // score (no move here bears off the last chequer).
        let ranked = eval.ranked_moves(&board, d0, d1, &mut s);
        assert_eq!(ranked[0].0, played, "{line}");
        let mut all = MoveList::new().generate(&board, d0, d1).to_vec();
        let mut listed: Vec<Board> = ranked.iter().map(|m| m.0).collect();
        all.sort_by_key(|b| b.id_bytes());
        listed.sort_by_key(|b| b.id_bytes());
        assert_eq!(listed, all, "{line}");
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1), "{line}");
        for (after, score) in &ranked {
            assert_eq!(*score, eval.move_equity(after, &mut s), "{line}");
        }
        cases += 1;
    }
    assert_eq!(cases, 1139);
    assert!(first_differs > 400, "{first_differs}");
}
