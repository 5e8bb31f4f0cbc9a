//! The combinatorial bearoff index (gnubg's `PositionBearoff` and
//! `PositionFromBearoff`): layouts of up to `N` chequers on `P` points ranked
//! in colexicographic order of their separator subsets.

use crate::combination::combination;

/// Most points a layout may have for [`rank`] (Hypergammon: 25).
pub const MAX_POINTS: usize = 25;
/// Most chequers a layout may have for [`rank`].
pub const MAX_CHEQUERS: usize = 15;

/// `TERMS[k][s] = C(k − 1 + s, k)`: the rank contribution of the top `k`
/// points holding `s` chequers. Small enough to stay in L1 cache.
static TERMS: [[u64; MAX_CHEQUERS + 1]; MAX_POINTS + 1] = {
    let c = crate::combination::build_table();
    let mut t = [[0u64; MAX_CHEQUERS + 1]; MAX_POINTS + 1];
    let mut k = 1;
    while k <= MAX_POINTS {
        let mut s = 0;
        while s <= MAX_CHEQUERS {
            t[k][s] = c[k - 1 + s][k];
            s += 1;
        }
        k += 1;
    }
    t
};

/// `STEP[k][s] = TERMS[k][s] − TERMS[k][s − 1] = C(k − 2 + s, k − 1)` (0 for
/// `s = 0`): how much the rank drops when the top `k` points go from `s` to
/// `s − 1` chequers, i.e. when a chequer leaves them.
pub(crate) static STEP: [[u64; MAX_CHEQUERS + 1]; MAX_POINTS + 1] = {
    let c = crate::combination::build_table();
    let mut t = [[0u64; MAX_CHEQUERS + 1]; MAX_POINTS + 1];
    let mut k = 1;
    while k <= MAX_POINTS {
        let mut s = 1;
        while s <= MAX_CHEQUERS {
            t[k][s] = c[k + s - 2][k - 1];
            s += 1;
        }
        k += 1;
    }
    t
};

/// Index of the layout `b[0..P]` (`P = b.len()` ≤ 25, at most 15 chequers).
/// Independent of the chequer limit `N`; moving a chequer down or off always
/// lowers it.
#[inline]
pub fn rank(b: &[u8]) -> usize {
    let p = b.len();
    let mut index = 0u64;
    let mut suffix = 0usize;
    for (k, &c) in b.iter().rev().enumerate() {
        suffix += usize::from(c);
        index += TERMS[k + 1][suffix];
    }
    debug_assert!(p <= MAX_POINTS && suffix <= MAX_CHEQUERS);
    index as usize
}

/// Inverse of [`rank`]: the layout with index `id` among up to `n` chequers on
/// `b.len()` points, written into `b`.
pub fn unrank(mut id: usize, n: usize, b: &mut [u8]) {
    let p = b.len();
    b.fill(0);
    if p == 0 {
        return;
    }
    // Choose the P-subset of {0..P+N-1} with colex rank `id`, walking from the
    // top bit down; then read the layout from bit 0 upwards.
    let mut bits = 0u128;
    let (mut top, mut r) = (p + n, p);
    while r > 0 {
        if top == r {
            bits |= (1u128 << top) - 1;
            break;
        }
        let c = combination(top - 1, r) as usize;
        if id >= c {
            bits |= 1u128 << (top - 1);
            id -= c;
            r -= 1;
        }
        top -= 1;
    }
    let mut j = p - 1;
    for i in 0..p + n {
        if bits & (1u128 << i) != 0 {
            if j == 0 {
                break;
            }
            j -= 1;
        } else {
            b[j] += 1;
        }
    }
}

/// Number of layouts of up to `n` chequers on `p` points: `C(p + n, p)`.
pub fn position_count(p: usize, n: usize) -> usize {
    combination(p + n, p) as usize
}

/// Ranks and unranks for a fixed `(points, chequers)` pair.
///
/// ```
/// use board::{BearoffIndexer, POINTS};
///
/// // gnubg_os0.bd: up to 15 chequers on 6 points.
/// let six = BearoffIndexer::new(6, 15);
/// assert_eq!(six.len(), 54_264);
///
/// let mut side = [0u8; POINTS];
/// side[1] = 2; // two chequers on the 2-point
/// let id = six.rank(&side);
/// assert_eq!(six.side(id), side);
/// assert_eq!(BearoffIndexer::new(2, 15).rank(&side), 5);
/// assert_eq!(six.rank(&[0; POINTS]), 0); // all borne off
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BearoffIndexer {
    /// Points per side covered by the index.
    pub points: usize,
    /// Maximum chequers per side.
    pub chequers: usize,
}

impl BearoffIndexer {
    /// An indexer for `points` points and up to `chequers` chequers.
    pub fn new(points: usize, chequers: usize) -> Self {
        BearoffIndexer { points, chequers }
    }

    /// Number of positions, `C(points + chequers, points)`.
    pub fn len(&self) -> usize {
        position_count(self.points, self.chequers)
    }

    /// Always false: index 0 (all off) exists for every size.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The 25-entry side array of position `id` (points above `points` empty).
    pub fn side(&self, id: usize) -> crate::SideArray {
        let mut s = [0u8; crate::POINTS];
        unrank(id, self.chequers, &mut s[..self.points]);
        s
    }

    /// Index of a side array; only its first `points` entries count.
    pub fn rank(&self, side: &[u8]) -> usize {
        rank(&side[..self.points])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let six = |b: [u8; 6]| rank(&b);
        assert_eq!(six([1, 0, 0, 0, 0, 0]), 1);
        assert_eq!(six([0, 1, 0, 0, 0, 0]), 2);
        assert_eq!(six([0, 0, 0, 0, 0, 1]), 6);
        assert_eq!(six([2, 0, 0, 0, 0, 0]), 7);
        assert_eq!(six([1, 1, 0, 0, 0, 0]), 8);
        assert_eq!(six([0, 0, 0, 0, 0, 2]), 27);
        assert_eq!(six([15, 0, 0, 0, 0, 0]), 38760);
        assert_eq!(six([0, 0, 0, 0, 0, 15]), 54263);
        let two = [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]];
        for (i, b) in two.iter().enumerate() {
            assert_eq!(rank(b), i);
            let mut out = [0u8; 2];
            unrank(i, 2, &mut out);
            assert_eq!(&out, b);
        }
    }

    #[test]
    fn round_trip_every_index() {
        for (p, n) in [(1, 15), (3, 15), (6, 15), (6, 6), (25, 3), (8, 4)] {
            let mut b = vec![0u8; p];
            for id in 0..position_count(p, n) {
                unrank(id, n, &mut b);
                assert!(b.iter().map(|&c| c as usize).sum::<usize>() <= n);
                assert_eq!(rank(&b), id, "p={p} n={n}");
            }
        }
    }
}
