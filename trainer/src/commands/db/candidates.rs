//! `db candidates`.

use super::{boards_of, check_db_output, claim_with_bearoff, open, save_recorded, KeepClasses};
use crate::commands::common::file_md5;
use anyhow::{bail, Result};
use clap::Args;
use std::path::{Path, PathBuf};
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
    // With --best: how many moves to keep and the weights that rank them
    // (an input too, so never the output).
    let best = match args.best {
        Some(k) => Some((
            usize::try_from(k).unwrap_or(usize::MAX),
            trainer::defaults::weights(args.evaluator.weights.as_deref())?,
        )),
        None if args.evaluator.weights.is_some() => bail!("--weights is used with --best K"),
        None => None,
    };
    let inputs: Vec<&Path> = std::iter::once(input.as_path())
        .chain(best.as_ref().map(|(_, weights)| weights.as_path()))
        .collect();
    let (_claim, bearoff) = claim_with_bearoff(&args.evaluator.bearoff, &inputs, output)?;
    let ranking = best
        .map(|(k, weights)| -> Result<_> { Ok((k, weights, args.evaluator.build()?)) })
        .transpose()?;
    let db = open(input)?;
    check_db_output(output)?;
    let boards = boards_of(&db, input)?;
    let boards = match &ranking {
        Some((k, _, eval)) => best_candidates(&boards, args.seed, eval, *k),
        None => candidates(&boards, args.seed),
    };
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
    if let Some((k, weights, _)) = &ranking {
        record["best"] = (*k).into();
        record["weights"] = serde_json::json!(weights);
        record["weights_md5"] = file_md5(weights)?.into();
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
