//! Shots at the opponent's blots: PIPLOSS, P1, P2 (docs/formats.md#shots),
//! with gnubg 1.07's rule for which blots are considered.

use super::masks::Masks;

/// One way of hitting at a distance: all intermediate points needed (or
/// either of two), the intermediate distances, dice faces used (0: a
/// padding lane, which never hits), pips.
#[derive(Clone, Copy)]
struct Way {
    all: bool,
    via: [u8; 3],
    faces: u8,
    pips: u8,
}

/// The 39 ways (docs/formats.md#shots) laid out by roll in 48 lanes, so
/// that the vector code finds each roll's ways in lanes of their own: 0–5
/// the direct ways of 1–6 pips; 8–22 the two-dice ways of the 15
/// non-doubles in [`ROLL_WAYS`]'s order; 24–29, 32–37 and 40–45 a double
/// `d-d` played twice, three and four times (lane `24 + d − 1` …). The
/// other lanes pad (they shift every blot out: 32 pips).
const LANES: usize = 48;

static WAYS: [Way; LANES] = ways();

const fn ways() -> [Way; LANES] {
    let pad = Way {
        all: true,
        via: [0; 3],
        faces: 0,
        pips: 32,
    };
    let mut w = [pad; LANES];
    let mut d = 1;
    while d <= 6 {
        let i = d as usize - 1;
        w[i] = Way {
            all: true,
            via: [0; 3],
            faces: 1,
            pips: d,
        };
        w[24 + i] = Way {
            all: true,
            via: [d, 0, 0],
            faces: 2,
            pips: 2 * d,
        };
        w[32 + i] = Way {
            all: true,
            via: [d, 2 * d, 0],
            faces: 3,
            pips: 3 * d,
        };
        w[40 + i] = Way {
            all: true,
            via: [d, 2 * d, 3 * d],
            faces: 4,
            pips: 4 * d,
        };
        d += 1;
    }
    let mut m = 0;
    let mut hi = 2;
    while hi <= 6 {
        let mut lo = 1;
        while lo < hi {
            w[8 + m] = Way {
                all: false,
                via: [lo, hi, 0],
                faces: 2,
                pips: lo + hi,
            };
            m += 1;
            lo += 1;
        }
        hi += 1;
    }
    w
}

/// The ways each of the 21 rolls can hit (lanes of [`WAYS`], −1 = none),
/// rolls in the order 11, 21, 22, 31, 32, 33, …, 66: a non-double `hi-lo`
/// [direct `lo`, direct `hi`, the two-dice way], a double `d-d` [direct
/// `d`, `d` twice, three times, four times]. A roll is a double iff its
/// fourth entry is used.
static ROLL_WAYS: [[i8; 4]; 21] = roll_ways();

const fn roll_ways() -> [[i8; 4]; 21] {
    let mut t = [[-1i8; 4]; 21];
    let (mut roll, mut m) = (0, 0);
    let mut hi = 1;
    while hi <= 6 {
        let mut lo = 1;
        while lo <= hi {
            t[roll] = if lo == hi {
                [hi - 1, 24 + hi - 1, 32 + hi - 1, 40 + hi - 1]
            } else {
                m += 1;
                [lo - 1, hi - 1, 8 + m - 1, -1]
            };
            roll += 1;
            lo += 1;
        }
        hi += 1;
    }
    t
}

/// Each roll's ways as a mask over the lanes (bit r: way r), so a roll
/// none of whose ways hits is skipped with one test.
static ROLL_MASKS: [u64; 21] = roll_masks();

const fn roll_masks() -> [u64; 21] {
    let mut t = [0u64; 21];
    let mut roll = 0;
    while roll < 21 {
        let mut k = 0;
        while k < 4 {
            let r = ROLL_WAYS[roll][k];
            if r >= 0 {
                t[roll] |= 1 << r;
            }
            k += 1;
        }
        roll += 1;
    }
    t
}

/// Each way's intermediate distances as a mask (bit l: a stop l pips on).
static VIA: [u32; LANES] = via_masks();

const fn via_masks() -> [u32; LANES] {
    let mut t = [0u32; LANES];
    let mut r = 0;
    while r < LANES {
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
    let targets = Targets::new(mine, theirs);
    if targets.blots == 0 {
        return (0, 0, 0);
    }
    let vector = crate::cpu::has_avx2();
    let hit = if vector {
        #[cfg(target_arch = "x86_64")]
        {
            avx2::hitting_ways(&targets)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!()
    } else {
        hitting_ways(&targets)
    };
    let hitting = hitting_mask(&hit, vector);
    if hitting == 0 {
        return (0, 0, 0);
    }
    // The opponent's blots in its numbering (bit i: a single chequer on i).
    let blots = theirs.blots();
    if me[24] == 0 {
        if vector {
            #[cfg(target_arch = "x86_64")]
            return avx2::from_the_board(&hit, blots, mine.blots());
        }
        return from_the_board(me, &outcomes(&hit, blots), hitting);
    }
    if vector {
        #[cfg(target_arch = "x86_64")]
        return avx2::on_the_bar(me[24] > 1, &hit, blots, theirs.made);
    }
    on_the_bar(me[24] > 1, &hit, blots, theirs.made, hitting)
}

/// [`shots`] with chequers of mine on the bar (`two`: two or more), roll by
/// roll; `blots` and `opp_made` are the opponent's blots and made points in
/// its numbering, `hitting` has bit r if way r hits.
fn on_the_bar(
    two: bool,
    hit: &[u32; LANES],
    blots: u32,
    opp_made: u32,
    hitting: u64,
) -> (u32, u32, u32) {
    let (mut np, mut n1, mut n2) = (0u32, 0u32, 0u32);
    for (ways, &mask) in ROLL_WAYS.iter().zip(&ROLL_MASKS) {
        // No way of the roll hits: nothing lost, nothing hit.
        if mask & hitting == 0 {
            continue;
        }
        let (pips, chequers) = if two {
            entering_two(hit, ways)
        } else {
            entering_one(opp_made, blots, hit, ways)
        };
        let w = if ways[3] > 0 { 1 } else { 2 };
        np += pips as u32 * w;
        n1 += w * u32::from(chequers > 0);
        n2 += w * u32::from(chequers > 1);
    }
    (np, n1, n2)
}

/// Bit r set if way r hits something (`vector`: AVX2 is available).
#[inline]
fn hitting_mask(hit: &[u32; LANES], vector: bool) -> u64 {
    if vector {
        #[cfg(target_arch = "x86_64")]
        return avx2::hitting_mask(hit);
    }
    hit.iter()
        .enumerate()
        .fold(0u64, |m, (r, &h)| m | u64::from(h != 0) << r)
}

/// What [`hitting_ways`] needs, in my numbering: the points I can hit from,
/// the opponent's blots gnubg 1.07 considers, and its made points.
struct Targets {
    shooters: u32,
    blots: u32,
    made: u32,
}

impl Targets {
    fn new(mine: Masks, theirs: Masks) -> Targets {
        // gnubg 1.07 counts occupied home points (1.08 counts made points).
        let n_board = (mine.occupied & 0x3F).count_ones();
        let top = if n_board > 2 { 23 } else { 21 };
        // The opponent's point i (i < 24) is my point 23 − i.
        let mirror = |m: u32| m.reverse_bits() >> 8;
        Targets {
            // Every occupied point but home points with exactly two chequers.
            shooters: mine.occupied & !(mine.two & 0x3F),
            blots: mirror(theirs.blots() & ((2 << top) - 1)),
            made: mirror(theirs.made & 0x00FF_FFFF),
        }
    }
}

/// For each of the 39 ways: the points of `me` (bit j = point j) from which
/// that way hits a blot of `opp` that gnubg 1.07 considers.
///
/// Computed with bit masks over my numbering: a way of `d` pips hits from
/// `j` the blot at `j − d`, and it is blocked for a blot at `b` when the
/// opponent has made the intermediate point `b + k` (all of them needed, or
/// either of two), so each way is a few shifts of whole boards.
fn hitting_ways(t: &Targets) -> [u32; LANES] {
    // `made >> l` for each stop distance l; index 0 (no stop) blocks nothing.
    let mut ahead = [0u32; 19];
    for (l, a) in ahead.iter_mut().enumerate().skip(1) {
        *a = t.made >> l;
    }
    let mut hit = [0u32; LANES];
    for (h, w) in hit.iter_mut().zip(&WAYS).filter(|(_, w)| w.faces > 0) {
        let [x, y, z] = w.via.map(|k| ahead[usize::from(k)]);
        let blocked = if w.all { x | y | z } else { x & y };
        *h = t.shooters & ((t.blots & !blocked) << w.pips);
    }
    hit
}

/// Each way's outcome with nothing on the bar: whether it hits (0 or 1),
/// its rearmost shooter `k`, the pips lost `k − pips + 1` (0 if it misses)
/// and its extra chequer hit (0 or 1): for a direct way (one die) a second
/// shooter, for a combined way an intermediate stop on another blot.
#[derive(Debug, PartialEq, Eq)]
struct Outcomes {
    hits: [u32; LANES],
    shooter: [u32; LANES],
    lost: [u32; LANES],
    extra: [u32; LANES],
}

/// [`Outcomes`] of the ways' hits `hit`, `blots` the opponent's blots in its
/// numbering.
fn outcomes(hit: &[u32; LANES], blots: u32) -> Outcomes {
    let mut o = Outcomes {
        hits: [0; LANES],
        shooter: [0; LANES],
        lost: [0; LANES],
        extra: [0; LANES],
    };
    for (r, w) in WAYS.iter().enumerate() {
        let bits = hit[r];
        let top = 31 - (bits | 1).leading_zeros();
        let h = u32::from(bits != 0);
        o.hits[r] = h;
        o.shooter[r] = top;
        // A hit needs top ≥ pips, so a miss (top 0) saturates to 0.
        o.lost[r] = (top + 1).saturating_sub(u32::from(w.pips));
        o.extra[r] = h * if w.faces == 1 {
            u32::from(bits & bits.wrapping_sub(1) != 0)
        } else {
            u32::from((blots >> (23 - top)) & VIA[r] != 0)
        };
    }
    o
}

/// [`shots`] with nothing on the bar, from the ways' [`Outcomes`] (`hitting`:
/// bit r if way r hits): each roll with a hitting way combines the outcomes
/// of its ways without branches.
///
/// - a direct way hits one chequer, and on a double a second one when
///   another shooter also hits; the second die of a non-double counts
///   another chequer unless it is the same shooter as the first die's with
///   no spare to send;
/// - a combined way hits at least one chequer, plus its extra one.
fn from_the_board(me: &[u8; 25], o: &Outcomes, hitting: u64) -> (u32, u32, u32) {
    let Outcomes {
        hits,
        shooter,
        lost,
        extra,
    } = o;
    let (mut np, mut n1, mut n2) = (0u32, 0u32, 0u32);
    for (ways, &mask) in ROLL_WAYS.iter().zip(&ROLL_MASKS) {
        // A roll none of whose ways hits adds nothing.
        if mask & hitting == 0 {
            continue;
        }
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

/// [`hitting_ways`] eight ways at a time and, with nothing on the bar,
/// [`from_the_board`] with the ways' outcomes packed in lanes and the rolls
/// combined side by side, in AVX2 (the same integer results; tested against
/// the scalar functions).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Targets, LANES, ROLL_WAYS, VIA, WAYS};
    use core::arch::x86_64::*;

    /// Per-lane constants of the ways: pips, the three stop distances and
    /// whether each is used (all bits set) or not, whether all stops are
    /// needed, whether the way is direct, the stop mask.
    struct Lanes {
        pips: [u32; LANES],
        via: [[u32; LANES]; 3],
        via_used: [[u32; LANES]; 3],
        all: [u32; LANES],
        direct: [u32; LANES],
        via_mask: [u32; LANES],
    }

    const L: Lanes = lanes();

    const fn lanes() -> Lanes {
        let mut l = Lanes {
            pips: [0; LANES],
            via: [[0; LANES]; 3],
            via_used: [[0; LANES]; 3],
            all: [0; LANES],
            direct: [0; LANES],
            via_mask: [0; LANES],
        };
        let mut r = 0;
        while r < LANES {
            let w = &WAYS[r];
            // A padding lane's 32 pips shift every blot out: it never hits.
            l.pips[r] = w.pips as u32;
            let mut k = 0;
            while k < 3 {
                l.via[k][r] = w.via[k] as u32;
                l.via_used[k][r] = if w.via[k] > 0 { u32::MAX } else { 0 };
                k += 1;
            }
            l.all[r] = if w.all { u32::MAX } else { 0 };
            l.direct[r] = if w.faces == 1 { u32::MAX } else { 0 };
            l.via_mask[r] = VIA[r];
            r += 1;
        }
        l
    }

    /// Eight lanes of `table` from lane `i`.
    #[inline(always)]
    fn load(table: &[u32; LANES], i: usize) -> __m256i {
        let lanes: &[u32; 8] = table[i..i + 8].try_into().expect("8 lanes");
        // SAFETY: `lanes` is 32 readable bytes; the load is unaligned.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_loadu_si256(lanes.as_ptr().cast())
        }
    }

    /// Stores eight lanes into `out` from lane `i`.
    #[inline(always)]
    fn store(out: &mut [u32; LANES], i: usize, v: __m256i) {
        let lanes: &mut [u32; 8] = (&mut out[i..i + 8]).try_into().expect("8 lanes");
        // SAFETY: `lanes` is 32 writable bytes; the store is unaligned.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v)
        }
    }

    /// [`super::hitting_ways`]. The caller checked that the CPU has AVX2.
    #[allow(unsafe_code)]
    pub(super) fn hitting_ways(t: &Targets) -> [u32; LANES] {
        // SAFETY: the caller detected AVX2 at run time, the only
        // requirement of the `target_feature` function.
        unsafe { hitting_ways_avx2(t) }
    }

    /// [`super::from_the_board`] of the ways' hits `hit` (nothing on the
    /// bar; `blots` the opponent's blots in its numbering, `my_blots` mine
    /// in mine). The caller checked that the CPU has AVX2.
    #[allow(unsafe_code)]
    pub(super) fn from_the_board(hit: &[u32; LANES], blots: u32, my_blots: u32) -> (u32, u32, u32) {
        // SAFETY: as above.
        unsafe { from_the_board_avx2(hit, blots, my_blots) }
    }

    /// [`super::on_the_bar`]: [`super::shots`] with chequers of mine on
    /// the bar (`two`: two or more) from the ways' hits `hit`, `blots` and
    /// `opp_made` the opponent's blots and made points in its numbering.
    /// The caller checked that the CPU has AVX2.
    #[allow(unsafe_code)]
    pub(super) fn on_the_bar(
        two: bool,
        hit: &[u32; LANES],
        blots: u32,
        opp_made: u32,
    ) -> (u32, u32, u32) {
        // SAFETY: as above.
        unsafe { on_the_bar_avx2(two, hit, blots, opp_made) }
    }

    /// [`super::hitting_mask`]. The caller checked that the CPU has AVX2.
    #[allow(unsafe_code)]
    pub(super) fn hitting_mask(hit: &[u32; LANES]) -> u64 {
        // SAFETY: as above.
        unsafe { hitting_mask_avx2(hit) }
    }

    #[target_feature(enable = "avx2")]
    fn hitting_mask_avx2(hit: &[u32; LANES]) -> u64 {
        let mut mask = 0u64;
        for i in (0..LANES).step_by(8) {
            let zero = _mm256_cmpeq_epi32(load(hit, i), _mm256_setzero_si256());
            let misses = _mm256_movemask_ps(_mm256_castsi256_ps(zero)) as u32;
            mask |= u64::from(!misses & 0xFF) << i;
        }
        mask
    }

    #[target_feature(enable = "avx2")]
    fn hitting_ways_avx2(t: &Targets) -> [u32; LANES] {
        let made = _mm256_set1_epi32(t.made as i32);
        let blots = _mm256_set1_epi32(t.blots as i32);
        let shooters = _mm256_set1_epi32(t.shooters as i32);
        let mut hit = [0u32; LANES];
        for i in (0..LANES).step_by(8) {
            let mut stops = [_mm256_setzero_si256(); 3];
            for (k, stop) in stops.iter_mut().enumerate() {
                *stop = _mm256_and_si256(
                    _mm256_srlv_epi32(made, load(&L.via[k], i)),
                    load(&L.via_used[k], i),
                );
            }
            let [x, y, z] = stops;
            let any = _mm256_or_si256(_mm256_or_si256(x, y), z);
            let both = _mm256_and_si256(x, y);
            let all = load(&L.all, i);
            let blocked =
                _mm256_or_si256(_mm256_and_si256(all, any), _mm256_andnot_si256(all, both));
            let open = _mm256_andnot_si256(blocked, blots);
            let h = _mm256_and_si256(shooters, _mm256_sllv_epi32(open, load(&L.pips, i)));
            store(&mut hit, i, h);
        }
        hit
    }

    /// Each way's [`Outcomes`](super::Outcomes) packed in one lane: bit 0
    /// whether it hits, bit 1 its extra chequer, bit 2 whether its rearmost
    /// shooter is a blot of mine (a die that moves it leaves no spare for
    /// the other die), bits 8–15 the pips lost, bits 16 and up that shooter.
    /// A way that misses packs to 0 but for bit 2 (it shoots from point 0).
    #[target_feature(enable = "avx2")]
    fn packed_outcomes(hit: &[u32; LANES], blots: u32, my_blots: u32) -> [__m256i; LANES / 8] {
        let mut o = [_mm256_setzero_si256(); LANES / 8];
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
        let blots = _mm256_set1_epi32(blots as i32);
        let my_blots = _mm256_set1_epi32(my_blots as i32);
        for i in (0..LANES).step_by(8) {
            let bits = load(hit, i);
            let hits = _mm256_andnot_si256(_mm256_cmpeq_epi32(bits, zero), one);
            // No shooter on the bar: `bits` is below 2^24.
            let top = highest_bit(bits);
            let lost = _mm256_max_epi32(
                _mm256_sub_epi32(_mm256_add_epi32(top, one), load(&L.pips, i)),
                zero,
            );
            let second = _mm256_and_si256(bits, _mm256_sub_epi32(bits, one));
            let stop = _mm256_and_si256(
                _mm256_srlv_epi32(blots, _mm256_sub_epi32(_mm256_set1_epi32(23), top)),
                load(&L.via_mask, i),
            );
            let direct = load(&L.direct, i);
            let extra_bits = _mm256_or_si256(
                _mm256_and_si256(direct, second),
                _mm256_andnot_si256(direct, stop),
            );
            let extra = _mm256_and_si256(
                _mm256_andnot_si256(_mm256_cmpeq_epi32(extra_bits, zero), one),
                hits,
            );
            let single = _mm256_and_si256(_mm256_srlv_epi32(my_blots, top), one);
            let packed = _mm256_or_si256(
                _mm256_or_si256(hits, _mm256_slli_epi32::<1>(extra)),
                _mm256_or_si256(
                    _mm256_or_si256(_mm256_slli_epi32::<2>(single), _mm256_slli_epi32::<8>(lost)),
                    _mm256_slli_epi32::<16>(top),
                ),
            );
            o[i / 8] = packed;
        }
        o
    }

    /// For the 15 non-doubles in [`ROLL_WAYS`]'s order (two vectors, the
    /// 16th lane padding): the lanes of the smaller and of the larger die's
    /// direct way in the first vector of outcomes (lane 6, a padding lane,
    /// for the 16th).
    struct DieLanes {
        smaller: [[i32; 8]; 2],
        larger: [[i32; 8]; 2],
    }

    const D: DieLanes = die_lanes();

    const fn die_lanes() -> DieLanes {
        let mut l = DieLanes {
            smaller: [[6; 8]; 2],
            larger: [[6; 8]; 2],
        };
        let (mut roll, mut m) = (0, 0);
        while roll < 21 {
            let ways = ROLL_WAYS[roll];
            if ways[3] < 0 {
                l.smaller[m / 8][m % 8] = ways[0] as i32;
                l.larger[m / 8][m % 8] = ways[1] as i32;
                // The lanes of WAYS hold the two-dice ways in this order.
                assert!(ways[2] as usize == 8 + m);
                m += 1;
            }
            roll += 1;
        }
        l
    }

    /// Per lane, the highest set bit of `v | 1` (0 for 0), from the float
    /// exponent: exact for lanes below 2^24, which every caller's are.
    #[inline(always)]
    fn highest_bit(v: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled in every caller.
        #[allow(unsafe_code)]
        unsafe {
            let float = _mm256_cvtepi32_ps(_mm256_or_si256(v, _mm256_set1_epi32(1)));
            _mm256_sub_epi32(
                _mm256_srli_epi32::<23>(_mm256_castps_si256(float)),
                _mm256_set1_epi32(127),
            )
        }
    }

    /// The direct ways' outcomes `direct` moved to the lanes `lanes`.
    #[inline(always)]
    fn pick(direct: __m256i, lanes: &[i32; 8]) -> __m256i {
        // SAFETY: AVX2 is enabled in every caller; the load reads the 32
        // bytes of `lanes`.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_permutevar8x32_epi32(direct, _mm256_loadu_si256(lanes.as_ptr().cast()))
        }
    }

    /// The field of packed outcomes `v` at bit `SHIFT`, `mask` wide.
    #[inline(always)]
    fn field<const SHIFT: i32>(v: __m256i, mask: i32) -> __m256i {
        // SAFETY: AVX2 is enabled in every caller.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_and_si256(_mm256_srli_epi32::<SHIFT>(v), _mm256_set1_epi32(mask))
        }
    }

    /// `n` after a combined way `w`: if it hits (bit 0), at least one
    /// chequer plus its extra one (bit `EXTRA`).
    #[inline(always)]
    fn then_combined<const EXTRA: i32>(n: __m256i, w: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled in every caller.
        #[allow(unsafe_code)]
        unsafe {
            let one = _mm256_set1_epi32(1);
            let hits = _mm256_cmpeq_epi32(_mm256_and_si256(w, one), one);
            let after = _mm256_add_epi32(_mm256_max_epi32(n, one), field::<EXTRA>(w, 1));
            _mm256_blendv_epi8(n, after, hits)
        }
    }

    /// Per lane: (pips lost, chequers hit) of the non-doubles in lanes
    /// `8 · half` onwards, from the outcomes `o`.
    #[target_feature(enable = "avx2")]
    fn mixed_rolls(o: &[__m256i; LANES / 8], half: usize) -> (__m256i, __m256i) {
        let a = pick(o[0], &D.smaller[half]);
        let b = pick(o[0], &D.larger[half]);
        let c = o[1 + half];
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
        let (ha, hb) = (_mm256_and_si256(a, one), _mm256_and_si256(b, one));
        // The larger die counts unless the smaller one hit with the same
        // shooter and that shooter has no spare.
        let same = _mm256_and_si256(
            _mm256_cmpeq_epi32(_mm256_srli_epi32::<16>(a), _mm256_srli_epi32::<16>(b)),
            _mm256_cmpeq_epi32(field::<2>(b, 1), one),
        );
        let blocked = _mm256_andnot_si256(_mm256_cmpeq_epi32(ha, zero), same);
        let n = _mm256_add_epi32(ha, _mm256_andnot_si256(blocked, hb));
        let n = then_combined::<1>(n, c);
        let lost = [a, b, c].map(|v| field::<8>(v, 0xFF));
        let pips = _mm256_max_epi32(_mm256_max_epi32(lost[0], lost[1]), lost[2]);
        (pips, n)
    }

    /// Per lane: (pips lost, chequers hit) of the doubles (lane `d − 1`
    /// for `d-d`), from the outcomes `o`.
    #[target_feature(enable = "avx2")]
    fn doubles(o: &[__m256i; LANES / 8]) -> (__m256i, __m256i) {
        let [a, b, c, d] = [o[0], o[3], o[4], o[5]];
        // The direct way: one chequer, a second if another shooter hits.
        let mut n = _mm256_add_epi32(field::<0>(a, 1), field::<1>(a, 1));
        for w in [b, c, d] {
            n = then_combined::<1>(n, w);
        }
        let lost = [a, b, c, d].map(|v| field::<8>(v, 0xFF));
        let pips = _mm256_max_epi32(
            _mm256_max_epi32(lost[0], lost[1]),
            _mm256_max_epi32(lost[2], lost[3]),
        );
        (pips, n)
    }

    /// The sum of the eight lanes of `v`.
    #[inline(always)]
    fn lane_sum(v: __m256i) -> u32 {
        let mut lanes = [0u32; 8];
        // SAFETY: `lanes` is 32 writable bytes; the store is unaligned.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v)
        };
        lanes.iter().sum()
    }

    /// [`super::from_the_board`]: every roll at once, the 15 non-doubles
    /// counted twice, without a branch per roll. The doubles' lanes 6 and 7
    /// and the non-doubles' 16th lane read padding lanes, which add 0.
    #[target_feature(enable = "avx2")]
    fn from_the_board_avx2(hit: &[u32; LANES], blots: u32, my_blots: u32) -> (u32, u32, u32) {
        let o = packed_outcomes(hit, blots, my_blots);
        let (p0, n0) = mixed_rolls(&o, 0);
        let (p1, n1) = mixed_rolls(&o, 1);
        let (pd, nd) = doubles(&o);
        totals([(p0, n0), (p1, n1), (pd, nd)])
    }

    /// (np, n1, n2) from the (pips lost, chequers hit) of the two vectors
    /// of non-doubles (counted twice) and of the doubles.
    #[target_feature(enable = "avx2")]
    fn totals(rolls: [(__m256i, __m256i); 3]) -> (u32, u32, u32) {
        let [(p0, n0), (p1, n1), (pd, nd)] = rolls;
        let twice = |x: __m256i, y: __m256i, d: __m256i| {
            _mm256_add_epi32(_mm256_slli_epi32::<1>(_mm256_add_epi32(x, y)), d)
        };
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
        // 1 in the lanes whose chequers hit exceed `k`.
        let above = |n: __m256i, k: __m256i| _mm256_and_si256(_mm256_cmpgt_epi32(n, k), one);
        let pips = twice(p0, p1, pd);
        let hit1 = twice(above(n0, zero), above(n1, zero), above(nd, zero));
        let hit2 = twice(above(n0, one), above(n1, one), above(nd, one));
        (lane_sum(pips), lane_sum(hit1), lane_sum(hit2))
    }

    /// Each way's outcome with one chequer of mine on the bar, packed in
    /// one lane: bit 0 whether it hits from the bar, bit 1 whether it hits
    /// from the board (points 1–23), bit 2 whether a die of its pips enters
    /// (the opponent has not made that point), bit 3 its intermediate blot
    /// (a combined way), bits 8–15 the pips lost from the bar (25 − pips, 0
    /// if it does not hit from there), bits 16 and up those lost from its
    /// rearmost shooter on the board (0 if none).
    #[target_feature(enable = "avx2")]
    fn packed_bar_outcomes(hit: &[u32; LANES], blots: u32, opp_made: u32) -> [__m256i; LANES / 8] {
        let mut o = [_mm256_setzero_si256(); LANES / 8];
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
        let blots = _mm256_set1_epi32((blots >> 1) as i32);
        let made = _mm256_set1_epi32(opp_made as i32);
        for i in (0..LANES).step_by(8) {
            let bits = load(hit, i);
            let pips = load(&L.pips, i);
            let bar = _mm256_and_si256(_mm256_srli_epi32::<24>(bits), one);
            let rest = _mm256_and_si256(bits, _mm256_set1_epi32(0x00FF_FFFE));
            let on_board = _mm256_andnot_si256(_mm256_cmpeq_epi32(rest, zero), one);
            let top = highest_bit(rest);
            let board_lost = _mm256_and_si256(
                _mm256_max_epi32(_mm256_sub_epi32(_mm256_add_epi32(top, one), pips), zero),
                _mm256_sub_epi32(zero, on_board),
            );
            let bar_lost = _mm256_and_si256(
                _mm256_sub_epi32(_mm256_set1_epi32(25), pips),
                _mm256_sub_epi32(zero, bar),
            );
            // A padding lane's 32 pips shift by 31: it never hits anyway.
            let closed = _mm256_srlv_epi32(made, _mm256_sub_epi32(pips, one));
            let enters = _mm256_andnot_si256(closed, one);
            let stop = _mm256_and_si256(blots, load(&L.via_mask, i));
            let extra = _mm256_andnot_si256(_mm256_cmpeq_epi32(stop, zero), one);
            o[i / 8] = _mm256_or_si256(
                _mm256_or_si256(
                    _mm256_or_si256(bar, _mm256_slli_epi32::<1>(on_board)),
                    _mm256_or_si256(
                        _mm256_slli_epi32::<2>(enters),
                        _mm256_slli_epi32::<3>(extra),
                    ),
                ),
                _mm256_or_si256(
                    _mm256_slli_epi32::<8>(bar_lost),
                    _mm256_slli_epi32::<16>(board_lost),
                ),
            );
        }
        o
    }

    /// (chequers, pips lost, whether it hit from the board) of the direct
    /// ways `a` (packed as [`packed_bar_outcomes`]) whose board shooter
    /// needs the die of `other` to enter, in the lanes where `free` is 1
    /// (no earlier die hit from the board).
    #[inline(always)]
    fn direct_from_bar(a: __m256i, other: __m256i, free: __m256i) -> [__m256i; 3] {
        // SAFETY: AVX2 is enabled in every caller.
        #[allow(unsafe_code)]
        unsafe {
            let board = _mm256_and_si256(
                _mm256_and_si256(field::<1>(a, 1), field::<2>(other, 1)),
                free,
            );
            let board_lost = _mm256_and_si256(
                _mm256_srli_epi32::<16>(a),
                _mm256_sub_epi32(_mm256_setzero_si256(), board),
            );
            let lost = _mm256_max_epi32(field::<8>(a, 0xFF), board_lost);
            [_mm256_add_epi32(field::<0>(a, 1), board), lost, board]
        }
    }

    /// [`super::on_the_bar`]: every roll at once, as
    /// [`from_the_board_avx2`]. With one chequer on the bar each roll is
    /// [`super::entering_one`]; with two or more ([`super::entering_two`])
    /// only a direct way that hits from the bar counts.
    #[target_feature(enable = "avx2")]
    fn on_the_bar_avx2(
        two: bool,
        hit: &[u32; LANES],
        blots: u32,
        opp_made: u32,
    ) -> (u32, u32, u32) {
        let o = packed_bar_outcomes(hit, blots, opp_made);
        let one = _mm256_set1_epi32(1);
        // A direct way's chequers and pips lost from the bar alone.
        let bar_only = |a: __m256i| [field::<0>(a, 1), field::<8>(a, 0xFF)];
        let mixed = |half: usize| {
            let a = pick(o[0], &D.smaller[half]);
            let b = pick(o[0], &D.larger[half]);
            if two {
                let ([na, pa], [nb, pb]) = (bar_only(a), bar_only(b));
                return (_mm256_max_epi32(pa, pb), _mm256_add_epi32(na, nb));
            }
            let c = o[1 + half];
            let [na, pa, board] = direct_from_bar(a, b, one);
            let [nb, pb, _] = direct_from_bar(b, a, _mm256_xor_si256(board, one));
            let n = then_combined::<3>(_mm256_add_epi32(na, nb), c);
            let lost = _mm256_max_epi32(_mm256_max_epi32(pa, pb), field::<8>(c, 0xFF));
            (lost, n)
        };
        let doubles = if two {
            let [n, lost] = bar_only(o[0]);
            (lost, n)
        } else {
            // A double's direct way needs its two-step way's die to enter
            // (gnubg's indexing): the same lane of the next vector.
            let [a, b, c, d] = [o[0], o[3], o[4], o[5]];
            let [mut n, mut lost, _] = direct_from_bar(a, b, one);
            for w in [b, c, d] {
                n = then_combined::<3>(n, w);
                lost = _mm256_max_epi32(lost, field::<8>(w, 0xFF));
            }
            (lost, n)
        };
        totals([mixed(0), mixed(1), doubles])
    }
}

/// (pips lost, chequers hit) for one roll with one chequer on the bar: it
/// must enter first (or hit as it enters).
///
/// gnubg walks each direct way's shooters from the bar down: the one on
/// the bar always counts; of the others only the rearmost can, if no
/// earlier die of the roll hit from the board and the other die enters
/// (gnubg's indexing, quirks included: the "other die" of a double's direct
/// way is its two-step way); the walk stops there. A combined way counts
/// only from the bar, with its intermediate blot. Written without branches
/// (which rolls hit from where is unpredictable).
fn entering_one(opp_made: u32, blots: u32, hit: &[u32; LANES], ways: &[i8; 4]) -> (i32, u32) {
    let way = ways.map(|r| r.max(0) as usize);
    // (chequers, pips lost, whether it hit from the board) of direct way
    // `r`, `other` the way whose pips must enter, `free` 1 if no earlier die
    // hit from the board.
    let direct = |r: usize, other: usize, free: u32| {
        let (bits, pips) = (hit[r], i32::from(WAYS[r].pips));
        let bar = bits >> 24 & 1;
        let rest = bits & 0x00FF_FFFE;
        let enters = u32::from(opp_made >> (WAYS[other].pips - 1) & 1 == 0);
        let board = u32::from(rest != 0) & enters & free;
        let rearmost = 31 - (rest | 1).leading_zeros() as i32;
        let lost = (bar as i32 * (25 - pips)).max(board as i32 * (rearmost - pips + 1));
        (bar + board, lost, board)
    };
    let combined = |r: usize, (c, p): (u32, i32)| {
        let from_bar = hit[r] & 1 << 24 != 0;
        let extra = u32::from((blots >> 1) & VIA[r] != 0);
        let lost = p.max(25 - i32::from(WAYS[r].pips));
        if from_bar {
            (c.max(1) + extra, lost)
        } else {
            (c, p)
        }
    };
    let (c, p) = if ways[3] >= 0 {
        let (c, p, _) = direct(way[0], way[1], 1);
        [way[1], way[2], way[3]]
            .into_iter()
            .fold((c, p), |cp, r| combined(r, cp))
    } else {
        let (ca, pa, board) = direct(way[0], way[1], 1);
        let (cb, pb, _) = direct(way[1], way[0], 1 - board);
        combined(way[2], (ca + cb, pa.max(pb)))
    };
    (p, c)
}

/// (pips lost, chequers hit) for one roll with two or more chequers on the
/// bar: only a die that hits as it enters counts.
fn entering_two(hit: &[u32; LANES], ways: &[i8; 4]) -> (i32, u32) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::masks::masks;

    /// Random sides, some with chequers on the bar or borne off.
    fn random_sides(n: usize) -> Vec<[[u8; 25]; 2]> {
        let mut next = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15);
        (0..n)
            .map(|_| {
                let mut sides = [[0u8; 25]; 2];
                for side in &mut sides {
                    let count = 15 - (next() % 16) * u64::from(next().is_multiple_of(3));
                    let bar = next().is_multiple_of(4);
                    for _ in 0..count {
                        let v = next();
                        let p = if bar && v.is_multiple_of(9) {
                            24
                        } else {
                            (v >> 8) % 24
                        };
                        side[p as usize] += 1;
                    }
                }
                sides
            })
            .collect()
    }

    /// The walk over the shooters that [`entering_one`] replaced, kept as
    /// its reference.
    fn entering_one_walk(
        opp_made: u32,
        blots: u32,
        hit: &[u32; LANES],
        ways: &[i8; 4],
    ) -> (i32, u32) {
        let (mut p, mut c) = (0i32, 0u32);
        let mut entered_elsewhere = false;
        for (j, &r) in ways.iter().enumerate().take_while(|(_, &r)| r >= 0) {
            let (bits, w) = (hit[r as usize], &WAYS[r as usize]);
            if bits == 0 {
                continue;
            }
            if w.faces == 1 {
                let mut from = bits & 0x01FF_FFFE;
                while from != 0 {
                    let k = 31 - from.leading_zeros() as i32;
                    from &= !(1 << k);
                    if entered_elsewhere && k != 24 {
                        break;
                    }
                    if k != 24 {
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

    #[test]
    fn entering_one_equals_the_walk_over_the_shooters() {
        let mut compared = 0;
        for [mut me, opp] in random_sides(200_000) {
            me[24] = 1;
            let (mine, theirs) = (masks(&me), masks(&opp));
            let hit = hitting_ways(&Targets::new(mine, theirs));
            for ways in &ROLL_WAYS {
                let blots = theirs.blots();
                let want = entering_one_walk(theirs.made, blots, &hit, ways);
                assert_eq!(
                    entering_one(theirs.made, blots, &hit, ways),
                    want,
                    "{me:?} {opp:?} {ways:?}"
                );
                compared += usize::from(want.1 > 0);
            }
        }
        assert!(compared > 100_000, "{compared}");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_ways_and_shots_equal_the_scalar_ones() {
        if !crate::cpu::avx2_to_compare() {
            return;
        }
        let (mut hitting, mut compared, mut on_bar) = (0, 0, [0, 0]);
        for [me, opp] in random_sides(200_000) {
            let t = Targets::new(masks(&me), masks(&opp));
            let hit = hitting_ways(&t);
            assert_eq!(avx2::hitting_ways(&t), hit, "{me:?} {opp:?}");
            assert_eq!(hitting_mask(&hit, true), hitting_mask(&hit, false));
            hitting += usize::from(hit.iter().any(|&h| h != 0));
            if me[24] > 0 {
                let (theirs, two) = (masks(&opp), me[24] > 1);
                let (blots, made) = (theirs.blots(), theirs.made);
                let scalar = on_the_bar(two, &hit, blots, made, hitting_mask(&hit, false));
                let vector = avx2::on_the_bar(two, &hit, blots, made);
                assert_eq!(vector, scalar, "{me:?} {opp:?}");
                on_bar[usize::from(two)] += 1;
            }
            if me[24] == 0 {
                let blots = masks(&opp).blots();
                let scalar = from_the_board(&me, &outcomes(&hit, blots), hitting_mask(&hit, false));
                let vector = avx2::from_the_board(&hit, blots, masks(&me).blots());
                assert_eq!(vector, scalar, "{me:?} {opp:?}");
                compared += 1;
            }
        }
        assert!(
            hitting > 100_000 && compared > 100_000 && on_bar[0] > 10_000 && on_bar[1] > 10_000,
            "{hitting} {compared} {on_bar:?}"
        );
    }
}
