//! `db import`.

use super::{aside, check_db_output, claim_with_bearoff, save_recorded};
use crate::commands::common::file_md5;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;

/// Arguments of `db import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The .dat file.
    dat: PathBuf,
    /// The database to write.
    #[arg(short = 'o', long, value_name = "DB")]
    output: PathBuf,
    /// Bearoff database for the classes (repeatable).
    #[arg(long, value_name = "FILE")]
    bearoff: Vec<PathBuf>,
}

/// Runs `db import`.
pub fn run(args: &ImportArgs) -> Result<Outcome> {
    let (input, output) = (&args.dat, &args.output);
    let (_claim, bearoff) = claim_with_bearoff(&args.bearoff, &[input], output)?;
    let (db, duplicates) = trainer::positions::dat::read(input, &bearoff)?;
    check_db_output(output)?;
    save_recorded(
        &db,
        output,
        serde_json::json!({ "imported": input, "md5": file_md5(input)? }),
    )?;
    support::outln!(
        "trainer db import: {} positions from {} into {}{}",
        db.records.len(),
        input.display(),
        output.display(),
        aside(
            duplicates,
            "repeated keys skipped: the first line of each key is kept"
        )
    )?;
    Ok(Outcome::Done)
}
