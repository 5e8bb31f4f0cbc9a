//! Binomial coefficients for the bearoff index.

/// Largest `n` the table covers (gnubg's own table stops at 40).
pub const MAX_N: usize = 64;

pub(crate) const fn build_table() -> [[u64; MAX_N + 1]; MAX_N + 1] {
    let mut t = [[0u64; MAX_N + 1]; MAX_N + 1];
    let mut n = 0;
    while n <= MAX_N {
        t[n][0] = 1;
        let mut r = 1;
        while r <= n {
            t[n][r] = t[n - 1][r - 1] + if r < n { t[n - 1][r] } else { 0 };
            r += 1;
        }
        n += 1;
    }
    t
}

static TABLE: [[u64; MAX_N + 1]; MAX_N + 1] = build_table();

/// `C(n, r)`, 0 when `r > n`. Panics if `n > 64` (a programming error).
#[inline]
pub fn combination(n: usize, r: usize) -> u64 {
    if r > n {
        0
    } else {
        TABLE[n][r]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(combination(21, 6), 54264);
        assert_eq!(combination(33, 18), 1_037_158_320);
        assert_eq!(combination(28, 3), 3276);
        assert_eq!(combination(5, 6), 0);
        assert_eq!(combination(40, 20), 137_846_528_820);
    }
}
