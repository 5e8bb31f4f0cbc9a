//! `trainer eval`: evaluate Position IDs and print classes, outputs, equity.

use anyhow::{Context, Result};
use clap::Args;
use nets::{Arithmetic, BearoffDatabases, Evaluator};
use std::io::{self, BufWriter};
use std::path::PathBuf;
use support::cli::Outcome;
use support::stdio::{BoundedLines, Line};
use trainer::defaults;
use trainer::eval::{evaluate_ids, EvalOptions, MAX_LINE};

/// Arguments of `trainer eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Weights file, text (gnubg.weights) or binary (gnubg.wd).
    /// Default: $BGKIT_WEIGHTS, else /usr/lib/gnubg/gnubg.wd.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// Bearoff database (repeatable): one one-sided and optionally one
    /// two-sided file. Default: gnubg's installed gnubg_os0.bd and gnubg_ts0.bd.
    #[arg(long, value_name = "FILE")]
    bearoff: Vec<PathBuf>,
    /// Search depth.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1))]
    plies: u32,
    /// At 1 ply, choose replies with gnubg's pruning nets.
    #[arg(long)]
    prune: bool,
    /// Debian's gnubg 1.07 arithmetic (fast-math build, portable emulation of
    /// the reference CPU's approximate reciprocal). This is the default; the
    /// flag is accepted for explicitness.
    #[arg(long, conflicts_with_all = ["ieee", "reference"])]
    gnubg_fastmath: bool,
    /// Use this CPU's own `rcpps` instruction (x86-64) instead of the
    /// emulation, i.e. what Debian's gnubg computes on this CPU.
    #[arg(long, conflicts_with_all = ["ieee", "reference"])]
    native_rcp: bool,
    /// Portable IEEE f32 arithmetic (true division) instead of gnubg's
    /// fast-math build; differs from gnubg by up to ~1e-3 on ~2 % of positions.
    #[arg(long, conflicts_with = "reference")]
    ieee: bool,
    /// The scalar IEEE reference arithmetic (slower).
    #[arg(long)]
    reference: bool,
    /// One JSON object per line: {"id", "class", "outputs", "equity"}.
    #[arg(long)]
    json: bool,
    /// Position IDs; read one per line from stdin when none are given.
    #[arg(value_name = "POSITION_ID")]
    ids: Vec<String>,
}

fn arithmetic(args: &EvalArgs) -> Arithmetic {
    if args.native_rcp {
        Arithmetic::GnubgFastMathNative
    } else if args.ieee {
        Arithmetic::Ieee
    } else if args.reference {
        Arithmetic::Reference
    } else {
        Arithmetic::GnubgFastMath
    }
}

fn build_evaluator(args: &EvalArgs) -> Result<Evaluator> {
    let weights = defaults::weights(args.weights.as_deref())?;
    let nets = nets::weights::load(&weights)
        .with_context(|| format!("cannot load weights {}", weights.display()))?;
    let bearoff = BearoffDatabases::open(&defaults::bearoff(&args.bearoff))?;
    Ok(Evaluator::new(nets, bearoff, arithmetic(args))?)
}

/// Runs `trainer eval`; bad input lines are reported one per line and make
/// the exit status 1, the others are still evaluated.
pub fn run(args: &EvalArgs) -> Result<Outcome> {
    let evaluator = build_evaluator(args)?;
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
