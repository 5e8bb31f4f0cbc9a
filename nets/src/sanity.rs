//! gnubg 1.07's sanity check of net outputs (docs/formats.md#sanity-check).

use crate::bearoff_eval::BearoffDatabases;
use crate::occupancy::Occupancy;
use board::Board;
use board::Probabilities;

/// Per-side counts the checks use.
#[derive(Clone, Copy, Debug)]
struct SideCounts {
    /// Highest occupied index (0 if none).
    back: i32,
    /// Men on the board.
    men: i32,
    /// Crossovers needed to get home.
    cross: i32,
    /// Crossovers that save the gammon (plus one).
    gammon_cross: i32,
}

/// Each point's zone: 1 for the home board (points 0–5), up to 4 for the
/// outer quarter, 5 for the bar; 0 past the bar (the padding of
/// [`counts`]' 32-byte copy).
const ZONE: [u32; 32] = {
    let mut z = [0u32; 32];
    let mut i = 0;
    while i < 25 {
        z[i] = if i < 24 { i as u32 / 6 + 1 } else { 5 };
        i += 1;
    }
    z
};

/// The counts of one side, in integers: the same whatever the order they
/// are summed in.
fn counts(side: &[u8; 25]) -> SideCounts {
    // On x86-64 the side is copied and loaded once for both.
    #[cfg(target_arch = "x86_64")]
    let (o, cross) = {
        let halves = crate::occupancy::halves(side);
        (Occupancy::of_halves(halves), crossovers(halves))
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (o, cross) = (Occupancy::of(side), crossovers(side));
    side_counts(o.men, cross, o.occupied)
}

/// Each chequer's crossovers to the home board summed ([`ZONE`]): the
/// side's [`crate::occupancy::halves`] weighted as whole vectors.
#[cfg(target_arch = "x86_64")]
fn crossovers([lo, hi]: [core::arch::x86_64::__m128i; 2]) -> u32 {
    use core::arch::x86_64::*;
    /// [`ZONE`] as 16-bit lanes for `pmaddwd`.
    const ZONE16: [i16; 32] = {
        let mut z = [0i16; 32];
        let mut i = 0;
        while i < 32 {
            z[i] = ZONE[i] as i16;
            i += 1;
        }
        z
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; `ZONE16` is 64 readable
    // bytes, read 16 at a time by unaligned loads inside it.
    #[allow(unsafe_code)]
    unsafe {
        let zero = _mm_setzero_si128();
        let zone = |k: usize| _mm_loadu_si128(ZONE16[8 * k..].as_ptr().cast());
        let w = _mm_add_epi32(
            _mm_add_epi32(
                _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), zone(0)),
                _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), zone(1)),
            ),
            _mm_add_epi32(
                _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), zone(2)),
                _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), zone(3)),
            ),
        );
        let w = _mm_add_epi32(w, _mm_shuffle_epi32::<0b01_00_11_10>(w));
        let w = _mm_add_epi32(w, _mm_shuffle_epi32::<0b10_11_00_01>(w));
        _mm_cvtsi128_si32(w) as u32
    }
}

/// [`crossovers`] off x86-64: a plain loop.
#[cfg(not(target_arch = "x86_64"))]
fn crossovers(side: &[u8; 25]) -> u32 {
    side.iter()
        .zip(&ZONE)
        .map(|(&n, &z)| z * u32::from(n))
        .sum()
}

/// The counts from the men, the crossovers and the mask of occupied points.
#[inline(always)]
fn side_counts(men: u32, cross: u32, occupied: u32) -> SideCounts {
    SideCounts {
        back: occupied.checked_ilog2().unwrap_or(0) as i32,
        men: men as i32,
        cross: cross as i32,
        // One, plus each chequer's crossovers to the home board.
        gammon_cross: 1 + cross as i32 - men as i32,
    }
}

/// Side 1's counts and gnubg's `MaxTurns` kept from the last board checked
/// with the same databases: the candidates of one roll, checked one after
/// another, share side 1 (the side on roll, which did not move).
#[derive(Clone, Debug, Default)]
pub(crate) struct SideMemo(Option<KeptSide>);

/// A side, its counts, and its `MaxTurns` once asked for.
#[derive(Clone, Debug)]
struct KeptSide {
    side: [u8; 25],
    counts: SideCounts,
    max_turns: Option<i32>,
}

impl SideMemo {
    /// What the memo keeps of `side`, computed first if it held another.
    fn of(&mut self, side: &[u8; 25]) -> &mut KeptSide {
        if self.0.as_ref().is_some_and(|kept| kept.side != *side) {
            self.0 = None;
        }
        self.0.get_or_insert_with(|| KeptSide {
            side: *side,
            counts: counts(side),
            max_turns: None,
        })
    }
}

/// gnubg's `MaxTurns` of a side with counts `c`: from the one-sided
/// database where it covers the side, else twice its crossovers.
fn max_turns(side: &[u8; 25], c: &SideCounts, db: &BearoffDatabases) -> i32 {
    if c.back < 6 && (c.back as usize) < db.one_sided_points() {
        db.max_turns(side)
    } else {
        2 * c.cross
    }
}

/// Clamps impossible or certain outcomes and orders the cumulative outputs.
/// Applied to race, crashed and contact evaluations (not to bearoff classes).
pub fn sanity_check(board: &Board, out: &mut Probabilities, db: &BearoffDatabases) {
    sanity_check_with(board, out, db, &mut SideMemo::default());
}

/// [`sanity_check`] with side 1's counts and `MaxTurns` from `memo` when it
/// holds that side (kept there otherwise). `memo` must only have seen
/// boards checked with the same databases `db`.
pub(crate) fn sanity_check_with(
    board: &Board,
    out: &mut Probabilities,
    db: &BearoffDatabases,
    memo: &mut SideMemo,
) {
    let kept = memo.of(&board.sides[1]);
    let s = [counts(&board.sides[0]), kept.counts];
    let contact = s[0].back + s[1].back >= 24;
    let mut max_turns = [0i32; 2];
    if !contact {
        max_turns[0] = self::max_turns(&board.sides[0], &s[0], db);
        max_turns[1] = *kept
            .max_turns
            .get_or_insert_with(|| self::max_turns(&board.sides[1], &s[1], db));
        if max_turns[1] == 0 {
            max_turns[1] = 1;
        }
    }
    let [win, wg, wbg, lg, lbg] = [0, 1, 2, 3, 4];
    if !contact && s[0].cross > 4 * (max_turns[1] - 1) {
        out[win] = 1.0;
    }
    if s[0].men < 15 {
        out[wg] = 0.0;
        out[wbg] = 0.0;
    } else if !contact {
        if s[1].cross > 8 * s[0].gammon_cross {
            out[wg] = 0.0;
        } else if s[0].gammon_cross > 4 * (max_turns[1] - 1) {
            out[wg] = 1.0;
        }
        if s[0].back < 18 {
            out[wbg] = 0.0;
        }
    }
    if !contact && s[1].cross > 4 * max_turns[0] {
        out[win] = 0.0;
    }
    if s[1].men < 15 {
        out[lg] = 0.0;
        out[lbg] = 0.0;
    } else if !contact {
        if s[0].cross > 8 * s[1].gammon_cross - 4 {
            out[lg] = 0.0;
        } else if s[1].gammon_cross > 4 * max_turns[0] {
            out[lg] = 1.0;
        }
        if s[1].back < 18 {
            out[lbg] = 0.0;
        }
    }
    if out[wg] > out[win] {
        out[wg] = out[win];
    }
    let lose = 1.0 - out[win];
    if out[lg] > lose {
        out[lg] = lose;
    }
    if out[wbg] > out[wg] {
        out[wbg] = out[wg];
    }
    if out[lbg] > out[lg] {
        out[lbg] = out[lg];
    }
    if contact {
        for v in &mut out[1..] {
            if *v < 1e-4 {
                *v = 0.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_their_definitions() {
        let mut random = crate::test_rng::xorshift(0x0123_4567_89AB_CDEF);
        for k in 0..20_000 {
            let mut side = [0u8; 25];
            for _ in 0..(random() % 16) {
                side[(random() % 25) as usize] += 1;
            }
            if k == 0 {
                side = [0; 25];
            }
            if k % 7 == 1 {
                // Any byte at all (not a legal side): the counts still hold.
                side = std::array::from_fn(|_| (random() % 256) as u8);
            }
            let c = counts(&side);
            let men: i32 = side.iter().map(|&n| i32::from(n)).sum();
            let zone = |i: usize| if i < 24 { i as i32 / 6 + 1 } else { 5 };
            let cross: i32 = (0..25).map(|i| zone(i) * i32::from(side[i])).sum();
            let back = side.iter().rposition(|&n| n > 0).unwrap_or(0) as i32;
            assert_eq!(
                (c.back, c.men, c.cross, c.gammon_cross),
                (back, men, cross, 1 + cross - men),
                "{side:?}"
            );
        }
    }
}
