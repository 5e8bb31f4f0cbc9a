//! `bench-chart`: draws a side-by-side benchmark (bgkit and gnubg, a figure
//! per thread count) as a PNG with plotters, for docs/performance.md.
//!
//! Input: a CSV with the header `threads,gnubg,bgkit` (what
//! benches/compare-calibrate.sh writes with CSV=FILE). Labels are drawn
//! with a TrueType font from the system (DejaVu Sans, Debian's
//! fonts-dejavu-core), or the one given with --font.

use anyhow::{bail, Context, Result};
use clap::Parser;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use support::cli::Outcome;
use trainer::chart::{load_font, save, Drawing, DEFAULT_FONT};

/// The chart's width in pixels.
const WIDTH: u32 = 800;
/// The chart's height in pixels.
const HEIGHT: u32 = 500;

/// Draw a benchmark CSV (threads,gnubg,bgkit) as a PNG chart.
#[derive(Parser, Debug)]
#[command(name = "bench-chart", version, max_term_width = 100)]
struct Cli {
    /// The CSV: header `threads,gnubg,bgkit`, then one row per thread count.
    csv: PathBuf,
    /// The PNG to write.
    #[arg(short = 'o', long, value_name = "PNG")]
    output: PathBuf,
    /// Chart title.
    #[arg(long, default_value = "calibrate: static evaluations per second")]
    title: String,
    /// TrueType font for the labels.
    #[arg(long, value_name = "TTF", default_value = DEFAULT_FONT)]
    font: PathBuf,
}

/// (threads, gnubg, bgkit) rows.
fn read_rows(cli: &Cli) -> Result<Vec<(u32, f64, f64)>> {
    let text = std::fs::read_to_string(&cli.csv)
        .with_context(|| format!("cannot read {}", cli.csv.display()))?;
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("threads,gnubg,bgkit") {
        bail!(
            "{}: the first line must be threads,gnubg,bgkit",
            cli.csv.display()
        );
    }
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = (f.len() == 3)
            .then(|| Some((f[0].parse().ok()?, f[1].parse().ok()?, f[2].parse().ok()?)))
            .flatten();
        match parsed {
            Some(row) => rows.push(row),
            None => bail!(
                "{}: line {} is not threads,gnubg,bgkit numbers",
                cli.csv.display(),
                n + 2
            ),
        }
    }
    if rows.is_empty() {
        bail!("{}: no rows", cli.csv.display());
    }
    Ok(rows)
}

/// The chart of the rows: evaluations per second by thread count, one
/// line per program.
struct BenchChart<'a> {
    title: &'a str,
    rows: &'a [(u32, f64, f64)],
}

impl Drawing for BenchChart<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let rows = self.rows;
        let fail = |e: &dyn std::fmt::Display| e.to_string();
        let max_threads = rows.iter().map(|r| r.0).max().unwrap_or(1);
        let max_rate = rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max) * 1.15;
        area.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(area)
            .caption(self.title, ("sans-serif", 24))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(0.5f64..f64::from(max_threads) + 0.5, 0.0..max_rate)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("static evaluations / second")
            .x_labels(max_threads as usize)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{:.0}k", y / 1000.0))
            .draw()
            .map_err(|e| fail(&e))?;
        for (name, color, pick) in [("gnubg 1.07", RED, 1usize), ("bgkit", BLUE, 2usize)] {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (f64::from(r.0), if pick == 1 { r.1 } else { r.2 }))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))
                .map_err(|e| fail(&e))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
                });
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 5, color.filled())),
                )
                .map_err(|e| fail(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| fail(&e))?;
        Ok(())
    }
}

fn main() -> ExitCode {
    support::cli::main("bench-chart", |cli: Cli| {
        let rows = read_rows(&cli)?;
        load_font(&cli.font)?;
        let chart = BenchChart {
            title: &cli.title,
            rows: &rows,
        };
        save(&cli.output, (WIDTH, HEIGHT), &chart)?;
        Ok(Outcome::Done)
    })
}
