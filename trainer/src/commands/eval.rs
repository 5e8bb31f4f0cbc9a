//! `trainer eval`: evaluate Position IDs and print classes, outputs, equity.

use anyhow::Result;
use clap::Args;
use std::io::{self, BufWriter};
use support::cli::Outcome;
use support::stdio::{BoundedLines, Line};
use trainer::eval::{evaluate_ids, EvalOptions, MAX_LINE};
use trainer::evaluator_args::EvaluatorArgs;

/// Arguments of `trainer eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// Search depth: 0 is the nets alone; n averages the (n−1)-ply
    /// evaluations after each of the 21 rolls, played at 0 ply.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// Above 0 ply, choose the moves of the search with gnubg's pruning
    /// nets (its default for analysis).
    #[arg(long)]
    prune: bool,
    /// Worker threads (default: all cores); the output never depends on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// One JSON object per line: {"id", "class", "outputs", "equity"}.
    #[arg(long)]
    json: bool,
    /// Position IDs; read one per line from stdin when none are given.
    #[arg(value_name = "POSITION_ID")]
    ids: Vec<String>,
}

/// Runs `trainer eval`; bad input lines are reported one per line and make
/// the exit status 1, the others are still evaluated.
pub fn run(args: &EvalArgs) -> Result<Outcome> {
    support::cli::init_threads(args.threads)?;
    let evaluator = args.evaluator.build()?;
    let options = EvalOptions {
        plies: args.plies,
        prune: args.prune,
        json: args.json,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let on_bad = |why: String| support::note!("trainer: error: {why}");
    let summary = if args.ids.is_empty() {
        let lines = BoundedLines::new(io::stdin().lock(), MAX_LINE);
        evaluate_ids(&evaluator, options, lines, &mut out, on_bad)?
    } else {
        let ids = args
            .ids
            .iter()
            .map(|id| Ok(Line::Text(id.clone().into_bytes())));
        evaluate_ids(&evaluator, options, ids, &mut out, on_bad)?
    };
    Ok(if summary.bad > 0 {
        Outcome::Failed
    } else {
        Outcome::Done
    })
}
