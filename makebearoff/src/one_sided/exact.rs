//! Exact one-sided databases: for every layout of up to 15 chequers, the
//! distribution of the number of rolls to bear off (and to bear off the
//! first chequer, the gammon distribution), choosing for each roll the play
//! with the fewest expected rolls.

use super::{OneSidedOptions, Schedule, Store};
use board::{BearoffPlays, PlaySink, ROLLS};
use databases::{Distribution, DONE};
use std::io::{self, Write};
use support::job::{Cursor, PayloadError};
use support::prefetch::prefetch;

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
pub struct ExactStore {
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

impl Store for ExactStore {
    type Record = (Distribution, Distribution);

    fn new(opts: &OneSidedOptions) -> ExactStore {
        let n = opts.positions();
        ExactStore {
            slots: vec![Slot::default(); n],
            blocks: Vec::new(),
            expected: vec![[0; 2]; n],
        }
    }

    fn compute(&self, s: &Schedule, id: usize) -> (Distribution, Distribution) {
        let board = s.board(id);
        if id == 0 {
            return (DONE, DONE);
        }
        if let Some((old, j)) = s.old_index(&board) {
            let (w, g) = old.one_sided(j);
            return (w, g.unwrap_or([0; 32]));
        }
        let gammons = s.opts.gammons;
        let all_on = board.chequers(1) == 15;
        let plays = BearoffPlays::new(&board.sides[1][..s.opts.points]);
        let mut acc = [[0u32; 32]; 2];
        if !all_on {
            acc[1][0] = 65535 * 36;
        }
        let mut sink = BestExact {
            expected: &self.expected,
            slots: &self.slots,
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
                let (vals, io) = self.window(sink.best[part].1 as usize, part == 1);
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

    fn store(&mut self, ids: &[u32], records: Vec<Self::Record>, opts: &OneSidedOptions) {
        self.push_wave(ids, &records, opts.gammons);
    }

    fn encode(&self, id: usize, out: &mut Vec<u8>) {
        let s = self.slots[id];
        out.extend_from_slice(&s.win);
        let len = usize::from(s.win[0]) + usize::from(s.win[2]);
        for v in &self.blocks[s.block as usize][s.offset as usize..][..len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    fn decode(cur: &mut Cursor) -> Result<Self::Record, PayloadError> {
        let mut pair = ([0u16; 32], [0u16; 32]);
        let win: Vec<u8> = cur.take(4)?.to_vec();
        for (d, w) in [&mut pair.0, &mut pair.1].into_iter().zip(win.chunks(2)) {
            let (nz, io) = (usize::from(w[0]), usize::from(w[1]));
            if nz + io > 32 {
                return Err(PayloadError::Invalid("an invalid window"));
            }
            for v in &mut d[io..io + nz] {
                *v = cur.u16()?;
            }
        }
        Ok(pair)
    }

    fn records_len(&self, opts: &OneSidedOptions) -> u64 {
        let n = opts.positions() as u64;
        if !opts.compressed {
            return n * if opts.gammons { 128 } else { 64 };
        }
        let data: u64 = self
            .slots
            .iter()
            .map(|s| u64::from(s.win[0]) + u64::from(s.win[2]))
            .sum();
        n * if opts.gammons { 8 } else { 6 } + 2 * data
    }

    fn write_records(&self, opts: &OneSidedOptions, out: &mut dyn Write) -> io::Result<()> {
        let n = opts.positions();
        let g = opts.gammons;
        if opts.compressed {
            let mut off = 0u64;
            for id in 0..n {
                let s = self.slots[id];
                let entry_off = u32::try_from(off).map_err(|_| {
                    io::Error::other("compressed data exceeds the format's 32-bit offsets")
                })?;
                out.write_all(&entry_off.to_le_bytes())?;
                out.write_all(&s.win[..if g { 4 } else { 2 }])?;
                off += u64::from(s.win[0]) + u64::from(s.win[2]);
            }
            for id in 0..n {
                let s = self.slots[id];
                let len = usize::from(s.win[0]) + usize::from(s.win[2]);
                let vals = &self.blocks[s.block as usize][s.offset as usize..][..len];
                write_u16s(out, vals)?;
            }
        } else {
            for id in 0..n {
                write_u16s(out, &self.dist(id, false))?;
                if g {
                    write_u16s(out, &self.dist(id, true))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::one_sided::ExactJob;
    use support::Job;

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
        let mut job = ExactJob::new(opts, None);
        job.compute_all();
        let store = &job.store;
        // Three on the ace is index 6, two on the 2-point index 5 (docs/formats.md#one-sided-databases).
        assert_eq!(&store.dist(6, false)[..3], &[0, 10923, 54612]);
        assert_eq!(&store.dist(5, false)[..3], &[0, 47331, 18204]);
        assert_eq!(store.dist(5, true), DONE);
    }
}
