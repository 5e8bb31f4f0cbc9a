//! Supervised training of one class's net on a position database, as
//! gnubg-nn's `train.py` does it (docs/trainer.md#supervised-training):
//! epochs over a seeded permutation with a fixed α, the learning-rate
//! schedule, and the Pareto policy that keeps every net not beaten on both
//! the RMS and the maximum error ([`pareto`]), driven by [`run::SupervisedTrainer`].

pub mod bench;
pub mod checkpoint;
pub mod curve;
pub mod pareto;
pub mod prune_check;
pub mod run;

use crate::positions::db::{check_targets, position_id, PositionDb, Record};
use crate::supervised::bench::position_errors;
use crate::team::SpinBarrier;
use board::{Board, Probabilities};
use crossbeam_utils::CachePadded;
use nets::{
    Adam, Class, Evaluator, GradientChunk, NetKind, PlannedStep, Scratch, TeamStep, TrainScratch,
};
use serde::{Deserialize, Serialize};
use std::sync::RwLock;

/// Largest α a run may start from (50 times gnubg-nn's 20): steps far
/// larger only drive the weights to infinity.
pub const MAX_ALPHA: f32 = 1000.0;

/// The largest weight decay taken (far above any useful value).
pub const MAX_WEIGHT_DECAY: f32 = 100.0;

/// Checks a weight decay `decay` for a run starting at α `alpha_start`:
/// from 0 to [`MAX_WEIGHT_DECAY`], only with Adam, and `α·decay` below 1
/// (each step multiplies the weights by `1 − α·decay`). The message names
/// what is wrong.
pub fn check_weight_decay(decay: f32, alpha_start: f32, adam: bool) -> Result<(), String> {
    if !(0.0..=MAX_WEIGHT_DECAY).contains(&decay) {
        return Err(format!("{decay:?}: must be from 0 to {MAX_WEIGHT_DECAY}"));
    }
    if decay != 0.0 && !adam {
        return Err(format!("{decay}: weight decay needs the Adam optimizer"));
    }
    if decay * alpha_start >= 1.0 {
        return Err(format!(
            "{decay} with α {alpha_start}: α·decay must be below 1 (each step multiplies the weights by 1 − α·decay)"
        ));
    }
    Ok(())
}

/// The largest equity weight taken (far above any useful value).
pub const MAX_EQUITY_WEIGHT: f32 = 100.0;

/// Checks an equity weight μ of the loss (`Schedule::equity_weight`): from
/// 0 to [`MAX_EQUITY_WEIGHT`]. The message names what is wrong.
pub fn check_equity_weight(mu: f32) -> Result<(), String> {
    if !(0.0..=MAX_EQUITY_WEIGHT).contains(&mu) {
        return Err(format!("{mu:?}: must be from 0 to {MAX_EQUITY_WEIGHT}"));
    }
    Ok(())
}

/// The schedule's settings (gnubg-nn's defaults in [`Default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// α at the start of every cycle.
    pub alpha_start: f32,
    /// α below which a cycle ends (a "bottom").
    pub alpha_low: f32,
    /// Replace the backgammon targets by 0.
    pub ignore_bg: bool,
    /// Train the class's pruning net (base inputs, no target sanity check).
    pub prune: bool,
    /// Seed of the permutations.
    pub seed: u64,
    /// How α moves between epochs.
    #[serde(default)]
    pub decay: Decay,
    /// How positions move the weights.
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Weight μ of the equity term of the loss, ½Σ(t − y)² + ½μ(E(t) − E(y))²
    /// (`nets::TrainScratch::with_equity_weight`); 0 is gnubg-nn's loss.
    /// Absent from the settings' JSON when 0, so runs without it keep the
    /// fingerprints they had.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub equity_weight: f32,
    /// Descend on the outputs' cross-entropy instead of ½Σ(t − y)²
    /// ([`nets::Loss::CrossEntropy`]). Absent from the settings' JSON when
    /// false, so runs without it keep the fingerprints they had.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cross_entropy: bool,
    /// Epochs between measurements of the training set's error (and the
    /// last epoch's), for the cosine schedule, which does not step on the
    /// error: the skipped epochs give no point of the curve and no Pareto
    /// save, the weights the same bits. 1 (every epoch, gnubg-nn's way) is
    /// absent from the settings' JSON, so runs keep their fingerprints.
    #[serde(default = "every_epoch", skip_serializing_if = "is_every_epoch")]
    pub errors_every: u64,
}

fn every_epoch() -> u64 {
    1
}

fn is_every_epoch(n: &u64) -> bool {
    *n == 1
}

fn is_false(x: &bool) -> bool {
    !*x
}

impl Schedule {
    /// The buffers of a training step with this schedule's loss.
    pub fn train_scratch(&self) -> TrainScratch {
        let loss = if self.cross_entropy {
            nets::Loss::CrossEntropy
        } else {
            nets::Loss::SquaredError
        };
        TrainScratch::with_loss(loss, self.equity_weight)
    }
}

/// How positions move the weights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Optimizer {
    /// gnubg-nn's: a step of size α after every position.
    #[default]
    Sgd,
    /// Adam with learning rate α after every batch of `batch` positions
    /// (their gradients summed in a fixed order, so any number of threads
    /// gives the same bits).
    Adam {
        /// Positions per step.
        batch: u32,
        /// Decoupled weight decay (AdamW): before each step every weight,
        /// not the thresholds, is multiplied by `1 − α·weight_decay`.
        /// Absent from the settings' JSON when 0, so runs without decay
        /// keep the fingerprints they had.
        #[serde(default, skip_serializing_if = "is_zero")]
        weight_decay: f32,
    },
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

impl Optimizer {
    /// The weight decay of each step (0 for gnubg-nn's update).
    pub fn weight_decay(self) -> f32 {
        match self {
            Optimizer::Sgd => 0.0,
            Optimizer::Adam { weight_decay, .. } => weight_decay,
        }
    }
}

/// How α moves between epochs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Decay {
    /// gnubg-nn's: α drops when the errors stop improving, and a cycle
    /// that falls below α_low restarts at α_start.
    #[default]
    Gnubg,
    /// α falls from α_start to α_low along half a cosine over `epochs`
    /// epochs, with a new permutation every epoch.
    Cosine {
        /// The run's length in epochs.
        epochs: u64,
    },
}

impl Decay {
    /// α of epoch `epoch` (from 0) of a cosine decay over `epochs` epochs.
    pub fn cosine_alpha(schedule: &Schedule, epoch: u64, epochs: u64) -> f32 {
        let t = epoch.min(epochs) as f64 / epochs.max(1) as f64;
        let (hi, lo) = (
            f64::from(schedule.alpha_start),
            f64::from(schedule.alpha_low),
        );
        (lo + (hi - lo) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())) as f32
    }
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            alpha_start: 20.0,
            alpha_low: 0.1,
            ignore_bg: false,
            prune: false,
            seed: 1,
            decay: Decay::Gnubg,
            optimizer: Optimizer::Sgd,
            equity_weight: 0.0,
            cross_entropy: false,
            errors_every: 1,
        }
    }
}

/// Where a run stands between epochs (all a resumed run needs besides the
/// weights).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleState {
    /// Epochs trained.
    pub epochs: u64,
    /// The current α.
    pub alpha: f32,
    /// The previous errors (RMS, max).
    pub prev: (f64, f64),
    /// Permutations drawn so far (the current one is the last).
    pub shuffles: u64,
    /// Cycles that reached α_low.
    pub bottoms: u64,
}

impl ScheduleState {
    /// Where a fresh run of `schedule` starts.
    pub fn start(schedule: &Schedule) -> ScheduleState {
        ScheduleState {
            epochs: 0,
            alpha: schedule.alpha_start,
            prev: (100.0, 100.0),
            shuffles: 1,
            bottoms: 0,
        }
    }
}

/// A training record whose targets are not probabilities (a damaged or
/// hand-made database): they would drive the weights to infinity.
#[derive(Debug, thiserror::Error)]
#[error("record {index} ({id}): {why}")]
pub struct BadTargets {
    /// The record's index in the database.
    pub index: usize,
    /// Its Position ID.
    pub id: String,
    /// What is wrong.
    pub why: String,
}

/// The records of `db` with targets whose position is of `class`, checked.
pub fn training_records(db: &PositionDb, class: Class) -> Result<Vec<Record>, BadTargets> {
    let wanted = |r: &&Record| r.has_targets() && r.class() == class;
    let mut records = Vec::new();
    for (index, r) in db.records.iter().enumerate().filter(|(_, r)| wanted(r)) {
        check_targets(&r.targets).map_err(|why| BadTargets {
            index,
            id: position_id(&r.key),
            why,
        })?;
        records.push(*r);
    }
    Ok(records)
}

/// The net a class trains (contact's for classes without a net of their
/// own).
pub fn net_kind(class: Class, prune: bool) -> NetKind {
    NetKind::for_class(class, prune).unwrap_or(if prune {
        NetKind::PruneContact
    } else {
        NetKind::Contact
    })
}

/// Permutation number `n` of `len` positions for `seed`.
pub fn permutation(seed: u64, n: u64, len: usize) -> Vec<u32> {
    let mut mt = crate::keyed::mt(seed, &[n as u32, (n >> 32) as u32, 0x5EED]);
    let mut p: Vec<u32> = (0..len as u32).collect();
    for i in (1..len).rev() {
        let j = ((u64::from(mt.next_u32()) * (i as u64 + 1)) >> 32) as usize;
        p.swap(i, j);
    }
    p
}

fn targets(r: &Record, ignore_bg: bool) -> Probabilities {
    let mut t = r.targets;
    if ignore_bg {
        t[2] = 0.0;
        t[4] = 0.0;
    }
    t
}

/// The positions of a run with their boards decoded once (an epoch meets
/// every position, and decoding its ID again each time cost about a sixth
/// of an Adam epoch). A record whose key is not a position has no board
/// and is skipped, as before.
pub struct TrainingSet {
    records: Vec<Record>,
    boards: Vec<Option<Board>>,
    /// The records' net inputs, when kept ([`TrainingSet::keep_inputs`]).
    inputs: Option<KeptInputs>,
}

/// Every record's input vector past its base inputs (all of it for the
/// race net, whose inputs have no base part): the base inputs are
/// re-encoded from the board, a fifth of a contact vector's bytes kept.
struct KeptInputs {
    /// Where the kept part starts in a vector (200 or 0).
    from: usize,
    /// Floats kept per record.
    width: usize,
    values: Vec<f32>,
}

/// The most memory [`TrainingSet::keep_inputs`] uses: 1 GiB holds the
/// kept inputs of 5.3 million contact or 1.2 million race positions.
pub const KEPT_INPUTS_BYTES: usize = 1 << 30;

impl TrainingSet {
    /// The set of `records`, their boards decoded in parallel.
    pub fn new(records: Vec<Record>) -> TrainingSet {
        use rayon::prelude::*;
        let boards = records
            .par_iter()
            .map(|r| Board::from_id_bytes(&r.key).ok())
            .collect();
        TrainingSet {
            records,
            boards,
            inputs: None,
        }
    }

    /// Computes and keeps every record's net inputs for `eval`'s
    /// arithmetic (they do not depend on the weights), so that an epoch
    /// does not compute them again, if they fit in [`KEPT_INPUTS_BYTES`].
    /// They are kept only when every record has the same class and every
    /// board classifies as that class, so that the gradient (which uses
    /// the record's class) and the error pass (which evaluates the board
    /// as it classifies) read the same vectors they would compute. Returns
    /// whether the inputs are kept. A pruning net's are not (`schedule`'s
    /// `prune`): its base inputs are cheap to encode again.
    pub fn keep_inputs(&mut self, eval: &Evaluator, schedule: &Schedule) -> bool {
        use rayon::prelude::*;
        if schedule.prune {
            return false;
        }
        let Some(class) = self.records.first().map(Record::class) else {
            return false;
        };
        if self.records.iter().any(|r| r.class() != class) {
            return false;
        }
        let classified_alike = self
            .boards
            .par_iter()
            .all(|b| b.as_ref().is_none_or(|b| eval.classify(b) == class));
        if !classified_alike {
            return false;
        }
        let Some(kind) = NetKind::for_class(class, false) else {
            return false;
        };
        let n = eval.nets().get(kind).inputs();
        // The contact and crashed nets' vectors begin with the base
        // inputs; the race net's have their own encoding.
        let from = match kind {
            NetKind::Contact | NetKind::Crashed => nets::inputs::BASE_INPUTS,
            _ => 0,
        };
        let width = n - from;
        if self.records.len().saturating_mul(width * 4) > KEPT_INPUTS_BYTES {
            return false;
        }
        let mut values = vec![0f32; self.records.len() * width];
        values
            .par_chunks_mut(width.max(1))
            .zip(&self.boards)
            .for_each_init(
                || vec![0f32; nets::inputs::MAX_INPUTS],
                |x, (kept, board)| {
                    if let Some(board) = board {
                        eval.inputs(board, class, x);
                        kept.copy_from_slice(&x[from..n]);
                    }
                },
            );
        self.inputs = Some(KeptInputs {
            from,
            width,
            values,
        });
        true
    }

    /// Record `k`'s input vector written into `x` from the kept inputs
    /// (`board` is its board), or `None` if they are not kept.
    #[inline]
    fn kept_inputs<'a>(&self, k: usize, board: &Board, x: &'a mut [f32]) -> Option<&'a [f32]> {
        let kept = self.inputs.as_ref()?;
        if kept.from > 0 {
            nets::inputs::base_inputs(board, &mut x[..kept.from]);
        }
        let end = kept.from + kept.width;
        x[kept.from..end].copy_from_slice(&kept.values[k * kept.width..(k + 1) * kept.width]);
        Some(&x[..end])
    }

    /// Asks the CPU to fetch what record `k` is trained from (its record,
    /// board and kept inputs) while the one before it is trained: the
    /// epochs visit the records in a random order.
    #[inline]
    fn prefetch(&self, k: usize) {
        support::prefetch::prefetch_slice(std::slice::from_ref(&self.records[k]));
        support::prefetch::prefetch_slice(std::slice::from_ref(&self.boards[k]));
        if let Some(kept) = &self.inputs {
            support::prefetch::prefetch_slice(&kept.values[k * kept.width..(k + 1) * kept.width]);
        }
    }

    /// Calls `f(k, record, board)` for each record `k` of `order` that has
    /// a board, in order, asking the CPU for the next record's data
    /// ([`TrainingSet::prefetch`]) while `f` trains the one before.
    #[inline]
    fn visit(&self, order: &[u32], mut f: impl FnMut(usize, &Record, &Board)) {
        for (i, &k) in order.iter().enumerate() {
            if let Some(&next) = order.get(i + 1) {
                self.prefetch(next as usize);
            }
            if let Some((r, board)) = self.get(k as usize) {
                f(k as usize, r, board);
            }
        }
    }

    /// The records, in database order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Record `k` and its board (`None` if its key is not a position).
    #[inline]
    pub fn get(&self, k: usize) -> Option<(&Record, &Board)> {
        Some((&self.records[k], self.boards[k].as_ref()?))
    }
}

/// One epoch: every position in `order` trained with `alpha`, the nets'
/// blocked copies refreshed once at the end.
pub fn train_epoch(
    eval: &mut Evaluator,
    set: &TrainingSet,
    order: &[u32],
    alpha: f32,
    schedule: &Schedule,
) {
    let mut train = schedule.train_scratch();
    let mut inputs = vec![0f32; nets::inputs::MAX_INPUTS];
    set.visit(order, |k, r, board| {
        let t = targets(r, schedule.ignore_bg);
        if schedule.prune {
            let kind = net_kind(r.class(), true);
            nets::inputs::base_inputs(board, &mut inputs[..nets::inputs::BASE_INPUTS]);
            let (arith, simd) = (eval.arithmetic(), eval.simd());
            let net = eval.nets_mut().get_mut(kind);
            nets::train_net_deferred(
                net,
                &inputs[..nets::inputs::BASE_INPUTS],
                &t,
                alpha,
                arith,
                simd,
                &mut train,
            );
        } else {
            // The kept inputs, else computed now (`None`: a class without
            // a net, nothing to train).
            let kind = match set.kept_inputs(k, board, &mut inputs) {
                Some(_) => Some(net_kind(r.class(), false)),
                None => eval.inputs(board, r.class(), &mut inputs),
            };
            if let Some(kind) = kind {
                eval.train_inputs_deferred(board, kind, &inputs, &t, alpha, &mut train);
            }
        }
    });
    // The nets' blocked copies (read by batched evaluation only) once,
    // not after every step.
    eval.nets_mut().refresh_blocked();
}

/// Positions whose gradients one task sums in a minibatch epoch: the
/// unit of parallel work, fixed so that the sum's order does not depend on
/// the number of threads.
const GRADIENT_CHUNK: usize = 64;

/// One minibatch epoch: the positions of `order` in batches of `batch`,
/// each batch's forward and backward passes run chunk by chunk, then the
/// batch's gradient (each chunk's samples in order, then the chunks in
/// order) moving the net by `adam` with learning rate `rate`
/// ([`Adam::step_chunks`]' arithmetic). The threads of the current rayon
/// pool run the epoch as a team ([`TeamStep`]): each computes the chunks
/// whose number is its own modulo the team's size, waits for the others,
/// steps its own run of hidden units, and waits again. The bits depend on
/// neither the number of threads nor which thread does what.
pub fn train_epoch_adam(
    eval: &mut Evaluator,
    set: &TrainingSet,
    order: &[u32],
    rate: f32,
    schedule: &Schedule,
    adam: &mut Adam,
    batch: usize,
) {
    let Some(first) = set.records().first() else {
        return;
    };
    let kind = net_kind(first.class(), schedule.prune);
    let batches: Vec<&[u32]> = order.chunks(batch.max(1)).collect();
    let decay = schedule.optimizer.weight_decay();
    let planned: Vec<PlannedStep> = batches
        .iter()
        .map(|positions| adam.plan_step(positions.len(), rate, decay))
        .collect();
    let threads = rayon::current_num_threads().max(1);
    let chunks: Vec<CachePadded<RwLock<GradientChunk>>> =
        (0..batch.div_ceil(GRADIENT_CHUNK).max(1))
            .map(|_| CachePadded::new(RwLock::new(GradientChunk::new())))
            .collect();
    let simd = eval.simd();
    let team = TeamStep::new(eval.nets_mut().get_mut(kind), adam, threads);
    let shared: &Evaluator = eval;
    let barrier = SpinBarrier::new(threads);
    rayon::broadcast(|context| {
        let me = context.index();
        let _guard = barrier.guard();
        let mut buffers = (
            shared.scratch(),
            schedule.train_scratch(),
            vec![0f32; nets::inputs::MAX_INPUTS],
        );
        for (positions, planned) in batches.iter().zip(&planned) {
            let used = positions.len().div_ceil(GRADIENT_CHUNK);
            for (c, chunk) in positions.chunks(GRADIENT_CHUNK).enumerate() {
                if c % threads == me {
                    let mut pending = chunks[c].write().unwrap_or_else(|e| e.into_inner());
                    fill_chunk(
                        shared,
                        set,
                        schedule,
                        kind,
                        chunk,
                        &mut pending,
                        &mut buffers,
                    );
                }
            }
            barrier.wait();
            {
                let guards: Vec<_> = chunks[..used]
                    .iter()
                    .map(|c| c.read().unwrap_or_else(|e| e.into_inner()))
                    .collect();
                let refs: Vec<&GradientChunk> = guards.iter().map(|g| &**g).collect();
                // SAFETY: the net and the moments `team` points into live
                // until this function returns and keep their shapes (only
                // `step_part` writes them, element by element). Between the
                // two barriers no thread reads the net (`shared` is used
                // only before the first), and each thread steps only its
                // own part `me`; the barriers order these writes with the
                // reads of every thread's next chunks.
                #[allow(unsafe_code)]
                unsafe {
                    team.step_part(me, &refs, planned, simd);
                }
            }
            barrier.wait();
        }
    });
    eval.nets_mut().get_mut(kind).refresh_blocked();
}

/// Each thread's buffers in [`train_epoch_adam`]: an evaluation scratch, a
/// training scratch and an input vector.
type ChunkBuffers = (Scratch, TrainScratch, Vec<f32>);

/// Collects in `pending` the gradients of the positions `chunk` (indices
/// into `set`) for net `kind`, and indexes it for the step.
fn fill_chunk(
    eval: &Evaluator,
    set: &TrainingSet,
    schedule: &Schedule,
    kind: NetKind,
    chunk: &[u32],
    pending: &mut GradientChunk,
    (scratch, train, x): &mut ChunkBuffers,
) {
    pending.clear();
    set.visit(chunk, |k, r, board| {
        let t = targets(r, schedule.ignore_bg);
        if schedule.prune {
            let base = &mut x[..nets::inputs::BASE_INPUTS];
            nets::inputs::base_inputs(board, base);
            pending.push(
                eval.nets().get(kind),
                base,
                &t,
                eval.arithmetic(),
                eval.simd(),
                train,
            );
        } else if let Some(x) = set.kept_inputs(k, board, x) {
            eval.push_gradient_of(board, kind, x, &t, train, pending);
        } else {
            eval.push_gradient(board, r.class(), &t, scratch, train, pending);
        }
    });
    pending.index(eval.nets().get(kind).inputs());
}

/// gnubg-nn's `errors()`: the RMS and maximum equity error (without
/// backgammons if `ignore_bg`) of the 0-ply evaluator (the pruning net's
/// evaluation if `prune`) over the records.
pub fn errors(eval: &Evaluator, set: &TrainingSet, schedule: &Schedule) -> (f64, f64) {
    let errs = match &set.inputs {
        Some(kept) if !schedule.prune => kept_errors(eval, set, kept, schedule),
        _ => single_errors(eval, set, schedule),
    };
    let n = errs.len().max(1) as f64;
    let rms = (errs.iter().map(|e| e * e).sum::<f64>() / n).sqrt();
    (rms, errs.iter().copied().fold(0.0, f64::max))
}

/// The error of `out` against record `r`'s targets, as [`errors`] counts it.
fn record_error(r: &Record, out: &Probabilities, schedule: &Schedule) -> f64 {
    let (eq, nobg) = position_errors(out, &targets(r, schedule.ignore_bg));
    if schedule.ignore_bg {
        nobg
    } else {
        eq
    }
}

/// Records per task of [`kept_errors`].
const ERROR_CHUNK: usize = 64;

/// [`errors`]' per-record errors from the kept inputs: a chunk of records
/// at a time, their vectors side by side and evaluated together
/// ([`Evaluator::evaluate_many_from_inputs`], each position's outputs the
/// bits of its single evaluation), chunks in parallel.
fn kept_errors(
    eval: &Evaluator,
    set: &TrainingSet,
    kept: &KeptInputs,
    schedule: &Schedule,
) -> Vec<f64> {
    use rayon::prelude::*;
    let Some(class) = set.records.first().map(Record::class) else {
        return Vec::new();
    };
    let width = kept.from + kept.width;
    let mut errs = vec![0.0; set.records.len()];
    errs.par_chunks_mut(ERROR_CHUNK).enumerate().for_each_init(
        || {
            (
                eval.scratch(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            )
        },
        |(s, xs, boards, which, outs), (c, errs)| {
            let first = c * ERROR_CHUNK;
            xs.clear();
            boards.clear();
            which.clear();
            for k in first..first + errs.len() {
                // Records whose key is not a position count 0.
                let Some(board) = set.boards[k] else {
                    continue;
                };
                let at = xs.len();
                xs.resize(at + width, 0.0);
                set.kept_inputs(k, &board, &mut xs[at..])
                    .expect("kept inputs");
                boards.push(board);
                which.push(k);
            }
            outs.clear();
            outs.resize(boards.len(), [0.0; 5]);
            // Kept inputs imply every board classifies as its record
            // (`keep_inputs` checked every board once).
            eval.evaluate_many_from_inputs(boards, class, xs, outs, s);
            for (&k, out) in which.iter().zip(outs.iter()) {
                errs[k - first] = record_error(&set.records[k], out, schedule);
            }
        },
    );
    errs
}

/// [`errors`]' per-record errors, one position at a time (inputs not
/// kept, or the pruning nets).
fn single_errors(eval: &Evaluator, set: &TrainingSet, schedule: &Schedule) -> Vec<f64> {
    use rayon::prelude::*;
    set.records
        .par_iter()
        .zip(&set.boards)
        .map_init(
            || eval.scratch(),
            |s, (r, board)| {
                let Some(board) = board else {
                    return 0.0;
                };
                let out = if schedule.prune {
                    eval.evaluate_pruning_net(board, r.class(), s)
                } else {
                    eval.evaluate(board, s).outputs
                };
                record_error(r, &out, schedule)
            },
        )
        .collect()
}

/// The schedule's step after measuring errors `(er, mx)`: a lower α when
/// neither improved enough (and a new permutation if the RMS got worse);
/// a cosine decay only draws a new permutation. Returns true if a new
/// permutation is needed.
pub fn after_errors(state: &mut ScheduleState, schedule: &Schedule, er: f64, mx: f64) -> bool {
    if let Decay::Cosine { .. } = schedule.decay {
        state.prev = (er, mx);
        return true;
    }
    let mut reshuffle = false;
    let (prev, prev_max) = state.prev;
    if !(er < 0.995 * prev || mx < 0.99 * prev_max) {
        state.alpha = (0.9 * state.alpha).min(state.alpha - 0.5);
        if state.alpha < schedule.alpha_low {
            state.alpha = schedule.alpha_low - 0.00001;
        }
        reshuffle = er > prev;
    }
    state.prev = (er, mx);
    reshuffle
}

/// After an epoch: a cycle that went below α_low restarts at α_start
/// (counted as a bottom).
pub fn after_epoch(state: &mut ScheduleState, schedule: &Schedule) {
    state.epochs += 1;
    if let Decay::Cosine { epochs } = schedule.decay {
        state.alpha = Decay::cosine_alpha(schedule, state.epochs, epochs);
        return;
    }
    if state.alpha < schedule.alpha_low {
        state.alpha = schedule.alpha_start / 0.9;
        state.bottoms += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_lowers_alpha_and_restarts_cycles() {
        let s = Schedule::default();
        let mut st = ScheduleState {
            epochs: 0,
            alpha: 20.0,
            prev: (100.0, 100.0),
            shuffles: 1,
            bottoms: 0,
        };
        assert!(!after_errors(&mut st, &s, 0.5, 1.0));
        assert_eq!(st.alpha, 20.0);
        assert!(!after_errors(&mut st, &s, 0.499, 0.999));
        assert_eq!(st.alpha, 18.0);
        assert!(after_errors(&mut st, &s, 0.6, 1.0));
        assert!((st.alpha - 16.2).abs() < 1e-5);
        st.alpha = 0.05;
        after_epoch(&mut st, &s);
        assert_eq!((st.bottoms, st.epochs), (1, 1));
        assert!((st.alpha - 20.0 / 0.9).abs() < 1e-5);
    }

    #[test]
    fn cosine_decay_falls_from_alpha_start_to_alpha_low_and_reshuffles_every_epoch() {
        let s = Schedule {
            alpha_start: 1.0,
            alpha_low: 0.01,
            decay: Decay::Cosine { epochs: 4 },
            ..Schedule::default()
        };
        let mut st = ScheduleState::start(&s);
        let mut alphas = vec![st.alpha];
        for _ in 0..4 {
            // Worse errors every time: the gnubg schedule would lower α.
            assert!(after_errors(&mut st, &s, 1.0, 1.0));
            after_epoch(&mut st, &s);
            alphas.push(st.alpha);
        }
        let want = [1.0, 0.85499, 0.505, 0.15501, 0.01];
        for (a, w) in alphas.iter().zip(want) {
            assert!((a - w).abs() < 1e-4, "{alphas:?}");
        }
        assert_eq!((st.epochs, st.bottoms), (4, 0));
    }

    #[test]
    fn permutations_are_seeded() {
        let a = permutation(1, 0, 100);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
        assert_eq!(a, permutation(1, 0, 100));
        assert_ne!(a, permutation(1, 1, 100));
    }
}
