//! `trainer bench`: gnubg-nn's error measures of a net on a database or a
//! `.dat` file.

use crate::commands::args::{classes, ClassArg};
use crate::commands::common::{io_context, read_text_input};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use support::cli::Outcome;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::positions::db::PositionDb;

/// Arguments of `trainer bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// A position database or a gnubg-nn .dat file (its targets are the
    /// reference).
    #[arg(
        long,
        value_name = "DB|DAT",
        required_unless_present = "moves",
        conflicts_with = "moves"
    )]
    db: Option<PathBuf>,
    /// A gnubg-nn move benchmark file: its `m` lines (position, dice,
    /// rollout-ranked moves with their equity loss) give the move error of
    /// the net's 0-ply choices, as referr.py reports it.
    #[arg(long, value_name = "FILE")]
    moves: Option<PathBuf>,
    /// Classes to measure (comma-separated; default all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    class: Vec<ClassArg>,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Instead of the errors: for each position (of the classes measured)
    /// and one roll chosen by its key, whether the pruning nets keep the
    /// unpruned 1-ply best move among their 10 best candidates.
    #[arg(long)]
    prune_check: bool,
    /// The plies of the net's evaluation measured against the targets.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// Above 0 ply, choose the moves of the search with gnubg's pruning
    /// nets.
    #[arg(long)]
    prune: bool,
    /// Print the report as one JSON object (the last line of stdout).
    #[arg(long)]
    json: bool,
}

/// Runs `trainer bench`.
pub fn run(args: &BenchArgs) -> Result<Outcome> {
    let classes = classes(&args.class);
    let eval = args.evaluator.build()?;
    let Some(db_path) = &args.db else {
        let path = args.moves.as_ref().expect("clap requires --db or --moves");
        return move_benchmark(&eval, path, args.json);
    };
    let db = open_db_or_dat(db_path, &eval)?;
    if args.prune_check {
        prune_check(&eval, &db, db_path, &classes, args.json)
    } else {
        errors(&eval, &db, db_path, &classes, args)
    }
}

/// `--moves`: the move error of the net's 0-ply choices on `m` lines.
fn move_benchmark(eval: &nets::Evaluator, path: &Path, json: bool) -> Result<Outcome> {
    let text = read_text_input(path, trainer::supervised::bench::MOVES_LIMIT)?;
    let report = trainer::supervised::bench::move_benchmark(eval, &text)
        .with_context(|| format!("{}", path.display()))?;
    if report.positions == 0 {
        bail!("{}: no `m` lines", path.display());
    }
    if json {
        support::outln!(
            "{}",
            serde_json::json!({ "positions": report.positions, "moves": report })
        )?;
    } else {
        support::outln!(
            "moves: {} positions, move error {:.5} (best move chosen in {})",
            report.positions,
            report.move_error,
            report.best_chosen
        )?;
    }
    Ok(Outcome::Done)
}

/// A position database, or a gnubg-nn `.dat` file read as one.
fn open_db_or_dat(path: &Path, eval: &nets::Evaluator) -> Result<PositionDb> {
    let head = {
        use std::io::Read;
        let mut head = [0u8; 8];
        let (f, _) = support::input::open(path).map_err(io_context(path))?;
        let n = f.take(8).read(&mut head).map_err(io_context(path))?;
        head[..n].to_vec()
    };
    if trainer::positions::db::is_position_db(&head) {
        return Ok(PositionDb::open(path)?);
    }
    let (db, _) = trainer::positions::dat::read(path, eval.bearoff()).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a position database, nor a gnubg-nn .dat file ({})",
            path.display(),
            support::stdio::shorten(&e.error.to_string(), 200)
        )
    })?;
    Ok(db)
}

/// `--prune-check`: how often the pruning nets keep the 1-ply best move.
fn prune_check(
    eval: &nets::Evaluator,
    db: &PositionDb,
    path: &Path,
    classes: &[nets::Class],
    json: bool,
) -> Result<Outcome> {
    let measured = |c: nets::Class| {
        matches!(
            c,
            nets::Class::Contact | nets::Class::Crashed | nets::Class::Race
        ) && (classes.is_empty() || classes.contains(&c))
    };
    let boards: Vec<board::Board> = db
        .records
        .iter()
        .filter(|r| measured(r.class()))
        .filter_map(|r| board::Board::from_id_bytes(&r.key).ok())
        .collect();
    let recall = trainer::supervised::prune_check::prune_recall(eval, &boards);
    if recall.positions == 0 {
        bail!("{}: no positions where pruning applies", path.display());
    }
    if json {
        support::outln!(
            "{}",
            serde_json::json!({ "positions": boards.len(), "prune": recall })
        )?;
    } else {
        support::outln!(
            "pruning nets keep the unpruned 1-ply best move among their {} in {} of {} positions ({:.1} %)",
            trainer::supervised::prune_check::KEPT,
            recall.kept_best,
            recall.positions,
            100.0 * recall.rate()
        )?;
    }
    Ok(Outcome::Done)
}

/// gnubg-nn's error measures per class against the targets.
fn errors(
    eval: &nets::Evaluator,
    db: &PositionDb,
    path: &Path,
    classes: &[nets::Class],
    args: &BenchArgs,
) -> Result<Outcome> {
    let json = args.json;
    let report =
        trainer::supervised::bench::bench_plied(eval, &db.records, classes, args.plies, args.prune);
    if report.positions == 0 {
        bail!(
            "{}: no positions with targets of the classes measured",
            path.display()
        );
    }
    if json {
        support::outln!("{}", serde_json::to_string(&report).expect("json"))?;
        return Ok(Outcome::Done);
    }
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
    Ok(Outcome::Done)
}
