//! Normal-distribution one-sided databases: for every layout, the mean and
//! standard deviation of the number of rolls to bear off (and of the gammon
//! count), choosing for each roll the play with the smallest mean.

use super::{OneSidedOptions, Schedule, Store};
use board::{BearoffPlays, PlaySink, ROLLS};
use std::io::{self, Write};
use support::job::{Cursor, PayloadError};

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

/// Mean and standard deviation of the rolls to bear off, then of the gammon
/// count, per position.
pub struct NormalStore(Vec<[f32; 4]>);

impl Store for NormalStore {
    type Record = [f32; 4];

    fn new(opts: &OneSidedOptions) -> NormalStore {
        NormalStore(vec![[0.0; 4]; opts.positions()])
    }

    fn compute(&self, s: &Schedule, id: usize) -> [f32; 4] {
        let board = s.board(id);
        if id == 0 {
            return [0.0; 4];
        }
        if let Some((old, j)) = s.old_index(&board) {
            return old.normal(j);
        }
        let all_on = board.chequers(1) == 15;
        let plays = BearoffPlays::new(&board.sides[1][..s.opts.points]);
        let (mut a0, mut a2, mut v, mut vg) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let mut sink = BestNormal {
            records: &self.0,
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
        // instead of dividing; only the multiplication reproduces its files.
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

    fn store(&mut self, ids: &[u32], records: Vec<Self::Record>, _: &OneSidedOptions) {
        for (&id, r) in ids.iter().zip(records) {
            self.0[id as usize] = r;
        }
    }

    fn encode(&self, id: usize, out: &mut Vec<u8>) {
        for f in self.0[id] {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }

    fn decode(cur: &mut Cursor) -> Result<Self::Record, PayloadError> {
        let b = cur.take(16)?;
        Ok(std::array::from_fn(|k| {
            f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        }))
    }

    fn records_len(&self, opts: &OneSidedOptions) -> u64 {
        16 * opts.positions() as u64
    }

    fn write_records(&self, _: &OneSidedOptions, out: &mut dyn Write) -> io::Result<()> {
        for r in &self.0 {
            for f in r {
                out.write_all(&f.to_le_bytes())?;
            }
        }
        Ok(())
    }
}
