//! Turning stored records into numbers, exactly as gnubg's reader does
//! (docs/formats.md#decoding-stored-values): the one place where
//! bearoff values become probabilities and equities, shared by the `bearoff`
//! tool and the evaluator.

use crate::distribution::Distribution;

/// How a stored integer becomes an f32 when gnubg divides it by a constant
/// (65535, 32767.5 or 16777215).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scale {
    /// `u / c` (gnubg's source, an IEEE build).
    #[default]
    Divide,
    /// `u * (1.0 / c)`: what Debian's fast-math gnubg 1.07 computes.
    Reciprocal,
}

impl Scale {
    /// `u / c` or `u * (1 / c)`, in f32.
    fn apply(self, u: f32, c: f32) -> f32 {
        match self {
            Scale::Divide => u / c,
            Scale::Reciprocal => u * (1.0 / c),
        }
    }
}

/// A one-sided distribution as probabilities, with its moments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollDistribution {
    /// Probability of finishing in exactly `r` rolls.
    pub p: [f32; 32],
    /// Mean number of rolls.
    pub mean: f32,
    /// Standard deviation of the number of rolls.
    pub sd: f32,
}

/// Converts a stored u16 distribution to probabilities.
pub fn probabilities(d: &Distribution, scale: Scale) -> [f32; 32] {
    let mut p = [0f32; 32];
    for (o, &u) in p.iter_mut().zip(d) {
        *o = scale.apply(f32::from(u), 65535.0);
    }
    p
}

/// Probabilities with mean and standard deviation accumulated in f32 in
/// gnubg's order (`sx += r·p`, `sx2 += r·(r·p)`, r = 1..31).
///
/// ```
/// use databases::decode::{roll_distribution, Scale};
/// use databases::DONE;
///
/// let done = roll_distribution(&DONE, Scale::Divide);
/// assert_eq!((done.p[0], done.mean, done.sd), (1.0, 0.0, 0.0));
///
/// // Off in one roll or in two, about half and half.
/// let mut stored = [0u16; 32];
/// stored[1] = 32768;
/// stored[2] = 32767;
/// let d = roll_distribution(&stored, Scale::Divide);
/// assert!((d.mean - 1.5).abs() < 1e-4 && (d.sd - 0.5).abs() < 1e-4);
/// ```
pub fn roll_distribution(d: &Distribution, scale: Scale) -> RollDistribution {
    let p = probabilities(d, scale);
    let (mut sx, mut sx2) = (0f32, 0f32);
    for (r, &pr) in p.iter().enumerate().skip(1) {
        let r = r as f32;
        sx += r * pr;
        sx2 += r * (r * pr);
    }
    RollDistribution {
        p,
        mean: sx,
        sd: (sx2 - sx * sx).sqrt(),
    }
}

/// Win and gammon probabilities of a race between two one-sided positions
/// (docs/formats.md#bearoff-evaluation): `p1`/`g1` the side on roll, `p0`/`g0` the
/// opponent. `gammons` is true when the database has gammon distributions
/// and either side still has all 15 chequers. Returns the five outputs
/// (backgammons are 0). Accumulated in f32, i outer, j inner, ascending.
///
/// Only the terms whose factors are both non-zero are added, in that same
/// order: a distribution is non-zero over a few rolls only, and a product
/// with a zero factor (finite values) is ±0, which leaves a sum that
/// started at +0 unchanged (such a sum is never −0, and x + ±0 = x for
/// every other x). So the result has the bits of all 528 terms added.
pub fn race_probabilities(
    p1: &[f32; 32],
    g1: &[f32; 32],
    p0: &[f32; 32],
    g0: &[f32; 32],
    gammons: bool,
) -> [f32; 5] {
    // Σ over i, then j ≥ i + skip, ascending, of a[i]·b[j].
    let triangle = |a: &[f32; 32], b: &[f32; 32], skip: usize| {
        let (a_from, a_to) = support(a);
        let (b_from, b_to) = support(b);
        let mut sum = 0f32;
        for (i, &x) in a.iter().enumerate().take(a_to).skip(a_from) {
            for &y in b.iter().take(b_to).skip(b_from.max(i + skip)) {
                sum += x * y;
            }
        }
        sum
    };
    let win = triangle(p1, p0, 0);
    let (wg, lg) = if gammons {
        (triangle(p1, g0, 0), triangle(p0, g1, 1))
    } else {
        (0.0, 0.0)
    };
    [win, wg, 0.0, lg, 0.0]
}

/// The range of indices from the first non-zero value to the last.
fn support(p: &[f32; 32]) -> (usize, usize) {
    match p.iter().position(|&x| x != 0.0) {
        Some(first) => (
            first,
            32 - p.iter().rev().position(|&x| x != 0.0).unwrap_or(0),
        ),
        None => (0, 0),
    }
}

/// A stored two-sided u16 value as an equity: `u / 32767.5 − 1` (f32).
///
/// ```
/// use databases::decode::two_sided_equity;
///
/// assert_eq!(two_sided_equity(0xFFFF), 1.0);
/// assert_eq!(two_sided_equity(0x0000), -1.0);
/// assert!(two_sided_equity(0xBFFF) > 0.49 && two_sided_equity(0xBFFF) < 0.51);
/// ```
pub fn two_sided_equity(u: u16) -> f32 {
    two_sided_equity_with(u, Scale::Divide)
}

/// [`two_sided_equity`] with a choice of [`Scale`].
pub fn two_sided_equity_with(u: u16, scale: Scale) -> f32 {
    scale.apply(f32::from(u), 32767.5) - 1.0
}

/// A stored Hypergammon u24 probability: `u / 16777215`.
pub fn hyper_probability(u: u32) -> f32 {
    hyper_probability_with(u, Scale::Divide)
}

/// [`hyper_probability`] with a choice of [`Scale`].
pub fn hyper_probability_with(u: u32, scale: Scale) -> f32 {
    scale.apply(u as f32, 16_777_215.0)
}

/// A stored Hypergammon u24 equity: `(u / 16777215 − 0.5) · 6`.
pub fn hyper_equity(u: u32) -> f32 {
    hyper_equity_with(u, Scale::Divide)
}

/// [`hyper_equity`] with a choice of [`Scale`]. Debian's gnubg 1.07 shows
/// the value of an illegal pair (`u = 0x7FFFFF`) as `+0.0000`, which only
/// [`Scale::Reciprocal`] reproduces (division gives −1.8e−7).
pub fn hyper_equity_with(u: u32, scale: Scale) -> f32 {
    (hyper_probability_with(u, scale) - 0.5) * 6.0
}

/// Flushes subnormal results to zero, as the fast-math build does.
fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0
    } else {
        x
    }
}

/// Probability that a normal-distribution record finishes in exactly `r`
/// rolls, as Debian's gnubg 1.07 computes it: the Gaussian density
/// `exp(−z²/2) / (sd·√(2π))` with subnormal results flushed to zero, and a
/// Dirac delta (`1` if `|mean − r| < 1e−7`, else `0`) when `sd ≤ 1e−7`.
pub fn normal_density(r: f32, mean: f32, sd: f32) -> f32 {
    const EPSILON: f32 = 1.0e-7;
    if sd <= EPSILON {
        return if (mean - r).abs() < EPSILON { 1.0 } else { 0.0 };
    }
    let z = (r - mean) / sd;
    let peak = 1.0 / (sd * (2.0 * std::f32::consts::PI).sqrt());
    flush(peak * flush((-(z * z) / 2.0).exp()))
}

/// A normal-distribution record's stored mean and standard deviation with
/// the probabilities gnubg synthesises from them (`r` = 0..31).
pub fn normal_distribution(mean: f32, sd: f32) -> RollDistribution {
    RollDistribution {
        p: std::array::from_fn(|r| normal_density(r as f32, mean, sd)),
        mean,
        sd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certain_outcomes() {
        let mut done_in_one = [0u16; 32];
        done_in_one[1] = 65535;
        let mut done_in_two = [0u16; 32];
        done_in_two[2] = 65535;
        let fast = roll_distribution(&done_in_one, Scale::Divide);
        assert_eq!((fast.mean, fast.sd), (1.0, 0.0));
        let slow = probabilities(&done_in_two, Scale::Reciprocal);
        // The side on roll wins ties; finishing first wins.
        assert_eq!(
            race_probabilities(&fast.p, &slow, &slow, &slow, false)[0],
            1.0
        );
        assert_eq!(
            race_probabilities(&slow, &slow, &fast.p, &fast.p, false)[0],
            0.0
        );
        assert_eq!(two_sided_equity(0xFFFF), 1.0);
        assert_eq!(two_sided_equity(0), -1.0);
        assert_eq!(hyper_probability(16_777_215), 1.0);
        assert_eq!(hyper_equity(0), -3.0);
    }

    /// The race probabilities with every one of the 528 terms of each sum,
    /// as gnubg adds them.
    #[allow(clippy::needless_range_loop)]
    fn all_terms(p1: &[f32; 32], g1: &[f32; 32], p0: &[f32; 32], g0: &[f32; 32]) -> [f32; 5] {
        let sum = |a: &[f32; 32], b: &[f32; 32], skip: usize| {
            let mut sum = 0f32;
            for i in 0..32 {
                for j in i + skip..32 {
                    sum += a[i] * b[j];
                }
            }
            sum
        };
        [sum(p1, p0, 0), sum(p1, g0, 0), 0.0, sum(p0, g1, 1), 0.0]
    }

    #[test]
    fn skipping_zero_terms_keeps_every_bit() {
        // Distributions with a few non-zero rolls, zeros inside them too,
        // from stored u16 values as the databases hold them.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let draw = |next: &mut dyn FnMut() -> u64| {
            let from = (next() % 32) as usize;
            let len = (next() % 12) as usize;
            let mut d = [0u16; 32];
            for v in d.iter_mut().skip(from).take(len) {
                *v = if next().is_multiple_of(5) {
                    0
                } else {
                    next() as u16
                };
            }
            probabilities(&d, Scale::Divide)
        };
        for _ in 0..2000 {
            let (p1, g1, p0, g0) = (
                draw(&mut next),
                draw(&mut next),
                draw(&mut next),
                draw(&mut next),
            );
            let got = race_probabilities(&p1, &g1, &p0, &g0, true);
            let want = all_terms(&p1, &g1, &p0, &g0);
            assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
        }
        let zero = [0f32; 32];
        assert_eq!(
            race_probabilities(&zero, &zero, &zero, &zero, true),
            [0.0; 5]
        );
        // Non-zero at the ends only: the supports' last index is 31.
        let mut ends = [0f32; 32];
        (ends[0], ends[31]) = (0.25, 0.75);
        let got = race_probabilities(&ends, &ends, &ends, &ends, true);
        let want = all_terms(&ends, &ends, &ends, &ends);
        assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
        assert_eq!(got[3], 0.25 * 0.75);
    }

    #[test]
    fn scales() {
        // An illegal Hypergammon pair stores 0x7FFFFF: Debian shows +0.0000.
        assert_eq!(hyper_equity_with(0x7F_FFFF, Scale::Reciprocal), 0.0);
        assert!(hyper_equity_with(0x7F_FFFF, Scale::Divide) < 0.0);
        assert_eq!(two_sided_equity_with(0xFFFF, Scale::Reciprocal), 1.0);
    }

    #[test]
    fn normal_records() {
        let dirac = normal_distribution(0.0, 0.0);
        assert_eq!(dirac.p[0], 1.0);
        assert!(dirac.p[1..].iter().all(|&p| p == 0.0));
        let d = normal_distribution(5.0, 1.0);
        let peak = 1.0 / (2.0 * std::f32::consts::PI).sqrt();
        assert_eq!(d.p[5], peak);
        assert!(d.p[4] < peak && d.p[4] == d.p[6]);
        // Far tails underflow to exactly zero instead of subnormals.
        assert_eq!(d.p[31], 0.0);
    }
}
