//! What a round's Slurm jobs run (`trainer round PLAN --slurm-task
//! STAGE`): a shard of a label stage on its copy, or a stage through the
//! round's runner, after merging the shards' copies for a label stage.
//!
//! A shard's copy is tied to the database it was copied from: beside it,
//! `COPY.source` holds that database's MD5, and a shard counts as
//! labelled only while its marker exists and the database still has that
//! MD5. A copy of an older database (the round's files removed and made
//! again, say) is never merged: it is labelled again from the new one.

use super::{io_error, Layout, SlurmError};
use crate::pipeline::runner::run_command;
use crate::pipeline::Stage;
use crate::pipeline::{marker, Round, RoundEnd, StageEvent};
use crate::positions::db::PositionDb;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The file beside a shard's copy that names the database it came from.
fn source_of(copy: &Path) -> PathBuf {
    support::atomic::with_suffix(copy, ".source")
}

/// The MD5 of the database at `path`.
pub fn md5_of(path: &Path) -> Result<String, SlurmError> {
    support::digest::md5_of_file(path).map_err(io_error(path))
}

/// True if the shard whose copy is `copy` is labelled from the database
/// whose MD5 is `db_md5`.
pub fn shard_labelled(copy: &Path, db_md5: &str) -> bool {
    marker(copy).exists()
        && std::fs::read_to_string(source_of(copy)).is_ok_and(|s| s.trim() == db_md5)
}

/// Labels shard `k` of `n` of the label stage `stage`'s database: on a
/// copy in `slurm/shards/` (made once, whole), resumed from the copy's
/// journal if a run of the task was stopped (pre-empted, requeued), and
/// marked labelled when done. A shard without positions (a database
/// smaller than the shard count) is marked labelled without a copy.
/// Shard tasks run side by side and touch neither the round's record nor
/// its files.
pub fn run_shard(
    round: &Round,
    layout: &Layout,
    name: &str,
    (k, n): (u32, u32),
    stop: &AtomicBool,
) -> Result<RoundEnd, SlurmError> {
    let stage = round.stage(name)?;
    let Some(db) = stage.labelled_db() else {
        return Err(SlurmError::Refused(format!(
            "stage {:?} is not a label stage: it has no shards",
            stage.name
        )));
    };
    if !(1..=n).contains(&k) {
        return Err(SlurmError::Refused(format!("shard {k}/{n} does not exist")));
    }
    let source = round.dir().join(db);
    let db_md5 = md5_of(&source)?;
    let copy = layout.shard_copy(db, k, n);
    if shard_labelled(&copy, &db_md5) {
        return Ok(RoundEnd::Finished);
    }
    let folder = support::atomic::parent_dir(&copy);
    std::fs::create_dir_all(&folder).map_err(io_error(&folder))?;
    let copied_from = std::fs::read_to_string(source_of(&copy)).unwrap_or_default();
    if copied_from.trim() != db_md5 {
        // A copy of another database, or none: start afresh.
        remove_copy(&copy)?;
        let positions = PositionDb::open(&source)
            .map_err(|e| SlurmError::Refused(format!("{}: {e}", source.display())))?
            .records
            .len();
        if positions < k as usize {
            write_source(&copy, &db_md5)?;
            let done = marker(&copy);
            support::atomic::write_file(&done, b"").map_err(io_error(&done))?;
            return Ok(RoundEnd::Finished);
        }
        let part = support::atomic::hidden_sibling(&copy, ".tmp");
        std::fs::copy(&source, &part).map_err(io_error(&source))?;
        std::fs::rename(&part, &copy).map_err(io_error(&copy))?;
        write_source(&copy, &db_md5)?;
    }
    support::atomic::remove_temporaries_of(&copy).map_err(io_error(&copy))?;
    let mut line: Vec<OsString> = vec![exe()?];
    line.extend(stage.shard_args(&copy, k, n));
    line.extend(round.run_flags(stage));
    if crate::rollouts::journal::journal_path(&copy).exists() {
        line.push("--resume".into());
    }
    let ran = run_command(&line, round.dir(), false, stop).map_err(io_error(&copy))?;
    if !ran.status.success() {
        if ran.interrupted(stop) {
            return Ok(RoundEnd::Interrupted);
        }
        return Err(ran.failure(format!("{name} (shard {k}/{n})"), &line).into());
    }
    let done = marker(&copy);
    support::atomic::write_file(&done, b"").map_err(io_error(&done))?;
    Ok(RoundEnd::Finished)
}

/// Runs the stage named `name` through the round's runner, once every
/// stage before it is done; for a label stage labelled in `shards`
/// shards, merges the shards' labelled copies into its database first
/// (the merge of every shard is the unsharded labelling, which the
/// stage's command then finds done) and removes them after. A database
/// with a journal (its labelling begun whole, by a local round or a job)
/// is not merged into: the stage resumes that labelling.
pub fn run_job(
    round: &mut Round,
    layout: &Layout,
    name: &str,
    shards: Option<u32>,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&Stage, StageEvent),
) -> Result<RoundEnd, SlurmError> {
    let stage = round.stage(name)?.clone();
    let copies: Vec<PathBuf> = match (shards, stage.labelled_db()) {
        (Some(n), Some(db)) => (1..=n).map(|k| layout.shard_copy(db, k, n)).collect(),
        (Some(_), None) => {
            return Err(SlurmError::Refused(format!(
                "stage {name:?} is not a label stage: it has no shards"
            )))
        }
        _ => Vec::new(),
    };
    round.clean()?;
    let todo = round.status(&stage) == crate::pipeline::Status::ToDo;
    if let (true, Some(db)) = (todo && !copies.is_empty(), stage.labelled_db()) {
        let path = round.dir().join(db);
        if !crate::rollouts::journal::journal_path(&path).exists() {
            match merge_shards(round, name, db, &copies, stop) {
                Err(SlurmError::Interrupted) => return Ok(RoundEnd::Interrupted),
                merged => merged?,
            }
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

/// Merges the labelled shards' `copies` into the database `db` (relative
/// to the round), each checked to come from it.
fn merge_shards(
    round: &Round,
    name: &str,
    db: &Path,
    copies: &[PathBuf],
    stop: &AtomicBool,
) -> Result<(), SlurmError> {
    let db_md5 = md5_of(&round.dir().join(db))?;
    if let Some(k) = copies.iter().position(|c| !shard_labelled(c, &db_md5)) {
        return Err(SlurmError::Refused(format!(
            "stage {name:?}: shard {}/{} of {} is not labelled (its task failed or was \
             cancelled, or labelled another {}): submit the round again",
            k + 1,
            copies.len(),
            db.display(),
            db.display()
        )));
    }
    let mut line: Vec<OsString> = vec![exe()?, "db".into(), "merge".into()];
    // A shard without positions has no copy.
    line.extend(copies.iter().filter(|c| c.exists()).map(|c| c.into()));
    line.extend(["-o".into(), db.into()]);
    let ran = run_command(&line, round.dir(), true, stop).map_err(io_error(db))?;
    if ran.status.success() {
        return Ok(());
    }
    if ran.interrupted(stop) {
        return Err(SlurmError::Interrupted);
    }
    Err(ran
        .failure(format!("{name} (merging the shards)"), &line)
        .into())
}

/// This executable, which the jobs' commands run.
fn exe() -> Result<OsString, SlurmError> {
    Ok(std::env::current_exe()
        .map_err(io_error(Path::new("trainer")))?
        .into())
}

/// Records the database a copy comes from.
fn write_source(copy: &Path, db_md5: &str) -> Result<(), SlurmError> {
    let source = source_of(copy);
    support::atomic::write_file(&source, format!("{db_md5}\n").as_bytes())
        .map_err(io_error(&source))
}

/// Removes a shard's copy and what its labelling left beside it.
fn remove_copy(copy: &Path) -> Result<(), SlurmError> {
    let mut files: Vec<PathBuf> = vec![copy.to_owned(), source_of(copy)];
    files.extend(crate::pipeline::side_files(copy));
    for f in &files {
        support::atomic::remove_if_present(f).map_err(io_error(f))?;
    }
    if support::atomic::parent_dir(copy).is_dir() {
        support::atomic::remove_temporaries_of(copy).map_err(io_error(copy))?;
    }
    Ok(())
}
