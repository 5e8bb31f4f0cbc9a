//! `db merge`.

use super::{aside, check_db_output, open, save};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::claim::Claim;
use support::cli::Outcome;
use trainer::positions::db::PositionDb;

/// Arguments of `db merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The databases, in order.
    #[arg(required = true, num_args = 1..)]
    dbs: Vec<PathBuf>,
    /// The merged database.
    #[arg(short = 'o', long, value_name = "DB")]
    output: PathBuf,
    /// Leave out the positions of this database (a held-out set, say);
    /// repeatable.
    #[arg(long, value_name = "DB")]
    exclude: Vec<PathBuf>,
}

/// Runs `db merge`.
pub fn run(args: &MergeArgs) -> Result<Outcome> {
    let _claim = Claim::new()
        .inputs(args.dbs.iter().chain(&args.exclude))
        .output(&args.output)
        .acquire()?;
    let all = args
        .dbs
        .iter()
        .map(|p| open(p))
        .collect::<Result<Vec<_>>>()?;
    let exclude = args
        .exclude
        .iter()
        .map(|p| open(p))
        .collect::<Result<Vec<_>>>()?;
    check_db_output(&args.output)?;
    let (merged, excluded) = PositionDb::merge_excluding(&all, &exclude)?;
    save(&merged, &args.output)?;
    support::outln!(
        "trainer db: merged {} databases: {} positions ({} rolled out) into {}{}",
        args.dbs.len(),
        merged.records.len(),
        merged.records.iter().filter(|r| r.rolled_out()).count(),
        args.output.display(),
        aside(excluded, "excluded")
    )?;
    Ok(Outcome::Done)
}
