//! `trainer new`: a weights file with random nets.

use crate::commands::common::save_weights;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::claim::Claim;
use support::cli::Outcome;
use trainer::init::{new_nets, GNUBG_BETA_HIDDEN};
use trainer::provenance::{NTrained, Provenance};

/// Arguments of `trainer new`.
#[derive(Args, Debug)]
pub struct NewArgs {
    /// The weights file to write: binary (gnubg.wd format) if it ends in
    /// .wd, text (gnubg.weights format) otherwise.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Hidden units of the contact, race and crashed nets (a multiple of 4:
    /// gnubg 1.07 evaluates four hidden units at a time).
    #[arg(long, default_value_t = 128, value_name = "N")]
    hidden: usize,
    /// Hidden-layer slope β_h of the contact, race and crashed nets (gnubg
    /// reads it from the file). gnubg-nn uses 0.1; see docs/trainer.md for
    /// why 1 trains faster from random weights.
    #[arg(long, default_value_t = GNUBG_BETA_HIDDEN, value_name = "B")]
    beta_hidden: f32,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 1)]
    seed: u32,
}

impl NewArgs {
    /// The settings, checked as `run` checks them, without writing.
    pub fn check(&self) -> Result<()> {
        trainer::init::check_hidden(self.hidden)?;
        // The slope, checked on the smallest nets.
        new_nets(4, self.beta_hidden, self.seed)?;
        Ok(())
    }
}

/// Runs `trainer new`.
pub fn run(args: &NewArgs) -> Result<Outcome> {
    let nets = new_nets(args.hidden, args.beta_hidden, args.seed)?;
    let _claim = Claim::new()
        .output(&args.output)
        .beside(&args.output, trainer::provenance::path_for(&args.output))
        .acquire()?;
    let record = Provenance::new(
        u64::from(args.seed),
        0,
        NTrained::default(),
        None,
        serde_json::json!({ "hidden": args.hidden, "beta_hidden": args.beta_hidden }),
    );
    save_weights(&nets, &args.output, record)?;
    support::outln!(
        "trainer: wrote {} (random nets, {} hidden units, seed {})",
        args.output.display(),
        args.hidden,
        args.seed
    )?;
    Ok(Outcome::Done)
}
