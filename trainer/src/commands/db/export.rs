//! `db export`: a gnubg-nn `.dat` file or NumPy arrays.

use super::{aside, open};
use crate::commands::common::write_atomically;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::claim::Claim;
use support::cli::Outcome;
use trainer::positions::dat;

/// Arguments of `db export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The database.
    db: PathBuf,
    /// The file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// dat: gnubg-nn's text format; npz: CLASS_inputs, CLASS_targets and
    /// CLASS_keys arrays for contact, crashed and race.
    #[arg(long, value_enum, default_value_t = ExportFormat::Dat)]
    format: ExportFormat,
}

/// `db export --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExportFormat {
    Dat,
    Npz,
}

/// Runs `db export`.
pub fn run(args: &ExportArgs) -> Result<Outcome> {
    let (db, output) = (&args.db, &args.output);
    let _claim = Claim::new().input(db).output(output).acquire()?;
    let data = open(db)?;
    match args.format {
        ExportFormat::Dat => {
            let with: Vec<_> = data.records.iter().filter(|r| r.has_targets()).collect();
            let text: String = with
                .iter()
                .map(|r| dat::line(&r.key, &r.targets) + "\n")
                .collect();
            write_atomically(output, text.as_bytes())?;
            // No provenance record: none of an older file may stay.
            trainer::provenance::remove_stale(output)?;
            support::outln!(
                "trainer db export: {} positions to {}{}",
                with.len(),
                output.display(),
                aside(data.records.len() - with.len(), "without targets skipped")
            )?;
        }
        ExportFormat::Npz => {
            let (bytes, counts) =
                trainer::positions::npz::npz_bytes(&data, nets::Arithmetic::default())?;
            write_atomically(output, &bytes)?;
            trainer::provenance::remove_stale(output)?;
            support::outln!(
                "trainer db export: {} contact, {} crashed, {} race positions to {}",
                counts[0],
                counts[1],
                counts[2],
                output.display()
            )?;
        }
    }
    Ok(Outcome::Done)
}
