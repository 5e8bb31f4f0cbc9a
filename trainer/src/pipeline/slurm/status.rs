//! `trainer round PLAN --status`: where every stage stands (done, queued,
//! running, failed, to do), with the job IDs and, for a failed job or
//! task, the end of its log.

use super::jobs::{Jobs, StageJobs};
use super::queue::{self, QueueView, Queued};
use super::task::{md5_of, shard_labelled};
use super::{Layout, SlurmError};
use crate::pipeline::{Round, Stage, Status};
use std::collections::HashMap;
use std::path::Path;

/// Lines of the end of a failed job's log shown.
const LOG_LINES: usize = 3;

/// One stage's state, as `--status` prints it: `NAME: STATE[ (details)]`
/// and, for what failed, the end of its log, indented.
pub fn lines(round: &Round, layout: &Layout) -> Result<Vec<String>, SlurmError> {
    let jobs = Jobs::open(&layout.record())?;
    let (view, ended) = if jobs.stages.is_empty() {
        (QueueView::default(), HashMap::new())
    } else {
        let view = queue::squeue()?;
        let ids: Vec<u64> = jobs
            .stages
            .iter()
            .flat_map(|e| e.array.iter().map(|a| a.job).chain(e.job))
            .collect();
        (view, queue::ended(&ids))
    };
    let mut out = Vec::new();
    for (index, stage) in round.stages().iter().enumerate() {
        let word = |w: &str| Report {
            state: w.to_owned(),
            logs: vec![],
        };
        let Report { state, logs } = match (round.status(stage), jobs.get(&stage.name)) {
            (Status::Done, _) => word("done"),
            (Status::Given, _) => word("given"),
            (Status::ToDo, Some(e)) => submitted(layout, index, stage, e, &view, &ended),
            (Status::ToDo, None) if round.started(stage) => {
                word("started (running, or stopped before it finished)")
            }
            (Status::ToDo, None) => word("to do"),
        };
        out.push(format!("{}: {state}", stage.name));
        for (log, tail) in logs {
            out.push(format!("    {log}:"));
            out.extend(tail.into_iter().map(|l| format!("      {l}")));
        }
    }
    Ok(out)
}

/// A submitted stage's state and the logs of what failed.
struct Report {
    state: String,
    logs: Vec<(String, Vec<String>)>,
}

/// The state of a stage submitted as `e` and not done.
fn submitted(
    layout: &Layout,
    index: usize,
    stage: &Stage,
    e: &StageJobs,
    view: &QueueView,
    ended: &HashMap<String, String>,
) -> Report {
    let mut failed = false;
    let mut running = false;
    let mut parts = Vec::new();
    let mut logs = Vec::new();
    let log_of = |task: Option<&str>| {
        let log = layout.log(index, &stage.name, task);
        (shown_path(layout, &log), tail(&log))
    };
    if let (Some(a), Some(n), Some(db)) = (&e.array, e.shards, stage.labelled_db()) {
        let md5 = md5_of(&layout.round.join(db)).unwrap_or_default();
        let mut tasks = Vec::new();
        for &k in &a.tasks {
            let id = format!("{}_{k}", a.job);
            let word = if shard_labelled(&layout.shard_copy(db, k, n), &md5) {
                "labelled".to_owned()
            } else if let Some(q) = view.task(a.job, k).filter(|q| q.is_live()) {
                running |= q.state == "RUNNING";
                word_of(q)
            } else {
                failed = true;
                logs.push(log_of(Some(&k.to_string())));
                ended_word(view.task(a.job, k), ended.get(&id))
            };
            tasks.push(format!("{k} {word}"));
        }
        parts.push(format!(
            "array {} of {n} shards: {}",
            a.job,
            tasks.join(", ")
        ));
    }
    match e.job {
        Some(job) => {
            let word = match view.job(job) {
                Some(q) if q.reason == "DependencyNeverSatisfied" => {
                    failed = true;
                    "waiting for a job that failed".to_owned()
                }
                Some(q) if q.is_live() => {
                    running |= q.state == "RUNNING";
                    word_of(q)
                }
                q => {
                    failed = true;
                    logs.push(log_of(None));
                    ended_word(q, ended.get(&job.to_string()))
                }
            };
            parts.push(format!("job {job} {word}"));
        }
        None => {
            failed = true;
            parts.push("its job was not submitted".to_owned());
        }
    }
    let state = if failed {
        "failed"
    } else if running {
        "running"
    } else {
        "queued"
    };
    Report {
        state: format!("{state} ({})", parts.join("; ")),
        logs,
    }
}

/// `pending (Dependency)`, `running`, …
fn word_of(q: &Queued) -> String {
    let state = q.state.to_lowercase();
    if q.reason.is_empty() || q.reason == "None" {
        state
    } else {
        format!("{state} ({})", q.reason)
    }
}

/// How a job that will not finish stands: stuck in the queue (`held`,
/// `completing`), or ended (`sacct`'s state where the cluster keeps
/// accounting).
fn ended_word(queued: Option<&Queued>, state: Option<&String>) -> String {
    match (queued, state) {
        (Some(q), _) => format!("{} and will not finish", word_of(q)),
        (None, Some(s)) => format!("ended {}", s.to_lowercase()),
        (None, None) => "ended without finishing".to_owned(),
    }
}

/// `log` relative to the round's directory.
fn shown_path(layout: &Layout, log: &Path) -> String {
    log.strip_prefix(&layout.round)
        .unwrap_or(log)
        .display()
        .to_string()
}

/// The last non-empty lines of `log` (none if it cannot be read).
fn tail(log: &Path) -> Vec<String> {
    let limit = support::input::Limit {
        bytes: 64 << 20,
        what: "log",
    };
    let Ok(text) = support::input::read_text(log, limit) else {
        return vec!["(no log)".into()];
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(LOG_LINES)..]
        .iter()
        .map(|l| (*l).to_owned())
        .collect()
}
