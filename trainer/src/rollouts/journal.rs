//! The journal of a journaled job (a rollout or a race labelling),
//! `DB.journal` (docs/formats.md#checkpoint-files): a
//! [`support::checkpoint`] file whose fingerprint binds it to the job's
//! settings and to the database's positions, with one block per synced
//! chunk of finished positions, each entry a position's index (u64) and
//! its record.
//!
//! The policy kept here: a journal of other settings or made for another
//! database is refused, each saying so, and so is one holding an entry
//! whose position's key is not the database's at that index.

use crate::positions::db::{PositionDb, Record, RECORD_LEN};
use std::path::{Path, PathBuf};
use support::checkpoint::{self, Checkpoint, Problem};
use support::PayloadError;

/// The kind and version of a journal, first in its fingerprint.
const KIND: &str = "rollout journal 3";
/// The length of a journal's fingerprint: the kind, then the settings'
/// fingerprint and the positions' MD5 (32 hex digits each), named.
const FINGERPRINT_LEN: usize = KIND.len() + " settings ".len() + 32 + " positions ".len() + 32;
/// The length of a journal's head (before its first block).
pub const HEAD_LEN: usize = checkpoint::head_len(FINGERPRINT_LEN);
/// The length of a journal entry: the position's index and its record.
pub const ENTRY_LEN: usize = 8 + RECORD_LEN;

/// Why a journal cannot be used (created, reopened, appended to or
/// removed), or why one that exists forbids writing its database.
#[derive(Debug, thiserror::Error)]
#[error("journal {path}: {why}")]
pub struct JournalError {
    /// The journal file.
    pub path: PathBuf,
    /// What is wrong.
    pub why: String,
}

/// The journal of `db`.
pub fn journal_path(db: &Path) -> PathBuf {
    support::atomic::with_suffix(db, ".journal")
}

/// The MD5 (hex) of a database's positions: their number and keys, in
/// order. A journal made for one database applies to no other.
pub fn positions_md5(db: &PositionDb) -> String {
    let mut bytes = Vec::with_capacity(8 + 10 * db.records.len());
    bytes.extend_from_slice(&(db.records.len() as u64).to_le_bytes());
    for r in &db.records {
        bytes.extend_from_slice(&r.key);
    }
    support::digest::md5_of(&bytes)
}

/// Fails if the database at `db` has a journal: an interrupted job
/// whose work would be lost (or, applied to another database, wrong).
/// Every command that writes or rewrites a database calls it first.
pub fn check_no_journal(db: &Path) -> Result<(), JournalError> {
    let journal = journal_path(db);
    if std::fs::symlink_metadata(&journal).is_ok() {
        return Err(JournalError {
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

/// The fingerprint of a journal of a job with `settings` (its
/// fingerprint) on the database whose positions are `positions` (see
/// [`positions_md5`]).
fn fingerprint(settings: &str, positions: &str) -> String {
    format!("{KIND} settings {settings} positions {positions}")
}

/// Checks a journal's fingerprint (`found`) against the job (`settings`)
/// and the database (`positions`); the error says what differs.
fn check_fingerprint(found: &str, settings: &str, positions: &str) -> Result<(), String> {
    let fields = found
        .strip_prefix(KIND)
        .and_then(|rest| rest.strip_prefix(" settings "))
        .and_then(|rest| rest.split_once(" positions "));
    let Some((made_with, made_for)) = fields else {
        return Err(format!(
            "not a rollout journal of this trainer (a checkpoint of {})",
            support::stdio::shorten(found, 60)
        ));
    };
    if made_for != positions {
        return Err(
            "it was made for another database (the positions differ: the database was \
             replaced since, or the journal copied); remove it and start again"
                .into(),
        );
    }
    if made_with != settings {
        return Err(format!(
            "it was written with other settings (fingerprint {made_with}, now {settings}): \
             resume with the same settings, weights, arithmetic and bearoff databases"
        ));
    }
    Ok(())
}

/// A block's payload: the entries of the positions `indices` with their
/// new `records`.
pub(crate) fn journal_entries(indices: &[usize], records: &[Record]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(indices.len() * ENTRY_LEN);
    for (&i, r) in indices.iter().zip(records) {
        bytes.extend_from_slice(&(i as u64).to_le_bytes());
        bytes.extend_from_slice(&r.to_bytes());
    }
    bytes
}

/// The entries of a block's payload, each for the position of `records`
/// it names (same key).
fn read_entries(payload: &[u8], records: &[Record]) -> Result<Vec<(usize, Record)>, PayloadError> {
    if !payload.len().is_multiple_of(ENTRY_LEN) {
        return Err(PayloadError::Invalid("a part of an entry"));
    }
    let entry = |e: &[u8]| {
        let index = u64::from_le_bytes(e[..8].try_into().expect("8 bytes")) as usize;
        let record = Record::from_bytes(&e[8..])
            .map_err(|_| PayloadError::Invalid("a record with an unknown class or flags"))?;
        if records.get(index).is_none_or(|r| r.key != record.key) {
            return Err(PayloadError::Invalid("an entry for another position"));
        }
        Ok((index, record))
    };
    payload.chunks_exact(ENTRY_LEN).map(entry).collect()
}

/// Creates the journal of a new job (`settings`, on the database whose
/// positions are `positions`), its head synced; an existing journal is
/// refused. The error is what is wrong.
pub(crate) fn create_journal(
    journal: &Path,
    settings: &str,
    positions: &str,
) -> Result<Checkpoint, String> {
    if std::fs::symlink_metadata(journal).is_ok() {
        return Err("exists: resume that job, or remove it to start again".into());
    }
    Checkpoint::create(journal, &fingerprint(settings, positions)).map_err(|e| e.to_string())
}

/// Opens the journal of an interrupted job (`settings`) on `db` to
/// continue it: checks its fingerprint, puts its entries into `db` and
/// marks them in `done`, drops a torn or damaged tail (saying so when
/// more than a torn last block is lost); returns it, ready to append to,
/// and the positions read back. The error is what is wrong with it.
pub(crate) fn reopen_journal(
    journal: &Path,
    settings: &str,
    db: &mut PositionDb,
    done: &mut [bool],
) -> Result<(Checkpoint, usize), String> {
    let positions = positions_md5(db);
    let records = &mut db.records;
    let mut resumed = 0;
    let restore = |payload: &[u8]| {
        for (i, r) in read_entries(payload, records)? {
            records[i] = r;
            if !done[i] {
                done[i] = true;
                resumed += 1;
            }
        }
        Ok(())
    };
    let check = |found: &str| check_fingerprint(found, settings, &positions);
    let (file, damage) =
        Checkpoint::open(journal, check, restore).map_err(|e| match e.problem {
            Problem::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                "there is none to resume (run without --resume to start)".to_string()
            }
            Problem::Io(e) => format!("cannot reopen it to resume: {e}"),
            problem => problem.to_string(),
        })?;
    if let Some(d) = damage {
        support::note!(
            "trainer: warning: journal {}: block {} is damaged; it and all after it ({} bytes) are dropped (those positions are computed again)",
            journal.display(),
            d.block,
            d.bytes
        );
    }
    Ok((file, resumed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: &str = "0123456789abcdef0123456789abcdef";

    fn db(keys: &[u8]) -> PositionDb {
        let mut db = PositionDb::default();
        for &k in keys {
            db.records.push(Record::new([k; 10], nets::Class::Race));
        }
        db
    }

    #[test]
    fn entries_are_checked_against_the_database() {
        let records = db(&[7, 8, 9]).records;
        let bytes = journal_entries(&[2, 0], &[records[2], records[0]]);
        assert_eq!(bytes.len(), 2 * ENTRY_LEN);
        assert_eq!(
            read_entries(&bytes, &records),
            Ok(vec![(2, records[2]), (0, records[0])])
        );
        assert!(read_entries(&bytes[..ENTRY_LEN + 3], &records).is_err());
        assert_eq!(
            read_entries(&bytes, &records[..2]),
            Err(PayloadError::Invalid("an entry for another position")),
            "an index past the end"
        );
        let mut other = records.clone();
        other[0].key = [1; 10];
        assert!(read_entries(&bytes, &other).is_err(), "another position");
        let mut flags = bytes.clone();
        flags[8 + 11] = 0x80;
        assert!(read_entries(&flags, &records).is_err(), "unknown flags");
    }

    #[test]
    fn journals_are_bound_to_their_settings_and_positions() {
        let positions = positions_md5(&db(&[7]));
        let found = fingerprint(SETTINGS, &positions);
        assert_eq!(found.len(), FINGERPRINT_LEN);
        assert_eq!(check_fingerprint(&found, SETTINGS, &positions), Ok(()));
        let other = "fedcba9876543210fedcba9876543210";
        let e = check_fingerprint(&found, other, &positions).unwrap_err();
        assert!(e.contains("other settings") && e.contains(other), "{e}");
        let moved = positions_md5(&db(&[7, 8]));
        assert_ne!(moved, positions);
        let e = check_fingerprint(&found, SETTINGS, &moved).unwrap_err();
        assert!(e.contains("another database"), "{e}");
        let e = check_fingerprint("makebearoff -o 6", SETTINGS, &positions).unwrap_err();
        assert!(e.contains("not a rollout journal"), "{e}");
    }

    #[test]
    fn a_journal_reads_back_and_an_older_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("a.db.journal");
        let mut db = db(&[7, 8, 9]);
        let positions = positions_md5(&db);
        let mut file = create_journal(&journal, SETTINGS, &positions).unwrap();
        let mut done = db.records[1];
        done.trials = 5;
        file.append_block(&journal_entries(&[1], &[done])).unwrap();
        assert!(create_journal(&journal, SETTINGS, &positions)
            .unwrap_err()
            .contains("exists"));
        let size = std::fs::metadata(&journal).unwrap().len() as usize;
        assert_eq!(size, HEAD_LEN + checkpoint::BLOCK_OVERHEAD + ENTRY_LEN);
        let mut marks = [false; 3];
        let (file, resumed) = reopen_journal(&journal, SETTINGS, &mut db, &mut marks).unwrap();
        assert_eq!(
            (resumed, marks, db.records[1]),
            (1, [false, true, false], done)
        );
        assert_eq!(file.blocks(), 1);
        let old = b"bgkit rollout journal 2\n0123456789abcdef0123456789abcdef\n";
        std::fs::write(&journal, old).unwrap();
        let e = reopen_journal(&journal, SETTINGS, &mut db, &mut marks)
            .err()
            .unwrap();
        assert!(e.contains("older bgkit (bgkit rollout journal 2)"), "{e}");
        assert_eq!(std::fs::read(&journal).unwrap(), old);
    }
}
