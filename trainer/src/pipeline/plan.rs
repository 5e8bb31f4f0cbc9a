//! A round's plan file: its schema, its defaults and how it is read.

use super::PipelineError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A round's inputs and settings. Relative paths are relative to the
/// round's directory (the plan file's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Weights that play the self-play games.
    pub player: PathBuf,
    /// Weights whose n-ply evaluation labels the positions.
    pub teacher: PathBuf,
    /// Games of self-play (positions of every class kept).
    pub games: u64,
    /// More games of which only the crashed positions are kept (they are
    /// rare in play).
    #[serde(default)]
    pub crashed_games: u64,
    /// More games of which only the race positions (outside the bearoff
    /// databases) are kept, with seed + 3.
    #[serde(default)]
    pub race_games: u64,
    /// More games of which only the positions whose 0-ply and 1-ply
    /// equities differ by at least `disagreement_threshold` are kept (the
    /// player's mistakes), with seed + 4.
    #[serde(default)]
    pub disagreement_games: u64,
    /// The least |0-ply − 1-ply| equity difference of a disagreement.
    #[serde(default = "default_disagreement")]
    pub disagreement_threshold: f64,
    /// The share of moves played at random in the self-play games.
    #[serde(default)]
    pub explore: f64,
    /// Seed of the games (the crashed-only games use seed + 1, the pruning
    /// nets' games seed + 2, the race-only games seed + 3, the disagreement
    /// games seed + 4, the held-out games seed + 5).
    pub seed: u64,
    /// The held-out set: with `holdout` above 0 this round splits it off
    /// its own positions (and labels it); otherwise an existing labelled
    /// database, kept out of training.
    pub held: PathBuf,
    /// The share of this round's positions held out (0: use `held` as it is).
    /// They come from the same games as the training positions, whose
    /// neighbours they resemble, so they flatter the round's nets:
    /// `held_games` gives a fairer set.
    #[serde(default)]
    pub holdout: f64,
    /// Games played for the held-out set alone (seed + 5, every class):
    /// their positions that this round does not train on become `held`
    /// and are labelled; a held-out set from games none of the training
    /// positions came from. 0: none (then `holdout` or an existing `held`).
    #[serde(default)]
    pub held_games: u64,
    /// Labelled databases of earlier rounds, trained on too.
    #[serde(default)]
    pub include: Vec<PathBuf>,
    /// Databases whose positions this round neither labels nor trains on
    /// (earlier rounds' held-out sets, so they stay held out).
    #[serde(default)]
    pub exclude: Vec<PathBuf>,
    /// Plies of the teacher's evaluation.
    #[serde(default = "default_plies")]
    pub plies: u32,
    /// The teacher chooses its moves with its pruning nets.
    #[serde(default = "yes")]
    pub prune: bool,
    /// The random weights the nets train from (`trainer new`), written
    /// with `start_seed` when missing.
    pub start: PathBuf,
    /// Seed of `start`'s random weights.
    #[serde(default = "one")]
    pub start_seed: u64,
    /// Hidden units of `start`'s contact, crashed and race nets.
    #[serde(default = "default_hidden")]
    pub hidden: usize,
    /// Supervised training of each class's net.
    pub train: TrainPlan,
    /// Settings of one class's net that replace `train` for it.
    #[serde(default)]
    pub train_by_class: BTreeMap<NetClass, TrainPlan>,
    /// The crashed net starts from the round's trained contact net instead
    /// of `start`'s random crashed net (`weights splice --as crashed`).
    #[serde(default)]
    pub crashed_from_contact: bool,
    /// Weights whose crashed net the round's crashed net starts from,
    /// fine-tuned on the round's crashed positions (e.g. the previous
    /// round's or the shipped weights); not with `crashed_from_contact`.
    #[serde(default)]
    pub crashed_from: Option<PathBuf>,
    /// Games whose positions' candidate moves, labelled by the round's
    /// nets at 0 ply, train the pruning nets (0: the pruning nets stay
    /// those of `start`).
    #[serde(default)]
    pub prune_games: u64,
    /// Supervised training of each class's pruning net.
    #[serde(default = "default_prune_train")]
    pub prune_train: TrainPlan,
    /// The opponent of the closing match (0-ply, duplicate dice).
    pub opponent: PathBuf,
    /// Games of the closing match.
    pub match_games: u64,
    /// Seed of the closing match's dice.
    #[serde(default = "one")]
    pub match_seed: u64,
    /// Worker threads of every stage (default: all cores); results never
    /// depend on it.
    #[serde(default)]
    pub threads: Option<usize>,
}

/// A class of positions with a net of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetClass {
    /// Contact positions.
    Contact,
    /// Crashed positions.
    Crashed,
    /// Races.
    Race,
}

impl NetClass {
    /// The three classes in training order.
    pub const ALL: [NetClass; 3] = [NetClass::Contact, NetClass::Crashed, NetClass::Race];

    /// The name `trainer train --class` takes.
    pub fn name(self) -> &'static str {
        match self {
            NetClass::Contact => "contact",
            NetClass::Crashed => "crashed",
            NetClass::Race => "race",
        }
    }
}

/// How α falls over the epochs (`trainer train --schedule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// gnubg-nn's schedule.
    Gnubg,
    /// Half a cosine from `alpha_start` to `alpha_low`.
    Cosine,
}

/// The update rule (`trainer train --optimizer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// gnubg-nn's per-position update.
    Sgd,
    /// Minibatch Adam.
    Adam,
}

impl Schedule {
    /// The value of `--schedule`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Gnubg => "gnubg",
            Schedule::Cosine => "cosine",
        }
    }
}

impl Optimizer {
    /// The value of `--optimizer`.
    pub fn name(self) -> &'static str {
        match self {
            Optimizer::Sgd => "sgd",
            Optimizer::Adam => "adam",
        }
    }
}

/// `trainer train`'s settings for each class's net.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainPlan {
    /// Epochs per net.
    pub epochs: u64,
    /// How α falls.
    #[serde(default = "cosine")]
    pub schedule: Schedule,
    /// α at the start.
    pub alpha_start: f32,
    /// The lowest α.
    pub alpha_low: f32,
    /// Seed of the permutations.
    #[serde(default = "one")]
    pub seed: u64,
    /// The update rule.
    #[serde(default = "sgd")]
    pub optimizer: Optimizer,
    /// Positions per Adam step (`trainer train --batch`).
    #[serde(default = "default_batch")]
    pub batch: u32,
    /// Adam's decoupled weight decay (`trainer train --weight-decay`).
    #[serde(default)]
    pub weight_decay: f32,
    /// Weight of the equity term of the loss (`trainer train --equity-weight`).
    #[serde(default)]
    pub equity_weight: f32,
    /// The outputs' loss (`trainer train --loss`): `"squared-error"` (the
    /// default) or `"cross-entropy"`.
    #[serde(default)]
    pub loss: Loss,
}

/// A net's loss on its outputs (`trainer train --loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Loss {
    /// gnubg-nn's squared error.
    #[default]
    SquaredError,
    /// The cross-entropy of the probability targets.
    CrossEntropy,
}

fn sgd() -> Optimizer {
    Optimizer::Sgd
}
fn cosine() -> Schedule {
    Schedule::Cosine
}
fn default_batch() -> u32 {
    256
}
fn default_disagreement() -> f64 {
    0.1
}
fn default_plies() -> u32 {
    2
}
fn default_prune_train() -> TrainPlan {
    TrainPlan {
        epochs: 50,
        schedule: Schedule::Gnubg,
        alpha_start: 5.0,
        alpha_low: 0.001,
        seed: 1,
        optimizer: Optimizer::Sgd,
        batch: default_batch(),
        weight_decay: 0.0,
        equity_weight: 0.0,
        loss: Loss::SquaredError,
    }
}
fn default_hidden() -> usize {
    128
}
fn yes() -> bool {
    true
}
fn one() -> u64 {
    1
}

/// The largest plan file read (a plan is a few hundred bytes).
const MAX_PLAN_LEN: u64 = 1 << 20;

impl Plan {
    /// Reads a plan file as every input is read (a regular file of at most
    /// 1 MiB) and checks its settings.
    pub fn open(path: &Path) -> Result<Plan, PipelineError> {
        let bad = |why: String| PipelineError::Plan {
            path: path.to_owned(),
            why,
        };
        let limit = support::input::Limit {
            bytes: MAX_PLAN_LEN,
            what: "round plan",
        };
        let text = support::input::read_text(path, limit).map_err(|e| bad(e.to_string()))?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        plan.check().map_err(bad)?;
        Ok(plan)
    }

    /// The training settings of `class`'s net.
    pub fn train_of(&self, class: NetClass) -> &TrainPlan {
        self.train_by_class.get(&class).unwrap_or(&self.train)
    }
}
