//! A round as Slurm jobs (docs/trainer.md#running-a-round-on-a-slurm-cluster):
//! every stage not done becomes a job that runs `trainer round PLAN
//! --slurm-task STAGE` in the round's directory, a label stage an array of
//! shard tasks and then that job, which merges the shards; the jobs are
//! chained with `afterok`.
//!
//! A job runs its stage through the same [`Round`](super::Round) as a
//! local round (the same command lines, record and outputs), so the
//! round's files end byte-identical to a local run's. Everything Slurm
//! adds lives in the round's `slurm/` folder on the shared filesystem:
//! the job scripts, their logs, the shards' copies and journals, and
//! `jobs.json`, the job IDs of each stage ([`jobs`]). A requeued task
//! resumes from its journal or checkpoint; submitting again
//! ([`submit`]) asks `squeue` what is still queued and submits only the
//! stages neither done nor queued ([`status`] says which).

pub mod jobs;
pub mod queue;
pub mod script;
pub mod status;
pub mod submit;
pub mod task;

use std::path::{Path, PathBuf};

/// The folder, in the round's directory, of everything Slurm adds.
pub const DIR: &str = "slurm";

/// Where a round's Slurm files live.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The round's directory.
    pub round: PathBuf,
}

impl Layout {
    /// The layout of the round in `round` (an absolute path).
    pub fn new(round: &Path) -> Layout {
        Layout {
            round: round.to_owned(),
        }
    }

    /// The `slurm/` folder.
    pub fn dir(&self) -> PathBuf {
        self.round.join(DIR)
    }

    /// The record of submitted jobs, `slurm/jobs.json`.
    pub fn record(&self) -> PathBuf {
        self.dir().join("jobs.json")
    }

    /// The script of stage number `index` (0-based) named `name`; the
    /// array's if `array`.
    pub fn script(&self, index: usize, name: &str, array: bool) -> PathBuf {
        let kind = if array { ".shards" } else { "" };
        self.dir()
            .join(format!("{:02}-{}{kind}.sbatch", index + 1, slug(name)))
    }

    /// The log of stage number `index`'s job, or of its array task `task`.
    pub fn log(&self, index: usize, name: &str, task: Option<&str>) -> PathBuf {
        let task = task.map(|t| format!("-{t}")).unwrap_or_default();
        self.dir()
            .join("logs")
            .join(format!("{:02}-{}{task}.log", index + 1, slug(name)))
    }

    /// The copy of `db` (relative to the round) that shard `k` of `n`
    /// labels.
    pub fn shard_copy(&self, db: &Path, k: u32, n: u32) -> PathBuf {
        let name = db.file_name().unwrap_or_default().to_string_lossy();
        self.dir()
            .join("shards")
            .join(format!("{name}.shard-{k}-of-{n}"))
    }
}

/// A stage name as a file name part: `label new` → `label-new`.
pub fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// What can stop a Slurm submission, status or task.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// A Slurm command is not on the PATH.
    #[error("{0}: not found on the PATH (--slurm needs Slurm's commands; --dry-run writes the job scripts without them)")]
    Missing(&'static str),
    /// `sbatch --test-only` refused a job's options: nothing was submitted.
    #[error("sbatch refused the job options ({0}); nothing was submitted")]
    Options(String),
    /// A Slurm command failed.
    #[error("{command} failed: {why}")]
    Command {
        /// The command.
        command: String,
        /// Its last error line.
        why: String,
    },
    /// The record of submitted jobs cannot be read (the message names it).
    #[error("{0}")]
    Record(String),
    /// The round cannot run on Slurm as asked.
    #[error("{0}")]
    Refused(String),
    /// Stopped by SIGINT/SIGTERM.
    #[error("interrupted")]
    Interrupted,
    /// The round refuses to run.
    #[error(transparent)]
    Round(#[from] super::PipelineError),
    /// A file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// An I/O error about `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SlurmError + '_ {
    move |source| SlurmError::Io {
        path: path.to_owned(),
        source,
    }
}
