//! Structural checks of every record of a database: the invariants each
//! format guarantees, independent of how the values were computed.
//!
//! * One-sided exact: every distribution sums to 65535; the empty position
//!   finishes in 0 rolls, every other one needs at least one roll; a side
//!   with fewer than 15 chequers has saved the gammon (`[65535, 0, …]`), a
//!   side with 15 needs at least one roll to save it.
//! * Normal distribution: finite, non-negative values; record 0 is all
//!   zero; means of at least one roll; no gammon values for fewer than 15
//!   chequers.
//! * Two-sided: a side on roll that has borne off has won (`FFFF`), else a
//!   borne-off opponent has won (`0000`); cubeful values are ordered
//!   owned ≥ centred ≥ opponent owns and owned ≥ cubeless ≥ opponent owns.
//! * Hypergammon: padding byte 0; illegal pairs hold gnubg's filler;
//!   finished games hold exactly gnubg's game-over values; otherwise
//!   win ≥ win gammon ≥ win backgammon, lose gammon ≥ lose backgammon and
//!   win + lose gammon ≤ 1 (within [`HYPER_SLACK`] units of rounding).

use crate::decode::{hyper_equity_with, Scale};
use crate::distribution::DONE;
use crate::header::Kind;
use crate::problem::{fail, Problem};
use crate::reader::Database;
use crate::record::Record;
use board::bearoff_index::{position_count, unrank};
use board::{cubeless_equity, eval_over, jacoby_equity, Board, SideArray, Variant};
use rayon::prelude::*;

/// Records checked per parallel task.
const CHUNK: u64 = 1 << 14;

/// Rounding slack, in units of 1/16777215, allowed between Hypergammon
/// probabilities that gnubg computes separately (gnubg's own files differ
/// by up to 3 units).
pub const HYPER_SLACK: u32 = 64;

/// The first record that breaks an invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRecord {
    /// Its index.
    pub index: u64,
    /// What is wrong with it.
    pub problem: Problem,
}

/// Checks records of one database.
pub struct Checker<'a> {
    db: &'a Database,
    /// One-sided indices below this have fewer than 15 chequers.
    fewer_than_15: usize,
    /// Layouts of every one-sided index (Hypergammon only).
    sides: Vec<SideArray>,
}

impl<'a> Checker<'a> {
    /// Prepares the checks for `db`.
    pub fn new(db: &'a Database) -> Checker<'a> {
        let kind = db.kind();
        let sides = match kind {
            Kind::Hyper { chequers } => (0..db.side_positions())
                .map(|id| {
                    let mut side = [0u8; 25];
                    unrank(id, chequers.into(), &mut side);
                    side
                })
                .collect(),
            _ => Vec::new(),
        };
        Checker {
            db,
            fewer_than_15: position_count(kind.points(), 14),
            sides,
        }
    }

    /// Checks record `index` (which must be below `db.records()`).
    pub fn check(&self, index: u64) -> Result<(), Problem> {
        let record = self.db.record(index).map_err(|e| Problem(e.to_string()))?;
        let id = index as usize;
        match record {
            Record::OneSided { bearoff, gammon } => self.check_exact(id, &bearoff, gammon.as_ref()),
            Record::Normal(values) => self.check_normal(id, values),
            Record::TwoSided { values, cubeful } => {
                let n = self.db.side_positions();
                check_two_sided(id / n, id % n, values, cubeful)
            }
            Record::Hyper {
                probabilities,
                equities,
                padding,
            } => {
                let n = self.db.side_positions();
                self.check_hyper(id / n, id % n, probabilities, equities, padding)
            }
        }
    }

    fn check_exact(&self, id: usize, w: &[u16; 32], g: Option<&[u16; 32]>) -> Result<(), Problem> {
        let sum = |d: &[u16; 32]| d.iter().map(|&v| u32::from(v)).sum::<u32>();
        if sum(w) != 65535 {
            return fail(format!(
                "bearoff distribution sums to {}, not 65535",
                sum(w)
            ));
        }
        if id == 0 && *w != DONE {
            return fail("the empty position must be off in 0 rolls");
        }
        if id > 0 && w[0] != 0 {
            return fail(format!("bearoff distribution gives {} to 0 rolls", w[0]));
        }
        let Some(g) = g else { return Ok(()) };
        if id < self.fewer_than_15 {
            if *g != DONE {
                return Err(
                    "gammon distribution of a side with fewer than 15 chequers must be [65535, 0, …]"
                        .into(),
                );
            }
        } else if sum(g) != 65535 {
            return fail(format!("gammon distribution sums to {}, not 65535", sum(g)));
        } else if g[0] != 0 {
            return fail(format!("gammon distribution gives {} to 0 rolls", g[0]));
        }
        Ok(())
    }

    fn check_normal(&self, id: usize, r: [f32; 4]) -> Result<(), Problem> {
        if let Some(v) = r.iter().find(|v| !v.is_finite() || **v < 0.0) {
            return fail(format!(
                "stored value {v} is not a finite non-negative number"
            ));
        }
        if id == 0 && r != [0.0; 4] {
            return fail("the empty position must have all values 0");
        }
        if id > 0 && r[0] < 1.0 {
            return fail(format!("mean rolls to bear off is {}, below 1", r[0]));
        }
        if id > 0 && id < self.fewer_than_15 && (r[2] != 0.0 || r[3] != 0.0) {
            return fail("a side with fewer than 15 chequers must have gammon values 0");
        }
        if id >= self.fewer_than_15 && r[2] < 1.0 {
            return fail(format!(
                "mean rolls to save the gammon is {}, below 1",
                r[2]
            ));
        }
        Ok(())
    }

    fn check_hyper(
        &self,
        us: usize,
        them: usize,
        p: [u32; 5],
        e: [u32; 4],
        padding: u8,
    ) -> Result<(), Problem> {
        if padding != 0 {
            return fail(format!("padding byte is {padding:#04x}, not 0"));
        }
        let board = Board::new(self.sides[them], self.sides[us]);
        let illegal = (0..24).any(|i| board.sides[0][i] > 0 && board.sides[1][23 - i] > 0);
        if illegal {
            return if p == [0; 5] && e == [0x7F_FFFF; 4] {
                Ok(())
            } else {
                fail("illegal pair (both sides on one point) must hold zeros and 0x7FFFFF")
            };
        }
        let chequers = self.db.kind().chequers() as u8;
        if let Some(out) = eval_over(&board, Variant::Hyper(chequers)) {
            let stored = p.map(|u| u as f32 / 16_777_215.0);
            if stored != out {
                return fail(format!(
                    "finished game must have probabilities {out:?}, found {stored:?}"
                ));
            }
            let u = cubeless_equity(&out);
            let want = [u, u, jacoby_equity(&out), u];
            for (k, (&u, w)) in e.iter().zip(want).enumerate() {
                let got = hyper_equity_with(u, Scale::Divide);
                if (got - w).abs() > 1e-5 {
                    return fail(format!(
                        "finished game must have equity {w} in slot {k}, found {got}"
                    ));
                }
            }
            return Ok(());
        }
        let over = |a: u32, b: u32, what: &str| {
            if a > b.saturating_add(HYPER_SLACK) {
                fail(format!("{what} ({a} > {b} units of 1/16777215)"))
            } else {
                Ok(())
            }
        };
        over(p[1], p[0], "win gammon exceeds win")?;
        over(p[2], p[1], "win backgammon exceeds win gammon")?;
        over(p[4], p[3], "lose backgammon exceeds lose gammon")?;
        over(p[3], 0xFF_FFFF - p[0], "lose gammon exceeds 1 − win")
    }
}

fn check_two_sided(us: usize, them: usize, v: [u16; 4], cubeful: bool) -> Result<(), Problem> {
    let stored = &v[..if cubeful { 4 } else { 1 }];
    if us == 0 {
        if stored.iter().any(|&u| u != 0xFFFF) {
            return fail("side on roll has borne off: every value must be FFFF (+1)");
        }
        return Ok(());
    }
    if them == 0 {
        if stored.iter().any(|&u| u != 0) {
            return fail("opponent has borne off: every value must be 0000 (−1)");
        }
        return Ok(());
    }
    if cubeful {
        let [cubeless, owned, centred, theirs] = v;
        let bad = if owned < centred {
            Some("owned cube below centred cube")
        } else if centred < theirs {
            Some("centred cube below opponent owns cube")
        } else if owned < cubeless {
            Some("owned cube below cubeless")
        } else if cubeless < theirs {
            Some("cubeless below opponent owns cube")
        } else {
            None
        };
        if let Some(what) = bad {
            return fail(format!(
                "{what} (stored {cubeless:04X} {owned:04X} {centred:04X} {theirs:04X})"
            ));
        }
    }
    Ok(())
}

/// Checks every record in parallel and returns the first bad one.
/// `progress` is called with the number of records checked since its last
/// call.
///
/// ```
/// use databases::verify::first_bad_record;
/// use databases::{Database, Kind};
///
/// // The database of the crate's example, then with record 2 (the
/// // opponent borne off, which must be −1) damaged.
/// let kind = Kind::TwoSided { points: 1, chequers: 1, cubeful: false };
/// let mut bytes = kind.header().to_vec();
/// for u in [0xFFFF_u16, 0xFFFF, 0x0000, 0xFFFF] {
///     bytes.extend_from_slice(&u.to_le_bytes());
/// }
/// let good = Database::from_bytes("good.bd", bytes.clone(), None)?;
/// assert_eq!(first_bad_record(&good, &|_| {}), None);
///
/// bytes[40 + 2 * 2] = 0x01;
/// let damaged = Database::from_bytes("damaged.bd", bytes, None)?;
/// let bad = first_bad_record(&damaged, &|_| {}).expect("record 2 is damaged");
/// assert_eq!(bad.index, 2);
/// # Ok::<(), databases::ReadError>(())
/// ```
pub fn first_bad_record(db: &Database, progress: &(dyn Fn(u64) + Sync)) -> Option<BadRecord> {
    let checker = Checker::new(db);
    let total = db.records() as u64;
    let chunks = total.div_ceil(CHUNK);
    (0..chunks).into_par_iter().find_map_first(|c| {
        let range = c * CHUNK..((c + 1) * CHUNK).min(total);
        let len = range.end - range.start;
        let bad = range.into_iter().find_map(|index| {
            checker
                .check(index)
                .err()
                .map(|problem| BadRecord { index, problem })
        });
        progress(len);
        bad
    })
}
