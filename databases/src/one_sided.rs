//! One-sided bearoff databases (spec makebearoff.md §2–§4): exact roll
//! distributions (with gammon distributions) and the normal approximation.

use crate::header::{Kind, HEADER_LEN};
use crate::job::{Cursor, Job};
use crate::prefetch::prefetch;
use crate::reader::Database;
use crate::waves::Waves;
use board::bearoff_index::{position_count, rank, unrank};
use board::{BearoffPlays, Board, PlaySink, ROLLS};
use rayon::prelude::*;
use std::io::{self, Write};

/// Probabilities (units of 1/65535) of finishing in exactly `r` rolls.
pub type Distribution = [u16; 32];

/// The distribution of a finished side: done in zero rolls.
pub const DONE: Distribution = {
    let mut d = [0u16; 32];
    d[0] = 65535;
    d
};

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

/// A "first to last non-zero" window of a distribution.
fn window(d: &Distribution) -> (u8, u8) {
    let hi = d.iter().rposition(|&v| v != 0).unwrap_or(0);
    let io = d[..=hi].iter().position(|&v| v != 0).unwrap_or(hi);
    ((hi - io + 1) as u8, io as u8)
}

/// `Σ r·d[r]` over r = 1..31: expected rolls × 65535.
fn expected_rolls(d: &Distribution) -> u32 {
    d.iter()
        .enumerate()
        .skip(1)
        .map(|(r, &v)| r as u32 * u32::from(v))
        .sum()
}

/// Rounds accumulated `36 ×` probabilities and makes them sum to 65535.
fn finalize(acc: &[u32; 32]) -> Distribution {
    let mut out = [0u16; 32];
    let mut sum = 0i64;
    for (o, &a) in out.iter_mut().zip(acc) {
        *o = ((a + 18) / 36) as u16;
        sum += i64::from(*o);
    }
    let max = *out.iter().max().unwrap_or(&0);
    let mode = out.iter().position(|&v| v == max).unwrap_or(0);
    out[mode] = (i64::from(out[mode]) - (sum - 65535)).rem_euclid(65536) as u16;
    out
}

#[derive(Clone, Copy, Default, Debug)]
struct Slot {
    offset: u32,
    block: u32,
    win: [u8; 4],
}

/// Exact distributions of every computed position, stored as windows.
struct ExactStore {
    slots: Vec<Slot>,
    blocks: Vec<Vec<u16>>,
    /// Expected rolls × 65535 of the win and gammon distributions, side by
    /// side so that one cache line serves both lookups.
    expected: Vec<[u32; 2]>,
}

impl ExactStore {
    /// The stored non-zero window of a distribution and where it starts.
    #[inline]
    fn window(&self, id: usize, gammon: bool) -> (&[u16], usize) {
        let slot = self.slots[id];
        let (nz, io) = (usize::from(slot.win[0]), usize::from(slot.win[1]));
        let at = slot.offset as usize;
        let block = &self.blocks[slot.block as usize];
        if gammon {
            let (nzg, iog) = (usize::from(slot.win[2]), usize::from(slot.win[3]));
            (&block[at + nz..at + nz + nzg], iog)
        } else {
            (&block[at..at + nz], io)
        }
    }

    fn dist(&self, id: usize, gammon: bool) -> Distribution {
        let (vals, io) = self.window(id, gammon);
        let mut d = [0u16; 32];
        d[io..io + vals.len()].copy_from_slice(vals);
        d
    }

    /// Stores one wave's results as a new block.
    fn push_wave(&mut self, ids: &[u32], records: &[(Distribution, Distribution)], gammons: bool) {
        let mut block = Vec::new();
        let b = self.blocks.len() as u32;
        for (&id, (w, g)) in ids.iter().zip(records) {
            let id = id as usize;
            let (nz, io) = window(w);
            let (nzg, iog) = if gammons { window(g) } else { (0, 0) };
            self.slots[id] = Slot {
                offset: block.len() as u32,
                block: b,
                win: [nz, io, nzg, iog],
            };
            block.extend_from_slice(&w[usize::from(io)..usize::from(io + nz)]);
            block.extend_from_slice(&g[usize::from(iog)..usize::from(iog + nzg)]);
            self.expected[id] = [
                expected_rolls(w),
                if gammons { expected_rolls(g) } else { 0 },
            ];
        }
        block.shrink_to_fit();
        self.blocks.push(block);
    }
}

/// Keeps the first play with the fewest expected rolls, separately for the
/// win and the gammon distribution.
struct BestExact<'a> {
    expected: &'a [[u32; 2]],
    /// Where the distributions are: a new best play's slot starts loading
    /// at once (it is read when the roll's search is over).
    slots: &'a [Slot],
    gammons: bool,
    best: [(u32, u32); 2],
}

impl PlaySink<usize> for BestExact<'_> {
    fn reset(&mut self) {
        self.best = [(u32::MAX, 0); 2];
    }

    #[inline]
    fn play(&mut self, &j: &usize) {
        let [s, sg] = self.expected[j];
        if s < self.best[0].0 {
            self.best[0] = (s, j as u32);
            prefetch(&self.slots[j]);
        }
        if self.gammons && sg < self.best[1].0 {
            self.best[1] = (sg, j as u32);
            prefetch(&self.slots[j]);
        }
    }
}

/// Keeps the first play with the smallest mean (and smallest gammon mean).
struct BestNormal<'a> {
    records: &'a [[f32; 4]],
    best: [(f32, [f32; 4]); 2],
}

impl PlaySink<usize> for BestNormal<'_> {
    fn reset(&mut self) {
        self.best = [(1e10, [0.0; 4]); 2];
    }

    #[inline]
    fn play(&mut self, &j: &usize) {
        let x = self.records[j];
        if x[0] < self.best[0].0 {
            self.best[0] = (x[0], x);
        }
        if x[2] < self.best[1].0 {
            self.best[1] = (x[2], x);
        }
    }
}

enum Store {
    Exact(ExactStore),
    Normal(Vec<[f32; 4]>),
}

/// Generation of a one-sided database, wave by wave in pip order.
pub struct OneSidedJob {
    opts: OneSidedOptions,
    waves: Waves,
    done: usize,
    store: Store,
    old: Option<Database>,
}

impl OneSidedJob {
    /// Prepares a job; `old` is a database to reuse (`-O`), already checked
    /// with [`check_old_one_sided`].
    pub fn new(opts: OneSidedOptions, old: Option<Database>) -> OneSidedJob {
        let n = opts.positions();
        let store = if opts.normal {
            Store::Normal(vec![[0.0; 4]; n])
        } else {
            Store::Exact(ExactStore {
                slots: vec![Slot::default(); n],
                blocks: Vec::new(),
                expected: vec![[0; 2]; n],
            })
        };
        OneSidedJob {
            opts,
            waves: Waves::new(opts.points, 15),
            done: 0,
            store,
            old,
        }
    }

    /// The layout of `id`, as the roller's side of a board.
    fn board(&self, id: usize) -> Board {
        let mut b = Board::EMPTY;
        unrank(id, 15, &mut b.sides[1][..self.opts.points]);
        b
    }

    /// If the old database covers this layout, its index there.
    fn old_index(&self, b: &Board) -> Option<usize> {
        let old = self.old.as_ref()?;
        let op = old.kind().points();
        let back = b.back(1)?;
        (back < op).then(|| rank(&b.sides[1][..op]))
    }

    fn exact(&self, store: &ExactStore, id: usize) -> (Distribution, Distribution) {
        let board = self.board(id);
        if id == 0 {
            return (DONE, DONE);
        }
        if let (Some(j), Some(old)) = (self.old_index(&board), &self.old) {
            let (w, g) = old.one_sided(j);
            return (w, g.unwrap_or([0; 32]));
        }
        let gammons = self.opts.gammons;
        let all_on = board.chequers(1) == 15;
        let plays = BearoffPlays::new(&board.sides[1][..self.opts.points]);
        let mut acc = [[0u32; 32]; 2];
        if !all_on {
            acc[1][0] = 65535 * 36;
        }
        let mut sink = BestExact {
            expected: &store.expected,
            slots: &store.slots,
            gammons,
            best: [(u32::MAX, 0); 2],
        };
        let parts = if gammons && all_on { 2 } else { 1 };
        // Adds the chosen distributions of a roll: `(weight, [(values,
        // first roll index)])`. A roll's are added after the next roll's
        // search, so that their reads, started at once, have arrived.
        let mut add = |(w, chosen): (u32, [(&[u16], usize); 2])| {
            for (acc, (vals, io)) in acc.iter_mut().zip(chosen).take(parts) {
                // Finishing in r rolls from the successor is r + 1 from here;
                // anything beyond 31 rolls is dropped.
                let from = io + 1;
                let to = acc.len().min(from + vals.len());
                for (a, &v) in acc[from..to].iter_mut().zip(vals) {
                    *a += w * u32::from(v);
                }
            }
        };
        let mut pending = None;
        for roll in ROLLS {
            plays.generate(roll.high, roll.low, &mut sink);
            let chosen = std::array::from_fn(|part| {
                if part >= parts {
                    return (&[][..], 0);
                }
                let (vals, io) = store.window(sink.best[part].1 as usize, part == 1);
                if let Some(v) = vals.first() {
                    prefetch(v);
                }
                (vals, io)
            });
            if let Some(previous) = pending.replace((roll.weight(), chosen)) {
                add(previous);
            }
        }
        if let Some(last) = pending {
            add(last);
        }
        let g = if gammons { finalize(&acc[1]) } else { [0; 32] };
        (finalize(&acc[0]), g)
    }

    fn normal(&self, records: &[[f32; 4]], id: usize) -> [f32; 4] {
        let board = self.board(id);
        if id == 0 {
            return [0.0; 4];
        }
        if let (Some(j), Some(old)) = (self.old_index(&board), &self.old) {
            return old.normal(j);
        }
        let all_on = board.chequers(1) == 15;
        let plays = BearoffPlays::new(&board.sides[1][..self.opts.points]);
        let (mut a0, mut a2, mut v, mut vg) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let mut sink = BestNormal {
            records,
            best: [(1e10, [0.0; 4]); 2],
        };
        for roll in ROLLS {
            plays.generate(roll.high, roll.low, &mut sink);
            let twice = !roll.is_double();
            let add = |acc: &mut f32, t: f32| *acc += if twice { 2.0 * t } else { t };
            let xb = sink.best[0].1;
            let t = 1.0 + xb[0];
            add(&mut a0, t);
            add(&mut v, xb[1] * xb[1] + t * t);
            if all_on {
                let xg = sink.best[1].1;
                let t = 1.0 + xg[2];
                add(&mut a2, t);
                add(&mut vg, xg[3] * xg[3] + t * t);
            }
        }
        // gnubg 1.07 (Debian amd64) multiplies by the f32 reciprocal of 36
        // where the spec divides; only the multiplication reproduces its files.
        let inv = 1.0f32 / 36.0;
        let mean = a0 * inv;
        let gmean = a2 * inv;
        [
            mean,
            (v * inv - mean * mean).sqrt(),
            gmean,
            (vg * inv - gmean * gmean).sqrt(),
        ]
    }

    fn apply_exact(&mut self, records: Vec<(Distribution, Distribution)>) {
        let Store::Exact(store) = &mut self.store else {
            unreachable!()
        };
        store.push_wave(self.waves.wave(self.done), &records, self.opts.gammons);
        self.done += 1;
    }

    fn apply_normal(&mut self, records: Vec<[f32; 4]>) {
        let Store::Normal(store) = &mut self.store else {
            unreachable!()
        };
        for (&id, r) in self.waves.wave(self.done).iter().zip(records) {
            store[id as usize] = r;
        }
        self.done += 1;
    }

    fn write_exact(&self, store: &ExactStore, out: &mut dyn Write) -> io::Result<()> {
        let n = self.opts.positions();
        let g = self.opts.gammons;
        if self.opts.compressed {
            let mut off = 0u64;
            for id in 0..n {
                let s = store.slots[id];
                let entry_off = u32::try_from(off).map_err(|_| {
                    io::Error::other("compressed data exceeds the format's 32-bit offsets")
                })?;
                out.write_all(&entry_off.to_le_bytes())?;
                out.write_all(&s.win[..if g { 4 } else { 2 }])?;
                off += u64::from(s.win[0]) + u64::from(s.win[2]);
            }
            for id in 0..n {
                let s = store.slots[id];
                let len = usize::from(s.win[0]) + usize::from(s.win[2]);
                let vals = &store.blocks[s.block as usize][s.offset as usize..][..len];
                write_u16s(out, vals)?;
            }
        } else {
            for id in 0..n {
                write_u16s(out, &store.dist(id, false))?;
                if g {
                    write_u16s(out, &store.dist(id, true))?;
                }
            }
        }
        Ok(())
    }
}

fn write_u16s(out: &mut dyn Write, vals: &[u16]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(vals.len() * 2);
    for v in vals {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    out.write_all(&buf)
}

/// Checks that `old` can be reused for a one-sided run with `opts`.
pub fn check_old_one_sided(opts: &OneSidedOptions, old: &Database) -> Result<(), String> {
    let ok = match old.kind() {
        Kind::NormalDist { .. } => opts.normal,
        Kind::OneSided { gammons, .. } => !opts.normal && (gammons || !opts.gammons),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "old database is {}, not usable for a {} database",
            old.kind(),
            opts.kind()
        ))
    }
}

impl Job for OneSidedJob {
    fn units(&self) -> usize {
        self.waves.len()
    }

    fn units_done(&self) -> usize {
        self.done
    }

    fn positions(&self) -> u64 {
        self.opts.positions() as u64
    }

    fn positions_done(&self) -> u64 {
        self.waves.positions_before(self.done) as u64
    }

    fn compute_next(&mut self) {
        let ids = self.waves.wave(self.done);
        match &self.store {
            Store::Exact(store) => {
                let recs = ids
                    .par_iter()
                    .map(|&id| self.exact(store, id as usize))
                    .collect();
                self.apply_exact(recs);
            }
            Store::Normal(records) => {
                let recs = ids
                    .par_iter()
                    .map(|&id| self.normal(records, id as usize))
                    .collect();
                self.apply_normal(recs);
            }
        }
    }

    fn encode_unit(&self, unit: usize, out: &mut Vec<u8>) {
        for &id in self.waves.wave(unit) {
            let id = id as usize;
            match &self.store {
                Store::Exact(store) => {
                    let s = store.slots[id];
                    out.extend_from_slice(&s.win);
                    let len = usize::from(s.win[0]) + usize::from(s.win[2]);
                    for v in &store.blocks[s.block as usize][s.offset as usize..][..len] {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
                Store::Normal(records) => {
                    for f in records[id] {
                        out.extend_from_slice(&f.to_le_bytes());
                    }
                }
            }
        }
    }

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), String> {
        let count = self.waves.wave(self.done).len();
        let mut cur = Cursor::new(payload);
        if self.opts.normal {
            let mut recs = Vec::with_capacity(count);
            for _ in 0..count {
                let b = cur.take(16)?;
                recs.push(std::array::from_fn(|k| {
                    f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
                }));
            }
            cur.finish()?;
            self.apply_normal(recs);
        } else {
            let mut recs = Vec::with_capacity(count);
            for _ in 0..count {
                let mut pair = ([0u16; 32], [0u16; 32]);
                let win: Vec<u8> = cur.take(4)?.to_vec();
                for (d, w) in [&mut pair.0, &mut pair.1].into_iter().zip(win.chunks(2)) {
                    let (nz, io) = (usize::from(w[0]), usize::from(w[1]));
                    if nz + io > 32 {
                        return Err("checkpoint holds an invalid window".into());
                    }
                    for v in &mut d[io..io + nz] {
                        *v = cur.u16()?;
                    }
                }
                recs.push(pair);
            }
            cur.finish()?;
            self.apply_exact(recs);
        }
        Ok(())
    }

    fn output_len(&self) -> u64 {
        let n = self.opts.positions() as u64;
        let header = if self.opts.header {
            HEADER_LEN as u64
        } else {
            0
        };
        header
            + match &self.store {
                Store::Normal(_) => 16 * n,
                Store::Exact(_) if !self.opts.compressed => {
                    n * if self.opts.gammons { 128 } else { 64 }
                }
                Store::Exact(s) => {
                    let data: u64 = s
                        .slots
                        .iter()
                        .map(|s| u64::from(s.win[0]) + u64::from(s.win[2]))
                        .sum();
                    n * if self.opts.gammons { 8 } else { 6 } + 2 * data
                }
            }
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.opts.header {
            out.write_all(&self.opts.kind().header())?;
        }
        match &self.store {
            Store::Exact(store) => self.write_exact(store, out),
            Store::Normal(records) => {
                for r in records {
                    for f in r {
                        out.write_all(&f.to_le_bytes())?;
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finalize_spec_example() {
        let mut acc = [0u32; 32];
        acc[1] = 6 * 65535;
        acc[2] = 30 * 65535;
        let d = finalize(&acc);
        assert_eq!(&d[..3], &[0, 10923, 54612]);
        assert_eq!(d.iter().map(|&v| u32::from(v)).sum::<u32>(), 65535);
    }

    #[test]
    fn two_point_spec_values() {
        let opts = OneSidedOptions {
            points: 2,
            gammons: true,
            compressed: true,
            normal: false,
            header: true,
        };
        let mut job = OneSidedJob::new(opts, None);
        while !job.is_done() {
            job.compute_next();
        }
        let Store::Exact(store) = &job.store else {
            unreachable!()
        };
        // Three on the ace is index 6, two on the 2-point index 5 (spec §2.2).
        assert_eq!(&store.dist(6, false)[..3], &[0, 10923, 54612]);
        assert_eq!(&store.dist(5, false)[..3], &[0, 47331, 18204]);
        assert_eq!(store.dist(5, true), DONE);
    }
}
