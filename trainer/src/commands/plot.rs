//! `trainer plot`: the learning-curve chart of a `OUT.curve.csv` (TD), an
//! `OUT.train.csv` (supervised) or a rounds table (ppg by training round).

use crate::commands::common::read_text_input;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use support::claim::Claim;
use support::cli::Outcome;
use trainer::chart::{load_font, save, DEFAULT_FONT};
use trainer::curve::{parse_csv, parse_rounds_csv, CurveChart, RoundsChart, ROUNDS_HEADER};
use trainer::supervised::curve::{parse_train_csv, TrainChart, TRAIN_HEADER};

/// Arguments of `trainer plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A learning curve: OUT.curve.csv of `trainer td --eval-every`,
    /// OUT.train.csv of `trainer train`, or a rounds table (`round,ppg,ppg_ci95`:
    /// each training round's net against one opponent); told apart by the
    /// header.
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
    let _claim = Claim::new()
        .input(&args.csv)
        .input(&args.font)
        .output(&args.output)
        .acquire()?;
    let text = read_text_input(&args.csv, trainer::curve::CSV_LIMIT)?;
    let context = || format!("{}", args.csv.display());
    let title = args.title.clone().unwrap_or_else(|| {
        format!(
            "learning curve: {}",
            args.csv.file_name().unwrap_or_default().to_string_lossy()
        )
    });
    let size = (args.width, args.height);
    // The header tells a supervised run's curve and a rounds table from a
    // TD curve.
    let header = text.lines().next().map(str::trim);
    if header == Some(TRAIN_HEADER) {
        let rows = parse_train_csv(&text).with_context(context)?;
        load_font(&args.font)?;
        save(&args.output, size, &TrainChart { rows: &rows, title })?;
    } else if header == Some(ROUNDS_HEADER) {
        let rows = parse_rounds_csv(&text).with_context(context)?;
        load_font(&args.font)?;
        save(&args.output, size, &RoundsChart { rows: &rows, title })?;
    } else {
        let rows = parse_csv(&text).with_context(context)?;
        load_font(&args.font)?;
        save(&args.output, size, &CurveChart { rows: &rows, title })?;
    }
    // A chart has no provenance record: none of an older file may stay.
    trainer::provenance::remove_stale(&args.output)?;
    support::outln!("trainer: wrote {}", args.output.display())?;
    Ok(Outcome::Done)
}
