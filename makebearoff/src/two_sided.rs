//! Two-sided bearoff databases (docs/formats.md#two-sided-databases): cubeless and cubeful
//! money equities for every pair of one-sided layouts.
//!
//! Values are computed shell by shell: shell `s` holds every pair whose larger
//! index is `s`. A pair depends only on pairs of earlier shells or on the row
//! `(s, t < s)` of its own shell, so each shell is two parallel passes: the
//! row (roller `s`), then the column (opponent `s`). The matrix is kept
//! transposed (`m[j][t]` = value of `t` on roll against `j`) so that the row
//! pass streams contiguous memory and vectorises.

use board::bearoff_index::{position_count, rank, unrank};
use board::{Board, MoveList, ROLLS};
use databases::{Database, Kind, Problem, HEADER_LEN};
use rayon::prelude::*;
use std::io::{self, Write};
use support::job::{Cursor, Job, PayloadError};
use wide::i16x8;

/// Options of a two-sided database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoSidedOptions {
    /// Points covered.
    pub points: usize,
    /// Chequers per side.
    pub chequers: usize,
    /// Four cubeful values per record (`-C` turns this off).
    pub cubeful: bool,
    /// Write the 40-byte header (`-H` turns this off).
    pub header: bool,
}

impl TwoSidedOptions {
    /// The file kind these options produce.
    pub fn kind(&self) -> Kind {
        Kind::TwoSided {
            points: self.points as u8,
            chequers: self.chequers as u8,
            cubeful: self.cubeful,
        }
    }

    /// One-sided positions per side.
    pub fn side_positions(&self) -> usize {
        position_count(self.points, self.chequers)
    }

    /// Values per record.
    pub fn values(&self) -> usize {
        if self.cubeful {
            4
        } else {
            1
        }
    }

    /// Bytes of memory the generation needs (estimate).
    pub fn memory_estimate(&self) -> u64 {
        let n = self.side_positions() as u64;
        n * n * 2 * self.values() as u64 + n * 21 * 40 + 64 * n * 8
    }

    /// Size of the output file.
    pub fn output_len(&self) -> u64 {
        let n = self.side_positions() as u64;
        n * n * 2 * self.values() as u64 + if self.header { HEADER_LEN as u64 } else { 0 }
    }
}

const WON: i16 = 32767;
const LOST: i16 = -32768;
const CHUNK: usize = 512;

/// The opponent's double/take decision at his turn (cube value 32767 = +1).
#[inline(always)]
fn cube(nd: i16, dt: i16) -> i16 {
    if dt >= nd / 2 {
        if dt >= 16383 {
            32767
        } else {
            2 * dt
        }
    } else {
        nd
    }
}

/// The values of a move for the roller, given the values `e` of the
/// resulting position from the opponent's view (opponent on roll): cubeless
/// `!e0`; cube owned by the roller `!e3` (the opponent cannot double);
/// centred and opponent-owned after the opponent's double/take decision.
#[inline(always)]
fn mover_gain(e: [i16; 4]) -> [i16; 4] {
    [!e[0], !e[3], !cube(e[2], e[3]), !cube(e[1], e[3])]
}

/// Distinct successor indices of every layout for every roll.
struct Successors {
    starts: Vec<u32>,
    ids: Vec<u32>,
}

impl Successors {
    fn new(points: usize, chequers: usize) -> Successors {
        let n = position_count(points, chequers);
        let lists: Vec<Vec<Vec<u32>>> = (0..n)
            .into_par_iter()
            .map_init(MoveList::new, |ml, us| {
                let mut board = Board::EMPTY;
                unrank(us, chequers, &mut board.sides[1][..points]);
                ROLLS
                    .iter()
                    .map(|roll| {
                        if us == 0 {
                            return Vec::new();
                        }
                        let mut v: Vec<u32> = ml
                            .generate(&board, roll.high, roll.low)
                            .iter()
                            .map(|b| rank(&b.sides[1][..points]) as u32)
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    })
                    .collect()
            })
            .collect();
        let mut starts = Vec::with_capacity(n * 21 + 1);
        let mut ids = Vec::new();
        starts.push(0);
        for per_roll in lists {
            for v in per_roll {
                ids.extend_from_slice(&v);
                starts.push(ids.len() as u32);
            }
        }
        Successors { starts, ids }
    }

    #[inline]
    fn of(&self, us: usize, roll: usize) -> &[u32] {
        let k = us * 21 + roll;
        &self.ids[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}

/// Old database reuse (`-O`): which layouts it covers and where.
struct OldTwoSided {
    db: Database,
    /// Per layout of the new database: its index in the old one, if covered.
    map: Vec<Option<u32>>,
    /// Rear index per layout (for the ≥ 12-point rule).
    back: Vec<u8>,
    twelve_plus: bool,
}

/// Generation of a two-sided database.
pub struct TwoSidedJob {
    opts: TwoSidedOptions,
    n: usize,
    succ: Successors,
    /// `planes[k][j * n + t]` = value `k` of `t` on roll against `j`.
    planes: Vec<Vec<i16>>,
    done: usize,
    old: Option<OldTwoSided>,
}

/// Checks that `old` can be reused for a two-sided run with `opts`.
pub fn check_old_two_sided(opts: &TwoSidedOptions, old: &Database) -> Result<(), Problem> {
    match old.kind() {
        Kind::TwoSided { cubeful, .. } if cubeful == opts.cubeful => Ok(()),
        k => Err(Problem(format!(
            "old database is {k}, not usable for a {} database",
            opts.kind()
        ))),
    }
}

impl TwoSidedJob {
    /// Prepares a job; `old` was checked with [`check_old_two_sided`].
    pub fn new(opts: TwoSidedOptions, old: Option<Database>) -> TwoSidedJob {
        let n = opts.side_positions();
        let old = old.map(|db| {
            let (op, oc) = (db.kind().points(), db.kind().chequers());
            let mut map = Vec::with_capacity(n);
            let mut back = Vec::with_capacity(n);
            let mut b = vec![0u8; opts.points];
            for id in 0..n {
                unrank(id, opts.chequers, &mut b);
                let rear = b.iter().rposition(|&c| c > 0);
                let count: usize = b.iter().map(|&c| usize::from(c)).sum();
                back.push(rear.unwrap_or(0) as u8);
                let covered = rear.is_some_and(|r| r < op) && count <= oc;
                map.push(covered.then(|| {
                    let mut ob = vec![0u8; op];
                    let k = op.min(opts.points);
                    ob[..k].copy_from_slice(&b[..k]);
                    rank(&ob) as u32
                }));
            }
            OldTwoSided {
                twelve_plus: op >= 12,
                db,
                map,
                back,
            }
        });
        TwoSidedJob {
            opts,
            n,
            succ: Successors::new(opts.points, opts.chequers),
            planes: vec![vec![0i16; n * n]; opts.values()],
            done: 0,
            old,
        }
    }

    /// The old database's values for (`us` on roll, `them`), if it covers the pair.
    fn old_value(&self, us: usize, them: usize) -> Option<[i16; 4]> {
        let old = self.old.as_ref()?;
        let (a, b) = (old.map[us]?, old.map[them]?);
        if old.twelve_plus && usize::from(old.back[us]) + usize::from(old.back[them]) > 22 {
            return None;
        }
        Some(old.db.two_sided(a as usize, b as usize))
    }

    /// Row pass of shell `s`: values of `s` on roll against every `t < s`.
    fn row(&self, s: usize) -> Vec<[i16; 4]> {
        let n = self.n;
        let k = self.opts.values();
        let mut row = vec![[0i16; 4]; s];
        row.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            let t0 = c * CHUNK;
            let len = out.len();
            let mut tot = [[0i32; CHUNK]; 4];
            let mut best = [[0i16; CHUNK]; 4];
            for (ri, roll) in ROLLS.iter().enumerate() {
                for b in best.iter_mut().take(k) {
                    b[..len].fill(i16::MIN);
                }
                for &j in self.succ.of(s, ri) {
                    let base = j as usize * n + t0;
                    let p0 = &self.planes[0][base..base + len];
                    for (b, &e) in best[0][..len].iter_mut().zip(p0) {
                        *b = (*b).max(!e);
                    }
                    if k == 4 {
                        let (p1, p2, p3) = (
                            &self.planes[1][base..base + len],
                            &self.planes[2][base..base + len],
                            &self.planes[3][base..base + len],
                        );
                        let [_, b1, b2, b3] = &mut best;
                        for i in 0..len {
                            b1[i] = b1[i].max(!p3[i]);
                            b2[i] = b2[i].max(!cube(p2[i], p3[i]));
                            b3[i] = b3[i].max(!cube(p1[i], p3[i]));
                        }
                    }
                }
                let w = roll.weight() as i32;
                for (t, b) in tot.iter_mut().zip(&best).take(k) {
                    for i in 0..len {
                        t[i] += w * i32::from(b[i]);
                    }
                }
            }
            for (i, o) in out.iter_mut().enumerate() {
                for v in 0..k {
                    o[v] = (tot[v][i] / 36) as i16;
                }
            }
        });
        if s > 0 {
            row[0] = [LOST; 4];
        }
        if self.old.is_some() {
            for (t, v) in row.iter_mut().enumerate().skip(1) {
                if let Some(o) = self.old_value(s, t) {
                    *v = o;
                }
            }
        }
        row
    }

    /// Column pass of shell `s`: values of every `t ≤ s` on roll against `s`,
    /// from the row values `row[j]` (= `s` on roll against `j`).
    fn column(&self, s: usize, row: &[[i16; 4]]) -> Vec<[i16; 4]> {
        let k = self.opts.values();
        // What the roller gains by moving to `j`, precomputed once per shell
        // (four lanes used of eight, so that a maximum is one SIMD op).
        let gain: Vec<i16x8> = row
            .iter()
            .map(|&e| {
                let g = mover_gain(e);
                i16x8::new([g[0], g[1], g[2], g[3], 0, 0, 0, 0])
            })
            .collect();
        (0..=s)
            .into_par_iter()
            .map(|t| {
                if t == 0 {
                    return [WON; 4];
                }
                if let Some(o) = self.old_value(t, s) {
                    return o;
                }
                let mut tot = [0i32; 4];
                for (ri, roll) in ROLLS.iter().enumerate() {
                    let mut best = i16x8::splat(i16::MIN);
                    for &j in self.succ.of(t, ri) {
                        best = best.max(gain[j as usize]);
                    }
                    let best = best.to_array();
                    for v in 0..4 {
                        tot[v] += roll.weight() as i32 * i32::from(best[v]);
                    }
                }
                let mut out = [0i16; 4];
                for v in 0..k {
                    out[v] = (tot[v] / 36) as i16;
                }
                out
            })
            .collect()
    }

    /// Stores shell `s`: `row[t]` is (s on roll, t), `col[t]` is (t on roll, s).
    fn store(&mut self, s: usize, row: &[[i16; 4]], col: &[[i16; 4]]) {
        let n = self.n;
        for (k, plane) in self.planes.iter_mut().enumerate() {
            for (t, v) in row.iter().enumerate() {
                plane[t * n + s] = v[k];
            }
            for (t, v) in col.iter().enumerate() {
                plane[s * n + t] = v[k];
            }
        }
        self.done += 1;
    }
}

impl Job for TwoSidedJob {
    fn units(&self) -> usize {
        self.n
    }

    fn units_done(&self) -> usize {
        self.done
    }

    fn positions(&self) -> u64 {
        (self.n as u64).pow(2)
    }

    fn positions_done(&self) -> u64 {
        (self.done as u64).pow(2)
    }

    fn compute_next(&mut self) {
        let s = self.done;
        let row = self.row(s);
        let col = self.column(s, &row);
        self.store(s, &row, &col);
    }

    fn encode_unit(&self, s: usize, out: &mut Vec<u8>) {
        let n = self.n;
        for plane in &self.planes {
            for t in 0..s {
                out.extend_from_slice(&plane[t * n + s].to_le_bytes());
            }
            for t in 0..=s {
                out.extend_from_slice(&plane[s * n + t].to_le_bytes());
            }
        }
    }

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let s = self.done;
        let mut cur = Cursor::new(payload);
        let mut row = vec![[0i16; 4]; s];
        let mut col = vec![[0i16; 4]; s + 1];
        for k in 0..self.opts.values() {
            for v in row.iter_mut().chain(col.iter_mut()) {
                v[k] = cur.u16()? as i16;
            }
        }
        cur.finish()?;
        self.store(s, &row, &col);
        Ok(())
    }

    fn output_len(&self) -> u64 {
        self.opts.output_len()
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.opts.header {
            out.write_all(&self.opts.kind().header())?;
        }
        // File order is (us, them) with `us` major: a blocked transpose.
        const BLOCK: usize = 64;
        let (n, k) = (self.n, self.opts.values());
        let mut buf = vec![0u8; BLOCK * n * 2 * k];
        for u0 in (0..n).step_by(BLOCK) {
            let u1 = (u0 + BLOCK).min(n);
            for them in 0..n {
                for (v, plane) in self.planes.iter().enumerate() {
                    for (du, &val) in plane[them * n + u0..them * n + u1].iter().enumerate() {
                        let at = ((du * n + them) * k + v) * 2;
                        let u = (i32::from(val) + 32768) as u16;
                        buf[at..at + 2].copy_from_slice(&u.to_le_bytes());
                    }
                }
            }
            out.write_all(&buf[..(u1 - u0) * n * 2 * k])?;
        }
        Ok(())
    }
}
