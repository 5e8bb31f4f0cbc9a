//! `trainer bench`: gnubg-nn's error measures of a net on a database or a
//! `.dat` file.

use crate::db_cmd::read_dat;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::posdb::PositionDb;

/// Arguments of `trainer bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// A position database or a gnubg-nn .dat file (its targets are the
    /// reference).
    #[arg(long, value_name = "DB|DAT")]
    db: PathBuf,
    /// Classes to measure (comma-separated: contact, crashed, race;
    /// default all three).
    #[arg(long, value_delimiter = ',')]
    class: Vec<String>,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Print the report as one JSON object (the last line of stdout).
    #[arg(long)]
    json: bool,
}

impl BenchArgs {
    /// Worker threads requested.
    pub fn threads(&self) -> Option<u16> {
        self.threads
    }
}

/// Runs `trainer bench`.
pub fn run(args: &BenchArgs) -> Result<Outcome> {
    let classes = args
        .class
        .iter()
        .map(|c| {
            Ok(match c.trim() {
                "contact" => nets::Class::Contact,
                "crashed" => nets::Class::Crashed,
                "race" => nets::Class::Race,
                other => bail!("--class: unknown class {other:?} (contact, crashed, race)"),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let eval = args.evaluator.build()?;
    let bytes_head = {
        use std::io::Read;
        let mut head = [0u8; 8];
        let mut f = std::fs::File::open(&args.db)
            .with_context(|| format!("cannot read {}", args.db.display()))?;
        let n = f.read(&mut head).unwrap_or(0);
        head[..n].to_vec()
    };
    let db = if bytes_head.starts_with(b"BGKITPDB") {
        PositionDb::open(&args.db).with_context(|| format!("{}", args.db.display()))?
    } else {
        read_dat(&args.db, eval.bearoff())?.0
    };
    let report = trainer::bench::bench(&eval, &db.records, &classes);
    if report.positions == 0 {
        bail!(
            "{}: no positions with targets of the classes measured",
            args.db.display()
        );
    }
    if args.json {
        support::outln!("{}", serde_json::to_string(&report).expect("json"))?;
    } else {
        support::outln!(
            "{:<8} {:>9} {:>10} {:>10} {:>10} {:>10}",
            "class",
            "positions",
            "eqerr RMS",
            "eqerr max",
            "noBG RMS",
            "noBG max"
        )?;
        for (name, e) in &report.classes {
            support::outln!(
                "{:<8} {:>9} {:>10.5} {:>10.5} {:>10.5} {:>10.5}",
                name,
                e.positions,
                e.eqerr_rms,
                e.eqerr_max,
                e.nobg_rms,
                e.nobg_max
            )?;
        }
    }
    Ok(Outcome::Done)
}
