//! gnubg-nn's error measures of a net against a database's targets
//! (docs/formats.md#error-measures): for every position with targets,
//! Δ = 0-ply output − target, and per class the RMS and maximum of
//! `2|Δ0| + |Δ1| + |Δ2| + |Δ3| + |Δ4|` (equity error) and of
//! `2|Δ0| + |Δ1| + |Δ3|` (without backgammons).

use crate::posdb::Record;
use nets::{Class, Evaluator};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

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
                let out = eval.evaluate(&board, s).outputs;
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
