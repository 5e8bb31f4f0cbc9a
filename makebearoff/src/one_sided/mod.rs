//! One-sided bearoff databases (docs/formats.md#one-sided-databases): exact
//! roll distributions (with gammon distributions), in [`exact`], and the
//! normal approximation, in [`normal`]. [`OneSidedJob`] computes either
//! wave by wave in pip order ([`Waves`]) and can reuse the records of a
//! smaller database.

pub mod exact;
pub mod normal;

use crate::waves::Waves;
use board::bearoff_index::{position_count, rank, unrank};
use board::Board;
use databases::{Database, Kind, Problem, HEADER_LEN};
use rayon::prelude::*;
use std::io::{self, Write};
use support::job::{Cursor, PayloadError};
use support::Job;

pub use exact::ExactStore;
pub use normal::NormalStore;

/// Options of a one-sided database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OneSidedOptions {
    /// Points covered (15 chequers).
    pub points: usize,
    /// Store gammon distributions (`-g` turns this off).
    pub gammons: bool,
    /// Compressed layout (`-c` turns this off).
    pub compressed: bool,
    /// Normal-distribution variant (`-n`).
    pub normal: bool,
    /// Write the 40-byte header (`-H` turns this off).
    pub header: bool,
}

impl OneSidedOptions {
    /// The file kind these options produce.
    pub fn kind(&self) -> Kind {
        if self.normal {
            Kind::NormalDist {
                points: self.points as u8,
            }
        } else {
            Kind::OneSided {
                points: self.points as u8,
                gammons: self.gammons,
                compressed: self.compressed,
            }
        }
    }

    /// Records in the database.
    pub fn positions(&self) -> usize {
        position_count(self.points, 15)
    }

    /// Bytes of memory the generation needs (estimate, excluding the output buffer).
    pub fn memory_estimate(&self) -> u64 {
        let n = self.positions() as u64;
        if self.normal {
            n * (16 + 4 + 2)
        } else {
            // slots + sort keys + two s-arrays + windows (about 12 values each)
            n * (12 + 4 + 2 + 8) + n * 2 * if self.gammons { 24 } else { 12 }
        }
    }
}

/// Checks that `old` can be reused for a one-sided run with `opts`.
pub fn check_old_one_sided(opts: &OneSidedOptions, old: &Database) -> Result<(), Problem> {
    let ok = match old.kind() {
        Kind::NormalDist { .. } => opts.normal,
        Kind::OneSided { gammons, .. } => !opts.normal && (gammons || !opts.gammons),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Problem(format!(
            "old database is {}, not usable for a {} database",
            old.kind(),
            opts.kind()
        )))
    }
}

/// The generation job for `opts`: an [`ExactJob`] or, with `opts.normal`,
/// a [`NormalJob`]; `old` is a database to reuse (`-O`), already checked
/// with [`check_old_one_sided`].
pub fn one_sided_job(opts: OneSidedOptions, old: Option<Database>) -> Box<dyn Job> {
    if opts.normal {
        Box::new(NormalJob::new(opts, old))
    } else {
        Box::new(ExactJob::new(opts, old))
    }
}

/// Generation of an exact one-sided database.
pub type ExactJob = OneSidedJob<ExactStore>;
/// Generation of a normal-distribution database.
pub type NormalJob = OneSidedJob<NormalStore>;

/// How one kind of one-sided database computes, keeps, checkpoints and
/// writes its records; [`OneSidedJob`] schedules them.
pub trait Store: Send + Sync + Sized {
    /// What is computed for one layout.
    type Record: Send;
    /// An empty store for every layout of `opts`.
    fn new(opts: &OneSidedOptions) -> Self;
    /// The record of layout `id`, from the records of earlier waves.
    fn compute(&self, schedule: &Schedule, id: usize) -> Self::Record;
    /// Keeps the records of the layouts `ids` (one wave).
    fn store(&mut self, ids: &[u32], records: Vec<Self::Record>, opts: &OneSidedOptions);
    /// Appends the stored record of `id` to a checkpoint payload.
    fn encode(&self, id: usize, out: &mut Vec<u8>);
    /// Reads one record written by [`Store::encode`].
    fn decode(cur: &mut Cursor) -> Result<Self::Record, PayloadError>;
    /// Bytes of the file's records (the header excluded).
    fn records_len(&self, opts: &OneSidedOptions) -> u64;
    /// Writes the records in the file's layout.
    fn write_records(&self, opts: &OneSidedOptions, out: &mut dyn Write) -> io::Result<()>;
}

/// Generation of a one-sided database, wave by wave in pip order: every
/// layout of a wave is computed in parallel from earlier waves.
pub struct OneSidedJob<S> {
    schedule: Schedule,
    store: S,
}

impl<S: Store> OneSidedJob<S> {
    /// Prepares a job; `old` is a database to reuse (`-O`), already checked
    /// with [`check_old_one_sided`].
    pub fn new(opts: OneSidedOptions, old: Option<Database>) -> OneSidedJob<S> {
        OneSidedJob {
            store: S::new(&opts),
            schedule: Schedule {
                opts,
                waves: Waves::new(opts.points, 15),
                done: 0,
                old,
            },
        }
    }

    fn store_next(&mut self, records: Vec<S::Record>) {
        let s = &mut self.schedule;
        self.store.store(s.waves.wave(s.done), records, &s.opts);
        s.done += 1;
    }
}

impl<S: Store> Job for OneSidedJob<S> {
    fn units(&self) -> usize {
        self.schedule.waves.len()
    }

    fn units_done(&self) -> usize {
        self.schedule.done
    }

    fn positions(&self) -> u64 {
        self.schedule.opts.positions() as u64
    }

    fn positions_done(&self) -> u64 {
        self.schedule.waves.positions_before(self.schedule.done) as u64
    }

    fn compute_next(&mut self) {
        let s = &self.schedule;
        let records = s
            .waves
            .wave(s.done)
            .par_iter()
            .map(|&id| self.store.compute(s, id as usize))
            .collect();
        self.store_next(records);
    }

    fn encode_unit(&self, unit: usize, out: &mut Vec<u8>) {
        for &id in self.schedule.waves.wave(unit) {
            self.store.encode(id as usize, out);
        }
    }

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let s = &self.schedule;
        let mut cur = Cursor::new(payload);
        let records = (0..s.waves.wave(s.done).len())
            .map(|_| S::decode(&mut cur))
            .collect::<Result<Vec<_>, _>>()?;
        cur.finish()?;
        self.store_next(records);
        Ok(())
    }

    fn output_len(&self) -> u64 {
        let opts = &self.schedule.opts;
        let header = if opts.header { HEADER_LEN as u64 } else { 0 };
        header + self.store.records_len(opts)
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let opts = &self.schedule.opts;
        if opts.header {
            out.write_all(&opts.kind().header())?;
        }
        self.store.write_records(opts, out)
    }
}

/// Which layouts are computed in which order (pip-count waves), how many
/// waves are done, and the old database whose records are reused.
pub struct Schedule {
    opts: OneSidedOptions,
    waves: Waves,
    done: usize,
    old: Option<Database>,
}

impl Schedule {
    /// The layout of `id`, as the roller's side of a board.
    pub fn board(&self, id: usize) -> Board {
        let mut b = Board::EMPTY;
        unrank(id, 15, &mut b.sides[1][..self.opts.points]);
        b
    }

    /// If the old database covers this layout: the database and the
    /// layout's index there.
    pub fn old_index(&self, b: &Board) -> Option<(&Database, usize)> {
        let old = self.old.as_ref()?;
        let op = old.kind().points();
        let back = b.back(1)?;
        (back < op).then(|| (old, rank(&b.sides[1][..op])))
    }
}
