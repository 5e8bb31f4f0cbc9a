//! A training round as resumable stages (docs/training.md#the-round-pipeline):
//! self-play positions with exploration, a held-out split, labels from a
//! teacher's n-ply evaluation, the contact, crashed and race nets trained
//! from random weights, then the held-out errors and a match.
//!
//! A [`Plan`] (a JSON file) names the round's inputs and settings;
//! [`Plan::stages`] turns it into the `trainer` command lines of its
//! stages, each with the file that shows it done, and [`run`] runs the
//! stages not yet done. Every stage writes its outputs atomically or is
//! journaled (labels) or checkpointed (training), so a round killed at any
//! moment and run again ends with the same files as one never interrupted.
//! The command lines can as well be run by hand or spread over machines
//! (`trainer round PLAN --print`): a label stage takes `--shard K/N` on
//! copies that `db merge` joins.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    /// games seed + 4).
    pub seed: u64,
    /// The held-out set: with `holdout` above 0 this round splits it off
    /// its own positions (and labels it); otherwise an existing labelled
    /// database, kept out of training.
    pub held: PathBuf,
    /// The share of this round's positions held out (0: use `held` as it is).
    #[serde(default)]
    pub holdout: f64,
    /// Labelled databases of earlier rounds, trained on too.
    #[serde(default)]
    pub include: Vec<PathBuf>,
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
    /// Settings of one class's net (`contact`, `crashed` or `race`) that
    /// replace `train` for it.
    #[serde(default)]
    pub train_by_class: std::collections::BTreeMap<String, TrainPlan>,
    /// The crashed net starts from the round's trained contact net instead
    /// of `start`'s random crashed net (`weights splice --as crashed`).
    #[serde(default)]
    pub crashed_from_contact: bool,
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

/// `trainer train`'s settings for each class's net.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainPlan {
    /// Epochs per net.
    pub epochs: u64,
    /// `gnubg` or `cosine` (`trainer train --schedule`).
    #[serde(default = "cosine")]
    pub schedule: String,
    /// α at the start.
    pub alpha_start: f32,
    /// The lowest α.
    pub alpha_low: f32,
    /// Seed of the permutations.
    #[serde(default = "one")]
    pub seed: u64,
    /// `sgd` or `adam` (`trainer train --optimizer`).
    #[serde(default = "sgd")]
    pub optimizer: String,
    /// Positions per Adam step (`trainer train --batch`).
    #[serde(default = "default_batch")]
    pub batch: u32,
}

fn sgd() -> String {
    "sgd".into()
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
        schedule: "gnubg".into(),
        alpha_start: 5.0,
        alpha_low: 0.001,
        seed: 1,
        optimizer: sgd(),
        batch: default_batch(),
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
fn cosine() -> String {
    "cosine".into()
}

/// What can stop a round.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The plan cannot be read or is not valid.
    #[error("{path}: {why}")]
    Plan {
        /// The plan file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A stage's command failed.
    #[error("stage {stage} failed ({status}); run `{command}` to see why")]
    Stage {
        /// The stage's name.
        stage: String,
        /// How the command ended.
        status: String,
        /// Its command line.
        command: String,
    },
    /// A file of the round cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// One stage: a `trainer` command line and the file whose existence shows
/// it done.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// Short name (`generate`, `label new`, `train contact`, …).
    pub name: String,
    /// `trainer`'s arguments.
    pub args: Vec<OsString>,
    /// Written last: the stage is done when this exists.
    pub done: PathBuf,
    /// How `done` comes to be.
    pub kind: StageKind,
    /// Files a half-finished run of the stage may have left, removed
    /// before it runs again (outputs other than `done`).
    pub partial: Vec<PathBuf>,
}

impl Stage {
    /// A stage that leaves no partial outputs behind.
    fn new(name: impl Into<String>, args: Vec<OsString>, done: &Path, kind: StageKind) -> Stage {
        Stage {
            name: name.into(),
            args,
            done: done.to_owned(),
            kind,
            partial: vec![],
        }
    }
}

/// How a stage's `done` file comes to be.
#[derive(Clone, Debug, PartialEq)]
pub enum StageKind {
    /// The command writes it (atomically).
    Writes,
    /// The command's standard output, saved atomically.
    Stdout,
    /// A marker written after the command, which works in place; the
    /// command resumes with `--resume` when `journal` exists.
    InPlace {
        /// The command's journal or checkpoint.
        journal: PathBuf,
    },
    /// The command writes it and resumes with `--resume` when its
    /// checkpoint exists.
    Resumable {
        /// The command's checkpoint.
        checkpoint: PathBuf,
    },
}

/// The files of a round, in its directory.
pub mod files {
    /// Self-play positions of every class.
    pub const POSITIONS: &str = "positions.db";
    /// Crashed positions of the crashed-only games.
    pub const CRASHED: &str = "crashed.db";
    /// Race positions of the race-only games.
    pub const RACE: &str = "race.db";
    /// Positions where the player's 0-ply and 1-ply disagree.
    pub const DISAGREEMENTS: &str = "disagreements.db";
    /// This round's positions before the held-out split.
    pub const POOLED: &str = "pooled.db";
    /// This round's new positions (labelled in place).
    pub const NEW: &str = "new.db";
    /// The training set: earlier rounds' and this round's labels.
    pub const TRAIN: &str = "train.db";
    /// The round's net (all six nets; the race net trained last).
    pub const NET: &str = "round.wd";
    /// Self-play positions whose candidates train the pruning nets.
    pub const PRUNE_POSITIONS: &str = "prune-positions.db";
    /// Their candidate moves, labelled by the round's nets.
    pub const CANDIDATES: &str = "candidates.db";
    /// `trainer bench --prune-check` of the round's net on the held-out set.
    pub const PRUNE_CHECK: &str = "prune-check.txt";
    /// `trainer bench` of the round's net on the held-out set.
    pub const BENCH: &str = "bench.txt";
    /// `trainer bench` of the opponent on the held-out set.
    pub const BENCH_OPPONENT: &str = "bench-opponent.txt";
    /// The closing match (`trainer play --json`).
    pub const MATCH: &str = "match.json";
}

impl Plan {
    /// Reads and checks a plan file.
    pub fn open(path: &Path) -> Result<Plan, PipelineError> {
        let bad = |why: String| PipelineError::Plan {
            path: path.to_owned(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        plan.check().map_err(bad)?;
        Ok(plan)
    }

    /// The settings' own consistency (the commands check the rest).
    pub fn check(&self) -> Result<(), String> {
        if self.games == 0 {
            return Err("games must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.explore) {
            return Err(format!("explore {}: must be between 0 and 1", self.explore));
        }
        if self.disagreement_threshold.is_nan() || self.disagreement_threshold <= 0.0 {
            return Err(format!(
                "disagreement_threshold {}: must be above 0",
                self.disagreement_threshold
            ));
        }
        if !(0.0..1.0).contains(&self.holdout) {
            return Err(format!(
                "holdout {}: must be at least 0 and below 1",
                self.holdout
            ));
        }
        if !(1..=nets::MAX_PLIES).contains(&self.plies) {
            return Err(format!(
                "plies {}: must be 1 to {}",
                self.plies,
                nets::MAX_PLIES
            ));
        }
        for class in self.train_by_class.keys() {
            if !["contact", "crashed", "race"].contains(&class.as_str()) {
                return Err(format!(
                    "train_by_class.{class}: the classes are contact, crashed and race"
                ));
            }
        }
        let by_class = self
            .train_by_class
            .iter()
            .map(|(class, t)| (format!("train_by_class.{class}"), t));
        let all = [
            ("train".to_string(), &self.train),
            ("prune_train".to_string(), &self.prune_train),
        ];
        for (name, t) in all.into_iter().chain(by_class) {
            if !["sgd", "adam"].contains(&t.optimizer.as_str()) {
                return Err(format!(
                    "{name}.optimizer {:?}: must be \"sgd\" or \"adam\"",
                    t.optimizer
                ));
            }
            if t.batch == 0 {
                return Err(format!("{name}.batch must be at least 1"));
            }
            if !["gnubg", "cosine"].contains(&t.schedule.as_str()) {
                return Err(format!(
                    "{name}.schedule {:?}: must be \"gnubg\" or \"cosine\"",
                    t.schedule
                ));
            }
            if t.epochs == 0 {
                return Err(format!("{name}.epochs must be at least 1"));
            }
        }
        if self.match_games == 0 {
            return Err("match_games must be at least 1".into());
        }
        Ok(())
    }

    /// The plan with its paths taken relative to `dir`.
    fn resolved(&self, dir: &Path) -> Plan {
        let mut p = self.clone();
        for path in [
            &mut p.player,
            &mut p.teacher,
            &mut p.held,
            &mut p.start,
            &mut p.opponent,
        ]
        .into_iter()
        .chain(p.include.iter_mut())
        {
            *path = dir.join(&*path);
        }
        p
    }

    /// The round's stages in order, for the round directory `dir`.
    pub fn stages(&self, dir: &Path) -> Vec<Stage> {
        self.resolved(dir).stages_resolved(dir)
    }

    fn stages_resolved(&self, dir: &Path) -> Vec<Stage> {
        let file = |name: &str| dir.join(name);
        let mut common: Vec<OsString> = vec!["-q".into()];
        if let Some(n) = self.threads {
            common.extend(["--threads".into(), n.to_string().into()]);
        }
        let held = self.held.clone();
        let mut stages = Vec::new();
        // The round's self-play sets: file, games, seed, classes kept, and
        // the 0-ply vs 1-ply disagreement a position needs to be kept.
        let sets = [
            (
                files::POSITIONS,
                self.games,
                self.seed,
                "contact,crashed,race",
                0.0,
            ),
            (
                files::CRASHED,
                self.crashed_games,
                self.seed + 1,
                "crashed",
                0.0,
            ),
            (files::RACE, self.race_games, self.seed + 3, "race", 0.0),
            (
                files::DISAGREEMENTS,
                self.disagreement_games,
                self.seed + 4,
                "contact,crashed,race",
                self.disagreement_threshold,
            ),
        ];
        let mut generated = Vec::new();
        for (name, games, seed, classes, threshold) in sets {
            if games > 0 {
                generated.push(file(name));
                stages.push(self.generate(&file(name), games, seed, classes, threshold, &common));
            }
        }
        let new = file(files::NEW);
        let mut exclude: Vec<PathBuf> = self.include.clone();
        if self.holdout > 0.0 {
            // Split the union of this round's positions.
            let pooled = file(files::POOLED);
            stages.push(merge_stage("pool", &generated, &exclude, &pooled));
            let mut split = args(["db", "split"]);
            split.push(pooled.into());
            split.extend(args([
                "--holdout",
                &self.holdout.to_string(),
                "--seed",
                &self.seed.to_string(),
            ]));
            split.extend([
                "-o".into(),
                new.clone().into(),
                "-o".into(),
                held.clone().into(),
            ]);
            stages.push(Stage {
                partial: vec![new.clone()],
                ..Stage::new("split", split, &held, StageKind::Writes)
            });
            stages.push(self.label("label held", &held, &common));
        } else {
            exclude.push(held.clone());
            stages.push(merge_stage("new positions", &generated, &exclude, &new));
        }
        stages.push(self.label("label new", &new, &common));
        let mut sources: Vec<PathBuf> = self.include.clone();
        sources.push(new);
        let train = file(files::TRAIN);
        stages.push(merge_stage(
            "training set",
            &sources,
            std::slice::from_ref(&held),
            &train,
        ));
        let start = self.start.clone();
        let mut a = args(["new", "-o"]);
        a.push(start.clone().into());
        a.extend(args([
            "--hidden",
            &self.hidden.to_string(),
            "--beta-hidden",
            "1",
            "--seed",
            &self.start_seed.to_string(),
        ]));
        stages.push(Stage::new("start weights", a, &start, StageKind::Writes));
        let net = file(files::NET);
        let pruning = self.prune_games > 0;
        let mut from = start;
        for (class, out) in [
            ("contact", file("contact.wd")),
            ("crashed", file("crashed.wd")),
            (
                "race",
                if pruning {
                    file("race.wd")
                } else {
                    net.clone()
                },
            ),
        ] {
            if class == "crashed" && self.crashed_from_contact {
                // The crashed net starts from the trained contact net (the
                // same 250 inputs but two), not from random weights.
                let start = file("crashed-start.wd");
                let mut a = args(["weights", "splice", "--from"]);
                a.push(from.clone().into());
                a.extend(args(["--net", "contact", "--as", "crashed", "--into"]));
                a.push(from.clone().into());
                a.push("-o".into());
                a.push(start.clone().into());
                stages.push(Stage::new("crashed start", a, &start, StageKind::Writes));
                from = start;
            }
            let settings = self.train_by_class.get(class).unwrap_or(&self.train);
            stages.push(self.train_stage(class, &train, &from, &out, settings, false, &common));
            from = out;
        }
        if pruning {
            // The pruning nets learn to rank a roll's candidate moves as the
            // round's full nets do at 0 ply.
            let positions = file(files::PRUNE_POSITIONS);
            stages.push(self.generate(
                &positions,
                self.prune_games,
                self.seed + 2,
                "contact,crashed,race",
                0.0,
                &common,
            ));
            let candidates = file(files::CANDIDATES);
            let mut a = args(["db", "candidates"]);
            a.push(positions.into());
            a.extend(args(["--seed", &self.seed.to_string(), "-o"]));
            a.push(candidates.clone().into());
            stages.push(Stage::new("candidates", a, &candidates, StageKind::Writes));
            stages.push(label_stage(
                "label candidates",
                &candidates,
                &from,
                0,
                false,
                &common,
            ));
            for (class, out) in [
                ("contact", file("prune-contact.wd")),
                ("crashed", file("prune-crashed.wd")),
                ("race", net.clone()),
            ] {
                stages.push(self.train_stage(
                    class,
                    &candidates,
                    &from,
                    &out,
                    &self.prune_train,
                    true,
                    &common,
                ));
                from = out;
            }
            stages.push(bench_stage(
                "prune check",
                &["--prune-check"],
                &net,
                &held,
                &file(files::PRUNE_CHECK),
                &common,
            ));
        }
        stages.push(bench_stage(
            "bench",
            &[],
            &net,
            &held,
            &file(files::BENCH),
            &common,
        ));
        stages.push(bench_stage(
            "bench opponent",
            &[],
            &self.opponent,
            &held,
            &file(files::BENCH_OPPONENT),
            &common,
        ));
        let mut play = args(["play", "--weights"]);
        play.push(net.into());
        play.push("--vs".into());
        play.push(self.opponent.clone().into());
        play.extend(args([
            "--games",
            &self.match_games.to_string(),
            "--seed",
            &self.match_seed.to_string(),
            "--json",
        ]));
        play.extend(common.iter().cloned());
        stages.push(Stage::new(
            "match",
            play,
            &file(files::MATCH),
            StageKind::Stdout,
        ));
        stages
    }

    fn generate(
        &self,
        out: &Path,
        games: u64,
        seed: u64,
        classes: &str,
        threshold: f64,
        common: &[OsString],
    ) -> Stage {
        let mut a = args(["db", "generate", "--weights"]);
        a.push(self.player.clone().into());
        a.extend(args([
            "--games",
            &games.to_string(),
            "--threshold",
            &threshold.to_string(),
            "--explore",
            &self.explore.to_string(),
            "--classes",
            classes,
            "--seed",
            &seed.to_string(),
            "-o",
        ]));
        a.push(out.into());
        a.extend(common.iter().cloned());
        Stage::new(
            format!("generate {}", file_stem(out)),
            a,
            out,
            StageKind::Writes,
        )
    }

    fn label(&self, name: &str, db: &Path, common: &[OsString]) -> Stage {
        label_stage(name, db, &self.teacher, self.plies, self.prune, common)
    }

    #[allow(clippy::too_many_arguments)]
    fn train_stage(
        &self,
        class: &str,
        db: &Path,
        from: &Path,
        out: &Path,
        t: &TrainPlan,
        prune: bool,
        common: &[OsString],
    ) -> Stage {
        let mut a = args(["train", "--db"]);
        a.push(db.into());
        a.extend(args(["--class", class, "--weights"]));
        a.push(from.into());
        a.push("-o".into());
        a.push(out.into());
        a.extend(args([
            "--epochs",
            &t.epochs.to_string(),
            "--schedule",
            &t.schedule,
            "--alpha-start",
            &t.alpha_start.to_string(),
            "--alpha-low",
            &t.alpha_low.to_string(),
            "--seed",
            &t.seed.to_string(),
            "--optimizer",
            &t.optimizer,
            "--batch",
            &t.batch.to_string(),
        ]));
        if prune {
            a.push("--prune".into());
        }
        a.extend(common.iter().cloned());
        let what = if prune { " pruning net" } else { "" };
        let checkpoint = support::checkpoint::Checkpoint::path_for(out);
        Stage::new(
            format!("train {class}{what}"),
            a,
            out,
            StageKind::Resumable { checkpoint },
        )
    }
}

fn args<const N: usize>(a: [&str; N]) -> Vec<OsString> {
    a.iter().map(OsString::from).collect()
}

fn file_stem(p: &Path) -> String {
    p.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The marker that a database was labelled in place: `DB.labelled`.
pub fn marker(db: &Path) -> PathBuf {
    support::atomic::with_suffix(db, ".labelled")
}

/// `db label eval DB` with `weights` at `plies`, in place.
fn label_stage(
    name: &str,
    db: &Path,
    weights: &Path,
    plies: u32,
    prune: bool,
    common: &[OsString],
) -> Stage {
    let mut a = args(["db", "label", "eval"]);
    a.push(db.into());
    a.extend(args(["--plies", &plies.to_string()]));
    if prune {
        a.push("--prune".into());
    }
    a.push("--weights".into());
    a.push(weights.into());
    a.extend(common.iter().cloned());
    let journal = crate::rollouts::journal::journal_path(db);
    Stage::new(name, a, &marker(db), StageKind::InPlace { journal })
}

fn merge_stage(name: &str, sources: &[PathBuf], exclude: &[PathBuf], out: &Path) -> Stage {
    let mut a = args(["db", "merge"]);
    a.extend(sources.iter().map(|p| p.clone().into()));
    for e in exclude {
        a.push("--exclude".into());
        a.push(e.clone().into());
    }
    a.push("-o".into());
    a.push(out.into());
    Stage::new(name, a, out, StageKind::Writes)
}

/// `trainer bench` (with `flags`) of `weights` on `db`, its report saved as
/// `out`.
fn bench_stage(
    name: &str,
    flags: &[&str],
    weights: &Path,
    db: &Path,
    out: &Path,
    common: &[OsString],
) -> Stage {
    let mut a = args(["bench"]);
    a.extend(flags.iter().map(OsString::from));
    a.push("--db".into());
    a.push(db.into());
    a.push("--weights".into());
    a.push(weights.into());
    // bench has --threads but no -q.
    a.extend(common.iter().filter(|s| *s != "-q").cloned());
    Stage::new(name, a, out, StageKind::Stdout)
}

/// How a round run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// Every stage is done.
    Finished,
    /// A stage was interrupted (SIGINT); its checkpoint or journal is kept.
    Interrupted,
}

/// What [`run`] reports about each stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageEvent {
    /// Already done: skipped.
    Skipped,
    /// Starting (resuming if true).
    Starting {
        /// Resumes from a journal or checkpoint.
        resume: bool,
    },
    /// Finished.
    Done,
}

/// The full command line of a stage run by `exe` (with `--resume` when
/// its journal or checkpoint exists).
pub fn command_line(exe: &Path, stage: &Stage) -> Vec<OsString> {
    let mut line = vec![exe.as_os_str().to_owned()];
    line.extend(stage.args.iter().cloned());
    if resumes(stage) {
        line.push("--resume".into());
    }
    line
}

fn resumes(stage: &Stage) -> bool {
    match &stage.kind {
        StageKind::InPlace { journal } => journal.exists(),
        StageKind::Resumable { checkpoint } => checkpoint.exists(),
        _ => false,
    }
}

/// Runs the stages not done yet with the `trainer` executable `exe`, in
/// order; `report` hears of each. Stops at the first stage that fails or
/// is interrupted (exit status 130).
pub fn run(
    exe: &Path,
    stages: &[Stage],
    report: &mut dyn FnMut(&Stage, StageEvent),
) -> Result<RoundEnd, PipelineError> {
    for stage in stages {
        if stage.done.exists() {
            report(stage, StageEvent::Skipped);
            continue;
        }
        for p in &stage.partial {
            support::atomic::remove_if_present(p).map_err(io_error(p))?;
        }
        report(
            stage,
            StageEvent::Starting {
                resume: resumes(stage),
            },
        );
        let line = command_line(exe, stage);
        let mut cmd = Command::new(&line[0]);
        cmd.args(&line[1..]);
        let capture = stage.kind == StageKind::Stdout;
        if capture {
            cmd.stdout(Stdio::piped());
        }
        let out = cmd.output().map_err(io_error(exe))?;
        match out.status.code() {
            Some(0) => {}
            Some(130) => return Ok(RoundEnd::Interrupted),
            _ => {
                return Err(PipelineError::Stage {
                    stage: stage.name.clone(),
                    status: out.status.to_string(),
                    command: shown(&line),
                })
            }
        }
        match &stage.kind {
            StageKind::Stdout => support::atomic::write_file(&stage.done, &out.stdout)
                .map_err(io_error(&stage.done))?,
            StageKind::InPlace { .. } => {
                support::atomic::write_file(&stage.done, b"").map_err(io_error(&stage.done))?
            }
            _ => {}
        }
        report(stage, StageEvent::Done);
    }
    Ok(RoundEnd::Finished)
}

/// A command line as one would type it.
pub fn shown(line: &[OsString]) -> String {
    line.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An I/O error about `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Io {
        path: path.to_owned(),
        source,
    }
}
