//! `trainer td`: TD self-play training with checkpoints, a learning curve
//! and provenance.

use crate::commands::args::RunArgs;
use crate::commands::common::{file_md5, with_suffix, write_atomically, RunFiles};
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use support::cli::Outcome;
use support::progress::Progress;
use trainer::curve::to_csv;
use trainer::evaluator_args::{EvaluatorArgs, EvaluatorId};
use trainer::provenance::{recorded_n_trained, Parent, Provenance, Recorded};
use trainer::td::checkpoint::{self, CheckpointHeader};
use trainer::td::{TdEnd, TdHooks, TdProgress, TdSettings, TdTrainer};

/// Arguments of `trainer td`.
#[derive(Args, Debug)]
pub struct TdArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// The trained weights: binary if the name ends in .wd, text otherwise.
    /// OUT.ckpt (checkpoint), OUT.json (provenance) and OUT.curve.csv
    /// (learning curve) are written beside it.
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// Games to train (in total, counting those of a resumed run).
    #[arg(long)]
    games: u64,
    /// Learning rate α0 before annealing, in (0, 1].
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true)]
    alpha: f32,
    /// Annealing exponent: α = α0 / (n_trained/1000 + 1)^anneal, per net.
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    anneal: f32,
    /// λ of TD(λ) in [0, 1] (0: gnubg's TD(0)).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    lambda: f32,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play B games in parallel against the same weights, then apply their
    /// updates in game order (without it: gnubg's sequential algorithm on
    /// one thread). Results depend on the seed and B, never on --threads.
    #[arg(long, value_name = "B")]
    batch_games: Option<u64>,
    /// With --batch-games: play each batch against the weights from before
    /// the previous batch was trained, so the next batch's games are played
    /// while this one trains (two cores do nearly twice the work of one).
    /// Another run than without it, but still determined by the seed and B
    /// alone, never by --threads.
    #[arg(long)]
    pipeline: bool,
    /// Save OUT.ckpt every K games (0: only when interrupted).
    #[arg(long, default_value_t = 1000, value_name = "K")]
    checkpoint_every: u64,
    /// Continue the run saved in OUT.ckpt (same weights and settings); the
    /// result is byte-identical to an uninterrupted run.
    #[arg(long)]
    resume: bool,
    /// Play pubeval every K games and append a point to OUT.curve.csv (0:
    /// no curve).
    #[arg(long, default_value_t = 0, value_name = "K")]
    eval_every: u64,
    /// Games against pubeval per curve point (duplicate dice, even).
    #[arg(long, default_value_t = 1000, value_name = "M")]
    eval_games: u64,
}

impl TdArgs {
    fn settings(&self) -> TdSettings {
        TdSettings {
            alpha: self.alpha,
            anneal: self.anneal,
            lambda: self.lambda,
            seed: self.seed,
            batch_games: self.batch_games,
            pipeline: self.pipeline,
            eval_every: self.eval_every,
            eval_games: self.eval_games,
        }
    }
}

/// Saves checkpoints and the curve, shows progress, watches for signals.
struct Files {
    run: RunFiles,
    curve: PathBuf,
    parent_md5: String,
    evaluator: EvaluatorId,
    stop: Arc<AtomicBool>,
    bar: Progress,
    start: Instant,
    start_games: u64,
}

impl TdHooks for Files {
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn progress(&mut self, progress: &TdProgress, alpha: f32) {
        self.bar.update(progress.games);
        let rate = (progress.games - self.start_games) as f64 / self.start.elapsed().as_secs_f64();
        self.bar.message(format!("{rate:.0} games/s, α {alpha:.4}"));
    }

    fn curve_point(&mut self, trainer: &TdTrainer) -> std::io::Result<()> {
        let rows = &trainer.progress().curve;
        if let Some(r) = rows.last() {
            support::note!(
                "trainer td: {} games: {:+.3} ppg ± {:.3} vs pubeval ({:.1} % won), α {:.4}",
                r.games,
                r.ppg,
                r.ppg_ci95,
                100.0 * r.win_rate,
                r.alpha
            );
        }
        write_atomically(&self.curve, to_csv(rows).as_bytes())
            .map_err(|e| std::io::Error::other(format!("{e:#}")))
    }

    fn checkpoint(&mut self, trainer: &TdTrainer) -> std::io::Result<()> {
        let header = CheckpointHeader {
            parent_md5: self.parent_md5.clone(),
            settings: trainer.settings().clone(),
            evaluator: self.evaluator.clone(),
            progress: trainer.progress().clone(),
            player_bytes: None,
        };
        self.run.save_checkpoint(checkpoint::to_bytes(
            &header,
            trainer.evaluator().nets(),
            trainer.player_nets(),
        ))
    }
}

/// The progress of a fresh run from `weights`: a bgkit parent's training
/// counts continue (gnubg's files do not hold them).
fn fresh_progress(weights: &std::path::Path, md5: &str) -> TdProgress {
    let recorded = recorded_n_trained(weights, md5);
    if let Recorded::Ignored(why) = &recorded {
        support::note!("trainer td: training counts start at 0: {why}");
    }
    let t = recorded.or_zero();
    TdProgress {
        games: 0,
        trained: [t.contact, t.race, t.crashed],
        curve: Vec::new(),
    }
}

/// Runs `trainer td`.
pub fn run(args: &TdArgs, stop: Arc<AtomicBool>) -> Result<Outcome> {
    let settings = args.settings();
    settings.validate(args.games)?;
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let mut eval = args.evaluator.build()?;
    let parent_md5 = file_md5(&weights)?;
    let evaluator = EvaluatorId::of(&eval)?;
    let out = &args.output;
    let curve = with_suffix(out, ".curve.csv");
    let beside = if args.eval_every > 0 {
        vec![curve.clone()]
    } else {
        Vec::new()
    };
    let run = RunFiles::claim(out, args.evaluator.input_files(), &beside)?;
    let resumed = run.resume(args.resume, |bytes| {
        let (header, nets, player) = checkpoint::parse(bytes)?;
        header.check_matches(&parent_md5, &settings, &evaluator)?;
        Ok((header, nets, player))
    })?;
    let mut player = None;
    let progress = match resumed {
        Some((header, nets, saved_player)) => {
            player = saved_player;
            if header.progress.games > args.games {
                bail!(
                    "checkpoint {} has {} games, more than --games {}",
                    run.checkpoint_path().display(),
                    header.progress.games,
                    args.games
                );
            }
            *eval.nets_mut() = nets;
            header.progress
        }
        None => fresh_progress(&weights, &parent_md5),
    };
    let start_games = progress.games;
    let mut files = Files {
        run,
        curve,
        parent_md5: parent_md5.clone(),
        evaluator,
        stop,
        bar: Progress::new("trainer td", "games", args.games, args.run.quiet),
        start: Instant::now(),
        start_games,
    };
    files.bar.update(start_games);
    let mut trainer = TdTrainer::new(eval, settings.clone(), progress);
    if let Some(player) = player {
        trainer = trainer.with_player(player);
    }
    let end = trainer.run(args.games, args.checkpoint_every, &mut files)?;
    files.bar.finish();
    if end == TdEnd::Stopped {
        let done = format!("{} games", trainer.progress().games);
        return files.run.stopped("trainer td", &done);
    }
    let p = trainer.progress();
    let record = Provenance::new(
        args.seed,
        p.games,
        p.trained.into(),
        Some(Parent {
            path: weights.clone(),
            md5: parent_md5,
        }),
        serde_json::to_value(&settings).expect("settings serialize"),
    );
    files.run.finish(trainer.evaluator().nets(), record)?;
    let seconds = files.start.elapsed().as_secs_f64();
    report(p, start_games, seconds, out)?;
    Ok(Outcome::Done)
}

/// Prints what the run did.
fn report(p: &TdProgress, start_games: u64, seconds: f64, out: &std::path::Path) -> Result<()> {
    let trained_now = p.games - start_games;
    support::outln!(
        "trainer td: {} games ({} this run, {:.1} s, {:.0} games/s); steps: contact {}, race {}, crashed {}; wrote {}",
        p.games,
        trained_now,
        seconds,
        trained_now as f64 / seconds.max(1e-9),
        p.trained[0],
        p.trained[1],
        p.trained[2],
        out.display()
    )?;
    if let Some(r) = p.curve.last() {
        support::outln!(
            "trainer td: last curve point: {:+.3} ppg ± {:.3} vs pubeval after {} games",
            r.ppg,
            r.ppg_ci95,
            r.games
        )?;
    }
    Ok(())
}
