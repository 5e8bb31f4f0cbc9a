//! Escape tables (docs/formats.md#escape-counts): for a 12-bit mask of blocked points
//! ahead, the number of the 36 rolls that pass them.

/// Counts rolls (d0 ≥ d1, weight 1 for doubles, 2 otherwise) whose total
/// lands on a free point and whose single dice are not both blocked; with
/// `refined`, only rolls whose total passes the first blocked point count.
const fn table(refined: bool) -> [u8; 4096] {
    let mut t = [0u8; 4096];
    let mut m = 0;
    while m < 4096 {
        let low = if m == 0 {
            12
        } else {
            (m as u32).trailing_zeros() as usize
        };
        let mut c = 0u8;
        let mut d0 = 0;
        while d0 < 6 {
            let mut d1 = 0;
            while d1 <= d0 {
                let total_free = m & (1 << (d0 + d1 + 1)) == 0;
                let dice_free = !(m & (1 << d0) != 0 && m & (1 << d1) != 0);
                let passes = !refined || d0 + d1 + 1 > low;
                if total_free && dice_free && passes {
                    c += if d0 == d1 { 1 } else { 2 };
                }
                d1 += 1;
            }
            d0 += 1;
        }
        t[m] = c;
        m += 1;
    }
    if refined {
        t[0] = 0;
    }
    t
}

static T0: [u8; 4096] = table(false);
static T1: [u8; 4096] = table(true);

/// Bit p set if `side` holds point p (two or more chequers), p in 0..24.
#[inline]
pub fn made_points(side: &[u8; 25]) -> u32 {
    super::masks::masks(side).made & 0x00FF_FFFF
}

/// The 12-bit mask of made points `24 − n .. 24 − n + min(n, 12)`.
#[inline]
fn mask(made: u32, n: i32) -> usize {
    if n <= 0 {
        return 0;
    }
    let width = n.min(12) as u32;
    ((made >> (24 - n) as u32) & ((1 << width) - 1)) as usize
}

/// Rolls (of 36) that let a chequer `n` pips from the end of `side`'s
/// numbering pass `side`'s points ahead of it.
#[inline]
pub fn escapes(side: &[u8; 25], n: i32) -> u32 {
    escapes_made(made_points(side), n)
}

/// [`escapes`] from the side's [`made_points`].
#[inline]
pub fn escapes_made(made: u32, n: i32) -> u32 {
    u32::from(T0[mask(made, n)])
}

/// Like [`escapes`], counting only rolls that pass the first blocked point.
#[inline]
pub fn escapes1(side: &[u8; 25], n: i32) -> u32 {
    escapes1_made(made_points(side), n)
}

/// [`escapes1`] from the side's [`made_points`].
#[inline]
pub fn escapes1_made(made: u32, n: i32) -> u32 {
    u32::from(T1[mask(made, n)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_entries() {
        assert_eq!(T0[0], 36);
        assert_eq!(T1[0], 0);
        assert_eq!(T0[0xFFF], 0);
        // Only bit 0 blocked: the ace and every total of 1 pip... there is
        // none, so only rolls containing a 1 with the other die also blocked
        // fail: 1-1 (both dice blocked). 35 rolls escape.
        assert_eq!(T0[1], 35);
        assert!(T1.iter().zip(&T0).all(|(a, b)| a <= b));
    }
}
