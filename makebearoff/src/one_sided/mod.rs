//! One-sided bearoff databases (docs/formats.md#one-sided-databases): exact
//! roll distributions (with gammon distributions), in [`exact`], and the
//! normal approximation, in [`normal`]. Both are computed wave by wave in
//! pip order ([`Waves`]) and can reuse the records of a smaller database.

pub mod exact;
pub mod normal;

use crate::waves::Waves;
use board::bearoff_index::{position_count, rank, unrank};
use board::Board;
use databases::{Database, Kind, Problem};
use support::Job;

pub use exact::ExactJob;
pub use normal::NormalJob;

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

/// What both kinds of job share: the options, the waves, how many are
/// done, and the database being reused.
struct Progress {
    opts: OneSidedOptions,
    waves: Waves,
    done: usize,
    old: Option<Database>,
}

impl Progress {
    fn new(opts: OneSidedOptions, old: Option<Database>) -> Progress {
        Progress {
            opts,
            waves: Waves::new(opts.points, 15),
            done: 0,
            old,
        }
    }

    /// The positions of the next wave.
    fn next_wave(&self) -> &[u32] {
        self.waves.wave(self.done)
    }

    /// The layout of `id`, as the roller's side of a board.
    fn board(&self, id: usize) -> Board {
        let mut b = Board::EMPTY;
        unrank(id, 15, &mut b.sides[1][..self.opts.points]);
        b
    }

    /// If the old database covers this layout, its index there.
    fn old_index(&self, b: &Board) -> Option<(&Database, usize)> {
        let old = self.old.as_ref()?;
        let op = old.kind().points();
        let back = b.back(1)?;
        (back < op).then(|| (old, rank(&b.sides[1][..op])))
    }

    fn header_len(&self) -> u64 {
        if self.opts.header {
            databases::HEADER_LEN as u64
        } else {
            0
        }
    }
}
