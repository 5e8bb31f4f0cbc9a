//! Criterion benchmarks of the evaluator's parts, on the positions gnubg's
//! calibrate uses (random contact positions) and on races and bearoffs:
//! move generation, each input function, each net's forward pass, a full
//! 0-ply evaluation, the 0-ply best move for a roll, a 1-ply evaluation,
//! and bearoff database lookups.
//!
//! `cargo bench -p bgkit-benches` (needs gnubg's weights and databases, as
//! `trainer eval`). Figures: docs/performance.md.

use board::{Board, MoveList};
use calibrate::random_board;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use nets::forward::forward;
use nets::inputs::{base_inputs, contact_inputs, crashed_inputs, race_inputs};
use nets::{Evaluator, NetKind};
use rand_mt::Mt;
use std::hint::black_box;
use trainer::evaluator_args::EvaluatorArgs;

const N: usize = 1024;

fn evaluator() -> Evaluator {
    EvaluatorArgs::default()
        .build()
        .expect("gnubg's weights and databases (apt-get install gnubg)")
}

fn contact_boards() -> Vec<Board> {
    let mut rng = Mt::new(1);
    (0..N).map(|_| random_board(&mut rng)).collect()
}

/// Contact boards with one chequer of one side (each side in turn) moved
/// from its rearmost point to the bar, as after a hit: the shots with a
/// chequer to enter first.
fn bar_boards() -> Vec<Board> {
    contact_boards()
        .into_iter()
        .enumerate()
        .map(|(i, mut b)| {
            let side = &mut b.sides[i % 2];
            let rearmost = (0..24).rev().find(|&p| side[p] > 0).expect("15 chequers");
            side[rearmost] -= 1;
            side[24] += 1;
            b
        })
        .collect()
}

/// Races: contact boards with every chequer of each side moved past the
/// other's (the side on roll's home, the opponent's home), mirrored.
fn race_boards() -> Vec<Board> {
    let mut rng = Mt::new(2);
    (0..N)
        .map(|_| {
            let mut b = Board::EMPTY;
            for side in 0..2 {
                for _ in 0..15 {
                    b.sides[side][(rng.next_u32() % 12) as usize] += 1;
                }
            }
            b
        })
        .collect()
}

/// Bearoff positions: up to 15 chequers each in the home boards.
fn bearoff_boards() -> Vec<Board> {
    let mut rng = Mt::new(3);
    (0..N)
        .map(|_| {
            let mut b = Board::EMPTY;
            for side in 0..2 {
                for _ in 0..(1 + rng.next_u32() % 15) {
                    b.sides[side][(rng.next_u32() % 6) as usize] += 1;
                }
            }
            b
        })
        .collect()
}

fn per_board(c: &mut Criterion, name: &str, boards: &[Board], mut f: impl FnMut(&Board)) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(boards.len() as u64));
    g.bench_function(format!("{} positions", boards.len()), |b| {
        b.iter(|| {
            for board in boards {
                f(black_box(board));
            }
        })
    });
    g.finish();
}

fn movegen(c: &mut Criterion) {
    let mut moves = MoveList::new();
    let contact = contact_boards();
    per_board(c, "movegen/contact 6-3", &contact, |b| {
        black_box(moves.generate(b, 6, 3).len());
    });
    per_board(c, "movegen/contact 4-4", &contact, |b| {
        black_box(moves.generate(b, 4, 4).len());
    });
    let bearoff = bearoff_boards();
    per_board(c, "movegen/bearoff 6-3", &bearoff, |b| {
        black_box(moves.generate(b, 6, 3).len());
    });
}

fn inputs(c: &mut Criterion) {
    let arith = nets::Arithmetic::default();
    let contact = contact_boards();
    let races = race_boards();
    let mut out = vec![0f32; nets::inputs::MAX_INPUTS];
    per_board(c, "inputs/base", &contact, |b| base_inputs(b, &mut out));
    per_board(c, "inputs/contact", &contact, |b| {
        contact_inputs(b, &mut out, arith)
    });
    per_board(c, "inputs/contact, one on the bar", &bar_boards(), |b| {
        contact_inputs(b, &mut out, arith)
    });
    per_board(c, "inputs/crashed", &contact, |b| {
        crashed_inputs(b, &mut out, arith)
    });
    per_board(c, "inputs/race", &races, |b| {
        race_inputs(b, &mut out, arith)
    });
}

fn nets_forward(c: &mut Criterion) {
    let eval = evaluator();
    let arith = eval.arithmetic();
    let contact = contact_boards();
    let races = race_boards();
    for (kind, boards, fill) in [
        (
            NetKind::Contact,
            &contact,
            contact_inputs as fn(&Board, &mut [f32], _),
        ),
        (NetKind::Crashed, &contact, crashed_inputs),
        (NetKind::Race, &races, race_inputs),
    ] {
        let net = eval.nets().get(kind);
        let xs: Vec<Vec<f32>> = boards
            .iter()
            .map(|b| {
                let mut x = vec![0f32; net.inputs()];
                fill(b, &mut x, arith);
                x
            })
            .collect();
        let mut hidden = vec![0f32; net.hidden()];
        let mut out = [0f32; 5];
        let mut g = c.benchmark_group(format!("forward/{}", kind.name()));
        g.throughput(Throughput::Elements(xs.len() as u64));
        g.bench_function("1024 positions", |b| {
            b.iter(|| {
                for x in &xs {
                    forward(net, black_box(x), &mut hidden, &mut out, arith, eval.simd());
                }
                black_box(out)
            })
        });
        g.finish();
    }
}

fn evaluation(c: &mut Criterion) {
    let eval = evaluator();
    let mut s = eval.scratch();
    let contact = contact_boards();
    per_board(c, "evaluate/0-ply contact", &contact, |b| {
        black_box(eval.evaluate(b, &mut s));
    });
    let races = race_boards();
    per_board(c, "evaluate/0-ply race", &races, |b| {
        black_box(eval.evaluate(b, &mut s));
    });
    per_board(c, "best move/0-ply contact 6-3", &contact[..256], |b| {
        black_box(eval.best_move(b, 6, 3, false, &mut s));
    });
    let mut g = c.benchmark_group("evaluate/1-ply contact");
    g.throughput(Throughput::Elements(1));
    let mut k = 0;
    g.bench_function("1 position", |b| {
        b.iter_batched(
            || {
                k = (k + 1) % contact.len();
                contact[k]
            },
            |board| black_box(eval.evaluate_plied(&board, 1, false, &mut s)),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn bearoff(c: &mut Criterion) {
    let eval = evaluator();
    let arith = eval.arithmetic();
    let db = eval.bearoff();
    let boards = bearoff_boards();
    per_board(c, "bearoff/one-sided race", &boards, |b| {
        black_box(db.evaluate_one_sided(b, arith));
    });
    if db.has_two_sided() {
        let small: Vec<Board> = boards
            .iter()
            .filter(|b| b.chequers(0) <= 6 && b.chequers(1) <= 6)
            .copied()
            .collect();
        per_board(c, "bearoff/two-sided", &small, |b| {
            black_box(db.evaluate_two_sided(b, arith));
        });
    }
}

criterion_group!(benches, movegen, inputs, nets_forward, evaluation, bearoff);
criterion_main!(benches);
