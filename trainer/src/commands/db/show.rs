//! `db dump` and `db stats`: what a database holds.

use super::open;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::positions::db::{class_from_code, position_id, Record};

/// Arguments of `db dump`.
#[derive(Args, Debug)]
pub struct DumpArgs {
    /// The database.
    db: PathBuf,
    /// At most this many positions.
    #[arg(long)]
    limit: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

/// Arguments of `db stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// The database.
    db: PathBuf,
}

/// Runs `db dump`.
pub fn dump(args: &DumpArgs) -> Result<Outcome> {
    let data = open(&args.db)?;
    for r in data.records.iter().take(args.limit.unwrap_or(usize::MAX)) {
        if args.json {
            support::outln!("{}", json_row(r))?;
        } else {
            support::outln!("{}", text_row(r))?;
        }
    }
    Ok(Outcome::Done)
}

/// A record as `db dump --json` prints it.
fn json_row(r: &Record) -> serde_json::Value {
    serde_json::json!({
        "id": position_id(&r.key),
        "class": r.class().name(),
        "trials": r.trials,
        "targets": r.has_targets().then_some(r.targets),
        "equity": r.has_targets().then_some(r.equity),
        "std_errors": r.has_std_errors().then_some(r.std_errors),
        "equity_std_error": r.has_std_errors().then_some(r.equity_std_error),
    })
}

/// A record as `db dump` prints it: tab-separated.
fn text_row(r: &Record) -> String {
    let t = if r.has_targets() {
        r.targets
            .iter()
            .map(|v| format!("{v:.6}"))
            .collect::<Vec<_>>()
            .join("\t")
    } else {
        "-\t-\t-\t-\t-".into()
    };
    format!(
        "{}\t{}\t{}\t{t}\t{:.6}\t{:.6}",
        position_id(&r.key),
        r.class().name(),
        r.trials,
        r.equity,
        r.equity_std_error
    )
}

/// Runs `db stats`.
pub fn stats(args: &StatsArgs) -> Result<Outcome> {
    let data = open(&args.db)?;
    support::outln!("{}: {} positions", args.db.display(), data.records.len())?;
    if let Some(s) = &data.rollout_settings {
        support::outln!("rollout settings: {s}")?;
    }
    if let Some(stamp) = &data.labels {
        support::outln!("labels: {stamp}")?;
    }
    support::outln!(
        "{:<10} {:>9} {:>9} {:>11} {:>9} {:>10} {:>12}",
        "class",
        "positions",
        "targets",
        "rolled out",
        "trials",
        "mean win",
        "mean eq. SE"
    )?;
    for c in trainer::positions::stats::class_stats(&data) {
        support::outln!(
            "{:<10} {:>9} {:>9} {:>11} {:>9} {:>10.4} {:>12.5}",
            class_from_code(c.code).map_or("?", |c| c.name()),
            c.positions,
            c.with_targets,
            c.rolled_out,
            c.trials,
            c.mean_win,
            c.mean_equity_std_error
        )?;
    }
    Ok(Outcome::Done)
}
