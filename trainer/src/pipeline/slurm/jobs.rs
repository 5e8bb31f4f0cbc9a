//! `slurm/jobs.json`: the jobs last submitted for each stage of a round.

use super::SlurmError;
use crate::pipeline::ledger::{read_json, write_json};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What this version writes as [`Jobs::kind`].
const KIND: &str = "bgkit trainer round slurm jobs 1";

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
    /// The shards a label stage's database is labelled in (`None`: whole),
    /// kept across submissions so that labelled shards are never redone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// The array of shard tasks of a label stage, if one was submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayJob>,
    /// The job that runs the stage (after merging a label stage's
    /// shards); `None` until it is submitted.
    pub job: Option<u64>,
}

/// A submitted array of shard tasks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayJob {
    /// The array's job ID.
    pub job: u64,
    /// The shards the array runs (1-based; the others were labelled).
    pub tasks: Vec<u32>,
}

impl Jobs {
    /// The record at `path`, or an empty one if there is none.
    pub fn open(path: &Path) -> Result<Jobs, SlurmError> {
        let jobs =
            read_json(path, "job record", |j: &Jobs| &j.kind, KIND).map_err(SlurmError::Record)?;
        Ok(jobs.unwrap_or_else(|| Jobs {
            kind: KIND.into(),
            stages: vec![],
        }))
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
        write_json(path, self).map_err(super::io_error(path))
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
        };
        jobs.set(
            StageJobs {
                stage: "label new".into(),
                shards: Some(2),
                array: Some(array),
                job: Some(8),
            },
            &order,
        );
        jobs.set(
            StageJobs {
                stage: "generate".into(),
                shards: None,
                array: None,
                job: Some(6),
            },
            &order,
        );
        jobs.save(&path).unwrap();
        let back = Jobs::open(&path).unwrap();
        assert_eq!(back, jobs);
        assert_eq!(back.stages[0].stage, "generate");
        assert_eq!(back.get("label new").unwrap().job, Some(8));
        std::fs::write(&path, "{\"kind\": \"x\", \"stages\": []}").unwrap();
        assert!(Jobs::open(&path)
            .unwrap_err()
            .to_string()
            .contains("another kind"));
    }
}
