//! `trainer round PLAN --slurm`: the round's stages that are neither done
//! nor queued, submitted as jobs chained with `afterok`.

use super::jobs::{ArrayJob, Jobs, StageJobs};
use super::queue::{self, QueueView};
use super::script::{JobOptions, JobScript};
use super::task::{md5_of, shard_labelled};
use super::{io_error, Layout, SlurmError};
use crate::pipeline::{PipelineError, Round, Stage, Status};
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
    /// Shards a label stage is split in (1: no array), unless an earlier
    /// submission of the stage chose another number.
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
    /// The shards its database is labelled in (`None`: whole).
    shards: Option<u32>,
    /// The shards left to label (empty: no array).
    left: Vec<u32>,
    script: PathBuf,
    array_script: PathBuf,
}

/// Checks what a round on Slurm cannot have: paths sbatch would read
/// otherwise (a `%` is a file name pattern in `--output`; `#SBATCH` lines
/// are split at blanks), and options that send jobs to other clusters,
/// whose jobs `squeue` here would not list.
pub fn check(layout: &Layout, s: &Submission) -> Result<(), SlurmError> {
    for (what, path) in [
        ("round's directory", &layout.round),
        ("trainer", &s.exe.to_owned()),
    ] {
        let text = path.to_string_lossy();
        if text.contains(['%', '"', '\'', '\\']) || text.chars().any(char::is_whitespace) {
            return Err(SlurmError::Refused(format!(
                "{}: the {what} has a blank, quote, backslash or % in its path, which job \
                 scripts cannot name; use another directory",
                path.display()
            )));
        }
    }
    if let Some(a) =
        s.options.extra.iter().find(|a| {
            a.starts_with("-M") || a.starts_with("--clusters") || a.starts_with("--cluster")
        })
    {
        return Err(SlurmError::Refused(format!(
            "--sbatch-arg={a}: a round's jobs run on the cluster that submits them (squeue \
             here must list them)"
        )));
    }
    Ok(())
}

/// Submits the stages of the round neither done nor queued (or, with
/// `dry_run`, writes their scripts and prints how they would be
/// submitted); `say` hears a line per stage. The queue is read first,
/// then the round (`open`: its record), so a stage that ends in between
/// is seen done, never lost. Every job's options are checked with
/// `sbatch --test-only` before the first is submitted, so refused options
/// submit nothing; each submission is recorded at once. Returns the
/// number of jobs submitted.
pub fn submit(
    open: &dyn Fn() -> Result<Round, SlurmError>,
    layout: &Layout,
    s: &Submission,
    say: &mut dyn FnMut(String),
) -> Result<usize, SlurmError> {
    check(layout, s)?;
    if !s.dry_run {
        queue::require("sbatch")?;
        queue::require("squeue")?;
    }
    let logs = layout.dir().join("logs");
    std::fs::create_dir_all(&logs).map_err(io_error(&logs))?;
    let record = layout.record();
    let _lock = support::lock::OutputLock::acquire(&record)
        .map_err(|e| PipelineError::Refused(e.to_string()))?;
    let mut jobs = Jobs::open(&record)?;
    let view = if s.dry_run {
        QueueView::default()
    } else {
        queue::squeue()?
    };
    let round = open()?;
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
        let live_job = entry
            .and_then(|e| e.job)
            .filter(|&j| view.job(j).is_some_and(|q| q.is_live()));
        if let (true, Some(job)) = (planned.is_empty() && !s.dry_run, live_job) {
            say(format!("{}: queued (job {job})", stage.name));
            after = Some(job);
            continue;
        }
        if let Some(e) = entry {
            stale.extend(queued_ids(e, &view));
        }
        let (shards, left) = shards_left(&round, layout, stage, entry, s.shards)?;
        planned.push(Planned {
            index,
            stage: stage.clone(),
            shards,
            left,
            script: layout.script(index, &stage.name, false),
            array_script: layout.script(index, &stage.name, true),
        });
    }
    for p in &planned {
        write_scripts(layout, s, p)?;
    }
    if s.dry_run {
        for line in dry_run_lines(&planned, s.concurrency) {
            say(line);
        }
        return Ok(0);
    }
    for p in &planned {
        if let Some(t) = tasks(&p.left, s.concurrency) {
            queue::check(&p.array_script, Some(&t))?;
        }
        queue::check(&p.script, None)?;
    }
    queue::cancel(&stale)?;
    let order: Vec<&str> = stages.iter().map(|st| st.name.as_str()).collect();
    let mut submitted = 0;
    for p in &planned {
        let mut entry = StageJobs {
            stage: p.stage.name.clone(),
            shards: p.shards,
            array: None,
            job: None,
        };
        if let Some(t) = tasks(&p.left, s.concurrency) {
            let id = queue::submit(&p.array_script, Some(&t), after)?;
            submitted += 1;
            entry.array = Some(ArrayJob {
                job: id,
                tasks: p.left.clone(),
            });
            jobs.set(entry.clone(), &order);
            jobs.save(&record)?;
        }
        let wait = entry.array.as_ref().map(|a| a.job).or(after);
        let job = queue::submit(&p.script, None, wait)?;
        submitted += 1;
        after = Some(job);
        entry.job = Some(job);
        let what = match (&entry.array, p.shards) {
            (Some(a), Some(n)) => format!(
                "submitted shards {} of {n} as array {} and job {job}",
                list(&a.tasks),
                a.job
            ),
            _ => format!("submitted job {job}"),
        };
        say(format!("{}: {what}", p.stage.name));
        jobs.set(entry, &order);
        jobs.save(&record)?;
    }
    Ok(submitted)
}

/// A label stage's shard count (`None`: labelled whole, as a stage with
/// a journal on its database resumes) and its shards not yet labelled
/// from the database as it is now (all of them if it is not made yet).
fn shards_left(
    round: &Round,
    layout: &Layout,
    stage: &Stage,
    entry: Option<&StageJobs>,
    asked: u32,
) -> Result<(Option<u32>, Vec<u32>), SlurmError> {
    let Some(db) = stage.labelled_db() else {
        return Ok((None, vec![]));
    };
    let path = round.dir().join(db);
    if crate::rollouts::journal::journal_path(&path).exists() {
        return Ok((None, vec![]));
    }
    let n = entry.and_then(|e| e.shards).unwrap_or(asked);
    if n < 2 {
        return Ok((None, vec![]));
    }
    let md5 = if path.exists() {
        Some(md5_of(&path)?)
    } else {
        None
    };
    let left = (1..=n)
        .filter(|&k| {
            md5.as_deref()
                .is_none_or(|m| !shard_labelled(&layout.shard_copy(db, k, n), m))
        })
        .collect();
    Ok((Some(n), left))
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
    if let Some(job) = e.job.filter(|&j| view.job(j).is_some()) {
        v.push(job.to_string());
    }
    v
}

/// `--array`'s value for the shards `left`, or `None` if none is.
fn tasks(left: &[u32], concurrency: Option<u32>) -> Option<String> {
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

/// The shell commands that would submit `planned`, each job's ID in a
/// variable (`a1` for an array, `j1` for a job, …) the next depends on.
fn dry_run_lines(planned: &[Planned], concurrency: Option<u32>) -> Vec<String> {
    let sbatch = |var: &str, script: &Path, array: Option<&str>, after: Option<&str>, what| {
        let args: Vec<String> = queue::sbatch_args(script, array, after)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        format!("{var}=$(sbatch {})  # {what}", args.join(" "))
    };
    let mut lines = Vec::new();
    let mut previous: Option<String> = None;
    for (i, p) in planned.iter().enumerate() {
        let mut wait = previous.clone();
        if let Some(t) = tasks(&p.left, concurrency) {
            let var = format!("a{}", i + 1);
            let what = format!("{}: shards", p.stage.name);
            let dep = previous.as_ref().map(|d| format!("${d}"));
            lines.push(sbatch(
                &var,
                &p.array_script,
                Some(&t),
                dep.as_deref(),
                what,
            ));
            wait = Some(var);
        }
        let var = format!("j{}", i + 1);
        let dep = wait.as_ref().map(|d| format!("${d}"));
        lines.push(sbatch(
            &var,
            &p.script,
            None,
            dep.as_deref(),
            p.stage.name.clone(),
        ));
        previous = Some(var);
    }
    lines
}

/// Writes the stage's job script and, for a sharded label stage, its
/// array's.
fn write_scripts(layout: &Layout, s: &Submission, p: &Planned) -> Result<(), SlurmError> {
    let job_log = layout.log(p.index, &p.stage.name, None);
    let array_log = layout.log(p.index, &p.stage.name, Some("%a"));
    let job = JobScript {
        exe: s.exe,
        plan: s.plan,
        dir: &layout.round,
        stage: &p.stage.name,
        log: &job_log,
        shards: p.shards,
        array: false,
    };
    let mut scripts = vec![(&p.script, job.clone())];
    if p.shards.is_some() {
        let array = JobScript {
            log: &array_log,
            array: true,
            ..job
        };
        scripts.push((&p.array_script, array));
    }
    for (path, script) in scripts {
        support::atomic::write_file(path, script.text(s.options).as_bytes())
            .map_err(io_error(path))?;
    }
    Ok(())
}
