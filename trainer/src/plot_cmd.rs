//! `trainer plot`: the learning-curve chart of a `OUT.curve.csv`.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::chart::{load_font, save, DEFAULT_FONT};
use trainer::curve::{parse_csv, CurveChart};

/// Arguments of `trainer plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A learning curve written by `trainer td --eval-every` (OUT.curve.csv).
    csv: PathBuf,
    /// The chart: PNG or SVG, by extension.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Width in pixels.
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u32).range(100..=8000))]
    width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 550, value_parser = clap::value_parser!(u32).range(100..=8000))]
    height: u32,
    /// Caption (default: the CSV's file name).
    #[arg(long)]
    title: Option<String>,
    /// TrueType font for the labels.
    #[arg(long, value_name = "TTF", default_value = DEFAULT_FONT)]
    font: PathBuf,
}

/// Runs `trainer plot`.
pub fn run(args: &PlotArgs) -> Result<Outcome> {
    trainer::chart::ChartFormat::for_path(&args.output)?;
    let text = std::fs::read_to_string(&args.csv)
        .with_context(|| format!("cannot read {}", args.csv.display()))?;
    let rows = parse_csv(&text).with_context(|| format!("{}", args.csv.display()))?;
    load_font(&args.font)?;
    let title = args.title.clone().unwrap_or_else(|| {
        format!(
            "learning curve: {}",
            args.csv.file_name().unwrap_or_default().to_string_lossy()
        )
    });
    save(
        &args.output,
        (args.width, args.height),
        &CurveChart { rows: &rows, title },
    )?;
    support::outln!("trainer: wrote {}", args.output.display())?;
    Ok(Outcome::Done)
}
