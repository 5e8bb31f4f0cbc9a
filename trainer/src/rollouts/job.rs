//! Jobs that compute a position database's records in place, resumably:
//! rollouts (also in shards, docs/trainer.md#rollouts) and race labels.
//!
//! Finished positions are appended to the database's journal
//! ([`crate::rollouts::journal`]) and synced chunk by chunk, so kill -9
//! loses no finished position. At the end the database is rewritten
//! atomically with the results and the journal removed. `--resume` reads
//! the journal back (a torn last block is dropped) and continues; a
//! journal made for other settings or for a database with other positions
//! is refused, never applied. Commands that write a database refuse to
//! replace one that has a journal ([`check_no_journal`]).

use crate::positions::db::{DbError, PositionDb, Record, HAS_TARGETS, ROLLED_OUT};
use crate::rollouts::journal::{create_journal, journal_entries, reopen_journal};
use crate::rollouts::rollout::{rollout, RolloutSettings};
use nets::Evaluator;
use std::path::Path;

pub use crate::rollouts::journal::{
    check_no_journal, journal_path, positions_md5, JournalError, ENTRY_LEN, HEAD_LEN,
};

/// Which positions a run rolls out: those whose index `i` has
/// `i mod count == index − 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, 1-based.
    pub index: u64,
    /// N.
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s}: expected K/N with 1 ≤ K ≤ N (e.g. 2/8)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.parse::<u64>().map_err(|_| bad())?,
            n.parse::<u64>().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The whole database.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// True if position `i` belongs to this shard.
    pub fn contains(&self, i: usize) -> bool {
        i as u64 % self.count == self.index - 1
    }
}

/// Why a journaled job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The journal.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobSummary {
    /// Positions of the shard.
    pub in_shard: usize,
    /// Rolled out by earlier (interrupted) runs, read from the journal.
    pub resumed: usize,
    /// Rolled out by this run.
    pub rolled: usize,
    /// Already rolled out with these settings before the run.
    pub kept: usize,
}

/// How a rollout job runs (none of this changes its results).
#[derive(Clone, Copy, Debug)]
pub struct JobOptions {
    /// The positions to roll out.
    pub shard: Shard,
    /// Continue from the journal.
    pub resume: bool,
    /// Positions between journal syncs.
    pub chunk: usize,
}

/// Rolls out the positions of `options.shard` in the database at `path`
/// with `eval` and `settings`. `progress(done, total)` is called after
/// every chunk; `stop()` ends the run after a chunk (the journal keeps the
/// work; returns `None`).
pub fn rollout_db(
    path: &Path,
    eval: &Evaluator,
    settings: &RolloutSettings,
    options: JobOptions,
    progress: &mut dyn FnMut(usize, usize),
    stop: &dyn Fn() -> bool,
) -> Result<Option<JobSummary>, JobError> {
    let JobOptions {
        shard,
        resume,
        chunk,
    } = options;
    let mut db = PositionDb::open(path)?;
    let fingerprint = settings.fingerprint();
    if let Some(s) = &db.rollout_settings {
        if *s != fingerprint && db.records.iter().any(Record::rolled_out) {
            return Err(JobError::Db(DbError::Conflict(format!(
                "{} was rolled out with other settings (fingerprint {s}, now {fingerprint}); \
                 roll out a copy without those results",
                path.display()
            ))));
        }
    }
    let same_settings = db.rollout_settings.as_deref() == Some(fingerprint.as_str());
    let mut summary = JobSummary::default();
    let mut todo = Vec::new();
    for (i, r) in db.records.iter().enumerate() {
        if !shard.contains(i) {
            continue;
        }
        summary.in_shard += 1;
        if same_settings && r.rolled_out() && r.trials == settings.trials {
            summary.kept += 1;
            continue;
        }
        todo.push(i);
    }
    let kept = summary.kept;
    let total = summary.in_shard;
    let work = |i: usize, r: &Record| -> Result<Record, DbError> {
        let board = board::Board::from_id_bytes(&r.key)
            .map_err(|e| DbError::Corrupt(format!("record {i} is not a position ({e})")))?;
        let out = rollout(eval, &board, settings);
        Ok(Record {
            flags: HAS_TARGETS | ROLLED_OUT,
            trials: out.trials,
            targets: out.mean,
            equity: out.equity,
            std_errors: out.std_error,
            equity_std_error: out.equity_std_error,
            ..*r
        })
    };
    let ran = journaled(
        path,
        &mut db,
        &fingerprint,
        todo,
        Journal { resume, chunk },
        &work,
        &mut |done| progress(kept + done, total),
        stop,
    )?;
    let Some((resumed, rolled)) = ran else {
        return Ok(None);
    };
    summary.resumed = resumed;
    summary.rolled = rolled;
    db.rollout_settings = Some(fingerprint);
    // Rolled-out targets are not an evaluation's labels.
    db.labels = None;
    finish(path, &db)?;
    Ok(Some(summary))
}

/// How a journaled job runs.
#[derive(Clone, Copy, Debug)]
pub struct Journal {
    /// Continue from the journal.
    pub resume: bool,
    /// Positions between journal syncs.
    pub chunk: usize,
}

/// Computes `work(i, record)` for every index `i` of `todo` (in order,
/// each chunk of positions in parallel) into `db`, the database at `path`,
/// journaling the results under `fingerprint` (32 characters: the job's
/// settings) as described in the module documentation. With `resume`, the
/// positions of the journal are read back and not computed again.
/// `progress(done)` gets the positions finished so far (read back or
/// computed); `stop()` ends the run after a chunk (the journal keeps the
/// work; returns `None`). Returns (positions read back, positions
/// computed); the caller then saves `db` with [`finish`].
#[allow(clippy::too_many_arguments)]
pub fn journaled(
    path: &Path,
    db: &mut PositionDb,
    fingerprint: &str,
    todo: Vec<usize>,
    how: Journal,
    work: &(dyn Fn(usize, &Record) -> Result<Record, DbError> + Sync),
    progress: &mut dyn FnMut(usize),
    stop: &dyn Fn() -> bool,
) -> Result<Option<(usize, usize)>, JobError> {
    use rayon::prelude::*;
    assert_eq!(fingerprint.len(), 32, "a fingerprint has 32 characters");
    let journal = journal_path(path);
    let jerr = |why: String| {
        JobError::from(JournalError {
            path: journal.clone(),
            why,
        })
    };
    let mut done = vec![false; db.records.len()];
    let (mut file, resumed) = if how.resume {
        reopen_journal(&journal, fingerprint, db, &mut done).map_err(jerr)?
    } else {
        let positions = positions_md5(db);
        let file = create_journal(&journal, fingerprint, &positions).map_err(jerr)?;
        (file, 0)
    };
    let todo: Vec<usize> = todo.into_iter().filter(|&i| !done[i]).collect();
    let mut finished = resumed;
    progress(finished);
    let mut computed = 0;
    for part in todo.chunks(how.chunk.max(1)) {
        if stop() {
            return Ok(None);
        }
        let records = &db.records;
        let results: Vec<Record> = part
            .par_iter()
            .map(|&i| work(i, &records[i]))
            .collect::<Result<_, DbError>>()?;
        for (&i, r) in part.iter().zip(&results) {
            db.records[i] = *r;
        }
        file.append_block(&journal_entries(part, &results))
            .map_err(|e| jerr(e.to_string()))?;
        computed += part.len();
        finished += part.len();
        progress(finished);
    }
    Ok(Some((resumed, computed)))
}

/// Saves `db` at `path` (atomically) and removes the journal of a job
/// that [`journaled`] ran to the end.
pub fn finish(path: &Path, db: &PositionDb) -> Result<(), JobError> {
    db.save(path)?;
    let journal = journal_path(path);
    std::fs::remove_file(&journal).map_err(|e| {
        JobError::from(JournalError {
            path: journal.clone(),
            why: e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition() {
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
        for bad in ["0/2", "3/2", "2/0", "1", "a/b", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for i in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.contains(i)).count(), 1);
        }
    }
}
