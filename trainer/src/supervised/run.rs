//! A supervised run ([`SupervisedTrainer`]): epochs with gnubg-nn's α
//! schedule, a measurement before each, the Pareto saves and the
//! checkpoints done by the caller's [`SupervisedHooks`].

use crate::positions::db::Record;
use crate::supervised::pareto::{save_name, ParetoFront, SaveName};
use crate::supervised::{
    after_epoch, after_errors, errors, net_kind, permutation, train_epoch, train_epoch_adam, Decay,
    Optimizer, Schedule, ScheduleState, TrainingSet,
};
use nets::{Adam, Evaluator, NetKind, Nets};

/// One measurement: (epochs trained, α of the next epoch, RMS error, max
/// error).
pub type CurvePoint = (u64, f32, f64, f64);

/// How long a run trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// This many epochs in total.
    Epochs(u64),
    /// Until α has reached its low this many times.
    Bottoms(u64),
}

/// Hooks a run calls between epochs (the command line saves files and
/// shows progress here).
pub trait SupervisedHooks {
    /// True when the run should save a checkpoint and stop.
    fn stop_requested(&self) -> bool;
    /// Called after every measurement with where the run stands and the
    /// errors just measured.
    fn progress(&mut self, state: &ScheduleState, er: f64, mx: f64);
    /// The nets saved so far.
    fn saved_front(&self) -> ParetoFront;
    /// Saves `nets` as the net named `name`.
    fn save(&mut self, nets: &Nets, name: SaveName) -> std::io::Result<()>;
    /// Removes the saved net named `name` (a dominated one).
    fn remove(&mut self, name: SaveName);
    /// Time to save a checkpoint of `trainer`.
    fn checkpoint(&mut self, trainer: &SupervisedTrainer) -> std::io::Result<()>;
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum SupervisedEnd {
    /// The length was reached.
    Finished,
    /// Stopped on request after a checkpoint.
    Stopped,
}

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum SupervisedError {
    /// An epoch drove a weight to a value that is not finite.
    #[error("epoch {epoch} (α {alpha})")]
    NotFinite {
        /// The epoch (counting from 1).
        epoch: u64,
        /// Its α.
        alpha: f32,
        /// The weight.
        #[source]
        source: nets::WeightsError,
    },
    /// A file could not be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A supervised run: the evaluator being trained, its positions, the
/// schedule and where it stands.
pub struct SupervisedTrainer {
    eval: Evaluator,
    set: TrainingSet,
    schedule: Schedule,
    state: ScheduleState,
    curve: Vec<CurvePoint>,
    order: Vec<u32>,
    adam: Option<Adam>,
}

impl SupervisedTrainer {
    /// A run on `set` at `state` with the `curve` so far
    /// ([`ScheduleState::start`] and no curve for a fresh run) and, for
    /// Adam, the optimizer's state (`None`: fresh moments).
    pub fn new(
        eval: Evaluator,
        set: TrainingSet,
        schedule: Schedule,
        state: ScheduleState,
        curve: Vec<CurvePoint>,
        adam: Option<Adam>,
    ) -> SupervisedTrainer {
        let order = permutation(schedule.seed, state.shuffles - 1, set.records().len());
        let mut trainer = SupervisedTrainer {
            eval,
            set,
            schedule,
            state,
            curve,
            order,
            adam: None,
        };
        if let Optimizer::Adam { .. } = trainer.schedule.optimizer {
            let fresh = Adam::new(trainer.eval.nets().get(trainer.kind()));
            trainer.adam = Some(adam.unwrap_or(fresh));
        }
        trainer
    }

    /// Adam's state (`None` for gnubg-nn's update).
    pub fn adam(&self) -> Option<&Adam> {
        self.adam.as_ref()
    }

    /// The evaluator with the current weights.
    pub fn evaluator(&self) -> &Evaluator {
        &self.eval
    }

    /// The training positions.
    pub fn records(&self) -> &[Record] {
        self.set.records()
    }

    /// The schedule's settings.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Where the schedule stands.
    pub fn state(&self) -> &ScheduleState {
        &self.state
    }

    /// The measurements so far.
    pub fn curve(&self) -> &[CurvePoint] {
        &self.curve
    }

    /// The trained net.
    pub fn kind(&self) -> NetKind {
        let class = self
            .set
            .records()
            .first()
            .map_or(nets::Class::Contact, Record::class);
        net_kind(class, self.schedule.prune)
    }

    /// The curve as `OUT.train.csv`.
    pub fn curve_csv(&self) -> String {
        let mut csv = format!("{}\n", crate::supervised::curve::TRAIN_HEADER);
        for (ep, a, er, mx) in &self.curve {
            csv.push_str(&format!("{ep},{a:.5},{er:.6},{mx:.6}\n"));
        }
        csv
    }

    fn done(&self, length: Length) -> bool {
        match length {
            Length::Epochs(n) => self.state.epochs >= n,
            Length::Bottoms(k) => self.state.bottoms >= k,
        }
    }

    /// Measures the errors, records them, offers the net to the Pareto
    /// front and takes the schedule's step; on an epoch the schedule's
    /// `errors_every` skips (never the first or the last), only the step,
    /// which for the cosine schedule does not read the errors.
    fn measure(&mut self, length: Length, hooks: &mut dyn SupervisedHooks) -> std::io::Result<()> {
        let epochs = self.state.epochs;
        let every = self.schedule.errors_every.max(1);
        let cosine = matches!(self.schedule.decay, Decay::Cosine { .. });
        if cosine && !epochs.is_multiple_of(every) && !self.done(length) {
            let (er, mx) = self.state.prev;
            self.schedule_step(er, mx);
            hooks.progress(&self.state, er, mx);
            return Ok(());
        }
        let (er, mx) = errors(&self.eval, &self.set, &self.schedule);
        self.curve.retain(|c| c.0 < epochs);
        self.curve.push((epochs, self.state.alpha, er, mx));
        let name = save_name(er, mx);
        let admission = hooks.saved_front().admit(name);
        for old in admission.remove {
            hooks.remove(old);
        }
        if admission.save {
            hooks.save(self.eval.nets(), name)?;
        }
        self.schedule_step(er, mx);
        hooks.progress(&self.state, er, mx);
        Ok(())
    }

    /// The schedule's step after a measurement of errors `er`, `mx`: α,
    /// and a new permutation when the schedule asks for one.
    fn schedule_step(&mut self, er: f64, mx: f64) {
        if after_errors(&mut self.state, &self.schedule, er, mx) {
            self.state.shuffles += 1;
            self.order = permutation(
                self.schedule.seed,
                self.state.shuffles - 1,
                self.set.records().len(),
            );
        }
    }

    /// Trains until `length` is reached, checkpointing after every epoch
    /// and when stopped. A stop comes where a kill -9 would: before the
    /// measurement's step of the schedule, so that a resumed run takes it
    /// once, as an uninterrupted one does.
    pub fn run(
        &mut self,
        length: Length,
        hooks: &mut dyn SupervisedHooks,
    ) -> Result<SupervisedEnd, SupervisedError> {
        loop {
            if hooks.stop_requested() {
                hooks.checkpoint(self)?;
                return Ok(SupervisedEnd::Stopped);
            }
            self.measure(length, hooks)?;
            if self.done(length) {
                return Ok(SupervisedEnd::Finished);
            }
            let alpha = self.state.alpha;
            match (self.schedule.optimizer, self.adam.as_mut()) {
                (Optimizer::Adam { batch, .. }, Some(adam)) => train_epoch_adam(
                    &mut self.eval,
                    &self.set,
                    &self.order,
                    alpha,
                    &self.schedule,
                    adam,
                    batch as usize,
                ),
                _ => train_epoch(
                    &mut self.eval,
                    &self.set,
                    &self.order,
                    alpha,
                    &self.schedule,
                ),
            }
            self.eval
                .nets()
                .check_finite()
                .map_err(|source| SupervisedError::NotFinite {
                    epoch: self.state.epochs + 1,
                    alpha,
                    source,
                })?;
            after_epoch(&mut self.state, &self.schedule);
            hooks.checkpoint(self)?;
        }
    }
}
