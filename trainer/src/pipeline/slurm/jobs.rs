//! `slurm/jobs.json`: the jobs last submitted for each stage of a round.

use super::SlurmError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What this version writes as [`Jobs::kind`].
const KIND: &str = "bgkit trainer round slurm jobs 1";
/// Largest record read.
const MAX_LEN: u64 = 16 << 20;

/// The record: one entry per stage submitted, in stage order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Jobs {
    /// What wrote it.
    pub kind: String,
    /// The entries.
    pub stages: Vec<StageJobs>,
}

/// The jobs of one stage's latest submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageJobs {
    /// The stage's name.
    pub stage: String,
    /// The array of shard tasks of a label stage, if one was submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayJob>,
    /// The job that runs the stage (after merging a label stage's shards).
    pub job: u64,
}

/// A submitted array of shard tasks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayJob {
    /// The array's job ID.
    pub job: u64,
    /// The shards the array runs (1-based; the others were labelled).
    pub tasks: Vec<u32>,
    /// How many shards the database is labelled in.
    pub shards: u32,
}

impl Jobs {
    /// The record at `path`, or an empty one if there is none.
    pub fn open(path: &Path) -> Result<Jobs, SlurmError> {
        let fail = |why: String| SlurmError::Record {
            path: path.to_owned(),
            why,
        };
        let limit = support::input::Limit {
            bytes: MAX_LEN,
            what: "job record",
        };
        let text = match support::input::read_text(path, limit) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Jobs {
                    kind: KIND.into(),
                    stages: vec![],
                })
            }
            Err(e) => return Err(fail(e.to_string())),
        };
        let jobs: Jobs =
            serde_json::from_str(&text).map_err(|e| fail(format!("not a job record ({e})")))?;
        if jobs.kind != KIND {
            return Err(fail(format!(
                "a job record of another kind ({:?}, this trainer writes {KIND:?})",
                jobs.kind
            )));
        }
        Ok(jobs)
    }

    /// The latest submission of `stage`.
    pub fn get(&self, stage: &str) -> Option<&StageJobs> {
        self.stages.iter().find(|s| s.stage == stage)
    }

    /// Records `entry` in place of its stage's earlier one, in the order
    /// of `order` (the plan's stage names).
    pub fn set(&mut self, entry: StageJobs, order: &[&str]) {
        self.stages.retain(|s| s.stage != entry.stage);
        self.stages.push(entry);
        let rank = |name: &str| order.iter().position(|n| *n == name).unwrap_or(usize::MAX);
        self.stages.sort_by_key(|s| rank(&s.stage));
    }

    /// Writes the record atomically.
    pub fn save(&self, path: &Path) -> Result<(), SlurmError> {
        let mut text = serde_json::to_string_pretty(self).expect("a job record serializes");
        text.push('\n');
        support::atomic::write_file(path, text.as_bytes()).map_err(super::io_error(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_in_stage_order_and_refuses_another_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.json");
        let mut jobs = Jobs::open(&path).unwrap();
        let order = ["generate", "label new"];
        let array = ArrayJob {
            job: 7,
            tasks: vec![2],
            shards: 2,
        };
        jobs.set(
            StageJobs {
                stage: "label new".into(),
                array: Some(array),
                job: 8,
            },
            &order,
        );
        jobs.set(
            StageJobs {
                stage: "generate".into(),
                array: None,
                job: 6,
            },
            &order,
        );
        jobs.save(&path).unwrap();
        let back = Jobs::open(&path).unwrap();
        assert_eq!(back, jobs);
        assert_eq!(back.stages[0].stage, "generate");
        assert_eq!(back.get("label new").unwrap().job, 8);
        std::fs::write(&path, "{\"kind\": \"x\", \"stages\": []}").unwrap();
        assert!(Jobs::open(&path)
            .unwrap_err()
            .to_string()
            .contains("another kind"));
    }
}
