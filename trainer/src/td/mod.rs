//! TD self-play training, as gnubg's former `train td`
//! (docs/trainer.md#td-self-play): each position before a roll is trained
//! towards the 0-ply value of the position after the best 0-ply move for
//! the roll, per-class nets, exact values at the end, annealed learning
//! rate, and optionally TD(λ) and batches of games played in parallel.

pub mod checkpoint;

use crate::play::game::game_dice;
use crate::play::game::Player;
use crate::play::matches::{play_match, DiceMode, MatchError};
use board::{invert, Board, Dice, Probabilities};
use nets::{train_net_deferred, Class, Evaluator, NetKind, Nets, Scratch, TrainScratch};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The settings that determine a run's result (with the starting weights
/// and the number of games).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TdSettings {
    /// α0, the learning rate before annealing, in (0, 1].
    pub alpha: f32,
    /// The annealing exponent: α = α0 / (n_trained/1000 + 1)^anneal.
    pub anneal: f32,
    /// λ of TD(λ), in [0, 1]; 0 is gnubg's TD(0).
    pub lambda: f32,
    /// Seed of the dice.
    pub seed: u64,
    /// Games played against the same weights before their updates are
    /// applied (in game order); `None`: gnubg's sequential algorithm.
    pub batch_games: Option<u64>,
    /// Batches are played against the weights from before the previous
    /// batch was trained, so that playing one batch overlaps training the
    /// one before (needs `batch_games`). Absent from the files of runs
    /// without it, which keep their bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pipeline: bool,
    /// Games between learning-curve points (0: no curve).
    pub eval_every: u64,
    /// Games (duplicate dice) against pubeval per curve point.
    pub eval_games: u64,
}

/// Largest `--batch-games`: every position of a batch's games is held until
/// the batch is trained (about 4 KB a game), and batches far larger than
/// the cores gain no speed.
pub const MAX_BATCH_GAMES: u64 = 10_000;

/// Why a run cannot start or continue.
#[derive(Debug, thiserror::Error)]
pub enum TdError {
    /// A setting is out of range.
    #[error("{0}")]
    Setting(String),
    /// A learning-curve match cannot be played.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The checkpoint cannot be used.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
}

impl TdSettings {
    /// Checks every range; `games` is the run's total.
    pub fn validate(&self, games: u64) -> Result<(), TdError> {
        let bad = |m: String| Err(TdError::Setting(m));
        if games == 0 {
            return bad("the number of games must be at least 1".into());
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return bad(format!("learning rate α {}: must be in (0, 1]", self.alpha));
        }
        if !(self.anneal >= 0.0 && self.anneal.is_finite()) {
            return bad(format!(
                "annealing exponent {}: must be 0 or more",
                self.anneal
            ));
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad(format!("λ {}: must be in [0, 1]", self.lambda));
        }
        if let Some(b) = self
            .batch_games
            .filter(|b| !(1..=MAX_BATCH_GAMES).contains(b))
        {
            return bad(format!(
                "games per batch {b}: must be from 1 to {MAX_BATCH_GAMES} (a batch's positions are held in memory until it is trained)"
            ));
        }
        if self.pipeline && self.batch_games.is_none() {
            return bad("pipelining plays a batch while the previous one trains: it needs games per batch (--batch-games)".into());
        }
        let step = self.batch_games.unwrap_or(1);
        if !self.eval_every.is_multiple_of(step) {
            return bad(format!(
                "games between evaluations {}: must be a multiple of the games per batch, {step}",
                self.eval_every
            ));
        }
        if self.eval_every > 0 && (self.eval_games == 0 || self.eval_games % 2 == 1) {
            return bad(format!(
                "evaluation games {}: duplicate dice need an even number of games, at least 2",
                self.eval_games
            ));
        }
        Ok(())
    }

    /// Games trained between two points where a run may stop, checkpoint
    /// or evaluate.
    pub fn step(&self) -> u64 {
        self.batch_games.unwrap_or(1)
    }
}

/// One point of the learning curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveRow {
    /// Games trained so far.
    pub games: u64,
    /// The contact net's current learning rate.
    pub alpha: f64,
    /// Win rate against pubeval.
    pub win_rate: f64,
    /// Points per game against pubeval.
    pub ppg: f64,
    /// Half-width of the 95 % interval of `ppg`.
    pub ppg_ci95: f64,
    /// Training speed since the previous point (games per second of wall
    /// time; 0 for the first point).
    pub games_per_second: f64,
}

/// The header line of the learning-curve CSV.
pub const CURVE_HEADER: &str = "games,alpha,win_rate,ppg,ppg_ci95,games_per_second";

impl CurveRow {
    /// The row as a CSV line (no newline).
    pub fn csv(&self) -> String {
        format!(
            "{},{:.6},{:.6},{:.6},{:.6},{:.1}",
            self.games, self.alpha, self.win_rate, self.ppg, self.ppg_ci95, self.games_per_second
        )
    }
}

/// What a run has done so far (besides the weights).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TdProgress {
    /// Games trained.
    pub games: u64,
    /// Training steps taken by the contact, race and crashed nets.
    pub trained: [u64; 3],
    /// The learning curve so far.
    pub curve: Vec<CurveRow>,
}

/// The slot of each trained net's counter.
fn class_counter(class: Class) -> Option<usize> {
    match class {
        Class::Contact => Some(0),
        Class::Race => Some(1),
        Class::Crashed => Some(2),
        _ => None,
    }
}

/// The annealed learning rate after `n` steps of a net.
pub fn annealed_alpha(alpha: f32, anneal: f32, n: u64) -> f32 {
    (f64::from(alpha) / (n as f64 / 1000.0 + 1.0).powf(f64::from(anneal))) as f32
}

/// One trained position: the position before the roll, its class and its
/// target from the view of the side on roll.
#[derive(Clone, Copy, Debug)]
struct Sample {
    board: Board,
    class: Class,
    target: Probabilities,
}

/// A game's samples made ready for training: the steps of the samples
/// whose class has a net, each with its inputs (`stride` floats apart in
/// `inputs`) and sanity-checked target.
struct PreparedGame {
    steps: Vec<PreparedStep>,
    inputs: Vec<f32>,
    stride: usize,
}

/// One prepared step: the net and the target.
struct PreparedStep {
    kind: NetKind,
    target: Probabilities,
}

impl PreparedGame {
    fn new(eval: &Evaluator, samples: &[Sample]) -> PreparedGame {
        let stride = NetKind::Contact.inputs().max(NetKind::Race.inputs());
        let mut inputs = vec![0f32; stride * samples.len()];
        let mut steps = Vec::with_capacity(samples.len());
        for sample in samples {
            let at = steps.len() * stride;
            let out = &mut inputs[at..at + stride];
            if let Some((kind, target)) =
                eval.prepare_step(&sample.board, sample.class, &sample.target, out)
            {
                steps.push(PreparedStep { kind, target });
            }
        }
        inputs.truncate(steps.len() * stride);
        PreparedGame {
            steps,
            inputs,
            stride,
        }
    }
}

/// Plays games `first..first + count` in parallel against `eval`'s weights
/// and prepares each for training (in game order, on any number of
/// threads).
fn play_batch(
    eval: &Evaluator,
    seed: u64,
    lambda: f32,
    first: u64,
    count: u64,
) -> Vec<PreparedGame> {
    (first..first + count)
        .into_par_iter()
        .map_init(
            || eval.scratch(),
            |s, g| PreparedGame::new(eval, &play_training_game(eval, seed, g, lambda, s)),
        )
        .collect()
}

/// A batch of a pipelined run played but not trained yet: games
/// `first..first + count` and the weights that played them.
struct PlayedBatch {
    first: u64,
    count: u64,
    games: Vec<PreparedGame>,
    player: Evaluator,
}

impl PlayedBatch {
    /// Games `first..first + count` played by `player` ([`play_batch`]).
    fn play(player: Evaluator, seed: u64, lambda: f32, first: u64, count: u64) -> PlayedBatch {
        PlayedBatch {
            games: play_batch(&player, seed, lambda, first, count),
            first,
            count,
            player,
        }
    }
}

/// The step's settings that every net shares: α0 and its annealing, the
/// arithmetic and the vector code.
#[derive(Clone, Copy)]
struct StepRule {
    alpha: f32,
    anneal: f32,
    arith: nets::Arithmetic,
    simd: nets::Simd,
}

/// One trained net with its counter of steps and its step buffers.
struct NetLearner<'a> {
    kind: NetKind,
    net: &'a mut nets::Net,
    trained: &'a mut u64,
    scratch: &'a mut TrainScratch,
}

impl<'a> NetLearner<'a> {
    fn new(
        kind: NetKind,
        net: &'a mut nets::Net,
        trained: &'a mut u64,
        scratch: &'a mut TrainScratch,
    ) -> NetLearner<'a> {
        NetLearner {
            kind,
            net,
            trained,
            scratch,
        }
    }

    /// Steps the net on its positions of `game`, in order, each with the
    /// rate annealed by the steps before it (its blocked copy left stale).
    fn learn(&mut self, game: &PreparedGame, rule: StepRule) {
        for (k, step) in game.steps.iter().enumerate() {
            if step.kind != self.kind {
                continue;
            }
            let at = k * game.stride;
            let inputs = &game.inputs[at..at + self.kind.inputs()];
            let rate = annealed_alpha(rule.alpha, rule.anneal, *self.trained);
            train_net_deferred(
                self.net,
                inputs,
                &step.target,
                rate,
                rule.arith,
                rule.simd,
                self.scratch,
            );
            *self.trained += 1;
        }
    }
}

/// The dice tag of training games.
const TRAIN_TAG: u32 = 0x7D;
/// The dice seed of learning-curve matches (the same dice at every point,
/// so the points differ by the net, not by luck).
fn curve_seed(seed: u64) -> u64 {
    seed ^ 0xC0FF_EE00_0000_0000
}

/// One move of a training game: the roll, the best 0-ply move and the
/// value of the position it leads to. `None` once the position on roll is
/// not evaluated by a net (a bearoff database position or the end).
fn td_step(
    eval: &Evaluator,
    board: &Board,
    roll: (u8, u8),
    s: &mut Scratch,
) -> Option<(Sample, Board)> {
    let class = eval.classify(board);
    if !class.uses_net() {
        return None;
    }
    let (next, value) = match eval.choose_move_evaluated(board, roll.0, roll.1, false, s) {
        Some((after, value)) => (after.swapped(), value),
        None => (board.swapped(), eval.evaluate(&board.swapped(), s)),
    };
    let target = invert(&value.outputs);
    Some((
        Sample {
            board: *board,
            class,
            target,
        },
        next,
    ))
}

/// Plays game `index` against fixed weights and returns its samples, with
/// λ-return targets if `lambda > 0`.
fn play_training_game(
    eval: &Evaluator,
    seed: u64,
    index: u64,
    lambda: f32,
    s: &mut Scratch,
) -> Vec<Sample> {
    let mut dice = game_dice(seed, TRAIN_TAG, index);
    let mut board = Board::starting();
    let mut roll = dice.opening_roll();
    let mut samples = Vec::with_capacity(64);
    while let Some((sample, next)) = td_step(eval, &board, roll, s) {
        samples.push(sample);
        board = next;
        roll = dice.roll();
    }
    lambda_returns(&mut samples, lambda);
    samples
}

/// Replaces one-step targets by λ-returns, from the end of the game back:
/// `G_t = (1 − λ)·T_t + λ·invert(G_{t+1})`, the last sample keeping its
/// target (each sample's successor is the next sample, seen from the other
/// side). This is the offline form of TD(λ) with eligibility traces.
fn lambda_returns(samples: &mut [Sample], lambda: f32) {
    if lambda == 0.0 {
        return;
    }
    for t in (0..samples.len().saturating_sub(1)).rev() {
        let later = invert(&samples[t + 1].target);
        let own = samples[t].target;
        samples[t].target = std::array::from_fn(|k| (1.0 - lambda) * own[k] + lambda * later[k]);
    }
}

/// Hooks a run calls between steps (the command line saves files and shows
/// progress here; tests may stop a run).
pub trait TdHooks {
    /// True when the run should save a checkpoint and stop.
    fn stop_requested(&self) -> bool;
    /// Called after every step with the progress and the contact net's α.
    fn progress(&mut self, progress: &TdProgress, alpha: f32);
    /// A new learning-curve point (all points so far are in `progress`).
    fn curve_point(&mut self, trainer: &TdTrainer) -> std::io::Result<()>;
    /// Time to save a checkpoint of `trainer`.
    fn checkpoint(&mut self, trainer: &TdTrainer) -> std::io::Result<()>;
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum TdEnd {
    /// All games trained.
    Finished,
    /// Stopped on request after a checkpoint.
    Stopped,
}

/// A TD run: the evaluator being trained, the settings and the progress.
pub struct TdTrainer {
    eval: Evaluator,
    settings: TdSettings,
    progress: TdProgress,
    scratch: Scratch,
    /// One per trained net (contact, race, crashed).
    train: [TrainScratch; 3],
    last_point: Option<(u64, std::time::Instant)>,
    /// Pipelined runs: the next batch, already played.
    played: Option<PlayedBatch>,
    /// Pipelined runs resumed from a checkpoint: the weights that play the
    /// next batch (until it is played).
    resume_player: Option<Nets>,
}

impl TdTrainer {
    /// A run starting at `progress` (default for a fresh run).
    pub fn new(eval: Evaluator, settings: TdSettings, progress: TdProgress) -> TdTrainer {
        let scratch = eval.scratch();
        TdTrainer {
            eval,
            settings,
            progress,
            scratch,
            train: Default::default(),
            last_point: None,
            played: None,
            resume_player: None,
        }
    }

    /// A pipelined run resumed with `player`, the weights that play its
    /// next batch (from [`Self::player_nets`] when it was saved).
    pub fn with_player(mut self, player: Nets) -> TdTrainer {
        self.resume_player = Some(player);
        self
    }

    /// The weights that play (or played) the next batch of a pipelined
    /// run, when they are not the current ones; a checkpoint keeps them.
    pub fn player_nets(&self) -> Option<&Nets> {
        match &self.played {
            Some(b) => Some(b.player.nets()),
            None => self.resume_player.as_ref(),
        }
    }

    /// The evaluator with the current weights.
    pub fn evaluator(&self) -> &Evaluator {
        &self.eval
    }

    /// What has been done.
    pub fn progress(&self) -> &TdProgress {
        &self.progress
    }

    /// The settings.
    pub fn settings(&self) -> &TdSettings {
        &self.settings
    }

    /// The contact net's current learning rate.
    pub fn alpha(&self) -> f32 {
        let s = &self.settings;
        annealed_alpha(s.alpha, s.anneal, self.progress.trained[0])
    }

    /// Trains one sample with its net's annealed rate.
    fn train_sample(&mut self, sample: &Sample) {
        let Some(c) = class_counter(sample.class) else {
            return;
        };
        let s = &self.settings;
        let alpha = annealed_alpha(s.alpha, s.anneal, self.progress.trained[c]);
        let trained = self.eval.train(
            &sample.board,
            sample.class,
            &sample.target,
            alpha,
            &mut self.scratch,
            &mut self.train[c],
        );
        if trained.is_some() {
            self.progress.trained[c] += 1;
        }
    }

    /// gnubg's sequential algorithm for one game: every position is trained
    /// as soon as its move is played, so later moves see the new weights
    /// (with λ > 0 the game's targets are trained at its end).
    fn train_sequential_game(&mut self, index: u64) {
        let lambda = self.settings.lambda;
        if lambda > 0.0 {
            let samples = play_training_game(
                &self.eval,
                self.settings.seed,
                index,
                lambda,
                &mut self.scratch,
            );
            for s in &samples {
                self.train_sample(s);
            }
            return;
        }
        let mut dice: Dice = game_dice(self.settings.seed, TRAIN_TAG, index);
        let mut board = Board::starting();
        let mut roll = dice.opening_roll();
        while let Some((sample, next)) = td_step(&self.eval, &board, roll, &mut self.scratch) {
            self.train_sample(&sample);
            board = next;
            roll = dice.roll();
        }
    }

    /// Games `first..first + count` played in parallel against the current
    /// weights, then trained in game order. On more than one thread the
    /// training overlaps the playing: a copy of the weights plays, and
    /// whichever thread finds the next game in order finished (and no other
    /// thread training) trains it, else plays the next unplayed game. Each
    /// net takes the same steps in the same order as [`Self::learn`] after
    /// the whole batch, so the weights are the same bits on any number of
    /// threads; only the idle time at the end of a batch goes.
    fn train_batch(&mut self, first: u64, count: u64) {
        let (seed, lambda) = (self.settings.seed, self.settings.lambda);
        let threads = rayon::current_num_threads();
        if threads == 1 || count == 1 {
            let games = play_batch(&self.eval, seed, lambda, first, count);
            self.learn(&games);
            return;
        }
        let player = self.eval.clone();
        let rule = self.step_rule();
        let n = usize::try_from(count).expect("a batch fits in memory");
        let slots: Vec<OnceLock<PreparedGame>> = (0..n).map(|_| OnceLock::new()).collect();
        let next_to_play = AtomicUsize::new(0);
        // The learners and the next game in order to train.
        let learner = Mutex::new((self.learners(), 0usize));
        let train_ready = |state: &mut ([NetLearner<'_>; 3], usize)| {
            let (learners, next) = state;
            while let Some(game) = slots.get(*next).and_then(OnceLock::get) {
                for l in learners.iter_mut() {
                    l.learn(game, rule);
                }
                *next += 1;
            }
        };
        let lock = || learner.lock().unwrap_or_else(PoisonError::into_inner);
        rayon::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|_| {
                    let mut s = player.scratch();
                    loop {
                        if let Ok(mut state) = learner.try_lock() {
                            train_ready(&mut state);
                        }
                        let k = next_to_play.fetch_add(1, Ordering::Relaxed);
                        if k >= n {
                            // Every game is claimed: train what is finished. A
                            // game still being played is trained by its player
                            // here, after it finishes.
                            train_ready(&mut lock());
                            return;
                        }
                        let samples =
                            play_training_game(&player, seed, first + k as u64, lambda, &mut s);
                        let game = PreparedGame::new(&player, &samples);
                        assert!(slots[k].set(game).is_ok(), "game {k} is played once");
                    }
                });
            }
        });
        let (mut learners, trained) = learner.into_inner().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(trained, n, "every game of the batch is trained");
        for l in &mut learners {
            l.net.refresh_blocked();
        }
    }

    /// How each step's rate and arithmetic are chosen.
    fn step_rule(&self) -> StepRule {
        StepRule {
            alpha: self.settings.alpha,
            anneal: self.settings.anneal,
            arith: self.eval.arithmetic(),
            simd: self.eval.simd(),
        }
    }

    /// The contact, race and crashed nets with their counters and buffers.
    fn learners(&mut self) -> [NetLearner<'_>; 3] {
        let [contact, race, crashed, ..] = self.eval.nets_mut().each_mut();
        let [n0, n1, n2] = &mut self.progress.trained;
        let [s0, s1, s2] = &mut self.train;
        [
            NetLearner::new(NetKind::Contact, contact, n0, s0),
            NetLearner::new(NetKind::Race, race, n1, s1),
            NetLearner::new(NetKind::Crashed, crashed, n2, s2),
        ]
    }

    /// The pipelined form of [`Self::train_batch`]: the batch at `first`
    /// was played (or is now played) against the weights from before the
    /// previous batch was trained, and while it trains, the next batch of
    /// the run's `total` games is played against the weights from before
    /// this training. Each batch's games depend only on the weights that
    /// played them, so the result does not depend on the threads.
    fn train_batch_pipelined(&mut self, first: u64, count: u64, total: u64) {
        let (seed, lambda) = (self.settings.seed, self.settings.lambda);
        let played = match self.played.take() {
            Some(b) if (b.first, b.count) == (first, count) => b,
            other => {
                let player = match other {
                    // Played with other bounds (the run's total changed on
                    // resuming): the same weights play the new bounds.
                    Some(b) => b.player,
                    None => {
                        let mut player = self.eval.clone();
                        if let Some(nets) = self.resume_player.take() {
                            *player.nets_mut() = nets;
                        }
                        player
                    }
                };
                PlayedBatch::play(player, seed, lambda, first, count)
            }
        };
        let next_first = first + count;
        let next = (next_first < total).then(|| {
            let count = self.settings.step().min(total - next_first);
            (next_first, count, self.eval.clone())
        });
        let (_, next) = rayon::join(
            || self.learn(&played.games),
            || {
                next.map(|(first, count, player)| {
                    PlayedBatch::play(player, seed, lambda, first, count)
                })
            },
        );
        self.played = next;
    }

    /// Trains prepared games in game order. The contact, race and crashed
    /// nets learn side by side: each net takes its own positions in game
    /// order with its own annealed rate, exactly the steps of
    /// [`Self::train_sample`] on each sample in turn (a step changes only
    /// its own net). Each net's blocked copy of its weights, which only
    /// the games use, is brought up to date once at the end.
    fn learn(&mut self, games: &[PreparedGame]) {
        let rule = self.step_rule();
        self.learners().into_par_iter().for_each(|mut l| {
            for game in games {
                l.learn(game, rule);
            }
            l.net.refresh_blocked();
        });
    }

    /// Plays the learning-curve match and records the point.
    pub fn curve_point(&mut self) -> Result<&CurveRow, TdError> {
        let s = &self.settings;
        let r = play_match(
            Player::Net(&self.eval),
            Player::Pubeval,
            s.eval_games,
            curve_seed(s.seed),
            DiceMode::Duplicate,
            &mut |_| {},
        )?;
        let now = std::time::Instant::now();
        let games = self.progress.games;
        let games_per_second = match self.last_point {
            Some((g, t)) if games > g => (games - g) as f64 / now.duration_since(t).as_secs_f64(),
            _ => 0.0,
        };
        self.progress.curve.push(CurveRow {
            games,
            alpha: f64::from(self.alpha()),
            win_rate: r.win_rate,
            ppg: r.ppg,
            ppg_ci95: r.ppg_ci95,
            games_per_second,
        });
        self.last_point = Some((games, std::time::Instant::now()));
        Ok(self.progress.curve.last().expect("just pushed"))
    }

    /// Trains until `games` games are done, checkpointing every
    /// `checkpoint_every` games (rounded to the step) and when stopped.
    pub fn run(
        &mut self,
        games: u64,
        checkpoint_every: u64,
        hooks: &mut dyn TdHooks,
    ) -> Result<TdEnd, TdRunError> {
        self.settings.validate(games).map_err(TdRunError::Td)?;
        let step = self.settings.step();
        let every = self.settings.eval_every;
        let wants_point = |g: u64, curve: &[CurveRow]| {
            every > 0 && g.is_multiple_of(every) && curve.last().is_none_or(|r| r.games < g)
        };
        if wants_point(self.progress.games, &self.progress.curve) {
            self.curve_point().map_err(TdRunError::Td)?;
            hooks.curve_point(self).map_err(TdRunError::Io)?;
        }
        self.last_point = Some((self.progress.games, std::time::Instant::now()));
        let mut since_checkpoint = 0;
        while self.progress.games < games {
            if hooks.stop_requested() {
                hooks.checkpoint(self).map_err(TdRunError::Io)?;
                return Ok(TdEnd::Stopped);
            }
            let first = self.progress.games;
            let count = step.min(games - first);
            match self.settings.batch_games {
                None => self.train_sequential_game(first),
                Some(_) if self.settings.pipeline => {
                    self.train_batch_pipelined(first, count, games)
                }
                Some(_) => self.train_batch(first, count),
            }
            self.progress.games += count;
            since_checkpoint += count;
            hooks.progress(&self.progress, self.alpha());
            let done = self.progress.games == games;
            if wants_point(self.progress.games, &self.progress.curve)
                || (done && every > 0 && self.progress.curve.last().is_none_or(|r| r.games < games))
            {
                self.curve_point().map_err(TdRunError::Td)?;
                hooks.curve_point(self).map_err(TdRunError::Io)?;
            }
            if checkpoint_every > 0 && since_checkpoint >= checkpoint_every && !done {
                hooks.checkpoint(self).map_err(TdRunError::Io)?;
                since_checkpoint = 0;
            }
        }
        Ok(TdEnd::Finished)
    }
}

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TdRunError {
    /// Training failed.
    #[error(transparent)]
    Td(TdError),
    /// A file could not be written.
    #[error(transparent)]
    Io(std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annealing_follows_gnubg() {
        assert_eq!(annealed_alpha(0.1, 0.3, 0), 0.1);
        let a = annealed_alpha(0.1, 0.3, 9000);
        assert!((f64::from(a) - 0.1 / 10f64.powf(0.3)).abs() < 1e-8);
        assert_eq!(annealed_alpha(0.5, 0.0, 123_456), 0.5);
    }

    #[test]
    fn lambda_returns_mix_later_targets() {
        let s = |w: f32| Sample {
            board: Board::starting(),
            class: Class::Contact,
            target: [w, 0.0, 0.0, 0.0, 0.0],
        };
        let mut v = vec![s(0.5), s(0.4), s(1.0)];
        lambda_returns(&mut v, 0.5);
        // G2 = 1; G1 = 0.5·0.4 + 0.5·(1 − 1) = 0.2; G0 = 0.5·0.5 + 0.5·(1 − 0.2) = 0.65.
        let w: Vec<f32> = v.iter().map(|s| s.target[0]).collect();
        for (got, want) in w.iter().zip([0.65, 0.2, 1.0]) {
            assert!((got - want).abs() < 1e-6, "{w:?}");
        }
        let mut u = vec![s(0.5), s(0.4)];
        lambda_returns(&mut u, 0.0);
        assert_eq!(u[0].target[0], 0.5);
    }

    #[test]
    fn settings_are_checked() {
        let ok = TdSettings {
            alpha: 0.1,
            anneal: 0.3,
            lambda: 0.0,
            seed: 1,
            batch_games: Some(4),
            pipeline: true,
            eval_every: 8,
            eval_games: 100,
        };
        assert!(ok.validate(10).is_ok());
        let bad = [
            TdSettings {
                alpha: 0.0,
                ..ok.clone()
            },
            TdSettings {
                alpha: 1.5,
                ..ok.clone()
            },
            TdSettings {
                lambda: -0.1,
                ..ok.clone()
            },
            TdSettings {
                lambda: 1.1,
                ..ok.clone()
            },
            TdSettings {
                batch_games: Some(0),
                ..ok.clone()
            },
            TdSettings {
                batch_games: Some(u64::MAX),
                eval_every: 0,
                ..ok.clone()
            },
            TdSettings {
                eval_every: 6,
                ..ok.clone()
            },
            TdSettings {
                eval_games: 3,
                ..ok.clone()
            },
            TdSettings {
                batch_games: None,
                eval_every: 0,
                ..ok.clone()
            },
        ];
        for b in bad {
            assert!(b.validate(10).is_err(), "{b:?}");
        }
        assert!(ok.validate(0).is_err());
    }
}
