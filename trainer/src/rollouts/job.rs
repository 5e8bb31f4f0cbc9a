//! Jobs that compute a position database's records in place, resumably:
//! rollouts (also in shards, docs/trainer.md#rollouts) and race labels.
//!
//! Finished positions are appended to `DB.journal` (a header binding it to
//! the job: the settings' fingerprint and the MD5 of the database's
//! positions; then one checksummed 76-byte entry per position: index,
//! record, CRC-32) and synced chunk by chunk, so kill -9 loses no finished
//! position. At the end the database is rewritten atomically with the
//! results and the journal removed. `--resume` reads the journal back (a
//! torn last entry is dropped) and continues; a journal made for other
//! settings or for a database with other positions is refused, never
//! applied. Commands that write a database refuse to replace one that
//! has a journal ([`check_no_journal`]).

use crate::positions::db::{DbError, PositionDb, Record, HAS_TARGETS, RECORD_LEN, ROLLED_OUT};
use crate::rollouts::rollout::{rollout, RolloutSettings};
use nets::Evaluator;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// What every journal starts with; the format's number follows.
const JOURNAL_KIND: &[u8] = b"bgkit rollout journal ";
const JOURNAL_MAGIC: &[u8] = b"bgkit rollout journal 2\n";
/// The length of a journal's header: the magic, the settings' fingerprint
/// and the positions' MD5, each ending a line.
pub const HEAD_LEN: usize = JOURNAL_MAGIC.len() + 2 * 33;
/// The length of a journal entry: the position's index, its record, a
/// CRC-32.
pub const ENTRY_LEN: usize = 8 + RECORD_LEN + 4;

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
    #[error("journal {path}: {why}")]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// The journal of `db`.
pub fn journal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

fn entry_bytes(index: u64, record: &Record) -> [u8; ENTRY_LEN] {
    let mut e = [0u8; ENTRY_LEN];
    e[..8].copy_from_slice(&index.to_le_bytes());
    e[8..8 + RECORD_LEN].copy_from_slice(&record.to_bytes());
    let c = crc32fast::hash(&e[..8 + RECORD_LEN]);
    e[8 + RECORD_LEN..].copy_from_slice(&c.to_le_bytes());
    e
}

/// The MD5 (hex) of a database's positions: their number and keys, in
/// order. A journal made for one database applies to no other.
pub fn positions_md5(db: &PositionDb) -> String {
    let mut bytes = Vec::with_capacity(8 + 10 * db.records.len());
    bytes.extend_from_slice(&(db.records.len() as u64).to_le_bytes());
    for r in &db.records {
        bytes.extend_from_slice(&r.key);
    }
    databases::published::md5_of(&bytes)
}

/// Fails if the database at `db` has a journal: an interrupted job
/// whose work would be lost (or, applied to another database, wrong).
/// Every command that writes or rewrites a database calls it first.
pub fn check_no_journal(db: &Path) -> Result<(), JobError> {
    let journal = journal_path(db);
    if std::fs::symlink_metadata(&journal).is_ok() {
        return Err(JobError::Journal {
            path: journal,
            why: format!(
                "exists: {} has an interrupted rollout or labelling; resume that job, or \
                 remove the journal before replacing or relabelling the database",
                db.display()
            ),
        });
    }
    Ok(())
}

/// Checks a journal's header against the job (`fingerprint`) and the
/// database (`positions`, see [`positions_md5`]).
fn check_head(bytes: &[u8], fingerprint: &str, positions: &str) -> Result<(), String> {
    if !bytes.starts_with(JOURNAL_MAGIC) {
        return Err(if bytes.starts_with(JOURNAL_KIND) {
            "it was written by an older trainer and names no database; remove it and start again"
                .into()
        } else {
            "not a bgkit journal".into()
        });
    }
    let line = |k: usize| {
        let at = JOURNAL_MAGIC.len() + 33 * k;
        bytes
            .get(at..at + 33)
            .filter(|l| l[32] == b'\n')
            .map(|l| String::from_utf8_lossy(&l[..32]).into_owned())
            .ok_or_else(|| "not a bgkit journal (its header is cut short)".to_string())
    };
    let (found, made_for) = (line(0)?, line(1)?);
    if made_for != positions {
        return Err(
            "it was made for another database (the positions differ: the database was \
             replaced since, or the journal copied); remove it and start again"
                .into(),
        );
    }
    if found != fingerprint {
        return Err(format!(
            "it was written with other settings (fingerprint {found}, now {fingerprint}): \
             resume with the same settings, weights, arithmetic and bearoff databases"
        ));
    }
    Ok(())
}

/// The complete entries of a journal's body (each for the position of
/// `records` it names), and the length they cover.
fn read_entries(body: &[u8], records: &[Record]) -> (Vec<(usize, Record)>, usize) {
    let mut out = Vec::new();
    let mut good = 0;
    for e in body.chunks_exact(ENTRY_LEN) {
        let stored = u32::from_le_bytes(e[8 + RECORD_LEN..].try_into().expect("4 bytes"));
        if crc32fast::hash(&e[..8 + RECORD_LEN]) != stored {
            break;
        }
        let index = u64::from_le_bytes(e[..8].try_into().expect("8 bytes")) as usize;
        let Ok(record) = Record::from_bytes(&e[8..8 + RECORD_LEN]) else {
            break;
        };
        if records.get(index).is_none_or(|r| r.key != record.key) {
            break;
        }
        out.push((index, record));
        good += ENTRY_LEN;
    }
    (out, good)
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
    let jerr = |why: String| JobError::Journal {
        path: journal.clone(),
        why,
    };
    let mut done = vec![false; db.records.len()];
    let positions = positions_md5(db);
    let (mut file, resumed) = if how.resume {
        reopen_journal(&journal, fingerprint, &positions, db, &mut done).map_err(jerr)?
    } else {
        (
            create_journal(&journal, fingerprint, &positions).map_err(jerr)?,
            0,
        )
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
        let mut bytes = Vec::with_capacity(part.len() * ENTRY_LEN);
        for (&i, r) in part.iter().zip(&results) {
            bytes.extend_from_slice(&entry_bytes(i as u64, r));
            db.records[i] = *r;
        }
        file.write_all(&bytes).map_err(|e| jerr(e.to_string()))?;
        file.sync_data().map_err(|e| jerr(e.to_string()))?;
        computed += part.len();
        finished += part.len();
        progress(finished);
    }
    Ok(Some((resumed, computed)))
}

/// Opens the journal of an interrupted job to continue it: checks its head
/// (`fingerprint`, `positions`), puts its complete entries into `db` and
/// marks them in `done`, drops a torn tail; returns the file (at its end)
/// and the positions read back. The error is what is wrong with it.
fn reopen_journal(
    journal: &Path,
    fingerprint: &str,
    positions: &str,
    db: &mut PositionDb,
    done: &mut [bool],
) -> Result<(std::fs::File, usize), String> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(journal)
        .map_err(|e| format!("cannot reopen it to resume: {e}"))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    check_head(&bytes, fingerprint, positions)?;
    let (entries, good) = read_entries(&bytes[HEAD_LEN..], &db.records);
    let dropped = (bytes.len() - HEAD_LEN - good) / ENTRY_LEN;
    if dropped > 0 {
        // More than a torn last entry (what kill -9 leaves): say so.
        support::note!(
            "trainer: warning: journal {}: entry {} is damaged; it and the {} complete entries after it are dropped (those positions are computed again)",
            journal.display(),
            good / ENTRY_LEN + 1,
            dropped - 1
        );
    }
    let mut resumed = 0;
    for (i, r) in entries {
        db.records[i] = r;
        if !done[i] {
            done[i] = true;
            resumed += 1;
        }
    }
    // Drop a torn tail so new entries follow complete ones.
    f.set_len((HEAD_LEN + good) as u64)
        .map_err(|e| e.to_string())?;
    f.seek(std::io::SeekFrom::End(0))
        .map_err(|e| e.to_string())?;
    Ok((f, resumed))
}

/// Creates the journal of a new job, its head (`fingerprint`,
/// `positions`) synced; an existing journal is refused.
fn create_journal(
    journal: &Path,
    fingerprint: &str,
    positions: &str,
) -> Result<std::fs::File, String> {
    if journal.exists() {
        return Err("exists: resume that job, or remove it to start again".into());
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(journal)
        .map_err(|e| e.to_string())?;
    let head = [
        JOURNAL_MAGIC,
        fingerprint.as_bytes(),
        b"\n",
        positions.as_bytes(),
        b"\n",
    ];
    f.write_all(&head.concat()).map_err(|e| e.to_string())?;
    f.sync_all().map_err(|e| e.to_string())?;
    Ok(f)
}

/// Saves `db` at `path` (atomically) and removes the journal of a job
/// that [`journaled`] ran to the end.
pub fn finish(path: &Path, db: &PositionDb) -> Result<(), JobError> {
    db.save(path)?;
    let journal = journal_path(path);
    std::fs::remove_file(&journal).map_err(|e| JobError::Journal {
        path: journal.clone(),
        why: e.to_string(),
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

    #[test]
    fn journal_entries_stop_at_damage() {
        let r = Record::new([7; 10], nets::Class::Race);
        let records = vec![r; 10];
        let mut body = Vec::new();
        for i in 0..3u64 {
            body.extend_from_slice(&entry_bytes(i, &r));
        }
        assert_eq!(read_entries(&body, &records).0.len(), 3);
        let torn = &body[..body.len() - 5];
        assert_eq!(
            read_entries(torn, &records),
            (vec![(0, r), (1, r)], 2 * ENTRY_LEN)
        );
        let mut flipped = body.clone();
        flipped[ENTRY_LEN + 3] ^= 1;
        assert_eq!(read_entries(&flipped, &records).0.len(), 1);
        assert_eq!(
            read_entries(&body, &records[..2]).0.len(),
            2,
            "an index past the end stops"
        );
        let mut other = records.clone();
        other[1].key = [8; 10];
        assert_eq!(
            read_entries(&body, &other).0.len(),
            1,
            "an entry for another position stops"
        );
    }

    #[test]
    fn journals_are_bound_to_their_settings_and_positions() {
        let mut db = PositionDb::default();
        db.records.push(Record::new([7; 10], nets::Class::Race));
        let positions = positions_md5(&db);
        let settings = "0123456789abcdef0123456789abcdef";
        let head = [
            JOURNAL_MAGIC,
            settings.as_bytes(),
            b"\n",
            positions.as_bytes(),
            b"\n",
        ]
        .concat();
        assert_eq!(head.len(), HEAD_LEN);
        assert_eq!(check_head(&head, settings, &positions), Ok(()));
        let other = "fedcba9876543210fedcba9876543210";
        assert!(check_head(&head, other, &positions)
            .unwrap_err()
            .contains("other settings"));
        let mut moved = db.clone();
        moved.records.push(Record::new([8; 10], nets::Class::Race));
        assert_ne!(positions_md5(&moved), positions);
        assert!(check_head(&head, settings, &positions_md5(&moved))
            .unwrap_err()
            .contains("another database"));
        let old = [
            &b"bgkit rollout journal 1\n"[..],
            settings.as_bytes(),
            b"\n",
        ]
        .concat();
        assert!(check_head(&old, settings, &positions)
            .unwrap_err()
            .contains("older trainer"));
        assert!(check_head(&head[..HEAD_LEN - 3], settings, &positions).is_err());
        assert!(check_head(b"hello", settings, &positions)
            .unwrap_err()
            .contains("not a bgkit journal"));
    }
}
