//! Fast play generation for bearoff layouts: the plays [`generate_plays`]
//! reports for a position with no opponent in reach, as bearoff indices.
//!
//! The enumeration is the generic one specialised to "no bar, no blocks, no
//! hits": occupied points are walked through a bit mask, and the bearoff index
//! is kept up to date as chequers move (moving a chequer from `src` down by `d`
//! changes only the index terms of the points it passes), so a play costs a
//! few table look-ups instead of a move, a full rank and an undo.
//!
//! [`generate_plays`]: crate::generate_plays

use crate::bearoff_index::{rank, STEP};
use crate::movegen::{MostDice, PlaySink};

/// A layout during the search of a double: chequers per point, which
/// points are occupied, and the bearoff index.
#[derive(Clone, Copy, Debug)]
struct Node {
    counts: [u8; 24],
    /// Bit `i` set when point `i` is occupied.
    mask: u32,
    rank: u64,
}

impl Node {
    /// The layout after moving a chequer from `src` by `d` (off the board
    /// below point 0), which lowers the index by `drop`.
    #[inline(always)]
    fn moved(&self, src: usize, d: usize, drop: u64) -> Node {
        let mut next = *self;
        next.counts[src] -= 1;
        if next.counts[src] == 0 {
            next.mask &= !(1 << src);
        }
        if src >= d {
            next.counts[src - d] += 1;
            next.mask |= 1 << (src - d);
        }
        next.rank -= drop;
        next
    }
}

/// Highest occupied point of a non-empty `mask` (anything if it is empty).
#[inline(always)]
fn highest(mask: u32) -> usize {
    31usize.wrapping_sub(mask.leading_zeros() as usize)
}

/// Whether a chequer on `src` may move `d` pips when the highest occupied
/// point is `high` (gnubg's bearoff rule: every chequer home, and a larger die
/// only for the rearmost chequer).
#[inline(always)]
fn legal(src: usize, d: usize, high: usize) -> bool {
    src >= d || (high <= 5 && (src == high || src + 1 == d))
}

/// The points of `mask` from which a chequer may move `d` pips ([`legal`]).
#[inline(always)]
fn movable(mask: u32, d: usize) -> u32 {
    let high = highest(mask);
    let mut allowed = !0 << d;
    if high <= 5 {
        allowed |= (1 << (d - 1)) | (1 << high);
    }
    mask & allowed
}

/// The points of `mask`, highest first.
#[inline(always)]
fn descending(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let src = 31usize.checked_sub(m.leading_zeros() as usize)?;
        m ^= 1 << src;
        Some(src)
    })
}

/// Lowest point passed by a chequer moving from `src` by `d`: the points
/// `low_end..=src` have one chequer fewer on or above them afterwards.
#[inline(always)]
fn low_end(src: usize, d: usize) -> usize {
    (src + 1).saturating_sub(d)
}

/// Calls `f` with each point up to `top` from which a chequer may move `d`
/// pips in `mask`, highest first; returns whether there was one.
#[inline(always)]
fn each_move(mask: u32, top: usize, d: usize, f: impl FnMut(usize)) -> bool {
    let m = movable(mask, d) & ((2 << top) - 1);
    descending(m).for_each(f);
    m != 0
}

impl<S: PlaySink<usize>> MostDice<'_, S> {
    /// Offers a play given by its bearoff index.
    #[inline(always)]
    fn save_rank(&mut self, n_dice: u8, n_pips: usize, rank: u64) {
        self.save(n_dice, n_pips as u8, &(rank as usize));
    }
}

/// One side's chequers on its lowest points (at most 23), with no opponent in
/// reach, ready to generate the plays of each roll.
#[derive(Clone, Debug)]
pub struct BearoffPlays {
    root: Node,
    /// `crossing[m]`: prefix sums over points of how much the index drops
    /// when a chequer passes a point that `m` chequers passed before it,
    /// `STEP[points − i][above[i] − m]` (`above[i]`: the root's chequers on
    /// point `i` and higher). A chequer passing points `lo..hi` first drops
    /// the index by `crossing[0][hi] − crossing[0][lo]`.
    crossing: [[u64; 25]; 4],
}

impl BearoffPlays {
    /// The layout `counts` (index 0 = ace point); its length is the point
    /// count, at most 23, with at most 15 chequers.
    pub fn new(counts: &[u8]) -> BearoffPlays {
        let points = counts.len();
        assert!(points <= 23, "a bearoff layout has at most 23 points");
        let mut plays = BearoffPlays {
            root: Node {
                counts: [0; 24],
                mask: 0,
                rank: rank(counts) as u64,
            },
            crossing: [[0; 25]; 4],
        };
        let mut above = 0;
        for (i, &c) in counts.iter().enumerate().rev() {
            plays.root.counts[i] = c;
            if c > 0 {
                plays.root.mask |= 1 << i;
            }
            above += usize::from(c);
            for (m, crossing) in plays.crossing.iter_mut().enumerate() {
                crossing[i] = if above > m {
                    STEP[points - i][above - m]
                } else {
                    0
                };
            }
        }
        for crossing in &mut plays.crossing {
            let mut sum = 0;
            for c in crossing.iter_mut().take(points + 1) {
                (*c, sum) = (sum, sum + *c);
            }
        }
        plays
    }

    /// Reports the plays for dice `(first, second)` to `sink` as bearoff
    /// indices: the plays `generate_plays` reports for the layout, except
    /// that the second pass of a non-double skips most plays ending where a
    /// first-pass play ended. The distinct positions, in order of first
    /// appearance, are exactly gnubg's move list.
    pub fn generate<S: PlaySink<usize>>(&self, first: u8, second: u8, sink: &mut S) {
        debug_assert!((1..=6).contains(&first) && (1..=6).contains(&second));
        let mut out = MostDice::new(sink);
        let (a, b) = (usize::from(first), usize::from(second));
        if a == b {
            self.double(a, &mut out);
        } else {
            self.pass(a, b, false, &mut out);
            self.pass(b, a, true, &mut out);
        }
    }

    /// The occupancy after moving a chequer from `src` by `d` from the root.
    #[inline(always)]
    fn mask_after(&self, src: usize, d: usize) -> u32 {
        let mut mask = self.root.mask;
        if self.root.counts[src] == 1 {
            mask &= !(1 << src);
        }
        if src >= d {
            mask |= 1 << (src - d);
        }
        mask
    }

    /// Index drop of a chequer passing points `lo..hi` of the root.
    #[inline(always)]
    fn passed(&self, lo: usize, hi: usize) -> u64 {
        self.crossing[0][hi] - self.crossing[0][lo]
    }

    /// Index drop of a move of a double passing points `lows[0]..hi`, after
    /// `K − 1` moves from points no lower that passed down to `lows[1..]`
    /// (latest first): the points from `lows[m]` up have been passed `m`
    /// times before.
    #[inline(always)]
    fn crossed<const K: usize>(&self, lows: [usize; K], hi: usize) -> u64 {
        let mut sum = 0;
        let mut from = lows[0];
        for m in 0..K {
            let to = if m + 1 < K { lows[m + 1].min(hi) } else { hi };
            sum += self.crossing[m][to] - self.crossing[m][from];
            from = to;
        }
        sum
    }

    /// One pass of a non-double: die `a`, then die `b`. Every play is two
    /// moves from the root, so its index comes from the prefix sums.
    fn pass<S: PlaySink<usize>>(&self, a: usize, b: usize, second: bool, out: &mut MostDice<S>) {
        let root = &self.root;
        each_move(root.mask, 23, a, |s1| {
            let lo1 = low_end(s1, a);
            let rank = root.rank - self.passed(lo1, s1 + 1);
            let mut s2s = movable(self.mask_after(s1, a), b);
            let used = s2s != 0;
            if second && s1 >= a {
                // Unless the second move bears off, pass one reached the same
                // position: `b` from `s2` then `a` from `s1` if the root holds
                // `s2`, or else (`s2 = s1 − a`) `b` then `a` from `s1`.
                s2s &= (1 << b) - 1;
            }
            for s2 in descending(s2s) {
                if second && self.played_in_pass_one(s2, b, s1, a) {
                    continue;
                }
                // The second chequer passes the root's points `lo2..=s2`,
                // those also in `lo1..=s1` with one chequer fewer above.
                let lo2 = low_end(s2, b);
                let mut r = rank;
                let (lo, hi) = (lo1.max(lo2), s1.min(s2) + 1);
                if lo < hi {
                    r += self.passed(lo, hi) - (self.crossing[1][hi] - self.crossing[1][lo]);
                }
                out.save_rank(2, a + b, r - self.passed(lo2, s2 + 1));
            }
            if !used {
                out.save_rank(1, a, rank);
            }
        });
    }

    /// Whether pass one played `d1` from `s1`, then `d2` from `s2` (which ends
    /// where the pass-two play being considered ends).
    #[inline(always)]
    fn played_in_pass_one(&self, s1: usize, d1: usize, s2: usize, d2: usize) -> bool {
        if self.root.mask & (1 << s1) == 0 || !legal(s1, d1, highest(self.root.mask)) {
            return false;
        }
        let mask = self.mask_after(s1, d1);
        mask & (1 << s2) != 0 && legal(s2, d2, highest(mask))
    }

    /// The four sub-moves of a double `d`, each from a point no higher than
    /// the previous one's. A branch where no chequer can move saves the
    /// position reached.
    fn double<S: PlaySink<usize>>(&self, d: usize, out: &mut MostDice<S>) {
        let p0 = &self.root;
        each_move(p0.mask, 23, d, |s1| {
            let l1 = low_end(s1, d);
            let p1 = p0.moved(s1, d, self.crossed([l1], s1 + 1));
            let used = each_move(p1.mask, s1, d, |s2| {
                let l2 = low_end(s2, d);
                let p2 = p1.moved(s2, d, self.crossed([l2, l1], s2 + 1));
                let used = each_move(p2.mask, s2, d, |s3| {
                    let l3 = low_end(s3, d);
                    let p3 = p2.moved(s3, d, self.crossed([l3, l2, l1], s3 + 1));
                    let used = each_move(p3.mask, s3, d, |s4| {
                        let drop = self.crossed([low_end(s4, d), l3, l2, l1], s4 + 1);
                        out.save_rank(4, 4 * d, p3.rank - drop);
                    });
                    if !used {
                        out.save_rank(3, 3 * d, p3.rank);
                    }
                });
                if !used {
                    out.save_rank(2, 2 * d, p2.rank);
                }
            });
            if !used {
                out.save_rank(1, d, p1.rank);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bearoff_index::{position_count, unrank};
    use crate::{Board, MoveList, ROLLS};

    /// The distinct plays in first-occurrence order, as gnubg lists them.
    #[derive(Default)]
    struct Distinct(Vec<usize>);

    impl PlaySink<usize> for Distinct {
        fn reset(&mut self) {
            self.0.clear();
        }
        fn play(&mut self, r: &usize) {
            if !self.0.contains(r) {
                self.0.push(*r);
            }
        }
    }

    /// Compares with gnubg's move list (from the general generator).
    fn check(counts: &[u8], list: &mut MoveList) {
        let mut board = Board::EMPTY;
        board.sides[1][..counts.len()].copy_from_slice(counts);
        let plays = BearoffPlays::new(counts);
        for roll in ROLLS {
            for (d0, d1) in [(roll.high, roll.low), (roll.low, roll.high)] {
                let want: Vec<usize> = list
                    .generate(&board, d0, d1)
                    .iter()
                    .map(|b| rank(&b.sides[1][..counts.len()]))
                    .collect();
                let mut got = Distinct::default();
                plays.generate(d0, d1, &mut got);
                assert_eq!(got.0, want, "{counts:?} {d0}-{d1}");
            }
        }
    }

    #[test]
    fn every_six_point_layout_matches_move_list() {
        let mut list = MoveList::new();
        let mut b = [0u8; 6];
        for id in 0..position_count(6, 15) {
            unrank(id, 15, &mut b);
            check(&b, &mut list);
        }
    }

    #[test]
    fn layouts_outside_home_match_move_list() {
        let mut list = MoveList::new();
        for (p, n) in [(9, 6), (12, 4), (23, 2)] {
            let mut b = vec![0u8; p];
            for id in 0..position_count(p, n) {
                unrank(id, n, &mut b);
                check(&b, &mut list);
            }
        }
    }
}
