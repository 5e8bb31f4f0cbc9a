//! `trainer eval`: evaluate Position IDs and print classes, outputs, equity.

use crate::defaults;
use anyhow::{Context, Result};
use board::Board;
use clap::Args;
use nets::{Arithmetic, BearoffDatabases, Evaluation, Evaluator};
use serde::Serialize;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// The spec's scalar IEEE reference arithmetic (slower).
    #[arg(long)]
    reference: bool,
    /// One JSON object per line: {"id", "class", "outputs", "equity"}.
    #[arg(long)]
    json: bool,
    /// Position IDs; read one per line from stdin when none are given.
    #[arg(value_name = "POSITION_ID")]
    ids: Vec<String>,
}

#[derive(Serialize)]
struct JsonLine<'a> {
    id: &'a str,
    class: &'a str,
    outputs: [f32; 5],
    equity: f32,
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

fn write_line(out: &mut impl Write, id: &str, e: &Evaluation, json: bool) -> io::Result<()> {
    if json {
        let line = JsonLine {
            id,
            class: e.class.name(),
            outputs: e.outputs,
            equity: e.equity(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)
    } else {
        let o = &e.outputs;
        writeln!(
            out,
            "{id}\t{}\t{:.6}\t{:.6}\t{:.6}\t{:.6}\t{:.6}\t{:.6}",
            e.class,
            o[0],
            o[1],
            o[2],
            o[3],
            o[4],
            e.equity()
        )
    }
}

/// Runs `trainer eval`; bad Position IDs are reported one per line and make
/// the exit status non-zero, the others are still evaluated.
pub fn run(args: &EvalArgs) -> Result<ExitCode> {
    let evaluator = build_evaluator(args)?;
    let mut scratch = evaluator.scratch();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut bad = 0usize;
    let mut handle = |id: &str, out: &mut BufWriter<io::StdoutLock>| -> io::Result<()> {
        match Board::from_position_id(id) {
            Ok(board) => {
                let e = evaluator.evaluate_plied(&board, args.plies, args.prune, &mut scratch);
                write_line(out, id, &e, args.json)
            }
            Err(err) => {
                bad += 1;
                eprintln!("trainer: error: bad Position ID {id:?}: {err}");
                Ok(())
            }
        }
    };
    let result = if args.ids.is_empty() {
        let stdin = io::stdin();
        let mut r = Ok(());
        for line in stdin.lock().lines() {
            let line = line.context("cannot read stdin")?;
            let id = line.trim();
            if id.is_empty() {
                continue;
            }
            r = handle(id, &mut out);
            if r.is_err() {
                break;
            }
        }
        r
    } else {
        args.ids.iter().try_for_each(|id| handle(id, &mut out))
    };
    match result.and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        r => r.context("cannot write output")?,
    }
    Ok(if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
