//! n-ply chequer play (`Evaluator::best_move_plied`): what each depth
//! promises, checked on reference positions of every class.

mod common;

use board::Board;
use nets::{Arithmetic, FILTER_EQUITY, FILTER_MOVES};

fn cases() -> Vec<(Board, u8, u8)> {
    let refs = common::reference_0ply();
    let rolls = [(2, 1), (6, 6), (5, 3)];
    refs.iter()
        .step_by(977)
        .take(8)
        .zip(rolls.iter().cycle())
        .map(|(r, &(d0, d1))| (r.board, d0, d1))
        .collect()
}

#[test]
fn each_depth_picks_the_best_move_it_promises() {
    let eval = common::evaluator(Arithmetic::default());
    let mut s = eval.scratch();
    for (board, d0, d1) in cases() {
        let moves = board::MoveList::new().generate(&board, d0, d1).to_vec();
        let id = board.position_id();
        let zero = eval.best_move_plied(&board, d0, d1, 0, false, &mut s);
        assert_eq!(zero, eval.best_move(&board, d0, d1, false, &mut s), "{id}");
        if moves.len() < 2 {
            continue;
        }
        let score = |after: &Board, plies, s: &mut nets::Scratch| {
            -eval.arithmetic().equity(
                &eval
                    .evaluate_plied(&after.swapped(), plies, true, s)
                    .outputs,
            )
        };
        // 1 ply: the first move of the highest 1-ply score.
        let one = eval
            .best_move_plied(&board, d0, d1, 1, true, &mut s)
            .unwrap();
        let scores: Vec<f32> = moves.iter().map(|m| score(m, 1, &mut s)).collect();
        let best = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let first = scores.iter().position(|&x| x == best).unwrap();
        assert_eq!(one, moves[first], "{id} {d0}{d1} at 1 ply");
        // 2 plies: a move that passes gnubg's filter at 0 ply and scores
        // best at 2 plies among those that pass.
        let two = eval
            .best_move_plied(&board, d0, d1, 2, true, &mut s)
            .unwrap();
        let zero_scores: Vec<f32> = moves.iter().map(|m| eval.move_equity(m, &mut s)).collect();
        let top = zero_scores
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let mut ranked: Vec<usize> = (0..moves.len()).collect();
        ranked.sort_by(|&a, &b| zero_scores[b].total_cmp(&zero_scores[a]));
        let passing: Vec<usize> = ranked
            .into_iter()
            .take(FILTER_MOVES)
            .filter(|&i| zero_scores[i] >= top - FILTER_EQUITY)
            .collect();
        let chosen = passing
            .iter()
            .position(|&i| moves[i] == two)
            .unwrap_or_else(|| panic!("{id} {d0}{d1}: the 2-ply move did not pass the filter"));
        let two_score = score(&moves[passing[chosen]], 2, &mut s);
        for &i in &passing {
            assert!(
                two_score >= score(&moves[i], 2, &mut s),
                "{id} {d0}{d1}: move {i} is better at 2 plies"
            );
        }
    }
}

/// A scratch that keeps its evaluations across searches
/// (`Scratch::keep_evaluations`) gives every search the bits of a fresh
/// scratch: positions of one game in turn (each the best 0-ply move's
/// position after the one before, so later searches meet earlier ones'
/// positions), at 1 and 2 plies, with and without pruning, then all of
/// them again from the kept cache.
#[test]
fn kept_evaluations_give_every_search_its_bits() {
    let eval = common::evaluator(Arithmetic::default());
    let mut kept = eval.scratch();
    kept.keep_evaluations();
    let mut game = vec![Board::from_position_id("4HPwATDgc/ABMA").unwrap()];
    let rolls = [
        (3, 1),
        (6, 4),
        (5, 5),
        (2, 1),
        (6, 3),
        (4, 2),
        (5, 1),
        (6, 6),
    ];
    let mut s = eval.scratch();
    for &(d0, d1) in &rolls {
        let last = *game.last().unwrap();
        let after = eval.best_move(&last, d0, d1, false, &mut s).unwrap();
        game.push(after.swapped());
    }
    for _ in 0..2 {
        for board in &game {
            for (plies, prune) in [(1, false), (2, true), (2, false)] {
                let got = eval.evaluate_plied(board, plies, prune, &mut kept);
                let want = eval.evaluate_plied(board, plies, prune, &mut eval.scratch());
                assert_eq!(
                    got.outputs.map(f32::to_bits),
                    want.outputs.map(f32::to_bits),
                    "{} at {plies} plies, prune {prune}",
                    board.position_id()
                );
            }
        }
    }
}
