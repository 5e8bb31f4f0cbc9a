//! Scheduling one-sided positions in parallel waves: every move lowers the
//! pip count, so all positions with the same pip count can be computed at
//! once from the positions of earlier waves.

use board::bearoff_index::{position_count, unrank};
use rayon::prelude::*;

/// Position indices grouped by pip count, ascending.
#[derive(Debug, Clone)]
pub struct Waves {
    order: Vec<u32>,
    starts: Vec<usize>,
}

impl Waves {
    /// Groups the `C(points + chequers, points)` layouts by pip count.
    pub fn new(points: usize, chequers: usize) -> Waves {
        let n = position_count(points, chequers);
        let pips: Vec<u16> = (0..n)
            .into_par_iter()
            .map_init(
                || vec![0u8; points],
                |b, id| {
                    unrank(id, chequers, b);
                    b.iter()
                        .enumerate()
                        .map(|(i, &c)| (i as u16 + 1) * u16::from(c))
                        .sum()
                },
            )
            .collect();
        let max = points * chequers;
        let mut starts = vec![0usize; max + 2];
        for &p in &pips {
            starts[usize::from(p) + 1] += 1;
        }
        for w in 1..starts.len() {
            starts[w] += starts[w - 1];
        }
        let mut fill = starts.clone();
        let mut order = vec![0u32; n];
        for (id, &p) in pips.iter().enumerate() {
            order[fill[usize::from(p)]] = id as u32;
            fill[usize::from(p)] += 1;
        }
        Waves { order, starts }
    }

    /// Number of waves (pip counts 0..=points·chequers).
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Always false: wave 0 holds the empty layout.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The indices of wave `w`, ascending.
    pub fn wave(&self, w: usize) -> &[u32] {
        &self.order[self.starts[w]..self.starts[w + 1]]
    }

    /// Positions in waves `0..w`.
    pub fn positions_before(&self, w: usize) -> usize {
        self.starts[w]
    }
}
