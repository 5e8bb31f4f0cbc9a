//! `trainer train`: supervised training of one class's net (or pruning
//! net) on a position database, gnubg-nn's schedule and Pareto saves,
//! resumable.

use crate::commands::args::{ClassArg, RunArgs};
use crate::commands::common::{file_md5, with_suffix, write_atomically, RunFiles};
use anyhow::{bail, Context, Result};
use clap::Args;
use nets::Nets;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use support::atomic::InFlight;
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::{EvaluatorArgs, EvaluatorId};
use trainer::positions::db::{PositionDb, Record};
use trainer::provenance::{NTrained, Parent, Provenance};
use trainer::supervised::checkpoint::SupervisedCheckpoint;
use trainer::supervised::pareto::{ParetoFront, SaveName};
use trainer::supervised::run::{Length, SupervisedEnd, SupervisedHooks, SupervisedTrainer};
use trainer::supervised::{
    training_records, Decay, Optimizer, Schedule, ScheduleState, TrainingSet,
};

/// Arguments of `trainer train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// The position database (positions of other classes are skipped).
    #[arg(long, value_name = "DB")]
    db: PathBuf,
    /// The class whose net is trained.
    #[arg(long, value_enum)]
    class: ClassArg,
    /// Compute every position's net inputs again in every epoch instead
    /// of keeping them in memory (kept by default when they fit in 1 GiB:
    /// 200 bytes a contact position; the weights are the same either way).
    #[arg(long)]
    recompute_inputs: bool,
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
    /// How α moves: gnubg-nn's cycles, or a cosine decay from
    /// --alpha-start to --alpha-low over --epochs.
    #[arg(long, value_enum, default_value_t = DecayArg::Gnubg)]
    schedule: DecayArg,
    /// How positions move the weights: gnubg-nn's step after every
    /// position, or Adam after every --batch positions (α is then Adam's
    /// learning rate, e.g. --alpha-start 0.002 --alpha-low 0.00002).
    #[arg(long, value_enum, default_value_t = OptimizerArg::Sgd)]
    optimizer: OptimizerArg,
    /// Positions per Adam step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch: u32,
    /// Measure the training set's error (the curve, the Pareto saves)
    /// every N epochs and after the last, instead of after every epoch:
    /// with --schedule cosine only (gnubg's schedule steps on every
    /// epoch's error). The trained weights are the same bits; each skipped
    /// measurement saves an evaluation of every position.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    errors_every: u64,
    /// Decoupled weight decay with Adam (AdamW): before each step every
    /// weight, not the thresholds, is multiplied by 1 − α·λ (e.g. 0.01).
    #[arg(long, value_name = "λ", default_value_t = 0.0)]
    weight_decay: f32,
    /// Weight μ of an equity term in the loss: ½Σ(t − y)² + ½μ(E(t) − E(y))²,
    /// E the cubeless equity of the five outputs (0: gnubg-nn's loss).
    #[arg(
        long,
        value_name = "μ",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    equity_weight: f32,
    /// The loss on each of the five outputs: gnubg-nn's squared error, or
    /// the cross-entropy of a probability target, whose gradient does not
    /// fade where an output's sigmoid saturates.
    #[arg(long, value_enum, default_value_t = LossArg::SquaredError)]
    loss: LossArg,
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
}

/// `--schedule`.
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
enum DecayArg {
    /// gnubg-nn's: α drops by 0.5 (or 10 %) when an epoch does not improve
    /// the errors, and restarts at --alpha-start below --alpha-low.
    Gnubg,
    /// α falls along half a cosine from --alpha-start to --alpha-low over
    /// --epochs, with a new permutation every epoch.
    Cosine,
}

/// `--loss`.
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
enum LossArg {
    /// ½(t − y)² per output (gnubg-nn's).
    SquaredError,
    /// −t·ln y − (1 − t)·ln(1 − y) per output.
    CrossEntropy,
}

/// `--optimizer`.
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
enum OptimizerArg {
    /// gnubg-nn's update: a step of size α after every position.
    Sgd,
    /// Adam (β1 0.9, β2 0.999) with learning rate α after every --batch
    /// positions; deterministic for a seed on any number of threads.
    Adam,
}

use trainer::supervised::{check_equity_weight, check_weight_decay, MAX_ALPHA};

impl TrainArgs {
    /// The settings, checked as `run` checks them before reading a file.
    pub fn check(&self) -> Result<()> {
        self.schedule().map(|_| ())
    }

    /// The schedule, checked; and how long to train.
    fn schedule(&self) -> Result<(Schedule, Length)> {
        if !(self.alpha_start > 0.0 && self.alpha_start <= MAX_ALPHA) {
            bail!(
                "--alpha-start {:?}: must be above 0 and at most {MAX_ALPHA}",
                self.alpha_start
            );
        }
        if !(self.alpha_low > 0.0 && self.alpha_low <= self.alpha_start) {
            bail!(
                "--alpha-low {}: must be above 0 and at most --alpha-start",
                self.alpha_low
            );
        }
        let length = match (self.epochs, self.until_bottoms) {
            (Some(n), _) => Length::Epochs(n),
            (None, Some(k)) => Length::Bottoms(k),
            (None, None) => bail!("give --epochs N or --until-bottoms K"),
        };
        let decay = match (self.schedule, length) {
            (DecayArg::Gnubg, _) => Decay::Gnubg,
            (DecayArg::Cosine, Length::Epochs(epochs)) => Decay::Cosine { epochs },
            (DecayArg::Cosine, Length::Bottoms(_)) => {
                bail!("--schedule cosine needs --epochs N (it has no cycles to count)")
            }
        };
        if self.errors_every > 1 && decay == Decay::Gnubg {
            bail!(
                "--errors-every {}: gnubg's schedule steps on every epoch's error; use --schedule cosine",
                self.errors_every
            );
        }
        check_weight_decay(
            self.weight_decay,
            self.alpha_start,
            self.optimizer == OptimizerArg::Adam,
        )
        .map_err(|why| anyhow::anyhow!("--weight-decay {why}"))?;
        check_equity_weight(self.equity_weight)
            .map_err(|why| anyhow::anyhow!("--equity-weight {why}"))?;
        let schedule = Schedule {
            equity_weight: self.equity_weight,
            cross_entropy: self.loss == LossArg::CrossEntropy,
            errors_every: self.errors_every,
            alpha_start: self.alpha_start,
            alpha_low: self.alpha_low,
            ignore_bg: self.ignore_bg,
            prune: self.prune,
            seed: self.seed,
            decay,
            optimizer: match self.optimizer {
                OptimizerArg::Sgd => Optimizer::Sgd,
                OptimizerArg::Adam => Optimizer::Adam {
                    batch: self.batch,
                    weight_decay: self.weight_decay,
                },
            },
        };
        Ok((schedule, length))
    }
}

/// The saved Pareto nets beside `out`: (E, M) of each `NAME.save.E-M`.
fn saved_front(out: &Path) -> ParetoFront {
    let dir = support::atomic::parent_dir(out);
    let prefix = format!(
        "{}.save.",
        out.file_name().unwrap_or_default().to_string_lossy()
    );
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return ParetoFront::default();
    };
    ParetoFront::new(
        entries
            .filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                let (e, m) = name.strip_prefix(&prefix)?.split_once('-')?;
                Some((e.parse().ok()?, m.parse().ok()?))
            })
            .collect(),
    )
}

fn save_path(out: &Path, (e, m): SaveName) -> PathBuf {
    with_suffix(out, &format!(".save.{e}-{m}"))
}

/// Saves the Pareto nets and checkpoints, shows progress, watches for
/// signals.
struct Files {
    /// The Pareto save being written and synced on a thread of its own
    /// while the next epoch trains. The next save and the next checkpoint
    /// wait for it (a checkpoint comes between any two measurements, so the
    /// saves a measurement lists and removes are never in flight, and a
    /// checkpoint never claims a save that is not on disk). First, so that
    /// it is dropped (the save in flight waited for) before `run` releases
    /// the output's claim.
    saving: InFlight,
    run: RunFiles,
    out: PathBuf,
    start: SupervisedCheckpoint,
    stop: Arc<AtomicBool>,
    bar: Progress,
}

impl SupervisedHooks for Files {
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn progress(&mut self, state: &ScheduleState, er: f64, mx: f64) {
        self.bar.update(state.epochs);
        self.bar
            .message(format!("RMS {er:.5}, max {mx:.4}, α {:.3}", state.alpha));
    }

    fn saved_front(&self) -> ParetoFront {
        saved_front(&self.out)
    }

    fn save(&mut self, nets: &Nets, name: SaveName) -> std::io::Result<()> {
        let (path, nets) = (save_path(&self.out, name), nets.clone());
        self.saving.start(move || {
            let fail = |e: &dyn std::fmt::Display| {
                std::io::Error::other(format!("cannot write {}: {e}", path.display()))
            };
            let text = nets::weights::to_bytes(&nets, nets::weights::Format::Text)
                .map_err(|e| fail(&e))?;
            support::atomic::write_file(&path, &text).map_err(|e| fail(&e))
        })
    }

    fn remove(&mut self, name: SaveName) {
        let _ = std::fs::remove_file(save_path(&self.out, name));
    }

    fn checkpoint(&mut self, trainer: &SupervisedTrainer) -> std::io::Result<()> {
        self.saving.wait()?;
        let header = SupervisedCheckpoint {
            state: trainer.state().clone(),
            curve: trainer.curve().to_vec(),
            adam: trainer.adam().map(Into::into),
            ..self.start.clone()
        };
        self.run
            .save_checkpoint(header.to_bytes(trainer.evaluator().nets()))
    }
}

/// The positions of `--class` in `--db`, refusing a database without any.
fn records(args: &TrainArgs) -> Result<Vec<Record>> {
    let db = PositionDb::open(&args.db)?;
    let records = training_records(&db, args.class.into())
        .with_context(|| format!("{}", args.db.display()))?;
    if records.is_empty() {
        bail!(
            "{}: no {} positions with targets",
            args.db.display(),
            args.class.name()
        );
    }
    Ok(records)
}

/// The provenance of the trained weights.
fn provenance(
    args: &TrainArgs,
    trainer: &SupervisedTrainer,
    start: &SupervisedCheckpoint,
) -> Result<Provenance> {
    let s = trainer.state();
    Ok(Provenance::new(
        args.seed,
        0,
        NTrained::default(),
        Some(Parent {
            path: trainer::defaults::weights(args.evaluator.weights.as_deref())?,
            md5: start.weights_md5.clone(),
        }),
        serde_json::json!({
            "db": args.db, "db_md5": start.db_md5, "class": args.class.name(),
            "net": trainer.kind().name(), "positions": trainer.records().len(),
            "schedule": trainer.schedule(), "epochs": s.epochs, "bottoms": s.bottoms,
        }),
    ))
}

/// Runs `trainer train`.
pub fn run(args: &TrainArgs, stop: Arc<AtomicBool>) -> Result<Outcome> {
    let (schedule, length) = args.schedule()?;
    let out = &args.output;
    let mut inputs = vec![args.db.clone()];
    inputs.extend(args.evaluator.input_files());
    let csv = with_suffix(out, ".train.csv");
    let run = RunFiles::claim(out, inputs, std::slice::from_ref(&csv))?;
    // Pareto saves being written when a run was killed.
    support::atomic::remove_temporaries_of(&with_suffix(out, ".save"))
        .with_context(|| format!("{}: cannot remove old temporaries", out.display()))?;
    let records = records(args)?;
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let mut eval = args.evaluator.build()?;
    // The run's fingerprint (its files hashed side by side) while the
    // positions' boards are decoded and their inputs computed: the largest
    // file's MD5 is one serial stream, the rest keeps the other threads busy.
    let (set, ((db_md5, weights_md5), evaluator)) = rayon::join(
        || {
            let mut set = TrainingSet::new(records);
            if !args.recompute_inputs {
                set.keep_inputs(&eval, &schedule);
            }
            set
        },
        || {
            rayon::join(
                || rayon::join(|| file_md5(&args.db), || file_md5(&weights)),
                || EvaluatorId::of(&eval),
            )
        },
    );
    let start = SupervisedCheckpoint {
        db_md5: db_md5?,
        weights_md5: weights_md5?,
        evaluator: evaluator?,
        class: args.class.name().into(),
        schedule: schedule.clone(),
        state: ScheduleState::start(&schedule),
        curve: Vec::new(),
        adam: None,
    };
    let resumed = run.resume(args.resume, |bytes| {
        let (old, nets) = SupervisedCheckpoint::parse(bytes)?;
        old.check_matches(&start)?;
        Ok((old, nets))
    })?;
    let (state, curve, adam) = match resumed {
        Some((old, nets)) => {
            *eval.nets_mut() = nets;
            let adam = old.adam.as_ref().map(Into::into);
            (old.state, old.curve, adam)
        }
        None => (start.state.clone(), Vec::new(), None),
    };
    let total = args.epochs.unwrap_or(0);
    let mut files = Files {
        run,
        out: out.clone(),
        start,
        stop,
        bar: Progress::new("trainer train", "epochs", total.max(1), args.run.quiet),
        saving: InFlight::default(),
    };
    let mut trainer = SupervisedTrainer::new(eval, set, schedule, state, curve, adam);
    let end = match trainer.run(length, &mut files) {
        Ok(end) => end,
        // A save in flight that failed too is said on the same line.
        Err(e) => match files.saving.wait() {
            Ok(()) => return Err(e.into()),
            Err(save) => bail!("{e}; and {save}"),
        },
    };
    files.saving.wait()?;
    files.bar.finish();
    let s = trainer.state();
    if end == SupervisedEnd::Stopped {
        let done = format!("{} epochs", s.epochs);
        return files.run.stopped("trainer train", &done);
    }
    write_atomically(&csv, trainer.curve_csv().as_bytes())?;
    let record = provenance(args, &trainer, &files.start)?;
    files.run.finish(trainer.evaluator().nets(), record)?;
    let &(_, _, er, mx) = trainer.curve().last().expect("one point");
    support::outln!(
        "trainer train: {} net, {} positions, {} epochs ({} cycles ended): error RMS {er:.5}, max {mx:.4}; wrote {}",
        trainer.kind().name(),
        trainer.records().len(),
        s.epochs,
        s.bottoms,
        out.display()
    )?;
    Ok(Outcome::Done)
}
