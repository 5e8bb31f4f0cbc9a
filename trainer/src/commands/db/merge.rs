//! `db merge`.

use super::{aside, check_db_output, claim_db, open, save_recorded};
use crate::commands::common::file_md5;
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};
use support::cli::Outcome;
use trainer::positions::db::{DbError, LabelStamp, PositionDb};

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
    let _claim = claim_db(args.dbs.iter().chain(&args.exclude), &args.output)?;
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
    let (merged, excluded) = match PositionDb::merge_excluding(&all, &exclude) {
        Err(DbError::LabelsDiffer {
            first,
            first_stamp,
            second,
            second_stamp,
        }) => {
            let (a, b) = (&args.dbs[first], &args.dbs[second]);
            anyhow::bail!(
                "{} and {} were labelled with different settings, one of them in shards \
                 ({}; {}): label every shard with the same settings, or merge whole labellings",
                a.display(),
                b.display(),
                describe(a, &first_stamp),
                describe(b, &second_stamp)
            )
        }
        merged => merged?,
    };
    let md5s = args
        .dbs
        .iter()
        .chain(&args.exclude)
        .map(|p| file_md5(p))
        .collect::<Result<Vec<_>>>()?;
    let (of_dbs, of_exclude) = md5s.split_at(args.dbs.len());
    save_recorded(
        &merged,
        &args.output,
        serde_json::json!({
            "merged": args.dbs, "md5": of_dbs,
            "exclude": args.exclude, "exclude_md5": of_exclude,
        }),
    )?;
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

/// A labelled database's stamp and, from its provenance record when that
/// records this very file, the settings behind it.
fn describe(db: &Path, stamp: &LabelStamp) -> String {
    let settings = file_md5(db)
        .ok()
        .and_then(|md5| trainer::provenance::recorded_settings(db, &md5));
    let mut how = String::new();
    if let Some(s) = settings {
        how = format!(" at {}-ply", s["plies"]);
        if s["prune"] == true {
            how.push_str(" pruned");
        }
        let weights = s["weights"].as_str().or(s["weights_md5"].as_str());
        how.push_str(&format!(" with {}", weights.unwrap_or("?")));
        if let Some(a) = s["evaluator"]["arithmetic"].as_str() {
            how.push_str(&format!(", arithmetic {a}"));
        }
    }
    format!(
        "{}: {} labelled{how} (settings MD5 {})",
        db.display(),
        stamp.part,
        stamp.settings
    )
}
