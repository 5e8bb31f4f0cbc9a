//! `db split`.

use super::{check_db_output, open, save_recorded};
use crate::commands::common::file_md5;
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use support::claim::Claim;
use support::cli::Outcome;

/// Arguments of `db split`.
#[derive(Args, Debug)]
pub struct SplitArgs {
    /// The database.
    db: PathBuf,
    /// Fraction of positions held out.
    #[arg(long, default_value_t = 0.1)]
    holdout: f64,
    /// Seed of the choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// TRAIN then HELD.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DB",
        num_args = 1,
        required = true
    )]
    outputs: Vec<PathBuf>,
}

/// Runs `db split`.
pub fn run(args: &SplitArgs) -> Result<Outcome> {
    let holdout = args.holdout;
    if !(0.0..=1.0).contains(&holdout) {
        bail!("--holdout {holdout}: must be in [0, 1]");
    }
    let [train, held] = args.outputs.as_slice() else {
        bail!("give two outputs: -o TRAIN -o HELD");
    };
    let _claim = Claim::new()
        .input(&args.db)
        .output(train)
        .output(held)
        .beside(train, trainer::provenance::path_for(train))
        .beside(held, trainer::provenance::path_for(held))
        .acquire()?;
    let data = open(&args.db)?;
    for p in [train, held] {
        check_db_output(p)?;
    }
    let (a, b) = trainer::positions::split::split(&data, holdout, args.seed);
    let md5 = file_md5(&args.db)?;
    for (part, db, path) in [("train", &a, train), ("held", &b, held)] {
        let settings = serde_json::json!({
            "split_of": args.db, "md5": md5, "holdout": holdout, "seed": args.seed,
            "part": part,
        });
        save_recorded(db, path, settings)?;
    }
    support::outln!(
        "trainer db split: {} positions to {}, {} held out to {}",
        a.records.len(),
        train.display(),
        b.records.len(),
        held.display()
    )?;
    Ok(Outcome::Done)
}
