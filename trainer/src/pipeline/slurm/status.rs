//! `trainer round PLAN --status`: where every stage stands (done, queued,
//! running, failed, to do), with the job IDs and, for a failed job or
//! task, the end of its log.

use super::jobs::{Jobs, StageJobs};
use super::queue::{self, QueueView, Queued};
use super::{Layout, SlurmError};
use crate::pipeline::{marker, Round, Stage, Status};
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
            .flat_map(|e| e.array.iter().map(|a| a.job).chain([e.job]))
            .collect();
        (view, queue::ended(&ids))
    };
    let mut out = Vec::new();
    for (index, stage) in round.stages().iter().enumerate() {
        let state = match round.status(stage) {
            Status::Done => "done".to_owned(),
            Status::Given => "given".to_owned(),
            Status::ToDo => match jobs.get(&stage.name) {
                Some(e) => {
                    let Report { state, logs } = submitted(layout, index, stage, e, &view, &ended);
                    out.push(format!("{}: {state}", stage.name));
                    for (log, tail) in logs {
                        out.push(format!("    {}:", log));
                        out.extend(tail.into_iter().map(|l| format!("      {l}")));
                    }
                    continue;
                }
                None if round.started(stage) => {
                    "started (running, or stopped before it finished)".to_owned()
                }
                None => "to do".to_owned(),
            },
        };
        out.push(format!("{}: {state}", stage.name));
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
    if let (Some(a), Some(db)) = (&e.array, stage.labelled_db()) {
        let mut tasks = Vec::new();
        for &k in &a.tasks {
            let id = format!("{}_{k}", a.job);
            let word = if marker(&layout.shard_copy(db, k, a.shards)).exists() {
                "labelled".to_owned()
            } else if let Some(q) = view.task(a.job, k) {
                running |= q.state == "RUNNING";
                word_of(q)
            } else {
                failed = true;
                let log = layout.log(index, &stage.name, Some(&k.to_string()));
                logs.push((shown_path(layout, &log), tail(&log)));
                ended_word(ended.get(&id))
            };
            tasks.push(format!("{k} {word}"));
        }
        parts.push(format!(
            "array {} of {} shards: {}",
            a.job,
            a.shards,
            tasks.join(", ")
        ));
    }
    let word = match view.job(e.job) {
        Some(q) if !q.is_live() => {
            failed = true;
            "waiting for a job that failed".to_owned()
        }
        Some(q) => {
            running |= q.state == "RUNNING";
            word_of(q)
        }
        None => {
            failed = true;
            let log = layout.log(index, &stage.name, None);
            logs.push((shown_path(layout, &log), tail(&log)));
            ended_word(ended.get(&e.job.to_string()))
        }
    };
    parts.push(format!("job {} {word}", e.job));
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

/// How a job no longer queued ended: `sacct`'s state, or `ended`.
fn ended_word(state: Option<&String>) -> String {
    match state {
        Some(s) => format!("ended {}", s.to_lowercase()),
        None => "ended without finishing".to_owned(),
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
