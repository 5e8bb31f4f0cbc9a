//! `db rollout`.

use super::{claim_in_place, save_provenance};
use crate::commands::args::RunArgs;
use crate::commands::common::file_md5;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::{EvaluatorArgs, EvaluatorId};
use trainer::rollouts::job::{journal_path, rollout_db, JobOptions, JobSummary, Shard};
use trainer::rollouts::rollout::RolloutSettings;

/// Arguments of `db rollout`.
#[derive(Args, Debug)]
pub struct RolloutArgs {
    /// The database (rewritten atomically at the end).
    db: PathBuf,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// Trials per position.
    #[arg(long, default_value_t = 1296)]
    trials: u32,
    /// Plies of the move choice: 1 scores every move at 1 ply; 2 and 3
    /// first keep gnubg's default filter of moves (8 within 0.16 at 0 ply).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Roll out only positions i with i mod N = K − 1.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Play every trial to the end instead of stopping at an exact
    /// two-sided bearoff position.
    #[arg(long)]
    no_truncate: bool,
    /// Lookahead variance reduction (each roll's luck, judged at 0-ply
    /// over all 21 rolls, is taken out): about 20× the work per trial,
    /// far smaller standard errors.
    #[arg(long)]
    variance_reduction: bool,
    /// Continue an interrupted rollout from DB.journal.
    #[arg(long)]
    resume: bool,
    /// Positions rolled out between journal syncs.
    #[arg(long, default_value_t = 8, hide = true)]
    chunk: usize,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

/// Runs `db rollout`: journaled, so kill -9 loses no finished position
/// and `--resume` continues.
pub fn run(args: &RolloutArgs, stop: &AtomicBool) -> Result<Outcome> {
    if args.trials == 0 {
        bail!("--trials must be at least 1");
    }
    let (db, shard) = (&args.db, args.shard.unwrap_or(Shard::ALL));
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let eval = args.evaluator.build()?;
    let _claim = claim_in_place(args.evaluator.input_files(), db)?;
    let settings = RolloutSettings {
        trials: args.trials,
        plies: args.plies,
        seed: args.seed,
        truncate: !args.no_truncate,
        variance_reduction: args.variance_reduction,
        weights_md5: file_md5(&weights)?,
        evaluator: EvaluatorId::of(&eval)?,
    };
    let mut bar: Option<Progress> = None;
    let options = JobOptions {
        shard,
        resume: args.resume,
        chunk: args.chunk,
    };
    let summary = rollout_db(
        db,
        &eval,
        &settings,
        options,
        &mut |done, total| {
            bar.get_or_insert_with(|| {
                Progress::new(
                    "trainer db rollout",
                    "positions",
                    total as u64,
                    args.run.quiet,
                )
            })
            .update(done as u64)
        },
        &|| stop.load(Ordering::SeqCst),
    )
    .with_context(|| format!("{}", db.display()))?;
    if let Some(b) = &bar {
        b.finish();
    }
    let Some(summary) = summary else {
        support::note!(
            "trainer db rollout: stopped; finished positions are in {} (continue with --resume)",
            journal_path(db).display()
        );
        return Ok(Outcome::Interrupted);
    };
    save_provenance(db, serde_json::to_value(&settings).expect("json"))?;
    report(args, shard, &summary)?;
    Ok(Outcome::Done)
}

/// The closing line of `db rollout`.
fn report(args: &RolloutArgs, shard: Shard, summary: &JobSummary) -> Result<()> {
    support::outln!(
        "trainer db rollout: {} positions in shard {}/{}: {} rolled out now, {} from the journal, {} already done; wrote {}",
        summary.in_shard,
        shard.index,
        shard.count,
        summary.rolled,
        summary.resumed,
        summary.kept,
        args.db.display()
    )?;
    Ok(())
}
