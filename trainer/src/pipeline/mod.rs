//! A training round as resumable stages (docs/trainer.md#trainer-round):
//! self-play positions with exploration, a held-out split, labels from a
//! teacher's n-ply evaluation, the contact, crashed and race nets trained
//! from random weights, then the held-out errors and a match.
//!
//! A [`Plan`] (a JSON file, [`plan`]) names the round's inputs and
//! settings, checked whole before anything runs ([`check`]);
//! [`Plan::stages`] turns it into the `trainer` command lines of its
//! stages ([`stages`]), and [`runner::Round::run`] runs those not yet done in the
//! round's directory, recording each in the round's [`ledger`]. Every
//! stage writes its outputs atomically or is journaled (labels) or
//! checkpointed (training), so a round killed at any moment and run again
//! ends with the same files as one never interrupted. The command lines
//! can as well be run by hand or spread over machines (`trainer round PLAN
//! --print`): a label stage takes `--shard K/N` on copies that `db merge`
//! joins.

pub mod check;
pub mod ledger;
pub mod plan;
pub mod runner;
pub mod slurm;
pub mod stages;

pub use plan::{NetClass, Optimizer, Plan, Schedule, TrainPlan};
pub use runner::{shown, Cost, Round, RoundEnd, StageEvent, Status};
pub use stages::{files, marker, Stage, StageKind};

use std::path::{Path, PathBuf};

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
    /// The round's files disagree with the plan: a stage done with other
    /// settings, or a file the round did not write where it would write.
    #[error("{0}")]
    Refused(String),
    /// A stage's command failed.
    #[error("stage {stage} failed ({status}): {why} (command: {command})")]
    Stage {
        /// The stage's name.
        stage: String,
        /// How the command ended.
        status: String,
        /// The command's last error line.
        why: String,
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

/// The side files other tools keep beside `file` (journal, provenance
/// record, checkpoint, lock, a round's label marker).
pub fn side_files(file: &Path) -> Vec<PathBuf> {
    support::side::SideKind::ALL
        .iter()
        .map(|k| k.path_of(file))
        .collect()
}

/// An I/O error about `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Io {
        path: path.to_owned(),
        source,
    }
}
