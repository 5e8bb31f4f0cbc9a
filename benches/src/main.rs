//! `calibrate`: gnubg's benchmark of static evaluations per second, on
//! bgkit's evaluator (docs/calibrate.md).

use anyhow::Result;
use calibrate::{calibrate, Calibration, Length, Procedure};
use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;
use support::cli::Outcome;
use trainer::evaluator_args::EvaluatorArgs;

/// Measure static (0-ply) evaluations per second as gnubg's `calibrate`
/// does: batches of 1024 random contact positions, generated outside the
/// timed region, each fully evaluated (class, inputs, net, race-backgammon
/// override, sanity check). A fresh batch every iteration.
///
/// The last line on stdout is `Calibration result: N static
/// evaluations/second.` (or, with --json, a JSON object). Exit status: 0
/// done, 2 bad arguments or unusable weights (one line on stderr).
#[derive(Parser, Debug)]
#[command(name = "calibrate", version, max_term_width = 100)]
struct Cli {
    /// Threads evaluating at the same time, each on its own batch.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// Batches of 1024 positions in total, counted across threads as gnubg
    /// counts them (each round adds one per thread). Default: run for
    /// --seconds.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..),
          conflicts_with = "seconds")]
    iterations: Option<u64>,
    /// Seconds of measured evaluation time to run for.
    #[arg(long, value_name = "S", default_value_t = 3.0, value_parser = parse_seconds)]
    seconds: f64,
    /// Seed of the position generator (thread t uses seed + t).
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Evaluate each batch as one call of the evaluator's batch path (the
    /// way bgkit's move choices and rollouts evaluate a roll's candidates:
    /// the positions of one net together, the same outputs) instead of one
    /// position after another as gnubg's calibrate does.
    #[arg(long)]
    batched: bool,
    /// Print the result as one JSON object (last line of stdout).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!(
            "the number of seconds must be above 0, got {:?}",
            support::stdio::shorten(text, 20)
        )),
    }
}

fn run(cli: Cli) -> Result<Outcome> {
    let evaluator = cli.evaluator.build()?;
    let threads = usize::from(cli.threads);
    let length = match cli.iterations {
        Some(n) => Length::Batches(n),
        None => Length::Seconds(cli.seconds),
    };
    let terminal = std::io::stderr().is_terminal();
    let procedure = if cli.batched {
        Procedure::Batched
    } else {
        Procedure::OneByOne
    };
    let result = calibrate(
        &evaluator,
        procedure,
        threads,
        length,
        cli.seed,
        |so_far: &Calibration| {
            if terminal {
                let line = format!(
                    "\rCalibrating: {:.0} static evaluations/second",
                    so_far.rate()
                );
                let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            }
        },
    );
    if terminal {
        support::note!();
    }
    if cli.json {
        let threads: Vec<_> = result
            .threads
            .iter()
            .map(|t| {
                serde_json::json!({
                    "evaluations": t.evaluations,
                    "seconds": t.seconds,
                    "evals_per_second": t.rate().round(),
                })
            })
            .collect();
        support::outln!(
            "{}",
            serde_json::json!({
                "evals_per_second": result.rate().round(),
                "evaluations": result.evaluations,
                "batches": result.batches,
                "seconds": result.seconds,
                "threads": threads,
                "arithmetic": format!("{:?}", evaluator.arithmetic()),
                "simd": format!("{:?}", evaluator.simd()),
                "batched": cli.batched,
            })
        )?;
    } else {
        for (t, f) in result.threads.iter().enumerate() {
            support::outln!(
                "thread {t}: {} evaluations in {:.3} s, {:.0} static evaluations/second",
                f.evaluations,
                f.seconds,
                f.rate()
            )?;
        }
        support::outln!(
            "Calibration result: {:.0} static evaluations/second.",
            result.rate()
        )?;
    }
    Ok(Outcome::Done)
}

fn main() -> ExitCode {
    support::cli::main("calibrate", run)
}
