//! Evaluation from bearoff databases (docs/formats.md#bearoff-evaluation): a one-sided
//! database (gnubg's `gnubg_os0.bd` or ours) and optionally a two-sided one
//! (`gnubg_ts0.bd`), read through the `databases` crate.

use crate::arith::Arithmetic;
use crate::first_off;
use crate::occupancy::Occupancy;
use board::Board;
use board::Probabilities;
use databases::decode::{probabilities, race_probabilities};
use databases::Distribution;
use databases::{Database, Kind};
use std::fmt;
use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI8, Ordering};

/// Why a set of bearoff databases cannot be used for evaluation.
#[derive(Debug, thiserror::Error)]
pub enum BearoffError {
    /// The file could not be opened or is not a valid database.
    #[error(transparent)]
    Read(#[from] databases::reader::ReadError),
    /// The database kind cannot be used by the evaluator.
    #[error("{}: {kind} databases cannot be used for evaluation (need an exact one-sided or a two-sided bearoff database)", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What it holds.
        kind: Kind,
    },
    /// Two databases of the same kind were given.
    #[error("{}: a {} database was already given; pass at most one one-sided and one two-sided database", .0.display(), .1)]
    Duplicate(PathBuf, &'static str),
    /// The one-sided database covers fewer than the six home points.
    #[error("{}: a one-sided database must cover at least 6 points (it has {})", .0.display(), .1)]
    TooSmall(PathBuf, usize),
    /// No one-sided database: races cannot be evaluated.
    #[error("no one-sided bearoff database: gnubg's evaluation needs one (gnubg_os0.bd, or `makebearoff -o 6`)")]
    NoOneSided,
}

/// An exact one-sided database (15 chequers on `points` points).
struct OneSided {
    db: Database,
    points: usize,
    name: PathBuf,
    /// gnubg's `MaxTurns` of each position, filled in as they are asked
    /// for ([`TURNS_UNKNOWN`] until then; empty for databases of more than
    /// [`MAX_TURNS_CACHED`] positions). Every thread computes the same
    /// value from the same record, so the order of the fills never shows.
    max_turns: Vec<AtomicI8>,
}

/// A position whose `MaxTurns` is not cached yet.
const TURNS_UNKNOWN: i8 = i8::MIN;
/// The largest one-sided database whose `MaxTurns` are cached (one byte
/// each): gnubg's 6-point database has 54,264 positions.
const MAX_TURNS_CACHED: u64 = 1 << 22;

/// A two-sided database (`chequers` per side on `points` points).
struct TwoSided {
    db: Database,
    points: usize,
    chequers: usize,
    name: PathBuf,
}

/// The databases an evaluator uses: a one-sided database (required; gnubg's
/// `pbc1`) and an optional two-sided one (`pbc2`).
pub struct BearoffDatabases {
    one: OneSided,
    two: Option<TwoSided>,
}

impl fmt::Debug for BearoffDatabases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearoffDatabases")
            .field("one_sided", &self.one.name)
            .field("two_sided", &self.two.as_ref().map(|t| &t.name))
            .finish()
    }
}

/// A database file sorted by kind, before assembling [`BearoffDatabases`].
pub enum BearoffFile {
    /// Exact one-sided.
    OneSided(Database, PathBuf),
    /// Two-sided.
    TwoSided(Database, PathBuf),
}

impl BearoffFile {
    /// Opens a database file and checks it is usable for evaluation.
    pub fn open(path: &Path) -> Result<BearoffFile, BearoffError> {
        let db = Database::open(path)?;
        let name = path.to_path_buf();
        match db.kind() {
            Kind::OneSided { .. } => Ok(BearoffFile::OneSided(db, name)),
            Kind::TwoSided { .. } => Ok(BearoffFile::TwoSided(db, name)),
            kind => Err(BearoffError::Unsupported { path: name, kind }),
        }
    }
}

impl BearoffDatabases {
    /// Assembles the databases: exactly one one-sided file, at most one
    /// two-sided file.
    pub fn new(files: Vec<BearoffFile>) -> Result<BearoffDatabases, BearoffError> {
        let (mut one, mut two) = (None, None);
        for file in files {
            match file {
                BearoffFile::OneSided(db, name) => {
                    if one.is_some() {
                        return Err(BearoffError::Duplicate(name, "one-sided"));
                    }
                    let Kind::OneSided { points, .. } = db.kind() else {
                        unreachable!("sorted by kind")
                    };
                    if points < 6 {
                        return Err(BearoffError::TooSmall(name, points.into()));
                    }
                    let positions = board::combination(usize::from(points) + 15, 15);
                    let cached = if positions <= MAX_TURNS_CACHED {
                        positions as usize
                    } else {
                        0
                    };
                    one = Some(OneSided {
                        db,
                        points: points.into(),
                        name,
                        max_turns: (0..cached).map(|_| AtomicI8::new(TURNS_UNKNOWN)).collect(),
                    });
                }
                BearoffFile::TwoSided(db, name) => {
                    if two.is_some() {
                        return Err(BearoffError::Duplicate(name, "two-sided"));
                    }
                    let Kind::TwoSided {
                        points, chequers, ..
                    } = db.kind()
                    else {
                        unreachable!("sorted by kind")
                    };
                    two = Some(TwoSided {
                        db,
                        points: points.into(),
                        chequers: chequers.into(),
                        name,
                    });
                }
            }
        }
        Ok(BearoffDatabases {
            one: one.ok_or(BearoffError::NoOneSided)?,
            two,
        })
    }

    /// Opens database files (see [`BearoffDatabases::new`]).
    pub fn open(paths: &[impl AsRef<Path>]) -> Result<BearoffDatabases, BearoffError> {
        let files = paths
            .iter()
            .map(|p| BearoffFile::open(p.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        BearoffDatabases::new(files)
    }

    /// Points covered by the one-sided database.
    pub fn one_sided_points(&self) -> usize {
        self.one.points
    }

    /// True if a two-sided database is loaded.
    pub fn has_two_sided(&self) -> bool {
        self.two.is_some()
    }

    /// Paths of the loaded databases.
    pub fn paths(&self) -> Vec<&Path> {
        let mut v = vec![self.one.name.as_path()];
        v.extend(self.two.as_ref().map(|t| t.name.as_path()));
        v
    }

    /// The one-sided roll distribution (u16, units of 1/65535) of a side's
    /// layout, and its gammon distribution when the file has one. The side
    /// must lie within the database's points.
    pub fn one_sided_distribution(&self, side: &[u8; 25]) -> (Distribution, Option<Distribution>) {
        let id = board::rank(&side[..self.one.points]);
        self.one.db.one_sided(id)
    }

    /// gnubg's `isBearoff` for a non-contact position, given its sides'
    /// occupancy: both sides have chequers, at most `chequers` each, all
    /// below index `points`.
    fn covers(sides: &[Occupancy; 2], points: usize, chequers: usize) -> bool {
        let beyond = |o: &Occupancy| o.occupied >> points.min(25) != 0;
        sides
            .iter()
            .all(|o| o.men > 0 && o.men as usize <= chequers && !beyond(o))
    }

    /// True if the two-sided database covers the (non-contact) position
    /// whose sides' occupancy this is.
    pub(crate) fn two_sided_covers(&self, sides: &[Occupancy; 2]) -> bool {
        self.two
            .as_ref()
            .is_some_and(|t| Self::covers(sides, t.points, t.chequers))
    }

    /// True if the one-sided database covers the (non-contact) position
    /// whose sides' occupancy this is.
    pub(crate) fn one_sided_covers(&self, sides: &[Occupancy; 2]) -> bool {
        Self::covers(sides, self.one.points, 15)
    }

    /// Two-sided evaluation: only the win probability (docs/formats.md#bearoff-evaluation).
    pub fn evaluate_two_sided(&self, board: &Board, arith: Arithmetic) -> Probabilities {
        let t = self.two.as_ref().expect("two-sided database loaded");
        let us = board::rank(&board.sides[1][..t.points]);
        let them = board::rank(&board.sides[0][..t.points]);
        let u = (i32::from(t.db.two_sided(us, them)[0]) + 32768) as f32;
        let equity = arith.division().div(u, 32767.5) - 1.0;
        [equity / 2.0 + 0.5, 0.0, 0.0, 0.0, 0.0]
    }

    /// One-sided evaluation (docs/formats.md#bearoff-evaluation): the race of the two
    /// roll distributions, gammons from the gammon distributions (or the
    /// first-off table for files without them), no backgammons.
    pub fn evaluate_one_sided(&self, board: &Board, arith: Arithmetic) -> Probabilities {
        let scale = arith.bearoff_scale();
        let (d1, g1) = self.one_sided_distribution(&board.sides[1]);
        let (d0, g0) = self.one_sided_distribution(&board.sides[0]);
        let p1 = probabilities(&d1, scale);
        let p0 = probabilities(&d0, scale);
        let full = board.chequers(0) == 15 || board.chequers(1) == 15;
        match (g1, g0) {
            (Some(g1), Some(g0)) => {
                let g1 = probabilities(&g1, scale);
                let g0 = probabilities(&g0, scale);
                race_probabilities(&p1, &g1, &p0, &g0, full)
            }
            _ => {
                let mut out = race_probabilities(&p1, &p1, &p0, &p0, false);
                let (wg, lg) = first_off::gammons(board, &p1, &p0);
                out[1] = wg;
                out[3] = lg;
                out
            }
        }
    }

    /// gnubg's `MaxTurns`: the last roll count with a non-zero probability in
    /// the one-sided distribution of a side within the database.
    pub(crate) fn max_turns(&self, side: &[u8; 25]) -> i32 {
        let id = board::rank(&side[..self.one.points]);
        let compute = || {
            let (d, _) = self.one.db.one_sided(id);
            d.iter().rposition(|&v| v != 0).map_or(-1, |i| i as i32)
        };
        let Some(slot) = self.one.max_turns.get(id as usize) else {
            return compute();
        };
        match slot.load(Ordering::Relaxed) {
            TURNS_UNKNOWN => {
                let turns = compute();
                slot.store(turns as i8, Ordering::Relaxed);
                turns
            }
            turns => i32::from(turns),
        }
    }
}
