//! Regenerating a database with bgkit's generator (byte-identical to gnubg's
//! makebearoff) and comparing it with a file byte for byte: the complete
//! check, which finds any altered value, at the cost of a generation run.

use crate::header::Kind;
use crate::job::Job;
use crate::one_sided::{OneSidedJob, OneSidedOptions};
use crate::reader::{record_len, Database};
use crate::two_sided::{TwoSidedJob, TwoSidedOptions};
use std::io::{self, Write};

/// Where a file first differs from the regenerated database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Byte offset in the file.
    pub offset: u64,
    /// The record whose bytes (data or index entry) differ, `None` in the
    /// header or past the end.
    pub record: Option<u64>,
}

/// A writer that compares what is written with `expected`.
struct Comparer<'a> {
    expected: &'a [u8],
    pos: usize,
    first: Option<usize>,
}

impl Write for Comparer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.first.is_none() {
            let have = &self.expected[self.pos.min(self.expected.len())..];
            let n = buf.len().min(have.len());
            if let Some(k) = buf[..n].iter().zip(have).position(|(a, b)| a != b) {
                self.first = Some(self.pos + k);
            } else if n < buf.len() {
                self.first = Some(self.pos + n);
            }
        }
        self.pos += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The generation job for a database like `db`.
fn job_for(db: &Database) -> Result<Box<dyn Job>, String> {
    let header = db.has_header();
    Ok(match db.kind() {
        Kind::OneSided {
            points,
            gammons,
            compressed,
        } => Box::new(OneSidedJob::new(
            OneSidedOptions {
                points: points.into(),
                gammons,
                compressed,
                normal: false,
                header,
            },
            None,
        )),
        Kind::NormalDist { points } => Box::new(OneSidedJob::new(
            OneSidedOptions {
                points: points.into(),
                gammons: true,
                compressed: false,
                normal: true,
                header,
            },
            None,
        )),
        Kind::TwoSided {
            points,
            chequers,
            cubeful,
        } => Box::new(TwoSidedJob::new(
            TwoSidedOptions {
                points: points.into(),
                chequers: chequers.into(),
                cubeful,
                header,
            },
            None,
        )),
        Kind::Hyper { .. } => {
            return Err(
                "bgkit cannot regenerate Hypergammon databases (their values depend on the build)"
                    .into(),
            )
        }
    })
}

/// Regenerates `db`'s content and returns the first byte that differs, or
/// `None` if the file is identical. `progress(done, total)` is called after
/// each generation unit.
pub fn first_difference(
    db: &Database,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Option<Difference>, String> {
    let mut job = job_for(db)?;
    while !job.is_done() {
        job.compute_next();
        progress(job.units_done(), job.units());
    }
    let mut cmp = Comparer {
        expected: db.bytes(),
        pos: 0,
        first: None,
    };
    job.write(&mut cmp).map_err(|e| e.to_string())?;
    let first = cmp
        .first
        .or((cmp.pos != db.len()).then_some(cmp.pos.min(db.len())));
    Ok(first.map(|offset| Difference {
        offset: offset as u64,
        record: record_at(db, offset),
    }))
}

/// The record whose bytes include file offset `offset`.
fn record_at(db: &Database, offset: usize) -> Option<u64> {
    let start = if db.has_header() {
        crate::HEADER_LEN
    } else {
        0
    };
    let body = offset.checked_sub(start)?;
    if offset >= db.len() {
        return None;
    }
    if let Some(rec) = record_len(db.kind()) {
        return Some((body / rec) as u64);
    }
    let entry = db.entry_len();
    let index_len = db.side_positions() * entry;
    if body < index_len {
        return Some((body / entry) as u64);
    }
    // The data of record i starts at its entry's offset: find the last
    // record starting at or before this byte.
    let data_start = |id: usize| db.compressed_entry(id).0;
    let (mut lo, mut hi) = (0, db.side_positions());
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if data_start(mid) <= offset {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo as u64)
}
