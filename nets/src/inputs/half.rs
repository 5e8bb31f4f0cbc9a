//! The 22 contact features of one side, `half(me, opp)` (docs/formats.md#contact-and-crashed-inputs).

use super::escapes::{escapes1_made, escapes_made as escapes};
use super::masks::{masks, Masks};
use super::offsets::*;
use super::point_sums::Counts;
use super::shots::shots;
use crate::arith::Division;

/// A side's chequers and their masks, computed once for a board and read by
/// both of its blocks.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    points: &'a [u8; 25],
    masks: Masks,
}

impl<'a> Side<'a> {
    /// The side with chequers `points`.
    #[inline]
    pub fn new(points: &'a [u8; 25]) -> Side<'a> {
        Side {
            points,
            masks: masks(points),
        }
    }
}

/// Writes offsets 3..=24 of a 25-value block for `me` against `opp`.
pub(crate) fn half_inputs(me: Side, opp: Side, out: &mut [f32], div: Division) {
    match div {
        Division::True => half_inputs_in::<false, true>(me, opp, out),
        Division::Reciprocal => half_inputs_in::<true, true>(me, opp, out),
    }
}

/// Writes only the features of [`half_inputs`] that depend on more of the
/// opponent's board than its rearmost chequer (PIPLOSS, P1, P2, MOBILITY,
/// ENTER, ENTER2). The others are functions of `me` and of that chequer's
/// point alone, so a block computed for the same `me` and an opponent
/// whose rearmost chequer is on the same point already holds them.
pub(crate) fn half_against(me: Side, opp: Side, out: &mut [f32], div: Division) {
    match div {
        Division::True => half_inputs_in::<false, false>(me, opp, out),
        Division::Reciprocal => half_inputs_in::<true, false>(me, opp, out),
    }
}

/// The opponent's rearmost chequer in `me`'s numbering (−1 = bar, 24 =
/// none), from the opponent's occupied points.
#[inline]
fn rearmost_against(opp_occupied: u32) -> i32 {
    23 - highest(opp_occupied)
}

/// [`half_inputs`] (with `OWN`) or [`half_against`] compiled for one
/// division (`RECIPROCAL`: multiplication by the constant's reciprocal), so
/// each division is one instruction rather than both computed and one kept.
#[inline(always)]
fn half_inputs_in<const RECIPROCAL: bool, const OWN: bool>(me: Side, opp: Side, out: &mut [f32]) {
    let div = if RECIPROCAL {
        Division::Reciprocal
    } else {
        Division::True
    };
    let (mine, theirs) = (me.masks, opp.masks);
    let me = me.points;
    if OWN {
        own_features(me, mine, rearmost_against(theirs.occupied), out, div);
    }

    let (np, n1, n2) = shots(me, mine, theirs);
    out[PIPLOSS] = div.div(np as f32, 12.0 * 36.0);
    out[P1] = div.div(n1 as f32, 36.0);
    out[P2] = div.div(n2 as f32, 36.0);

    let opp_made = theirs.made & 0x00FF_FFFF;
    // Empty points add 0: no branch on them.
    let mobility: u32 = (6..25)
        .map(|i| (i as u32 - 5) * u32::from(me[i]) * escapes(opp_made, i as i32))
        .sum();
    out[MOBILITY] = div.div(mobility as f32, 3600.0);

    // The opponent's closed home points.
    let closed = theirs.made & 0x3F;
    out[ENTER] = if me[24] > 0 {
        div.div(
            i32::from(ENTER_LOSS[usize::from(me[24] > 1)][closed as usize]) as f32,
            36.0 * (49.0f32 / 6.0),
        )
    } else {
        0.0
    };
    let n = closed.count_ones() as i32;
    out[ENTER2] = div.div((36 - (n - 6) * (n - 6)) as f32, 36.0);
}

/// The features of `me` that depend on the opponent only through its
/// rearmost chequer, `n_opp_back` in my numbering.
#[inline(always)]
fn own_features(me: &[u8; 25], mine: Masks, n_opp_back: i32, out: &mut [f32], div: Division) {
    let counts = Counts::new(me);
    let total = counts.sums();
    let (break_contact, free_pip) = contact_pips(counts, total, n_opp_back);
    out[BREAK_CONTACT] = div.div(break_contact as f32, 15.0 + 152.0);
    out[FREEPIP] = div.div(free_pip as f32, 100.0);

    out[TIMING] = div.div(timing(me, counts, n_opp_back) as f32, 100.0);

    let n_back = highest(mine.occupied);
    out[BACK_CHEQUER] = div.div(n_back as f32, 24.0);
    let my_made = mine.made & 0x00FF_FFFF;
    // The rearmost made point (not the bar).
    let anchor = highest(my_made);
    out[BACK_ANCHOR] = div.div(anchor as f32, 24.0);
    // The forward anchor: the lowest made point of 18–23 (none lies above
    // `anchor`), else the highest of 12–17.
    let (outer, middle) = (my_made & 0x00FC_0000, my_made & 0x0003_F000);
    out[FORWARD_ANCHOR] = if outer != 0 {
        div.div((24 - outer.trailing_zeros()) as f32, 6.0)
    } else if middle != 0 {
        div.div((24 - highest(middle)) as f32, 6.0)
    } else {
        2.0
    };

    out[BACKESCAPES] = div.div(escapes(my_made, 23 - n_opp_back) as f32, 36.0);
    out[BACKRESCAPES] = div.div(escapes1_made(my_made, 23 - n_opp_back) as f32, 36.0);

    let (n_after_back, n) = containment(my_made, n_opp_back);
    let a = div.div((36 - n_after_back) as f32, 36.0);
    out[ACONTAIN] = a;
    out[ACONTAIN2] = a * a;
    let c = div.div((36 - n) as f32, 36.0);
    out[CONTAIN] = c;
    out[CONTAIN2] = c * c;

    out[MOMENT2] = div.div(moment2(counts, total) as f32, 400.0);

    // `w / (tot · 11)`; gnubg's fast-math build reassociates it to
    // `(w · (1/11)) / tot` (verified bit for bit; not
    // `w · (1/(tot · 11))`).
    out[BACKBONE] = match backbone(me, my_made) {
        (_, 0) => 0.0,
        (w, tot) => {
            let v = match div {
                Division::True => w as f32 / (tot as f32 * 11.0),
                Division::Reciprocal => div.div(w as f32, 11.0) / tot as f32,
            };
            1.0 - v
        }
    };

    let anchors = (mine.made >> 18 & 0x3F).count_ones();
    let men: u32 = me[18..25].iter().map(|&c| u32::from(c)).sum();
    out[BACKG] = if anchors > 1 {
        (men as f32 - 3.0) / 4.0
    } else {
        0.0
    };
    out[BACKG1] = if anchors == 1 { men as f32 / 8.0 } else { 0.0 };
}

/// BREAK_CONTACT's and FREEPIP's sums: my chequers beyond the opponent's
/// rearmost one (`n_opp_back`), each weighted by the pips it needs to pass
/// it, and those before it by their pips; `total` is `counts.sums()`.
#[inline(always)]
fn contact_pips(counts: Counts, total: [i32; 2], n_opp_back: i32) -> (i32, i32) {
    let [far, far_pips] = counts.above(n_opp_back).sums();
    let [from, from_pips] = counts.above(n_opp_back - 1).sums();
    let beyond = far_pips + (1 - n_opp_back) * far;
    let before = (total[1] + total[0]) - (from_pips + from);
    (beyond, before)
}

/// ACONTAIN's and CONTAIN's escape counts: the fewest rolls that escape
/// from my points 15 up to the opponent's rearmost chequer (36 if none
/// lies between), and from all my points 15–23. With the opponent on the
/// bar (`n_opp_back` −1) the first range includes point 24, the second
/// never does.
#[inline(always)]
fn containment(my_made: u32, n_opp_back: i32) -> (u32, u32) {
    let (mut after_back, mut all) = (36u32, 36u32);
    for i in 15..25 {
        let e = escapes(my_made, i);
        if i < 24 - n_opp_back {
            after_back = after_back.min(e);
        }
        if i < 24 {
            all = all.min(e);
        }
    }
    (after_back, all)
}

/// The highest bit set in `mask`, or −1 if none.
#[inline]
fn highest(mask: u32) -> i32 {
    31 - mask.leading_zeros() as i32
}

/// TIMING's integer t (docs/formats.md#contact-and-crashed-inputs);
/// `counts` are `me`'s.
fn timing(me: &[u8; 25], counts: Counts, n_opp_back: i32) -> i32 {
    let m = |i: i32| i32::from(me[i as usize]);
    let (outer, movable) = counts.timing_outer(n_opp_back);
    let mut t = 24 * m(24) + outer;
    let mut no = m(24) + movable;
    // Without a branch per point (which points hold more or fewer than
    // two is unpredictable): a point's spare chequers add to the movable
    // ones, its missing ones take from them if enough are left.
    for i in (0..6).rev() {
        let spare = (m(i) - 2).max(0);
        let missing = (2 - m(i)).max(0);
        let filled = if no >= missing { missing } else { 0 };
        t += i * (spare - filled);
        no += spare - filled;
    }
    t.max(0)
}

/// MOMENT2's integer k: rounded-up second moment of the chequers beyond the
/// rounded-up mean; `counts` and `total` are the side's counts and their
/// sums.
fn moment2(counts: Counts, total: [i32; 2]) -> i32 {
    let [men, sum] = total;
    let mean = if men > 0 {
        div_small(sum + men - 1, men)
    } else {
        sum
    };
    // Σ c·(i − mean)² over the points beyond the mean.
    let [far, first, second] = counts.above(mean).moments();
    let k = second - 2 * mean * first + mean * mean * far;
    if far > 0 {
        div_small(k + far - 1, far)
    } else {
        k
    }
}

/// `x / d` for `d ≥ 1`, by a multiplication where `0 ≤ x < 2¹⁶` and
/// `d < 16` (a side's chequers and its sums: a division takes several
/// times as long). With `m = ⌈2³²/d⌉ = 2³²/d + ε`, `0 ≤ ε < 1`,
/// `x·m/2³² = x/d + x·ε/2³²`, whose second term is below `2⁻¹⁶ < 1/d`;
/// as the fraction of `x/d` is at most `1 − 1/d`, the floor is `x/d`'s.
#[inline(always)]
fn div_small(x: i32, d: i32) -> i32 {
    /// `⌈2³²/d⌉` for `d` from 1 to 15 (entry 0 unused).
    const RECIPROCALS: [u64; 16] = {
        let mut t = [0u64; 16];
        let mut d = 1;
        while d < 16 {
            t[d] = (1u64 << 32).div_ceil(d as u64);
            d += 1;
        }
        t
    };
    match (u32::try_from(x), usize::try_from(d)) {
        (Ok(x @ 0..=0xFFFF), Ok(d @ 1..=15)) => ((u64::from(x) * RECIPROCALS[d]) >> 32) as i32,
        _ => x / d,
    }
}

/// ENTER's pip loss when on the bar (`[one chequer, two or more]`) for
/// each set of the opponent's closed home points (bit `i` for point `i`):
/// one lookup instead of a pass over the points with a branch on each.
static ENTER_LOSS: [[u16; 64]; 2] = {
    let mut t = [[0u16; 64]; 2];
    let mut closed = 0;
    while closed < 64 {
        let (one, two) = (
            enter_loss(closed as u32, false),
            enter_loss(closed as u32, true),
        );
        // At most 294 (every point closed): the entries hold them exactly.
        assert!(0 <= one && one <= two && two <= u16::MAX as i32);
        t[0][closed] = one as u16;
        t[1][closed] = two as u16;
        closed += 1;
    }
    t
};

/// ENTER's pip loss when on the bar against the closed home points
/// `closed` (bit `i` for point `i`), with two or more chequers there if
/// `two`.
const fn enter_loss(closed: u32, two: bool) -> i32 {
    let mut loss = 0;
    let mut i: usize = 0;
    while i < 6 {
        let mut j = i + 1;
        if closed >> i & 1 == 1 {
            loss += 4 * (i as i32 + 1);
            while j < 6 {
                if closed >> j & 1 == 1 {
                    loss += 2 * (i + j + 2) as i32;
                } else if two {
                    loss += 2 * (i as i32 + 1);
                }
                j += 1;
            }
        } else if two {
            while j < 6 {
                if closed >> j & 1 == 1 {
                    loss += 2 * (j as i32 + 1);
                }
                j += 1;
            }
        }
        i += 1;
    }
    loss
}

/// BACKBONE's (w, tot): every made point compared with the most advanced one
/// (points 1–23; `made` has bit p for a point with two or more chequers).
/// gnubg adds, for each other made point at distance d below the most
/// advanced one, that point's chequers times 11 (d ≤ 6), 13 − d (d 7–11) or
/// 0 to w, and the chequers to tot; its chequers are read from the most
/// advanced point, so w and tot are those chequers times a weight sum and
/// a count, each taken from the mask in a few operations.
fn backbone(me: &[u8; 25], made: u32) -> (i32, i32) {
    /// Σ (13 − d) over the points of a 5-bit window, bit k for d = 11 − k.
    const FAR: [u8; 32] = {
        let mut t = [0u8; 32];
        let mut m = 0;
        while m < 32 {
            let mut k = 0;
            while k < 5 {
                if m >> k & 1 == 1 {
                    t[m] += 2 + k as u8;
                }
                k += 1;
            }
            m += 1;
        }
        t
    };
    let rest = made & 0x00FF_FFFE;
    if rest == 0 {
        return (0, 0);
    }
    let top = 31 - rest.leading_zeros();
    let rest = rest & !(1 << top);
    let weight = i32::from(me[top as usize]);
    // Shifted up by 16 so that the windows below point 0 read zeros.
    let wide = u64::from(rest) << 16;
    let near = (wide >> (top + 16 - 6)) & 0x3F;
    let far = (wide >> (top + 16 - 11)) & 0x1F;
    let sum = 11 * near.count_ones() as i32 + i32::from(FAR[far as usize]);
    (sum * weight, rest.count_ones() as i32 * weight)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random sides (some with chequers on the bar) and rearmost opposing
    /// chequers from the bar (−1) to none (24).
    fn cases() -> Vec<([u8; 25], i32)> {
        let mut next = crate::test_rng::xorshift(0xD1B5_4A32_D192_ED03);
        (0..100_000)
            .map(|_| {
                let mut me = [0u8; 25];
                for _ in 0..next() % 16 {
                    let v = next();
                    me[if v.is_multiple_of(11) {
                        24
                    } else {
                        (v >> 8) as usize % 24
                    }] += 1;
                }
                (me, (next() % 26) as i32 - 1)
            })
            .collect()
    }

    #[test]
    fn small_divisions_are_divisions() {
        for d in 1..40 {
            for x in (0..70_000).chain([-1, -17, i32::MAX]) {
                assert_eq!(div_small(x, d), x / d, "{x} / {d}");
            }
        }
    }

    #[test]
    fn fixed_passes_equal_the_ranges_they_replace() {
        for (me, back) in cases() {
            let m = |i: i32| i32::from(me[i as usize]);
            let beyond: i32 = ((back + 1).max(0)..25).map(|i| m(i) * (i + 1 - back)).sum();
            let before: i32 = (0..back.max(0)).map(|i| (i + 1) * m(i)).sum();
            let counts = Counts::new(&me);
            let total = counts.sums();
            assert_eq!(
                contact_pips(counts, total, back),
                (beyond, before),
                "{me:?} {back}"
            );

            let made = masks(&me).made & 0x00FF_FFFF;
            let mut n = 36u32;
            let mut i = 15;
            while i < 24 - back {
                n = n.min(escapes(made, i));
                i += 1;
            }
            let after_back = n;
            if back < 0 {
                i = 15;
                n = 36;
            }
            while i < 24 {
                n = n.min(escapes(made, i));
                i += 1;
            }
            assert_eq!(containment(made, back), (after_back, n), "{me:?} {back}");

            let (mut t, mut no) = (0, 0);
            let mut i = 23;
            while i >= 12 && i > back {
                let c = (m(i) - 2).max(0) + i32::from(m(i) == 1);
                no += c;
                t += i * c;
                i -= 1;
            }
            while i >= 6 {
                no += m(i);
                t += i * m(i);
                i -= 1;
            }
            assert_eq!(counts.timing_outer(back), (t, no), "{me:?} {back}");
            // TIMING's home-board pass, a branch per point.
            let (mut t, mut no) = (t + 24 * m(24), no + m(24));
            for i in (0..6).rev() {
                if m(i) > 2 {
                    t += i * (m(i) - 2);
                    no += m(i) - 2;
                } else if m(i) < 2 && no >= 2 - m(i) {
                    t -= i * (2 - m(i));
                    no -= 2 - m(i);
                }
            }
            assert_eq!(timing(&me, counts, back), t.max(0), "{me:?} {back}");
            // BACKBONE's sums, a step per made point.
            let mut rest = made & 0x00FF_FFFE;
            let want = if rest == 0 {
                (0, 0)
            } else {
                let top = 31 - rest.leading_zeros() as usize;
                rest &= !(1 << top);
                let (mut w, mut tot) = (0, 0);
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let d = top - p;
                    w += m(top as i32)
                        * match d {
                            0..=6 => 11,
                            7..=11 => 13 - d as i32,
                            _ => 0,
                        };
                    tot += m(top as i32);
                }
                (w, tot)
            };
            assert_eq!(backbone(&me, masks(&me).made), want, "{me:?}");

            let men: i32 = (0..25).map(m).sum();
            let sum: i32 = (0..25).map(|i| i * m(i)).sum();
            let mean = if men > 0 { (sum + men - 1) / men } else { sum };
            let (mut far, mut k) = (0, 0);
            for i in (mean + 1).max(0)..25 {
                far += m(i);
                k += m(i) * (i - mean) * (i - mean);
            }
            let want = if far > 0 { (k + far - 1) / far } else { k };
            assert_eq!(moment2(counts, total), want, "{me:?}");
        }
    }
}
