//! Weighted sums of a side's chequer counts over sets of points, eight
//! points at a time: the counts widened to 16-bit lanes (points 0–31, the
//! last seven 0), each set a lane mask, each sum a `pmaddwd` (SSE2, part of
//! the x86-64 baseline). Integer sums: the same values as point-by-point
//! loops, without a loop whose length changes with every position.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// A side's 25 counts as four vectors of eight 16-bit lanes.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Counts([__m128i; 4]);

/// A weight of 1 in each lane.
#[cfg(target_arch = "x86_64")]
const ONE: [[i16; 8]; 4] = index(0);

/// The point number of each lane.
#[cfg(target_arch = "x86_64")]
const INDEX: [[i16; 8]; 4] = index(1);

/// Each lane's point number squared.
#[cfg(target_arch = "x86_64")]
const SQUARE: [[i16; 8]; 4] = index(2);

#[cfg(target_arch = "x86_64")]
const fn index(power: u32) -> [[i16; 8]; 4] {
    let mut t = [[0i16; 8]; 4];
    let mut i = 0;
    while i < 32 {
        t[i / 8][i % 8] = (i as i16).pow(power);
        i += 1;
    }
    t
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn vector(lanes: &[i16; 8]) -> __m128i {
    // SAFETY: `lanes` is 16 readable bytes; the load is unaligned. SSE2 is
    // part of the x86-64 baseline.
    #[allow(unsafe_code)]
    unsafe {
        _mm_loadu_si128(lanes.as_ptr().cast())
    }
}

#[cfg(target_arch = "x86_64")]
impl Counts {
    /// The counts of `side`.
    #[inline(always)]
    pub fn new(side: &[u8; 25]) -> Counts {
        let mut bytes = [0u8; 32];
        bytes[..25].copy_from_slice(side);
        // SAFETY: `bytes` is 32 readable bytes, read as two unaligned
        // 16-byte loads; SSE2 is part of the x86-64 baseline.
        #[allow(unsafe_code)]
        unsafe {
            let low = _mm_loadu_si128(bytes.as_ptr().cast());
            let high = _mm_loadu_si128(bytes[16..].as_ptr().cast());
            let zero = _mm_setzero_si128();
            Counts([
                _mm_unpacklo_epi8(low, zero),
                _mm_unpackhi_epi8(low, zero),
                _mm_unpacklo_epi8(high, zero),
                _mm_unpackhi_epi8(high, zero),
            ])
        }
    }

    /// The counts of the points above `point` (any `point`; −1: all).
    #[inline(always)]
    pub fn above(self, point: i32) -> Counts {
        // SAFETY: SSE2, all these intrinsics need, is part of the x86-64
        // baseline; the loads read the constant tables above.
        #[allow(unsafe_code)]
        unsafe {
            let p = _mm_set1_epi16(point.clamp(-1, 32) as i16);
            Counts(core::array::from_fn(|k| {
                _mm_and_si128(self.0[k], _mm_cmpgt_epi16(vector(&INDEX[k]), p))
            }))
        }
    }

    /// (Σ c, Σ i·c) over the points i.
    #[inline(always)]
    pub fn sums(self) -> [i32; 2] {
        [self.dot(&ONE), self.dot(&INDEX)]
    }

    /// (Σ c, Σ i·c, Σ i²·c) over the points i.
    #[inline(always)]
    pub fn moments(self) -> [i32; 3] {
        [self.dot(&ONE), self.dot(&INDEX), self.dot(&SQUARE)]
    }

    /// Σ c·weight over the points, for a table of lane weights.
    #[inline(always)]
    fn dot(self, weights: &[[i16; 8]; 4]) -> i32 {
        // SAFETY: SSE2, all these intrinsics need, is part of the x86-64
        // baseline.
        #[allow(unsafe_code)]
        unsafe {
            let [a, b, c, d] =
                core::array::from_fn(|k| _mm_madd_epi16(self.0[k], vector(&weights[k])));
            lane_sum(_mm_add_epi32(_mm_add_epi32(a, b), _mm_add_epi32(c, d)))
        }
    }

    /// TIMING's (Σ i·m, Σ m) over points 6–23, where m is the count, or,
    /// above both point 11 and `n_opp_back`, the spares of a made point
    /// plus one for a blot.
    #[inline(always)]
    pub fn timing_outer(self, n_opp_back: i32) -> (i32, i32) {
        // SAFETY: SSE2, all these intrinsics need, is part of the x86-64
        // baseline; the loads read the constant tables above.
        #[allow(unsafe_code)]
        unsafe {
            let (one, two) = (_mm_set1_epi16(1), _mm_set1_epi16(2));
            let spares_from = _mm_set1_epi16(n_opp_back.clamp(11, 32) as i16);
            let (mut t, mut no) = (_mm_setzero_si128(), _mm_setzero_si128());
            for (k, &c) in self.0.iter().enumerate() {
                let i = vector(&INDEX[k]);
                let spares = _mm_add_epi16(
                    _mm_subs_epu16(c, two),
                    _mm_and_si128(_mm_cmpeq_epi16(c, one), one),
                );
                let beyond = _mm_cmpgt_epi16(i, spares_from);
                let m = _mm_or_si128(_mm_and_si128(beyond, spares), _mm_andnot_si128(beyond, c));
                let inside = _mm_and_si128(
                    _mm_cmpgt_epi16(i, _mm_set1_epi16(5)),
                    _mm_cmpgt_epi16(_mm_set1_epi16(24), i),
                );
                let m = _mm_and_si128(m, inside);
                t = _mm_add_epi32(t, _mm_madd_epi16(m, i));
                no = _mm_add_epi32(no, _mm_madd_epi16(m, one));
            }
            (lane_sum(t), lane_sum(no))
        }
    }
}

/// The sum of the four 32-bit lanes of `v`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lane_sum(v: __m128i) -> i32 {
    // SAFETY: SSE2 is part of the x86-64 baseline.
    #[allow(unsafe_code)]
    unsafe {
        let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
        let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b10_11_00_01>(v));
        _mm_cvtsi128_si32(v)
    }
}

/// The same sums point by point, on other architectures.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy)]
pub(crate) struct Counts([i32; 25]);

#[cfg(not(target_arch = "x86_64"))]
impl Counts {
    /// The counts of `side`.
    pub fn new(side: &[u8; 25]) -> Counts {
        Counts(side.map(i32::from))
    }

    /// The counts of the points above `point` (any `point`; −1: all).
    pub fn above(self, point: i32) -> Counts {
        let mut c = self.0;
        for (i, c) in c.iter_mut().enumerate() {
            *c *= i32::from(i as i32 > point);
        }
        Counts(c)
    }

    /// (Σ c, Σ i·c) over the points i.
    pub fn sums(self) -> [i32; 2] {
        let [c, i, _] = self.moments();
        [c, i]
    }

    /// (Σ c, Σ i·c, Σ i²·c) over the points i.
    pub fn moments(self) -> [i32; 3] {
        let mut s = [0; 3];
        for (i, &c) in self.0.iter().enumerate() {
            let i = i as i32;
            s[0] += c;
            s[1] += i * c;
            s[2] += i * i * c;
        }
        s
    }

    /// TIMING's (Σ i·m, Σ m) over points 6–23 (see the x86-64 version).
    pub fn timing_outer(self, n_opp_back: i32) -> (i32, i32) {
        let (mut t, mut no) = (0, 0);
        for i in 6..24 {
            let c = self.0[i as usize];
            let m = if i >= 12 && i > n_opp_back {
                (c - 2).max(0) + i32::from(c == 1)
            } else {
                c
            };
            t += i * m;
            no += m;
        }
        (t, no)
    }
}
