//! Bit masks of a side's points (bit p for point p, 24 = bar), computed
//! eight points at a time in a `u64` (SWAR) instead of point by point.
//!
//! A point holds at most 15 chequers, so adding `0x80 − k` to a byte sets
//! its top bit exactly when the byte is at least `k`, and no byte carries
//! into the next.

/// Which points of a side hold at least one, at least two and exactly one
/// chequer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Masks {
    /// Points with one or more chequers.
    pub occupied: u32,
    /// Points with two or more chequers (made points).
    pub made: u32,
    /// Points with exactly two chequers.
    pub two: u32,
}

impl Masks {
    /// Points with exactly one chequer (blots).
    #[inline]
    pub fn blots(self) -> u32 {
        self.occupied & !self.made
    }
}

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Bit i set when byte i of `x` is at least `k` (1 ≤ k ≤ 128, bytes ≤ 15).
#[inline(always)]
fn at_least(x: u64, k: u64) -> u32 {
    let top = (x + LOW * (0x80 - k)) & HIGH;
    // Gathers the eight top bits into one byte (bit i from byte i).
    ((top >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// `side` as four little-endian words of eight points (the last padded
/// with zeros).
#[inline(always)]
fn words(side: &[u8; 25]) -> [u64; 4] {
    let word = |k: usize| {
        let mut b = [0u8; 8];
        let end = (k + 8).min(25);
        b[..end - k].copy_from_slice(&side[k..end]);
        u64::from_le_bytes(b)
    };
    [word(0), word(8), word(16), word(24)]
}

/// The points of `side` whose count modulo 16 is not 0 (any byte
/// values): the points [`crate::inputs::base_inputs`] encodes.
#[inline]
pub(crate) fn occupied_mod16(side: &[u8; 25]) -> u32 {
    words(side).iter().enumerate().fold(0u32, |m, (i, &w)| {
        m | at_least(w & (LOW * 15), 1) << (8 * i)
    })
}

/// The masks of `side`.
#[inline]
pub(crate) fn masks(side: &[u8; 25]) -> Masks {
    let words = words(side);
    let mask = |k: u64| {
        words
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, &w)| m | at_least(w, k) << (8 * i))
    };
    let made = mask(2);
    Masks {
        occupied: mask(1),
        made,
        two: made & !mask(3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_count_on_every_point() {
        for p in 0..25 {
            for c in 0..=15u8 {
                let mut side = [0u8; 25];
                side[p] = c;
                // Neighbours with other counts must not disturb point p.
                for (q, v) in side.iter_mut().enumerate() {
                    if q != p {
                        *v = ((q * 7 + usize::from(c)) % 16) as u8;
                    }
                }
                let m = masks(&side);
                let bit = |mask: u32| mask >> p & 1 == 1;
                assert_eq!(bit(m.occupied), c >= 1, "point {p}, {c} chequers");
                assert_eq!(bit(m.made), c >= 2, "point {p}, {c} chequers");
                assert_eq!(bit(m.two), c == 2, "point {p}, {c} chequers");
                assert_eq!(bit(m.blots()), c == 1, "point {p}, {c} chequers");
                assert_eq!(m.occupied >> 25, 0);
            }
        }
    }
}
