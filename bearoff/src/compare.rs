//! `bearoff compare`.

use crate::json::{self};
use crate::open::open;
use anyhow::{anyhow, Result};
use databases::compare::compare;
use databases::Kind;
use serde_json::{json, Value};
use std::path::Path;
use support::cli::Outcome;

/// Runs `bearoff compare`.
pub fn run(
    a: &Path,
    b: &Path,
    tolerance: f64,
    as_json: bool,
    kind: Option<Kind>,
) -> Result<Outcome> {
    let (da, db) = (open(a, kind)?, open(b, kind)?);
    let diffs = compare(&da, &db).map_err(|e| anyhow!(e))?;
    let position = |index: Option<u64>| {
        index
            .and_then(|i| da.pair_at(i).ok())
            .map(|p| p.board.position_id())
    };
    let worst = diffs.iter().map(|d| d.max).fold(0.0, f64::max);
    let pass = worst <= tolerance;
    if as_json {
        let fields: Vec<Value> = diffs
            .iter()
            .map(|d| {
                json!({
                    "field": d.field,
                    "max_abs_diff": d.max,
                    "mean_abs_diff": d.mean,
                    "worst_record": d.worst,
                    "worst_position_id": position(d.worst),
                    "values": d.count,
                })
            })
            .collect();
        json::print(&json!({
            "a": da.path().display().to_string(),
            "b": db.path().display().to_string(),
            "kind": da.kind().to_string(),
            "records": da.records(),
            "tolerance": tolerance,
            "max_abs_diff": worst,
            "within_tolerance": pass,
            "fields": fields,
        }))?;
    } else {
        support::outln!("A: {} ({})", da.path().display(), da.kind())?;
        support::outln!("B: {} ({})", db.path().display(), db.kind())?;
        support::outln!("{} records compared", da.records())?;
        support::outln!()?;
        support::outln!(
            "{:<28} {:>13} {:>13}  worst record (Position ID)",
            "field",
            "max |A-B|",
            "mean |A-B|"
        )?;
        for d in &diffs {
            let worst = match (d.worst, position(d.worst)) {
                (Some(i), Some(id)) => format!("{i} ({id})"),
                _ => "-".to_string(),
            };
            support::outln!(
                "{:<28} {:>13.6e} {:>13.6e}  {worst}",
                d.field,
                d.max,
                d.mean
            )?;
        }
        support::outln!()?;
        if worst == 0.0 {
            support::outln!("identical values")?;
        } else if pass {
            support::outln!("largest difference {worst:.6e} is within the tolerance {tolerance}")?;
        } else {
            support::outln!("largest difference {worst:.6e} EXCEEDS the tolerance {tolerance}")?;
        }
    }
    Ok(if pass { Outcome::Done } else { Outcome::Failed })
}
