//! What a round's Slurm jobs run (`trainer round PLAN --slurm-task
//! STAGE`): a shard of a label stage on its copy, or a stage through the
//! round's runner, after merging the shards' copies for a label stage.

use super::{io_error, Layout, SlurmError};
use crate::pipeline::runner::{run_command, shown};
use crate::pipeline::{marker, PipelineError, Round, RoundEnd, Stage, StageEvent};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Labels shard `k` of `n` of the label stage `stage`'s database: on a
/// copy in `slurm/shards/` (made once, whole), resumed from the copy's
/// journal if a run of the task was stopped (pre-empted, requeued), and
/// marked labelled when done. Shard tasks run side by side and touch
/// neither the round's record nor its files.
pub fn run_shard(
    round: &Round,
    layout: &Layout,
    stage: &Stage,
    (k, n): (u32, u32),
    stop: &AtomicBool,
) -> Result<RoundEnd, SlurmError> {
    let Some(db) = stage.labelled_db() else {
        return Err(PipelineError::Refused(format!(
            "stage {:?} is not a label stage: it has no shards",
            stage.name
        ))
        .into());
    };
    if !(1..=n).contains(&k) {
        return Err(PipelineError::Refused(format!("shard {k}/{n} does not exist")).into());
    }
    let copy = layout.shard_copy(db, k, n);
    if marker(&copy).exists() {
        return Ok(RoundEnd::Finished);
    }
    support::atomic::remove_temporaries_of(&copy).map_err(io_error(&copy))?;
    if !copy.exists() {
        let folder = support::atomic::parent_dir(&copy);
        std::fs::create_dir_all(&folder).map_err(io_error(&folder))?;
        let part = support::atomic::hidden_sibling(&copy, ".tmp");
        let source = round.dir().join(db);
        std::fs::copy(&source, &part).map_err(io_error(&source))?;
        std::fs::rename(&part, &copy).map_err(io_error(&copy))?;
    }
    let mut line: Vec<OsString> = vec![std::env::current_exe()
        .map_err(io_error(Path::new("trainer")))?
        .into()];
    line.extend(stage.shard_args(&copy, k, n));
    line.extend(round.run_flags(stage));
    if crate::rollouts::journal::journal_path(&copy).exists() {
        line.push("--resume".into());
    }
    let ran = run_command(&line, round.dir(), false, stop).map_err(io_error(&copy))?;
    if !ran.status.success() {
        if ran.status.code() == Some(130) {
            return Ok(RoundEnd::Interrupted);
        }
        return Err(PipelineError::Stage {
            stage: format!("{} (shard {k}/{n})", stage.name),
            status: ran.status.to_string(),
            why: ran.last_error.unwrap_or_else(|| "no error message".into()),
            command: shown(&line),
        }
        .into());
    }
    let done = marker(&copy);
    support::atomic::write_file(&done, b"").map_err(io_error(&done))?;
    Ok(RoundEnd::Finished)
}

/// Runs the stage named `name` through the round's runner, once every
/// stage before it is done; for a label stage labelled in `shards`
/// shards, merges the shards' labelled copies into its database first
/// (the merge of every shard is the unsharded labelling, which the
/// stage's command then finds done) and removes them after.
pub fn run_job(
    round: &mut Round,
    layout: &Layout,
    name: &str,
    shards: Option<u32>,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&Stage, StageEvent),
) -> Result<RoundEnd, SlurmError> {
    let Some(stage) = round.stages().iter().find(|s| s.name == name).cloned() else {
        return Err(PipelineError::Refused(format!("the plan has no stage {name:?}")).into());
    };
    let copies = match (shards, stage.labelled_db()) {
        (Some(n), Some(db)) => (1..=n).map(|k| layout.shard_copy(db, k, n)).collect(),
        (Some(_), None) => {
            return Err(PipelineError::Refused(format!(
                "stage {name:?} is not a label stage: it has no shards"
            ))
            .into())
        }
        _ => Vec::new(),
    };
    round.clean()?;
    if round.status(&stage) == crate::pipeline::Status::ToDo && !copies.is_empty() {
        if let Some(missing) = copies.iter().position(|c| !marker(c).exists()) {
            return Err(PipelineError::Refused(format!(
                "stage {name:?}: shard {}/{} is not labelled ({} has no marker): its task \
                 failed or was cancelled; submit the round again",
                missing + 1,
                copies.len(),
                copies[missing].display()
            ))
            .into());
        }
        let db = stage.labelled_db().expect("a label stage");
        let mut line: Vec<OsString> = vec![std::env::current_exe()
            .map_err(io_error(Path::new("trainer")))?
            .into()];
        line.extend(["db".into(), "merge".into()]);
        line.extend(copies.iter().map(|c| c.clone().into()));
        line.extend(["-o".into(), db.into()]);
        let ran = run_command(&line, round.dir(), true, stop).map_err(io_error(db))?;
        if !ran.status.success() {
            return Err(PipelineError::Stage {
                stage: format!("{name} (merging the shards)"),
                status: ran.status.to_string(),
                why: ran.last_error.unwrap_or_else(|| "no error message".into()),
                command: shown(&line),
            }
            .into());
        }
    }
    let end = round.run_stage(name, stop, report)?;
    if end == RoundEnd::Finished {
        for copy in &copies {
            remove_copy(copy)?;
        }
    }
    Ok(end)
}

/// Removes a shard's copy and what its labelling left beside it.
fn remove_copy(copy: &Path) -> Result<(), SlurmError> {
    let mut files: Vec<PathBuf> = vec![copy.to_owned()];
    files.extend(crate::pipeline::side_files(copy));
    for f in files {
        support::atomic::remove_if_present(&f).map_err(io_error(&f))?;
    }
    Ok(())
}
