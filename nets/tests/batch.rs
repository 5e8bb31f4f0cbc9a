//! Batched evaluation (the candidates of a roll evaluated together) gives
//! exactly the bits of one-by-one evaluation, in every arithmetic and on
//! every SIMD level.

mod common;

use board::{Board, MoveList};
use nets::{Arithmetic, Class, Evaluation};

#[test]
fn batches_of_candidates_match_single_evaluations_bit_for_bit() {
    let positions: Vec<Board> = common::reference_0ply()
        .iter()
        .map(|r| r.board)
        .step_by(5)
        .collect();
    let mut moves = MoveList::new();
    for arith in [
        Arithmetic::GnubgFastMath,
        Arithmetic::Ieee,
        Arithmetic::Reference,
    ] {
        for simd in common::simd_levels("batches") {
            let eval = common::evaluator(arith).with_simd(simd).unwrap();
            let mut s = eval.scratch();
            let mut compared = 0;
            for (p, board) in positions.iter().enumerate() {
                let (d0, d1) = [(6, 5), (2, 2), (3, 1), (6, 6)][p % 4];
                let after: Vec<Board> = moves
                    .generate(board, d0, d1)
                    .iter()
                    .map(Board::swapped)
                    .collect();
                let mut batch = vec![
                    Evaluation {
                        class: nets::Class::Over,
                        outputs: [0.0; 5]
                    };
                    after.len()
                ];
                eval.evaluate_many(&after, &mut batch, &mut s);
                for (b, e) in after.iter().zip(&batch) {
                    let one = eval.evaluate(b, &mut s);
                    assert_eq!(one.class, e.class);
                    assert_eq!(
                        one.outputs.map(f32::to_bits),
                        e.outputs.map(f32::to_bits),
                        "{arith:?} {simd:?} {}",
                        b.position_id()
                    );
                    compared += 1;
                }
            }
            assert!(compared > 10_000, "{compared}");
        }
    }
}

/// The pruning nets' batch (a roll's candidates together, their shared
/// side listed once, its sanity counts kept from board to board) gives
/// each candidate the bits of its own pruning-net evaluation, in every
/// class, with several rolls of one position in a row.
#[test]
fn pruning_batches_match_single_pruning_evaluations_bit_for_bit() {
    let mut moves = MoveList::new();
    for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
        for simd in common::simd_levels("pruning batches") {
            let eval = common::evaluator(arith).with_simd(simd).unwrap();
            let mut s = eval.scratch();
            let mut compared = [0usize; 3];
            // The last batch of each class, from an earlier position: a
            // batch of two positions' candidates mixes two sides 1.
            let mut last: [Vec<Board>; 3] = Default::default();
            for r in common::reference_0ply().iter().step_by(11) {
                for (d0, d1) in [(6, 5), (2, 2), (3, 1), (5, 5), (4, 2)] {
                    let after: Vec<Board> = moves
                        .generate(&r.board, d0, d1)
                        .iter()
                        .map(Board::swapped)
                        .collect();
                    let Some(first) = after.first() else {
                        continue;
                    };
                    let class = eval.classify(first);
                    let kind = [Class::Race, Class::Crashed, Class::Contact]
                        .iter()
                        .position(|&c| c == class);
                    let Some(kind) = kind else {
                        continue;
                    };
                    if after.iter().any(|b| eval.classify(b) != class) {
                        continue;
                    }
                    let mixed: Vec<Board> = last[kind].iter().chain(&after).copied().collect();
                    last[kind] = after.clone();
                    let mut batch = vec![[0f32; 5]; mixed.len()];
                    eval.evaluate_pruning_many(&mixed, class, &mut batch, &mut s);
                    for (b, got) in mixed.iter().zip(&batch) {
                        let one = eval.evaluate_pruning_net(b, class, &mut s);
                        assert_eq!(
                            one.map(f32::to_bits),
                            got.map(f32::to_bits),
                            "{arith:?} {simd:?} {class:?} {}",
                            b.position_id()
                        );
                    }
                    compared[kind] += after.len();
                }
            }
            assert!(compared.iter().all(|&n| n > 1000), "{compared:?}");
        }
    }
}

#[test]
fn the_best_moves_evaluation_is_the_evaluation_of_the_position_after_it() {
    let eval = common::evaluator(Arithmetic::GnubgFastMath);
    let mut s = eval.scratch();
    let mut checked = 0;
    for (p, r) in common::reference_0ply().iter().step_by(7).enumerate() {
        for (d0, d1) in [(6, 5), (1, 1), (4, 2)] {
            let want = eval.best_move(&r.board, d0, d1, false, &mut s);
            let got = eval.best_move_evaluated(&r.board, d0, d1, &mut s);
            assert_eq!(want, got.map(|(after, _)| after), "position {p}");
            if let Some((after, value)) = got {
                let fresh = eval.evaluate(&after.swapped(), &mut s);
                assert_eq!(value.class, fresh.class);
                assert_eq!(
                    value.outputs.map(f32::to_bits),
                    fresh.outputs.map(f32::to_bits)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// Unrelated positions of one class evaluated together from their input
/// vectors (the trainer's error pass) give each position the bits of its
/// own evaluation.
#[test]
fn positions_evaluated_together_from_their_inputs_match_single_evaluations() {
    let positions: Vec<Board> = common::reference_0ply().iter().map(|r| r.board).collect();
    for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
        for simd in common::simd_levels("from-inputs batches") {
            let eval = common::evaluator(arith).with_simd(simd).unwrap();
            let mut s = eval.scratch();
            let mut compared = 0;
            for class in [
                nets::Class::Contact,
                nets::Class::Crashed,
                nets::Class::Race,
            ] {
                let boards: Vec<Board> = positions
                    .iter()
                    .filter(|b| eval.classify(b) == class)
                    .copied()
                    .take(301)
                    .collect();
                assert!(boards.len() > 100, "{class:?}: {}", boards.len());
                let width = eval
                    .nets()
                    .get(nets::NetKind::for_class(class, false).unwrap())
                    .inputs();
                // Groups of every size from 1 to 9, so that partial groups
                // of the batch's four are covered.
                let mut at = 0;
                for size in (1..=9).cycle() {
                    let group = &boards[at..(at + size).min(boards.len())];
                    let mut xs = vec![0f32; group.len() * width];
                    for (b, x) in group.iter().zip(xs.chunks_mut(width)) {
                        eval.inputs(b, class, x);
                    }
                    let mut out = vec![[0f32; 5]; group.len()];
                    eval.evaluate_many_from_inputs(group, class, &xs, &mut out, &mut s);
                    for (b, o) in group.iter().zip(&out) {
                        let one = eval.evaluate(b, &mut s).outputs;
                        assert_eq!(
                            one.map(f32::to_bits),
                            o.map(f32::to_bits),
                            "{arith:?} {simd:?} {class:?} {}",
                            b.position_id()
                        );
                        compared += 1;
                    }
                    at += group.len();
                    if at == boards.len() {
                        break;
                    }
                }
            }
            assert!(compared > 300, "{compared}");
        }
    }
}

/// The replies of all 21 rolls scored in one batch give each roll the
/// position and value that roll's own choice gives, with and without the pruning
/// nets, in every class.
#[test]
fn every_rolls_reply_from_one_batch_is_its_own_choice() {
    let positions: Vec<Board> = common::reference_0ply()
        .iter()
        .map(|r| r.board)
        .step_by(7)
        .collect();
    let eval = common::evaluator(Arithmetic::GnubgFastMath);
    let mut s = eval.scratch();
    let mut classes = std::collections::BTreeSet::new();
    for board in &positions {
        for prune in [false, true] {
            let replies = eval.best_replies(board, prune, &mut s);
            for (roll, reply) in board::ROLLS.iter().zip(&replies) {
                let (want_board, want) = eval
                    .choose_move_evaluated(board, roll.high, roll.low, prune, &mut s)
                    .map(|(after, e)| (after.swapped(), e))
                    .unwrap_or_else(|| (board.swapped(), eval.evaluate(&board.swapped(), &mut s)));
                let what = format!(
                    "{} {}-{} prune {prune}",
                    board.position_id(),
                    roll.high,
                    roll.low
                );
                assert_eq!(reply.board, want_board, "{what}");
                let reply = reply.evaluation;
                assert_eq!(reply.class, want.class, "{what}");
                assert_eq!(
                    reply.outputs.map(f32::to_bits),
                    want.outputs.map(f32::to_bits),
                    "{what}"
                );
                classes.insert(reply.class);
            }
        }
    }
    assert!(classes.contains(&Class::Contact) && classes.contains(&Class::Race));
}

/// A batch with repeated positions (the candidates of every roll of a
/// position, many reached by several rolls), evaluated within a search
/// (whose cache finds the repeats), gives each board the bits of its own
/// evaluation outside any search.
#[test]
fn a_batch_with_repeats_gives_every_board_its_own_bits() {
    let eval = common::evaluator(Arithmetic::GnubgFastMath);
    let (mut s, mut alone) = (eval.scratch(), eval.scratch());
    let mut moves = MoveList::new();
    let mut repeated = 0;
    for r in common::reference_0ply().iter().step_by(97) {
        let mut after: Vec<Board> = Vec::new();
        for roll in board::ROLLS {
            after.extend(
                moves
                    .generate(&r.board, roll.high, roll.low)
                    .iter()
                    .map(Board::swapped),
            );
        }
        let distinct: std::collections::HashSet<String> =
            after.iter().map(Board::position_id).collect();
        repeated += after.len() - distinct.len();
        let mut batch = vec![
            Evaluation {
                class: Class::Over,
                outputs: [0.0; 5]
            };
            after.len()
        ];
        s.within_search(|s| eval.evaluate_many(&after, &mut batch, s));
        for (b, e) in after.iter().zip(&batch) {
            let one = eval.evaluate(b, &mut alone);
            assert_eq!(one.class, e.class);
            assert_eq!(one.outputs.map(f32::to_bits), e.outputs.map(f32::to_bits));
        }
    }
    assert!(repeated > 100, "{repeated} repeats");
}
