//! Shots at the opponent's blots: PIPLOSS, P1, P2 (docs/formats.md#shots),
//! with gnubg 1.07's rule for which blots are considered.

use super::masks::Masks;

/// One way of hitting at a distance: all intermediate points needed (or
/// either of two), the intermediate distances, dice faces used, pips.
struct Way {
    all: bool,
    via: [u8; 3],
    faces: u8,
    pips: u8,
}

const fn way(all: bool, via: [u8; 3], faces: u8, pips: u8) -> Way {
    Way {
        all,
        via,
        faces,
        pips,
    }
}

/// The 39 ways, numbered as in docs/formats.md#shots (grouped by distance).
static WAYS: [Way; 39] = [
    way(true, [0, 0, 0], 1, 1),
    way(true, [0, 0, 0], 1, 2),
    way(true, [1, 0, 0], 2, 2),
    way(true, [0, 0, 0], 1, 3),
    way(false, [1, 2, 0], 2, 3),
    way(true, [1, 2, 0], 3, 3),
    way(true, [0, 0, 0], 1, 4),
    way(false, [1, 3, 0], 2, 4),
    way(true, [2, 0, 0], 2, 4),
    way(true, [1, 2, 3], 4, 4),
    way(true, [0, 0, 0], 1, 5),
    way(false, [1, 4, 0], 2, 5),
    way(false, [2, 3, 0], 2, 5),
    way(true, [0, 0, 0], 1, 6),
    way(false, [1, 5, 0], 2, 6),
    way(false, [2, 4, 0], 2, 6),
    way(true, [3, 0, 0], 2, 6),
    way(true, [2, 4, 0], 3, 6),
    way(false, [1, 6, 0], 2, 7),
    way(false, [2, 5, 0], 2, 7),
    way(false, [3, 4, 0], 2, 7),
    way(false, [2, 6, 0], 2, 8),
    way(false, [3, 5, 0], 2, 8),
    way(true, [4, 0, 0], 2, 8),
    way(true, [2, 4, 6], 4, 8),
    way(false, [3, 6, 0], 2, 9),
    way(false, [4, 5, 0], 2, 9),
    way(true, [3, 6, 0], 3, 9),
    way(false, [4, 6, 0], 2, 10),
    way(true, [5, 0, 0], 2, 10),
    way(false, [5, 6, 0], 2, 11),
    way(true, [6, 0, 0], 2, 12),
    way(true, [4, 8, 0], 3, 12),
    way(true, [3, 6, 9], 4, 12),
    way(true, [5, 10, 0], 3, 15),
    way(true, [4, 8, 12], 4, 16),
    way(true, [6, 12, 0], 3, 18),
    way(true, [5, 10, 15], 4, 20),
    way(true, [6, 12, 18], 4, 24),
];

/// The ways each of the 21 rolls can hit (indices into [`WAYS`], −1 = none),
/// rolls in the order 11, 21, 22, 31, 32, 33, …, 66. A roll is a double iff
/// its fourth entry is used.
static ROLL_WAYS: [[i8; 4]; 21] = [
    [0, 2, 5, 9],
    [0, 1, 4, -1],
    [1, 8, 17, 24],
    [0, 3, 7, -1],
    [1, 3, 12, -1],
    [3, 16, 27, 33],
    [0, 6, 11, -1],
    [1, 6, 15, -1],
    [3, 6, 20, -1],
    [6, 23, 32, 35],
    [0, 10, 14, -1],
    [1, 10, 19, -1],
    [3, 10, 22, -1],
    [6, 10, 26, -1],
    [10, 29, 34, 37],
    [0, 13, 18, -1],
    [1, 13, 21, -1],
    [3, 13, 25, -1],
    [6, 13, 28, -1],
    [10, 13, 30, -1],
    [13, 31, 36, 38],
];

/// Each way's intermediate distances as a mask (bit l: a stop l pips on).
static VIA: [u32; 39] = via_masks();

const fn via_masks() -> [u32; 39] {
    let mut t = [0u32; 39];
    let mut r = 0;
    while r < 39 {
        let mut k = 0;
        while k < 3 && WAYS[r].via[k] > 0 {
            t[r] |= 1 << WAYS[r].via[k];
            k += 1;
        }
        r += 1;
    }
    t
}

/// (np, n1, n2): weighted pips lost, rolls hitting at least one blot, rolls
/// hitting two or more, for `me` shooting at `opp`'s blots.
pub(crate) fn shots(me: &[u8; 25], mine: Masks, theirs: Masks) -> (u32, u32, u32) {
    let hit = hitting_ways(mine, theirs);
    if hit.iter().fold(0, |a, &h| a | h) == 0 {
        return (0, 0, 0);
    }
    // The opponent's blots in its numbering (bit i: a single chequer on i).
    let blots = theirs.blots();
    if me[24] == 0 {
        return from_the_board(me, blots, &hit);
    }
    let (mut np, mut n1, mut n2) = (0u32, 0u32, 0u32);
    for ways in &ROLL_WAYS {
        let (pips, chequers) = if me[24] == 1 {
            entering_one(theirs.made, blots, &hit, ways)
        } else {
            entering_two(&hit, ways)
        };
        let w = if ways[3] > 0 { 1 } else { 2 };
        np += pips as u32 * w;
        n1 += w * u32::from(chequers > 0);
        n2 += w * u32::from(chequers > 1);
    }
    (np, n1, n2)
}

/// For each of the 39 ways: the points of `me` (bit j = point j) from which
/// that way hits a blot of `opp` that gnubg 1.07 considers.
///
/// Computed with bit masks over my numbering: a way of `d` pips hits from
/// `j` the blot at `j − d`, and it is blocked for a blot at `b` when the
/// opponent has made the intermediate point `b + k` (all of them needed, or
/// either of two), so each way is a few shifts of whole boards.
fn hitting_ways(mine: Masks, theirs: Masks) -> [u32; 39] {
    // gnubg 1.07 counts occupied home points (1.08 counts made points).
    let n_board = (mine.occupied & 0x3F).count_ones();
    let top = if n_board > 2 { 23 } else { 21 };
    // Every occupied point but home points with exactly two chequers.
    let shooters = mine.occupied & !(mine.two & 0x3F);
    // The opponent's blots (those gnubg considers) and made points, in my
    // numbering: its point i (i < 24) is my point 23 − i.
    let mirror = |m: u32| m.reverse_bits() >> 8;
    let blots = mirror(theirs.blots() & ((2 << top) - 1));
    let made = mirror(theirs.made & 0x00FF_FFFF);
    let mut hit = [0u32; 39];
    if blots == 0 {
        return hit;
    }
    // `made >> l` for each stop distance l; index 0 (no stop) blocks nothing.
    let mut ahead = [0u32; 19];
    for (l, a) in ahead.iter_mut().enumerate().skip(1) {
        *a = made >> l;
    }
    for (h, w) in hit.iter_mut().zip(&WAYS) {
        let [x, y, z] = w.via.map(|k| ahead[usize::from(k)]);
        let blocked = if w.all { x | y | z } else { x & y };
        *h = shooters & ((blots & !blocked) << w.pips);
    }
    hit
}

/// [`shots`] with nothing on the bar.
///
/// Each way's outcome is worked out once (its rearmost shooter `k`, the pips
/// lost `k − pips + 1`, and its extra chequer hit), then each roll combines
/// the outcomes of its ways without branches:
///
/// - a direct way (one die) hits one chequer, and on a double a second one
///   when another shooter also hits; the second die of a non-double counts
///   another chequer unless it is the same shooter as the first die's with
///   no spare to send;
/// - a combined way hits at least one chequer, plus one when an intermediate
///   stop lands on another blot.
fn from_the_board(me: &[u8; 25], blots: u32, hit: &[u32; 39]) -> (u32, u32, u32) {
    // Per way: pips lost (0 if it does not hit), whether it hits, the shooter,
    // and the extra chequer (second shooter for direct ways, a blot at a
    // stop for combined ways).
    let mut lost = [0u32; 39];
    let mut hits = [0u32; 39];
    let mut extra = [0u32; 39];
    let mut shooter = [0u32; 39];
    for r in 0..39 {
        let bits = hit[r];
        let top = 31 - (bits | 1).leading_zeros();
        let h = u32::from(bits != 0);
        hits[r] = h;
        shooter[r] = top;
        // A hit needs top ≥ pips, so a miss (top 0) saturates to 0.
        lost[r] = (top + 1).saturating_sub(u32::from(WAYS[r].pips));
        extra[r] = h * if WAYS[r].faces == 1 {
            u32::from(bits & bits.wrapping_sub(1) != 0)
        } else {
            u32::from((blots >> (23 - top)) & VIA[r] != 0)
        };
    }
    let (mut np, mut n1, mut n2) = (0u32, 0u32, 0u32);
    for ways in &ROLL_WAYS {
        let [a, b, c, d] = ways.map(|r| r as usize);
        let (pips, chequers, w) = if ways[3] >= 0 {
            // A double: the direct way, then the three combined ones.
            let mut n = hits[a] * (1 + extra[a]);
            for r in [b, c, d] {
                n = hits[r] * (n.max(1) + extra[r]) + (1 - hits[r]) * n;
            }
            (lost[a].max(lost[b]).max(lost[c]).max(lost[d]), n, 1)
        } else {
            let same = shooter[a] == shooter[b] && me[shooter[b] as usize] < 2;
            let mut n = hits[a] + hits[b] * u32::from(hits[a] == 0 || !same);
            n = hits[c] * (n.max(1) + extra[c]) + (1 - hits[c]) * n;
            (lost[a].max(lost[b]).max(lost[c]), n, 2)
        };
        np += pips * w;
        n1 += w * u32::from(chequers > 0);
        n2 += w * u32::from(chequers > 1);
    }
    (np, n1, n2)
}

/// (pips lost, chequers hit) for one roll with one chequer on the bar: it
/// must enter first (or hit as it enters).
fn entering_one(opp_made: u32, blots: u32, hit: &[u32; 39], ways: &[i8; 4]) -> (i32, u32) {
    let (mut p, mut c) = (0i32, 0u32);
    let mut entered_elsewhere = false;
    for (j, &r) in ways.iter().enumerate().take_while(|(_, &r)| r >= 0) {
        let (bits, w) = (hit[r as usize], &WAYS[r as usize]);
        if bits == 0 {
            continue;
        }
        if w.faces == 1 {
            for k in (1..=24).rev().filter(|&k| bits & (1 << k) != 0) {
                if entered_elsewhere && k != 24 {
                    break;
                }
                if k != 24 {
                    // The other die must enter (gnubg's indexing,
                    // quirks included: direct ways are j = 0, 1).
                    let other = WAYS[ways[1 - j] as usize].pips;
                    if opp_made >> (other - 1) & 1 == 1 {
                        break;
                    }
                    entered_elsewhere = true;
                }
                c += 1;
                p = p.max(k - i32::from(w.pips) + 1);
            }
        } else {
            if bits & (1 << 24) == 0 {
                continue;
            }
            if c == 0 {
                c = 1;
            }
            p = p.max(25 - i32::from(w.pips));
            if (blots >> 1) & VIA[r as usize] != 0 {
                c += 1;
            }
        }
    }
    (p, c)
}

/// (pips lost, chequers hit) for one roll with two or more chequers on the
/// bar: only a die that hits as it enters counts.
fn entering_two(hit: &[u32; 39], ways: &[i8; 4]) -> (i32, u32) {
    let (mut p, mut c) = (0i32, 0u32);
    for &r in &ways[..2] {
        let w = &WAYS[r as usize];
        if hit[r as usize] & (1 << 24) != 0 && w.faces == 1 {
            c += 1;
            p = p.max(25 - i32::from(w.pips));
        }
    }
    (p, c)
}
