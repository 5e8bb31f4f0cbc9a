//! `db candidates`.

use super::{
    boards_of, check_db_output, claim_db, claim_with_bearoff, open, save_recorded, KeepClasses,
};
use crate::commands::common::file_md5;
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::positions::candidates::{best_candidates, candidates};
use trainer::positions::db::{PositionDb, Record};

/// Arguments of `db candidates`.
#[derive(Args, Debug)]
pub struct CandidatesArgs {
    /// The database of positions.
    db: PathBuf,
    /// The database to write (unlabelled positions).
    #[arg(short = 'o', long, value_name = "DB")]
    output: PathBuf,
    #[command(flatten)]
    classes: KeepClasses,
    /// Seed of the rolls.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Keep only the K moves of each position with the highest 0-ply
    /// equity by --weights (the moves that compete to be played), instead
    /// of every move.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    best: Option<u32>,
    /// The weights (with --best), the bearoff databases that classify the
    /// positions, and the arithmetic.
    #[command(flatten)]
    evaluator: EvaluatorArgs,
}

/// Runs `db candidates`.
pub fn run(args: &CandidatesArgs) -> Result<Outcome> {
    let (input, output) = (&args.db, &args.output);
    let classes = args.classes.classes();
    if args.best.is_none() && args.evaluator.weights.is_some() {
        bail!("--weights is used with --best K");
    }
    let (_claim, bearoff) = match args.best {
        // The weights are an input too: never the output.
        Some(_) => {
            let inputs = args.evaluator.input_files();
            let claim = claim_db(
                inputs.iter().map(PathBuf::as_path).chain([input.as_path()]),
                output,
            )?;
            let bearoff = trainer::defaults::bearoff(&args.evaluator.bearoff);
            (claim, nets::BearoffDatabases::open(&bearoff)?)
        }
        None => claim_with_bearoff(&args.evaluator.bearoff, input, output)?,
    };
    let (eval, weights) = match args.best {
        Some(_) => (
            Some(args.evaluator.build()?),
            Some(trainer::defaults::weights(
                args.evaluator.weights.as_deref(),
            )?),
        ),
        None => (None, None),
    };
    let db = open(input)?;
    check_db_output(output)?;
    let boards = boards_of(&db, input)?;
    let boards = match (&eval, args.best) {
        (Some(eval), Some(k)) => best_candidates(
            &boards,
            args.seed,
            eval,
            usize::try_from(k).unwrap_or(usize::MAX),
        ),
        _ => candidates(&boards, args.seed),
    };
    let weights_md5 = weights.as_deref().map(file_md5).transpose()?;
    let records: Vec<Record> = boards
        .into_iter()
        .filter_map(|b| {
            let class = nets::classify(&b, &bearoff);
            classes
                .contains(&class)
                .then(|| Record::new(b.id_bytes(), class))
        })
        .collect();
    let out = PositionDb::from(records);
    let mut record = serde_json::json!({
        "candidates_of": input, "seed": args.seed,
        "classes": args.classes.names(),
    });
    if let Some(best) = args.best {
        record["best"] = best.into();
        record["weights"] = serde_json::json!(weights);
        record["weights_md5"] = weights_md5.into();
    }
    save_recorded(&out, output, record)?;
    support::outln!(
        "trainer db candidates: {} candidate positions of {} positions written to {}",
        out.records.len(),
        db.records.len(),
        output.display()
    )?;
    Ok(Outcome::Done)
}
