//! Field-by-field comparison of two databases with the same content (their
//! layouts may differ, e.g. compressed against uncompressed).

use crate::decode::Scale;
use crate::header::Kind;
use crate::problem::{fail, Problem};
use crate::reader::Database;
use crate::record::{HyperValues, Values};
use rayon::prelude::*;

/// Records compared per parallel task.
const CHUNK: u64 = 1 << 14;

/// Differences of one field over all records.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDiff {
    /// The field's name.
    pub field: &'static str,
    /// Largest absolute difference.
    pub max: f64,
    /// Mean absolute difference over all compared values.
    pub mean: f64,
    /// The first record with the largest difference (`None` if all equal).
    pub worst: Option<u64>,
    /// Values compared.
    pub count: u64,
}

#[derive(Clone, Copy, Default)]
struct Acc {
    max: f64,
    worst: Option<u64>,
    sum: f64,
    count: u64,
}

impl Acc {
    fn add(&mut self, index: u64, a: f32, b: f32) {
        let d = if a.to_bits() == b.to_bits() {
            0.0
        } else {
            let d = (f64::from(a) - f64::from(b)).abs();
            if d.is_nan() {
                f64::INFINITY
            } else {
                d
            }
        };
        if d > self.max {
            self.max = d;
            self.worst = Some(index);
        }
        self.sum += d;
        self.count += 1;
    }

    /// Merges a later range's accumulator (earliest worst record wins ties).
    fn merge(&mut self, later: &Acc) {
        if later.max > self.max {
            self.max = later.max;
            self.worst = later.worst;
        }
        self.sum += later.sum;
        self.count += later.count;
    }
}

/// What the two files must agree on to be compared.
fn content(kind: Kind) -> (u8, usize, usize, bool) {
    match kind {
        Kind::OneSided {
            points, gammons, ..
        } => (0, points.into(), 15, gammons),
        Kind::NormalDist { points } => (1, points.into(), 15, true),
        Kind::TwoSided {
            points,
            chequers,
            cubeful,
        } => (2, points.into(), chequers.into(), cubeful),
        Kind::Hyper { chequers } => (3, 25, chequers.into(), true),
    }
}

/// The fields compared for a kind, in report order.
pub fn fields(kind: Kind) -> Vec<&'static str> {
    match kind {
        Kind::OneSided { gammons, .. } => {
            let mut f = vec!["bearoff probability", "mean rolls", "sd rolls"];
            if gammons {
                f.extend(["gammon probability", "gammon mean rolls", "gammon sd rolls"]);
            }
            f
        }
        Kind::NormalDist { .. } => vec![
            "mean rolls",
            "sd rolls",
            "gammon mean rolls",
            "gammon sd rolls",
        ],
        Kind::TwoSided { cubeful, .. } => {
            let names = crate::record::TwoSidedValues::NAMES;
            names[..if cubeful { 4 } else { 1 }].to_vec()
        }
        Kind::Hyper { .. } => HyperValues::PROBABILITY_NAMES
            .into_iter()
            .chain(HyperValues::EQUITY_NAMES)
            .collect(),
    }
}

/// Feeds the pairs of values of one record to the field accumulators.
fn compare_record(kind: Kind, index: u64, a: &Values, b: &Values, acc: &mut [Acc]) {
    match (a, b) {
        (Values::OneSided(a), Values::OneSided(b)) => {
            let normal = matches!(kind, Kind::NormalDist { .. });
            let mut parts = vec![(&a.bearoff, &b.bearoff)];
            if let (Some(ga), Some(gb)) = (&a.gammon, &b.gammon) {
                parts.push((ga, gb));
            }
            let mut f = 0;
            for (da, db) in parts {
                if !normal {
                    for (&x, &y) in da.p.iter().zip(&db.p) {
                        acc[f].add(index, x, y);
                    }
                    f += 1;
                }
                acc[f].add(index, da.mean, db.mean);
                acc[f + 1].add(index, da.sd, db.sd);
                f += 2;
            }
        }
        (Values::TwoSided(a), Values::TwoSided(b)) => {
            for (f, (&x, &y)) in a.stored().iter().zip(b.stored()).enumerate() {
                acc[f].add(index, x, y);
            }
        }
        (Values::Hyper(a), Values::Hyper(b)) => {
            let xs = a.probabilities.iter().chain(&a.equities);
            let ys = b.probabilities.iter().chain(&b.equities);
            for (f, (&x, &y)) in xs.zip(ys).enumerate() {
                acc[f].add(index, x, y);
            }
        }
        _ => unreachable!("kinds were checked to match"),
    }
}

/// Compares every record of `a` and `b`, decoded as Debian's gnubg 1.07
/// does. Fails if the files do not hold the same kind of content (family,
/// points, chequers, gammons / cubeful); the layout may differ.
pub fn compare(a: &Database, b: &Database) -> Result<Vec<FieldDiff>, Problem> {
    let kind = a.kind();
    if content(kind) != content(b.kind()) {
        return fail(format!(
            "cannot compare a {} database with a {} database",
            kind,
            b.kind()
        ));
    }
    let names = fields(kind);
    let total = a.records() as u64;
    let partial: Vec<Vec<Acc>> = (0..total.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut acc = vec![Acc::default(); names.len()];
            for index in c * CHUNK..((c + 1) * CHUNK).min(total) {
                let (Ok(ra), Ok(rb)) = (a.record(index), b.record(index)) else {
                    unreachable!("both files have {total} records")
                };
                let (va, vb) = (ra.values(Scale::Reciprocal), rb.values(Scale::Reciprocal));
                compare_record(kind, index, &va, &vb, &mut acc);
            }
            acc
        })
        .collect();
    let mut total_acc = vec![Acc::default(); names.len()];
    for chunk in &partial {
        for (t, c) in total_acc.iter_mut().zip(chunk) {
            t.merge(c);
        }
    }
    Ok(names
        .into_iter()
        .zip(total_acc)
        .map(|(field, acc)| FieldDiff {
            field,
            max: acc.max,
            mean: if acc.count == 0 {
                0.0
            } else {
                acc.sum / acc.count as f64
            },
            worst: acc.worst,
            count: acc.count,
        })
        .collect())
}
