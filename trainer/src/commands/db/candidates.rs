//! `db candidates`.

use super::{boards_of, check_db_output, claim_with_bearoff, open, save_recorded, KeepClasses};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
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
    /// Bearoff database (repeatable), to classify the positions.
    #[arg(long, value_name = "FILE")]
    bearoff: Vec<PathBuf>,
}

/// Runs `db candidates`.
pub fn run(args: &CandidatesArgs) -> Result<Outcome> {
    let (input, output) = (&args.db, &args.output);
    let classes = args.classes.classes();
    let (_claim, bearoff) = claim_with_bearoff(&args.bearoff, input, output)?;
    let db = open(input)?;
    check_db_output(output)?;
    let boards = boards_of(&db, input)?;
    let records: Vec<Record> = trainer::positions::candidates::candidates(&boards, args.seed)
        .into_iter()
        .filter_map(|b| {
            let class = nets::classify(&b, &bearoff);
            classes
                .contains(&class)
                .then(|| Record::new(b.id_bytes(), class))
        })
        .collect();
    let out = PositionDb::from(records);
    save_recorded(
        &out,
        output,
        serde_json::json!({
            "candidates_of": input, "seed": args.seed,
            "classes": args.classes.names(),
        }),
    )?;
    support::outln!(
        "trainer db candidates: {} candidate positions of {} positions written to {}",
        out.records.len(),
        db.records.len(),
        output.display()
    )?;
    Ok(Outcome::Done)
}
