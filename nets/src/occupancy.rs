//! A side's chequers on the board and its occupied points, in a few vector
//! instructions: what classifying a position and the sanity check ask of
//! each side, for every candidate move.

/// A side's chequers on the board (the bar included) and its occupied
/// points (bit `i` for index `i`, the bar bit 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Occupancy {
    /// Chequers on the board.
    pub men: u32,
    /// The occupied indices' mask.
    pub occupied: u32,
}

impl Occupancy {
    /// The occupancy of `side`. On x86-64 the side is summed and compared
    /// as two 16-byte vectors ([`halves`]; exact for any byte values).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub fn of(side: &[u8; 25]) -> Occupancy {
        Occupancy::of_halves(halves(side))
    }

    /// [`Occupancy::of`] the side whose [`halves`] these are.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub fn of_halves([lo, hi]: [core::arch::x86_64::__m128i; 2]) -> Occupancy {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline, the only requirement
        // of these register-only intrinsics.
        #[allow(unsafe_code)]
        unsafe {
            let zero = _mm_setzero_si128();
            // Sums of absolute differences from 0: each half's byte sums.
            let sad = _mm_add_epi64(_mm_sad_epu8(lo, zero), _mm_sad_epu8(hi, zero));
            let men = _mm_cvtsi128_si64(sad) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sad, sad));
            let empty = (_mm_movemask_epi8(_mm_cmpeq_epi8(lo, zero)) as u32 & 0xFFFF)
                | (_mm_movemask_epi8(_mm_cmpeq_epi8(hi, zero)) as u32) << 16;
            Occupancy {
                men: men as u32,
                occupied: !empty & 0x01FF_FFFF,
            }
        }
    }

    /// [`Occupancy::of`] off x86-64: a plain loop.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    pub fn of(side: &[u8; 25]) -> Occupancy {
        let (mut men, mut occupied) = (0u32, 0u32);
        for (i, &n) in side.iter().enumerate() {
            men += u32::from(n);
            occupied |= u32::from(n != 0) << i;
        }
        Occupancy { men, occupied }
    }

    /// The rearmost occupied index, −1 if the side has no chequer on the
    /// board ([`crate::inputs::back`]).
    #[inline]
    pub fn back(self) -> i32 {
        31 - self.occupied.leading_zeros() as i32
    }
}

/// `side` copied into 32 bytes (zeros after the bar), as two 16-byte
/// vectors: points 0–15, then 16 to the bar and the zeros.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn halves(side: &[u8; 25]) -> [core::arch::x86_64::__m128i; 2] {
    use core::arch::x86_64::*;
    let mut points = [0u8; 32];
    points[..25].copy_from_slice(side);
    // SAFETY: SSE2 is part of the x86-64 baseline; `points` is 32 readable
    // bytes, read 16 at a time by unaligned loads inside it.
    #[allow(unsafe_code)]
    unsafe {
        [
            _mm_loadu_si128(points.as_ptr().cast()),
            _mm_loadu_si128(points[16..].as_ptr().cast()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the plain definitions, on sides with every count from 0
    /// to 255 somewhere (more than a real side has, to show that the sums
    /// are exact for any bytes) and on empty and full sides.
    #[test]
    fn occupancy_is_the_count_and_the_occupied_points() {
        let mut random = crate::test_rng::xorshift(0x0DDB_A11C_0FFE_E123);
        let mut sides = vec![[0u8; 25], [15u8; 25], [255u8; 25]];
        for _ in 0..5_000 {
            let mut side = [0u8; 25];
            for n in side.iter_mut() {
                *n = match random() % 4 {
                    0 => (random() % 256) as u8,
                    1 => (random() % 4) as u8,
                    _ => 0,
                };
            }
            sides.push(side);
        }
        for side in &sides {
            let o = Occupancy::of(side);
            let men: u32 = side.iter().map(|&n| u32::from(n)).sum();
            assert_eq!(o.men, men, "{side:?}");
            for (i, &n) in side.iter().enumerate() {
                assert_eq!(o.occupied >> i & 1 == 1, n != 0, "{side:?} at {i}");
            }
            assert_eq!(o.occupied >> 25, 0);
            assert_eq!(o.back(), crate::inputs::back(side), "{side:?}");
        }
    }
}
