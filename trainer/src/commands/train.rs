//! `trainer train`: supervised training of one class's net (or pruning
//! net) on a position database, gnubg-nn's schedule and Pareto saves,
//! resumable.

use crate::commands::common::{file_md5, io_context, save_weights, with_suffix, write_atomically};
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use support::atomic::RecycledFile;
use support::claim::Claim;
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::{EvaluatorArgs, EvaluatorId};
use trainer::positions::db::{check_targets, position_id, PositionDb, Record};
use trainer::supervised::{
    after_epoch, after_errors, errors, net_kind, pareto, permutation, train_epoch, Schedule,
    ScheduleState,
};
use trainer::td::checkpoint::{parse_weights_checkpoint, weights_checkpoint_bytes};

/// Arguments of `trainer train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// The position database (positions of other classes are skipped).
    #[arg(long, value_name = "DB")]
    db: PathBuf,
    /// The class whose net is trained.
    #[arg(long, value_parser = ["contact", "crashed", "race"])]
    class: String,
    /// The trained weights (all six nets; binary if it ends in .wd). Nets
    /// on the Pareto front are saved beside it as OUT.save.E-M (text), E =
    /// round(10000·RMS error), M = round(1000·max error).
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// α at the start of every cycle.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    alpha_start: f32,
    /// α that ends a cycle.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true)]
    alpha_low: f32,
    /// Epochs to train.
    #[arg(long, conflicts_with = "until_bottoms")]
    epochs: Option<u64>,
    /// Train until α has reached --alpha-low this many times.
    #[arg(long, value_name = "K")]
    until_bottoms: Option<u64>,
    /// Seed of the permutations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Replace the backgammon targets by 0 (and measure without them).
    #[arg(long)]
    ignore_bg: bool,
    /// Train the class's pruning net (200 base inputs) instead.
    #[arg(long)]
    prune: bool,
    /// Continue from OUT.ckpt.
    #[arg(long)]
    resume: bool,
    /// Worker threads for the error measurements (default: all cores);
    /// results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

impl TrainArgs {
    /// Worker threads requested.
    pub fn threads(&self) -> Option<u16> {
        self.threads
    }
}

/// What a checkpoint holds besides the weights.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Saved {
    db_md5: String,
    weights_md5: String,
    evaluator: EvaluatorId,
    class: String,
    schedule: Schedule,
    state: ScheduleState,
    curve: Vec<(u64, f32, f64, f64)>,
}

const MAGIC: &str = "bgkit train checkpoint 2\n";

/// Largest `--alpha-start` (50 times gnubg-nn's 20): steps far larger only
/// drive the weights to infinity.
const MAX_ALPHA: f32 = 1000.0;

/// The saved Pareto nets beside `out`: (E, M) of each `NAME.save.E-M`.
fn saved_front(out: &Path) -> Vec<(u64, u64)> {
    let dir = support::atomic::parent_dir(out);
    let prefix = format!(
        "{}.save.",
        out.file_name().unwrap_or_default().to_string_lossy()
    );
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            let (e, m) = name.strip_prefix(&prefix)?.split_once('-')?;
            Some((e.parse().ok()?, m.parse().ok()?))
        })
        .collect()
}

fn save_path(out: &Path, e: u64, m: u64) -> PathBuf {
    with_suffix(out, &format!(".save.{e}-{m}"))
}

/// Runs `trainer train`.
pub fn run(args: &TrainArgs, stop: Arc<AtomicBool>) -> Result<Outcome> {
    if !(args.alpha_start > 0.0 && args.alpha_start <= MAX_ALPHA) {
        bail!(
            "--alpha-start {:?}: must be above 0 and at most {MAX_ALPHA}",
            args.alpha_start
        );
    }
    if !(args.alpha_low > 0.0 && args.alpha_low <= args.alpha_start) {
        bail!(
            "--alpha-low {}: must be above 0 and at most --alpha-start",
            args.alpha_low
        );
    }
    if args.epochs.is_none() && args.until_bottoms.is_none() {
        bail!("give --epochs N or --until-bottoms K");
    }
    let class = match args.class.as_str() {
        "race" => nets::Class::Race,
        "crashed" => nets::Class::Crashed,
        _ => nets::Class::Contact,
    };
    let out = &args.output;
    let ckpt = with_suffix(out, ".ckpt");
    let _claim = Claim::new()
        .input(&args.db)
        .inputs(args.evaluator.input_files())
        .output(out)
        .beside(out, trainer::provenance::path_for(out))
        .checkpoint(out, &ckpt)
        .beside(out, with_suffix(out, ".train.csv"))
        .acquire()?;
    let db = PositionDb::open(&args.db).with_context(|| format!("{}", args.db.display()))?;
    // Targets that are not probabilities (a damaged or hand-made database)
    // would drive the weights to infinity.
    let mut records: Vec<Record> = Vec::new();
    let wanted = |r: &&Record| r.has_targets() && r.class() == class;
    for (i, r) in db.records.iter().enumerate().filter(|(_, r)| wanted(r)) {
        check_targets(&r.targets).map_err(|why| {
            anyhow::anyhow!(
                "{}: record {i} ({}): {why}",
                args.db.display(),
                position_id(&r.key)
            )
        })?;
        records.push(*r);
    }
    if records.is_empty() {
        bail!(
            "{}: no {} positions with targets",
            args.db.display(),
            args.class
        );
    }
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let mut eval = args.evaluator.build()?;
    let schedule = Schedule {
        alpha_start: args.alpha_start,
        alpha_low: args.alpha_low,
        ignore_bg: args.ignore_bg,
        prune: args.prune,
        seed: args.seed,
    };
    let mut saved = Saved {
        db_md5: file_md5(&args.db)?,
        weights_md5: file_md5(&weights)?,
        evaluator: EvaluatorId::of(&eval)?,
        class: args.class.clone(),
        schedule: schedule.clone(),
        state: ScheduleState {
            epochs: 0,
            alpha: args.alpha_start,
            prev: (100.0, 100.0),
            shuffles: 1,
            bottoms: 0,
        },
        curve: Vec::new(),
    };
    if args.resume {
        let bytes = support::input::read(&ckpt, trainer::td::checkpoint::LIMIT).map_err(|e| {
            anyhow::anyhow!(
                "--resume: cannot read the checkpoint {}: {e}",
                ckpt.display()
            )
        })?;
        let (old, nets): (Saved, _) = parse_weights_checkpoint(MAGIC, &bytes)
            .with_context(|| format!("checkpoint {}", ckpt.display()))?;
        if let Some(difference) = old.evaluator.difference(&saved.evaluator) {
            bail!(
                "checkpoint {} was written by a run with {difference}",
                ckpt.display()
            );
        }
        if (&old.db_md5, &old.weights_md5, &old.class, &old.schedule)
            != (
                &saved.db_md5,
                &saved.weights_md5,
                &saved.class,
                &saved.schedule,
            )
        {
            bail!(
                "checkpoint {} was written by a run with another database, weights, class or schedule",
                ckpt.display()
            );
        }
        *eval.nets_mut() = nets;
        saved = old;
    } else if ckpt.exists() {
        bail!(
            "{} exists: continue that run with --resume, or remove it to start again",
            ckpt.display()
        );
    }
    let recycled = RecycledFile::new(&ckpt);
    let total = args.epochs.unwrap_or(0);
    let mut bar = Progress::new("trainer train", "epochs", total.max(1), args.quiet);
    let mut order = permutation(args.seed, saved.state.shuffles - 1, records.len());
    let kind = net_kind(class, args.prune);
    loop {
        // Stop where a kill -9 would have: before the errors' step of the
        // schedule, so that a resumed run takes it once, as an
        // uninterrupted one does.
        if stop.load(Ordering::SeqCst) {
            recycled
                .save(&weights_checkpoint_bytes(MAGIC, &saved, eval.nets())?)
                .map_err(io_context(&ckpt))?;
            bar.finish();
            support::note!(
                "trainer train: stopped after {} epochs; checkpoint {} (continue with --resume)",
                saved.state.epochs,
                ckpt.display()
            );
            return Ok(Outcome::Interrupted);
        }
        let (er, mx) = errors(&eval, &records, &schedule);
        saved.curve.retain(|c| c.0 < saved.state.epochs);
        saved
            .curve
            .push((saved.state.epochs, saved.state.alpha, er, mx));
        let (e, m) = ((0.5 + 10000.0 * er) as u64, (0.5 + 1000.0 * mx) as u64);
        let (save, remove) = pareto(&saved_front(out), e, m);
        for (e2, m2) in remove {
            let _ = std::fs::remove_file(save_path(out, e2, m2));
        }
        if save {
            let path = save_path(out, e, m);
            nets::weights::save(eval.nets(), &path, nets::weights::Format::Text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if after_errors(&mut saved.state, &schedule, er, mx) {
            saved.state.shuffles += 1;
            order = permutation(args.seed, saved.state.shuffles - 1, records.len());
        }
        bar.update(saved.state.epochs);
        bar.message(format!(
            "RMS {er:.5}, max {mx:.4}, α {:.3}",
            saved.state.alpha
        ));
        let done = args.epochs.is_some_and(|n| saved.state.epochs >= n)
            || args.until_bottoms.is_some_and(|k| saved.state.bottoms >= k);
        if done {
            break;
        }
        train_epoch(&mut eval, &records, &order, saved.state.alpha, &schedule);
        eval.nets().check_finite().with_context(|| {
            format!("epoch {} (α {})", saved.state.epochs + 1, saved.state.alpha)
        })?;
        after_epoch(&mut saved.state, &schedule);
        recycled
            .save(&weights_checkpoint_bytes(MAGIC, &saved, eval.nets())?)
            .map_err(io_context(&ckpt))?;
    }
    bar.finish();
    let mut csv = format!("{}\n", trainer::supervised::curve::TRAIN_HEADER);
    for (ep, a, er, mx) in &saved.curve {
        csv.push_str(&format!("{ep},{a:.5},{er:.6},{mx:.6}\n"));
    }
    write_atomically(&with_suffix(out, ".train.csv"), csv.as_bytes())?;
    let record = trainer::provenance::Provenance::new(
        args.seed,
        0,
        trainer::provenance::NTrained::default(),
        Some(trainer::provenance::Parent {
            path: weights.clone(),
            md5: saved.weights_md5.clone(),
        }),
        serde_json::json!({
            "db": args.db, "db_md5": saved.db_md5, "class": args.class, "net": kind.name(),
            "positions": records.len(), "schedule": schedule, "epochs": saved.state.epochs,
            "bottoms": saved.state.bottoms,
        }),
    );
    save_weights(eval.nets(), out, record)?;
    recycled.remove().map_err(io_context(&ckpt))?;
    let (_, er, mx) = {
        let last = saved.curve.last().expect("one point");
        (last.0, last.2, last.3)
    };
    support::outln!(
        "trainer train: {} net, {} positions, {} epochs ({} cycles ended): error RMS {er:.5}, max {mx:.4}; wrote {}",
        kind.name(),
        records.len(),
        saved.state.epochs,
        saved.state.bottoms,
        out.display()
    )?;
    Ok(Outcome::Done)
}
