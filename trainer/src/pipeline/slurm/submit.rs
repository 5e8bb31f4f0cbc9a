//! `trainer round PLAN --slurm`: the round's stages that are neither done
//! nor queued, submitted as jobs chained with `afterok`.

use super::jobs::{ArrayJob, Jobs, StageJobs};
use super::queue::{self, QueueView};
use super::script::{JobOptions, JobScript};
use super::{io_error, Layout, SlurmError};
use crate::pipeline::{marker, PipelineError, Round, Stage, Status};
use std::path::{Path, PathBuf};

/// A submission's settings.
#[derive(Clone, Debug)]
pub struct Submission<'a> {
    /// The trainer executable the jobs run (absolute).
    pub exe: &'a Path,
    /// The plan (absolute).
    pub plan: &'a Path,
    /// Every job's options.
    pub options: &'a JobOptions,
    /// Shards a label stage is split in (1: no array).
    pub shards: u32,
    /// At most this many shard tasks of an array run at once.
    pub concurrency: Option<u32>,
    /// Submit the stages before this one only.
    pub stop_before: Option<&'a str>,
    /// Write the scripts, submit nothing.
    pub dry_run: bool,
}

/// One stage to submit.
struct Planned {
    index: usize,
    stage: Stage,
    /// Its array's shard count and the shards left to label (none: no
    /// array).
    array: Option<(u32, Vec<u32>)>,
    script: PathBuf,
    array_script: PathBuf,
}

/// Submits the stages of `round` neither done nor queued (or, with
/// `dry_run`, writes their scripts and says how they would be
/// submitted); `say` hears a line per stage. Every job's options are
/// checked with `sbatch --test-only` before the first is submitted, so
/// refused options submit nothing. Returns the number of jobs submitted.
pub fn submit(
    round: &Round,
    layout: &Layout,
    s: &Submission,
    say: &mut dyn FnMut(String),
) -> Result<usize, SlurmError> {
    let logs = layout.dir().join("logs");
    std::fs::create_dir_all(&logs).map_err(io_error(&logs))?;
    let record = layout.record();
    let _lock = support::lock::OutputLock::acquire(&record)
        .map_err(|e| PipelineError::Refused(e.to_string()))?;
    let mut jobs = Jobs::open(&record)?;
    let view = if s.dry_run {
        QueueView::default()
    } else {
        queue::require("sbatch")?;
        queue::squeue()?
    };
    let stages = round.stages();
    let mut after: Option<u64> = None;
    let mut stale: Vec<String> = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    for (index, stage) in stages.iter().enumerate() {
        if s.stop_before == Some(stage.name.as_str()) {
            break;
        }
        if round.status(stage) != Status::ToDo {
            continue;
        }
        let entry = jobs.get(&stage.name);
        if planned.is_empty() && !s.dry_run {
            if let Some(e) = entry.filter(|e| view.job(e.job).is_some_and(|q| q.is_live())) {
                say(format!("{}: queued (job {})", stage.name, e.job));
                after = Some(e.job);
                continue;
            }
        }
        if let Some(e) = entry {
            stale.extend(queued_ids(e, &view));
        }
        let shards = entry
            .and_then(|e| e.array.as_ref())
            .map_or(s.shards, |a| a.shards);
        let array = stage.labelled_db().filter(|_| shards > 1).map(|db| {
            let left = (1..=shards)
                .filter(|&k| !marker(&layout.shard_copy(db, k, shards)).exists())
                .collect();
            (shards, left)
        });
        planned.push(Planned {
            index,
            stage: stage.clone(),
            array,
            script: layout.script(index, &stage.name, false),
            array_script: layout.script(index, &stage.name, true),
        });
    }
    for p in &planned {
        write_scripts(layout, s, p)?;
    }
    if s.dry_run {
        for p in &planned {
            let mut line = String::new();
            if let Some(tasks) = p.array.as_ref().and_then(|a| tasks(a, s.concurrency)) {
                line.push_str(&format!(
                    "sbatch --parsable --array={tasks} {}; ",
                    p.array_script.display()
                ));
            }
            line.push_str(&format!(
                "sbatch --parsable --dependency=afterok:PREVIOUS {}",
                p.script.display()
            ));
            say(format!("{}: {line}", p.stage.name));
        }
        return Ok(0);
    }
    for p in &planned {
        if let Some(t) = p.array.as_ref().and_then(|a| tasks(a, s.concurrency)) {
            queue::check(&p.array_script, Some(&t))?;
        }
        queue::check(&p.script, None)?;
    }
    queue::cancel(&stale)?;
    let order: Vec<&str> = stages.iter().map(|st| st.name.as_str()).collect();
    let mut submitted = 0;
    for p in &planned {
        let mut array = None;
        if let Some((shards, left)) = &p.array {
            if let Some(t) = tasks(&(*shards, left.clone()), s.concurrency) {
                let id = queue::submit(&p.array_script, Some(&t), after)?;
                submitted += 1;
                array = Some(ArrayJob {
                    job: id,
                    tasks: left.clone(),
                    shards: *shards,
                });
            }
        }
        let wait = array.as_ref().map(|a| a.job).or(after);
        let job = queue::submit(&p.script, None, wait)?;
        submitted += 1;
        after = Some(job);
        let what = match &array {
            Some(a) => format!(
                "submitted shards {} of {} as array {} and job {job}",
                list(&a.tasks),
                a.shards,
                a.job
            ),
            None => format!("submitted job {job}"),
        };
        say(format!("{}: {what}", p.stage.name));
        jobs.set(
            StageJobs {
                stage: p.stage.name.clone(),
                array,
                job,
            },
            &order,
        );
        jobs.save(&record)?;
    }
    Ok(submitted)
}

/// The queued jobs and tasks of a stage's earlier submission.
fn queued_ids(e: &StageJobs, view: &QueueView) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(a) = &e.array {
        v.extend(
            a.tasks
                .iter()
                .filter(|&&k| view.task(a.job, k).is_some())
                .map(|k| format!("{}_{k}", a.job)),
        );
    }
    if view.job(e.job).is_some() {
        v.push(e.job.to_string());
    }
    v
}

/// `--array`'s value for the shards left, or `None` if none is.
fn tasks((_, left): &(u32, Vec<u32>), concurrency: Option<u32>) -> Option<String> {
    if left.is_empty() {
        return None;
    }
    let limit = concurrency.map(|m| format!("%{m}")).unwrap_or_default();
    Some(format!("{}{limit}", list(left)))
}

/// `1,3,4`.
fn list(tasks: &[u32]) -> String {
    tasks
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes the stage's job script and, for a sharded label stage, its
/// array's.
fn write_scripts(layout: &Layout, s: &Submission, p: &Planned) -> Result<(), SlurmError> {
    let shards = p.array.as_ref().map(|(n, _)| *n);
    let job_log = layout.log(p.index, &p.stage.name, None);
    let array_log = layout.log(p.index, &p.stage.name, Some("%a"));
    let mut scripts = vec![(
        &p.script,
        JobScript {
            exe: s.exe,
            plan: s.plan,
            dir: &layout.round,
            stage: &p.stage.name,
            log: &job_log,
            shards,
            array: false,
        },
    )];
    if shards.is_some() {
        scripts.push((
            &p.array_script,
            JobScript {
                log: &array_log,
                array: true,
                ..scripts[0].1.clone()
            },
        ));
    }
    for (path, script) in scripts {
        support::atomic::write_file(path, script.text(s.options).as_bytes())
            .map_err(io_error(path))?;
    }
    Ok(())
}
