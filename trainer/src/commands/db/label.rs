//! `db label race` and `db label eval`.

use super::{check_db_output, claim_in_place, open, save_provenance};
use crate::commands::args::RunArgs;
use crate::commands::common::file_md5;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::rollouts::job::{journal_path, Journal, Shard};
use trainer::rollouts::labelling::{EvalLabelling, RaceLabelling, RaceSummary};

/// Arguments of `db label`: the mode, then the database and the mode's
/// options (`db label race DB …`, `db label eval DB …`).
#[derive(Args, Debug)]
#[command(subcommand_value_name = "MODE", subcommand_help_heading = "Modes")]
pub struct LabelArgs {
    #[command(subcommand)]
    mode: LabelMode,
}

#[derive(Subcommand, Debug)]
enum LabelMode {
    /// Label the race positions with one-sided targets: exact from the
    /// one-sided bearoff database where both sides fit, else a one-sided
    /// rollout of each side (journaled: `--resume` continues).
    Race(RaceArgs),
    /// Label every position with the weights' n-ply evaluation (replacing
    /// any targets it had; journaled: `--resume` continues, `--shard`
    /// splits the work over copies that `db merge` joins).
    Eval(EvalArgs),
}

/// Arguments of `db label race`.
#[derive(Args, Debug)]
struct RaceArgs {
    /// The database (rewritten atomically at the end).
    db: PathBuf,
    /// Bearoff database (repeatable): one one-sided and optionally one
    /// two-sided file. Default: gnubg's installed gnubg_os0.bd and gnubg_ts0.bd.
    #[arg(long, value_name = "FILE")]
    bearoff: Vec<PathBuf>,
    /// One-sided rollout games per side outside the one-sided database.
    #[arg(long, default_value_t = 1296, value_parser = clap::value_parser!(u32).range(12..))]
    games: u32,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Continue an interrupted labelling from DB.journal.
    #[arg(long)]
    resume: bool,
    /// Positions labelled between journal syncs.
    #[arg(long, default_value_t = 64, hide = true)]
    chunk: usize,
    /// Label only the race positions whose two sides both lie within the
    /// one-sided database (exact targets); leave the others as they are.
    #[arg(long)]
    exact_only: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// Arguments of `db label eval`.
#[derive(Args, Debug)]
struct EvalArgs {
    /// The database (rewritten atomically at the end).
    db: PathBuf,
    /// Plies of the evaluation (gnubg's n-ply, cubeless).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// Above 0 ply, choose the moves of the search with gnubg's pruning
    /// nets (its default for analysis).
    #[arg(long)]
    prune: bool,
    /// Label only positions i with i mod N = K − 1 (the others are
    /// cleared in this copy; `db merge` joins the shards' copies).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Continue an interrupted labelling from DB.journal.
    #[arg(long)]
    resume: bool,
    /// Positions labelled between journal syncs.
    #[arg(long, default_value_t = 64, hide = true)]
    chunk: usize,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    #[command(flatten)]
    run: RunArgs,
}

impl LabelArgs {
    /// Threads and progress of the mode.
    pub fn run(&self) -> &RunArgs {
        match &self.mode {
            LabelMode::Race(a) => &a.run,
            LabelMode::Eval(a) => &a.run,
        }
    }
}

/// Runs `db label`.
pub fn run(args: &LabelArgs, stop: &AtomicBool) -> Result<Outcome> {
    match &args.mode {
        LabelMode::Race(a) => race(a, stop),
        LabelMode::Eval(a) => eval(a, stop),
    }
}

/// `db label race`.
fn race(args: &RaceArgs, stop: &AtomicBool) -> Result<Outcome> {
    let bearoff_files = trainer::defaults::bearoff(&args.bearoff);
    let bearoff = nets::BearoffDatabases::open(&bearoff_files)?;
    let _claim = claim_in_place(bearoff_files, &args.db)?;
    let mut db = open(&args.db)?;
    let labelling = RaceLabelling {
        bearoff: &bearoff,
        games: args.games,
        seed: args.seed,
        exact_only: args.exact_only,
    };
    let context = || format!("{}", args.db.display());
    let todo = labelling.todo(&db).with_context(context)?;
    let how = Journal {
        resume: args.resume,
        chunk: args.chunk,
    };
    let mut bar = Progress::new(
        "trainer db label",
        "positions",
        todo.len() as u64,
        args.run.quiet,
    );
    let summary = labelling
        .run(
            &args.db,
            &mut db,
            &todo,
            how,
            &mut |done| bar.update(done as u64),
            &|| stop.load(Ordering::SeqCst),
        )
        .with_context(context)?;
    bar.finish();
    let Some(summary) = summary else {
        return Ok(stopped(&args.db));
    };
    save_provenance(&args.db, summary.settings.clone())?;
    report_race(args, &summary)?;
    Ok(Outcome::Done)
}

/// The closing line of `db label race`.
fn report_race(args: &RaceArgs, summary: &RaceSummary) -> Result<()> {
    let resumed = if summary.resumed > 0 {
        format!("; {} from the journal", summary.resumed)
    } else {
        String::new()
    };
    support::outln!(
        "trainer db label: {} race positions labelled ({} exact, {} by one-sided rollouts of {} games a side{}); mean equity standard error {:.4}; wrote {}",
        summary.labelled,
        summary.exact,
        summary.labelled - summary.exact,
        args.games,
        resumed,
        summary.mean_equity_std_error,
        args.db.display()
    )?;
    Ok(())
}

/// `db label eval`.
fn eval(args: &EvalArgs, stop: &AtomicBool) -> Result<Outcome> {
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let eval = args.evaluator.build()?;
    let _claim = claim_in_place(args.evaluator.input_files(), &args.db)?;
    let mut db = open(&args.db)?;
    if !args.resume {
        check_db_output(&args.db)?;
    }
    let weights_md5 = file_md5(&weights)?;
    let labelling = EvalLabelling {
        eval: &eval,
        plies: args.plies,
        prune: args.prune,
        weights_md5: &weights_md5,
        shard: args.shard.unwrap_or(Shard::ALL),
    };
    let context = || format!("{}", args.db.display());
    let interrupted = std::fs::symlink_metadata(journal_path(&args.db)).is_ok();
    if !interrupted && labelling.done_in(&db).with_context(context)? {
        if !args.run.quiet {
            let shard = args.shard.unwrap_or(Shard::ALL);
            let which = if shard == Shard::ALL {
                String::new()
            } else {
                format!(" in shard {}/{}", shard.index, shard.count)
            };
            support::note!(
                "trainer db label: every position of {}{which} is already labelled with these \
                 settings ({}-ply{} evaluation of {}); nothing to do",
                args.db.display(),
                args.plies,
                if args.prune && args.plies > 0 {
                    " pruned"
                } else {
                    ""
                },
                weights.display()
            );
        }
        // The labels are this command's, but the record beside them may
        // be another's (`db merge` of shards labelled on a cluster): it
        // then gets the record this command writes, so that the database
        // and its record are those of one unsharded run.
        if args.shard.unwrap_or(Shard::ALL) == Shard::ALL {
            let mut settings = labelling.settings().with_context(context)?;
            settings["weights"] = serde_json::json!(weights);
            let md5 = file_md5(&args.db)?;
            if trainer::provenance::recorded_settings(&args.db, &md5).as_ref() != Some(&settings) {
                save_provenance(&args.db, settings)?;
            }
        }
        return Ok(Outcome::Done);
    }
    let how = Journal {
        resume: args.resume,
        chunk: args.chunk,
    };
    let mut bar: Option<Progress> = None;
    let summary = labelling
        .run(
            &args.db,
            &mut db,
            how,
            &mut |done, total| {
                bar.get_or_insert_with(|| {
                    Progress::new(
                        "trainer db label",
                        "positions",
                        total as u64,
                        args.run.quiet,
                    )
                })
                .update(done as u64)
            },
            &|| stop.load(Ordering::SeqCst),
        )
        .with_context(context)?;
    if let Some(bar) = bar {
        bar.finish();
    }
    let Some(summary) = summary else {
        return Ok(stopped(&args.db));
    };
    let mut settings = summary.settings;
    settings["weights"] = serde_json::json!(weights);
    save_provenance(&args.db, settings)?;
    let resumed = if summary.resumed > 0 {
        format!(" ({} from the journal)", summary.resumed)
    } else {
        String::new()
    };
    support::outln!(
        "trainer db label: {} positions labelled{resumed} with the {}-ply{} evaluation of {}; wrote {}",
        summary.labelled,
        args.plies,
        if args.prune && args.plies > 0 { " pruned" } else { "" },
        weights.display(),
        args.db.display()
    )?;
    Ok(Outcome::Done)
}

/// What a labelling stopped by a signal says: the journal keeps its work.
fn stopped(db: &std::path::Path) -> Outcome {
    support::note!(
        "trainer db label: stopped; finished positions are in {} (continue with --resume)",
        journal_path(db).display()
    );
    Outcome::Interrupted
}
