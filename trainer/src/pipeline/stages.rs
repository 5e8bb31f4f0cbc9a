//! A plan's stages: the `trainer` command lines of a round, each with the
//! file that shows it done.

use super::plan::{NetClass, Plan, TrainPlan};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The stage that writes `start` (skipped when the user gives it).
pub const START_STAGE: &str = "start weights";

/// The stage that splits the held-out set off (writes `held`).
pub const SPLIT_STAGE: &str = "split";
/// The stage that labels `held` in place.
pub const LABEL_HELD_STAGE: &str = "label held";
/// The stage that makes the held-out set from the held-out games.
pub const HELD_SET_STAGE: &str = "held-out set";

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
    /// The run-time flags the command takes.
    pub flags: RunFlags,
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
            flags: RunFlags::None,
        }
    }

    /// The stage with `flags`.
    fn with_flags(self, flags: RunFlags) -> Stage {
        Stage { flags, ..self }
    }

    /// The database a label stage (`db label eval DB`) labels in place;
    /// `None` for other stages.
    pub fn labelled_db(&self) -> Option<&Path> {
        let is_label = matches!(self.kind, StageKind::InPlace { .. })
            && self.args.len() > 3
            && self.args[..3] == ["db", "label", "eval"];
        is_label.then(|| Path::new(&self.args[3]))
    }

    /// A label stage's command for shard `k` of `n`, on `copy` instead of
    /// its database (see [`labelled_db`](Self::labelled_db)).
    pub fn shard_args(&self, copy: &Path, k: u32, n: u32) -> Vec<OsString> {
        let mut a = self.args.clone();
        a[3] = copy.into();
        a.push("--shard".into());
        a.push(format!("{k}/{n}").into());
        a
    }

    /// Every file the stage writes or may leave: its outputs, their
    /// provenance records, its journal or checkpoint, its marker.
    pub fn owned_files(&self) -> Vec<PathBuf> {
        let mut v = vec![self.done.clone()];
        v.extend(self.partial.iter().cloned());
        match &self.kind {
            StageKind::Writes => {
                v.extend(
                    [&self.done]
                        .into_iter()
                        .chain(&self.partial)
                        .map(|p| crate::provenance::path_for(p)),
                );
            }
            StageKind::Stdout => {}
            StageKind::InPlace { journal } => v.push(journal.clone()),
            StageKind::Resumable { checkpoint } => {
                v.push(checkpoint.clone());
                v.push(crate::provenance::path_for(&self.done));
                v.push(support::atomic::with_suffix(&self.done, ".train.csv"));
            }
        }
        v
    }
}

/// The flags that change how a stage's command runs but not its result,
/// added to its command line when it runs (and left out of its record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunFlags {
    /// None.
    None,
    /// `--threads N` (the plan's `threads`).
    Threads,
    /// `-q` and `--threads N`.
    QuietThreads,
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
    /// The positions of the games played for the held-out set.
    pub const HELD_GAMES: &str = "held-games.db";
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
    /// The round's stages in order. Their paths are relative to the
    /// round's directory, where their commands run.
    pub fn stages(&self) -> Vec<Stage> {
        let file = PathBuf::from;
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
                stages.push(self.generate(&file(name), games, seed, classes, threshold));
            }
        }
        let new = file(files::NEW);
        let mut exclude: Vec<PathBuf> = self.include.clone();
        exclude.extend(self.exclude.iter().cloned());
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
                ..Stage::new(SPLIT_STAGE, split, &held, StageKind::Writes)
            });
            stages.push(self.label(LABEL_HELD_STAGE, &held));
        } else if self.held_games > 0 {
            // The held-out set from games of its own, less every position
            // the round trains on.
            let games = file(files::HELD_GAMES);
            let all = "contact,crashed,race";
            stages.push(self.generate(&games, self.held_games, self.seed + 5, all, 0.0));
            stages.push(merge_stage("new positions", &generated, &exclude, &new));
            let mut trained = exclude.clone();
            trained.push(new.clone());
            stages.push(merge_stage(HELD_SET_STAGE, &[games], &trained, &held));
            stages.push(self.label(LABEL_HELD_STAGE, &held));
        } else {
            exclude.push(held.clone());
            stages.push(merge_stage("new positions", &generated, &exclude, &new));
        }
        stages.push(self.label("label new", &new));
        let mut sources: Vec<PathBuf> = self.include.clone();
        sources.push(new);
        let train = file(files::TRAIN);
        let mut left_out = vec![held.clone()];
        left_out.extend(self.exclude.iter().cloned());
        stages.push(merge_stage("training set", &sources, &left_out, &train));
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
        stages.push(Stage::new(START_STAGE, a, &start, StageKind::Writes));
        let net = file(files::NET);
        let pruning = self.prune_games > 0;
        let mut from = start;
        for (class, out) in [
            (NetClass::Contact, file("contact.wd")),
            (NetClass::Crashed, file("crashed.wd")),
            (
                NetClass::Race,
                if pruning {
                    file("race.wd")
                } else {
                    net.clone()
                },
            ),
        ] {
            if class == NetClass::Crashed && self.crashed_from_contact {
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
            if let (NetClass::Crashed, Some(crashed)) = (class, &self.crashed_from) {
                // The crashed net of `crashed_from`, fine-tuned here.
                let start = file("crashed-start.wd");
                let mut a = args(["weights", "splice", "--from"]);
                a.push(crashed.clone().into());
                a.extend(args(["--net", "crashed", "--into"]));
                a.push(from.clone().into());
                a.push("-o".into());
                a.push(start.clone().into());
                stages.push(Stage::new("crashed start", a, &start, StageKind::Writes));
                from = start;
            }
            let settings = self.train_of(class);
            stages.push(self.train_stage(class, &train, &from, &out, settings, false));
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
            ));
            for (class, out) in [
                (NetClass::Contact, file("prune-contact.wd")),
                (NetClass::Crashed, file("prune-crashed.wd")),
                (NetClass::Race, net.clone()),
            ] {
                stages.push(self.train_stage(
                    class,
                    &candidates,
                    &from,
                    &out,
                    &self.prune_train,
                    true,
                ));
                from = out;
            }
            stages.push(bench_stage(
                "prune check",
                &["--prune-check"],
                &net,
                &held,
                &file(files::PRUNE_CHECK),
            ));
        }
        stages.push(bench_stage("bench", &[], &net, &held, &file(files::BENCH)));
        stages.push(bench_stage(
            "bench opponent",
            &[],
            &self.opponent,
            &held,
            &file(files::BENCH_OPPONENT),
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
        stages.push(
            Stage::new("match", play, &file(files::MATCH), StageKind::Stdout)
                .with_flags(RunFlags::QuietThreads),
        );
        stages
    }

    fn generate(&self, out: &Path, games: u64, seed: u64, classes: &str, threshold: f64) -> Stage {
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
        Stage::new(
            format!("generate {}", file_stem(out)),
            a,
            out,
            StageKind::Writes,
        )
        .with_flags(RunFlags::QuietThreads)
    }

    fn label(&self, name: &str, db: &Path) -> Stage {
        label_stage(name, db, &self.teacher, self.plies, self.prune)
    }

    fn train_stage(
        &self,
        class: NetClass,
        db: &Path,
        from: &Path,
        out: &Path,
        t: &TrainPlan,
        prune: bool,
    ) -> Stage {
        let mut a = args(["train", "--db"]);
        a.push(db.into());
        a.extend(args(["--class", class.name(), "--weights"]));
        a.push(from.into());
        a.push("-o".into());
        a.push(out.into());
        a.extend(args([
            "--epochs",
            &t.epochs.to_string(),
            "--schedule",
            t.schedule.name(),
            "--alpha-start",
            &t.alpha_start.to_string(),
            "--alpha-low",
            &t.alpha_low.to_string(),
            "--seed",
            &t.seed.to_string(),
            "--optimizer",
            t.optimizer.name(),
            "--batch",
            &t.batch.to_string(),
        ]));
        if t.weight_decay != 0.0 {
            a.extend(args(["--weight-decay", &t.weight_decay.to_string()]));
        }
        if t.equity_weight != 0.0 {
            a.extend(args(["--equity-weight", &t.equity_weight.to_string()]));
        }
        if t.loss == crate::pipeline::plan::Loss::CrossEntropy {
            a.extend(args(["--loss", "cross-entropy"]));
        }
        if prune {
            a.push("--prune".into());
        }
        let what = if prune { " pruning net" } else { "" };
        let checkpoint = support::checkpoint::Checkpoint::path_for(out);
        Stage::new(
            format!("train {}{what}", class.name()),
            a,
            out,
            StageKind::Resumable { checkpoint },
        )
        .with_flags(RunFlags::QuietThreads)
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
    support::side::SideKind::LabelMarker.path_of(db)
}

/// `db label eval DB` with `weights` at `plies`, in place.
fn label_stage(name: &str, db: &Path, weights: &Path, plies: u32, prune: bool) -> Stage {
    let mut a = args(["db", "label", "eval"]);
    a.push(db.into());
    a.extend(args(["--plies", &plies.to_string()]));
    if prune {
        a.push("--prune".into());
    }
    a.push("--weights".into());
    a.push(weights.into());
    let journal = crate::rollouts::journal::journal_path(db);
    Stage::new(name, a, &marker(db), StageKind::InPlace { journal })
        .with_flags(RunFlags::QuietThreads)
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
fn bench_stage(name: &str, flags: &[&str], weights: &Path, db: &Path, out: &Path) -> Stage {
    let mut a = args(["bench"]);
    a.extend(flags.iter().map(OsString::from));
    a.push("--db".into());
    a.push(db.into());
    a.push("--weights".into());
    a.push(weights.into());
    Stage::new(name, a, out, StageKind::Stdout).with_flags(RunFlags::Threads)
}
