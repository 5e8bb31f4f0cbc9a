//! gnubg-nn's error measures of a net against a database's targets
//! (docs/formats.md#error-measures): for every position with targets,
//! Δ = 0-ply output − target, and per class the RMS and maximum of
//! `2|Δ0| + |Δ1| + |Δ2| + |Δ3| + |Δ4|` (equity error) and of
//! `2|Δ0| + |Δ1| + |Δ3|` (without backgammons).

use crate::positions::db::Record;
use board::Board;
use nets::{Class, Evaluator};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// Largest move benchmark file read (gnubg-nn's are a few tens of MB).
pub const MOVES_LIMIT: support::input::Limit = support::input::Limit {
    bytes: 2 << 30,
    what: "move benchmark file",
};

/// The errors of one class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassErrors {
    /// Positions measured.
    pub positions: u64,
    /// RMS of the equity error.
    pub eqerr_rms: f64,
    /// Maximum equity error.
    pub eqerr_max: f64,
    /// RMS of the error without backgammons.
    pub nobg_rms: f64,
    /// Maximum error without backgammons.
    pub nobg_max: f64,
}

/// The errors of every class measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BenchReport {
    /// Positions measured.
    pub positions: u64,
    /// Per class name (lower case).
    pub classes: BTreeMap<String, ClassErrors>,
}

/// (equity error, error without backgammons) of outputs against targets.
pub fn position_errors(outputs: &[f32; 5], targets: &[f32; 5]) -> (f64, f64) {
    let d: [f64; 5] = std::array::from_fn(|k| f64::from(outputs[k]) - f64::from(targets[k]));
    let eq = 2.0 * d[0].abs() + d[1].abs() + d[2].abs() + d[3].abs() + d[4].abs();
    let nobg = 2.0 * d[0].abs() + d[1].abs() + d[3].abs();
    (eq, nobg)
}

/// Measures `eval` on the records with targets whose class is in
/// `classes` (all net classes if empty), in parallel; sums are taken in
/// record order, so the report does not depend on the threads.
pub fn bench(eval: &Evaluator, records: &[Record], classes: &[Class]) -> BenchReport {
    bench_plied(eval, records, classes, 0, false)
}

/// [`bench()`] of the net's `plies`-ply evaluation (with the pruning nets
/// inside the search if `prune`).
pub fn bench_plied(
    eval: &Evaluator,
    records: &[Record],
    classes: &[Class],
    plies: u32,
    prune: bool,
) -> BenchReport {
    let wanted = |c: Class| {
        if classes.is_empty() {
            c.uses_net()
        } else {
            classes.contains(&c)
        }
    };
    let errors: Vec<Option<(Class, f64, f64)>> = records
        .par_iter()
        .map_init(
            || eval.scratch(),
            |s, r| {
                let class = r.class();
                if !r.has_targets() || !wanted(class) {
                    return None;
                }
                let board = board::Board::from_id_bytes(&r.key).ok()?;
                let out = eval.evaluate_plied(&board, plies, prune, s).outputs;
                let (eq, nobg) = position_errors(&out, &r.targets);
                Some((class, eq, nobg))
            },
        )
        .collect();
    let mut sums: BTreeMap<String, (u64, f64, f64, f64, f64)> = BTreeMap::new();
    for (class, eq, nobg) in errors.into_iter().flatten() {
        let e = sums.entry(class.name().to_ascii_lowercase()).or_default();
        e.0 += 1;
        e.1 += eq * eq;
        e.2 = e.2.max(eq);
        e.3 += nobg * nobg;
        e.4 = e.4.max(nobg);
    }
    let mut report = BenchReport::default();
    for (name, (n, eq2, eqmax, nobg2, nobgmax)) in sums {
        report.positions += n;
        report.classes.insert(
            name,
            ClassErrors {
                positions: n,
                eqerr_rms: (eq2 / n as f64).sqrt(),
                eqerr_max: eqmax,
                nobg_rms: (nobg2 / n as f64).sqrt(),
                nobg_max: nobgmax,
            },
        );
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_measures() {
        let (eq, nobg) = position_errors(&[0.5, 0.2, 0.01, 0.1, 0.0], &[0.4, 0.1, 0.0, 0.2, 0.02]);
        assert!((eq - (0.2 + 0.1 + 0.01 + 0.1 + 0.02)).abs() < 1e-6);
        assert!((nobg - (0.2 + 0.1 + 0.1)).abs() < 1e-6);
    }
}

/// The move error of a net on gnubg-nn's move benchmark lines
/// (docs/trainer.md#error-benchmarks).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveReport {
    /// `m` lines measured.
    pub positions: usize,
    /// Mean equity loss of the net's 0-ply choice.
    pub move_error: f64,
    /// Positions where the net chose the listed best move.
    pub best_chosen: usize,
}

/// A malformed move benchmark line.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct MoveLineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// One `m` line: the position, the dice, the best move, and other moves with
/// their equity loss against the best (positions after the move).
struct MoveLine {
    board: Board,
    dice: (u8, u8),
    best: [u8; 10],
    others: Vec<([u8; 10], f64)>,
}

fn parse_move_line(fields: &[&str]) -> Result<MoveLine, String> {
    let key =
        |k: &str| crate::positions::dat::letters_to_key(k).ok_or(format!("bad position key {k:?}"));
    if fields.len() < 5 || fields.len().is_multiple_of(2) {
        return Err("expected `m POS D0 D1 BEST [MOVE LOSS]…`".into());
    }
    let board = Board::from_id_bytes(&key(fields[1])?)
        .map_err(|e| format!("position {}: {e}", fields[1]))?;
    let die = |s: &str| match s.parse::<u8>() {
        Ok(d @ 1..=6) => Ok(d),
        _ => Err(format!("bad die {s:?}")),
    };
    let others = fields[5..]
        .chunks(2)
        .map(|p| {
            let loss: f64 = p[1].parse().map_err(|_| format!("bad loss {:?}", p[1]))?;
            Ok((key(p[0])?, loss))
        })
        .collect::<Result<_, String>>()?;
    Ok(MoveLine {
        board,
        dice: (die(fields[2])?, die(fields[3])?),
        best: key(fields[4])?,
        others,
    })
}

/// gnubg-nn's move error (`referr.py`) over the `m` lines of `text` (other
/// lines are ignored): the net's 0-ply choice loses 0 if it is the listed
/// best move, the listed loss if it is another listed move, else the worst
/// listed loss. A move matches a listed key in either orientation (before
/// or after the sides are swapped).
pub fn move_benchmark(eval: &Evaluator, text: &str) -> Result<MoveReport, MoveLineError> {
    let lines: Vec<(usize, MoveLine)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('m'))
        .map(|(i, l)| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            if fields[0] != "m" {
                return Err(MoveLineError {
                    line: i + 1,
                    problem: format!("unknown line type {:?}", fields[0]),
                });
            }
            parse_move_line(&fields)
                .map(|m| (i + 1, m))
                .map_err(|problem| MoveLineError {
                    line: i + 1,
                    problem,
                })
        })
        .collect::<Result<_, _>>()?;
    let losses: Vec<(f64, bool)> = lines
        .par_iter()
        .map_init(
            || eval.scratch(),
            |scratch, (_, m)| {
                let Some(chosen) = eval
                    .choose_move(&m.board, m.dice.0, m.dice.1, false, scratch)
                    .map(|c| c.board)
                else {
                    return (0.0, true);
                };
                let keys = [chosen.id_bytes(), chosen.swapped().id_bytes()];
                if keys.contains(&m.best) {
                    return (0.0, true);
                }
                let worst = m.others.last().map_or(0.0, |o| o.1);
                let loss = m
                    .others
                    .iter()
                    .find(|(k, _)| keys.contains(k))
                    .map_or(worst, |o| o.1);
                (loss, false)
            },
        )
        .collect();
    let positions = losses.len();
    Ok(MoveReport {
        positions,
        move_error: if positions == 0 {
            0.0
        } else {
            losses.iter().map(|l| l.0).sum::<f64>() / positions as f64
        },
        best_chosen: losses.iter().filter(|l| l.1).count(),
    })
}
