//! Normal-distribution one-sided databases: for every layout, the mean and
//! standard deviation of the number of rolls to bear off (and of the gammon
//! count), choosing for each roll the play with the smallest mean.

use super::{OneSidedOptions, Progress};
use board::{BearoffPlays, PlaySink, ROLLS};
use databases::Database;
use rayon::prelude::*;
use std::io::{self, Write};
use support::job::{Cursor, Job, PayloadError};

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

/// Generation of a normal-distribution database, wave by wave in pip order.
pub struct NormalJob {
    p: Progress,
    /// Mean and standard deviation of the rolls to bear off, then of the
    /// gammon count, per position.
    records: Vec<[f32; 4]>,
}

impl NormalJob {
    /// Prepares a job; `old` is a database to reuse (`-O`), already checked
    /// with [`super::check_old_one_sided`].
    pub fn new(opts: OneSidedOptions, old: Option<Database>) -> NormalJob {
        NormalJob {
            records: vec![[0.0; 4]; opts.positions()],
            p: Progress::new(opts, old),
        }
    }

    fn compute(&self, id: usize) -> [f32; 4] {
        let board = self.p.board(id);
        if id == 0 {
            return [0.0; 4];
        }
        if let Some((old, j)) = self.p.old_index(&board) {
            return old.normal(j);
        }
        let all_on = board.chequers(1) == 15;
        let plays = BearoffPlays::new(&board.sides[1][..self.p.opts.points]);
        let (mut a0, mut a2, mut v, mut vg) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let mut sink = BestNormal {
            records: &self.records,
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

    fn apply(&mut self, records: Vec<[f32; 4]>) {
        for (&id, r) in self.p.waves.wave(self.p.done).iter().zip(records) {
            self.records[id as usize] = r;
        }
        self.p.done += 1;
    }
}

impl Job for NormalJob {
    fn units(&self) -> usize {
        self.p.waves.len()
    }

    fn units_done(&self) -> usize {
        self.p.done
    }

    fn positions(&self) -> u64 {
        self.p.opts.positions() as u64
    }

    fn positions_done(&self) -> u64 {
        self.p.waves.positions_before(self.p.done) as u64
    }

    fn compute_next(&mut self) {
        let records = self
            .p
            .next_wave()
            .par_iter()
            .map(|&id| self.compute(id as usize))
            .collect();
        self.apply(records);
    }

    fn encode_unit(&self, unit: usize, out: &mut Vec<u8>) {
        for &id in self.p.waves.wave(unit) {
            for f in self.records[id as usize] {
                out.extend_from_slice(&f.to_le_bytes());
            }
        }
    }

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        let count = self.p.next_wave().len();
        let mut cur = Cursor::new(payload);
        let mut recs = Vec::with_capacity(count);
        for _ in 0..count {
            let b = cur.take(16)?;
            recs.push(std::array::from_fn(|k| {
                f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
            }));
        }
        cur.finish()?;
        self.apply(recs);
        Ok(())
    }

    fn output_len(&self) -> u64 {
        self.p.header_len() + 16 * self.p.opts.positions() as u64
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.p.opts.header {
            out.write_all(&self.p.opts.kind().header())?;
        }
        for r in &self.records {
            for f in r {
                out.write_all(&f.to_le_bytes())?;
            }
        }
        Ok(())
    }
}
