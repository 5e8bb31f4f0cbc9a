//! Turning stored records into numbers, exactly as gnubg's reader does
//! (spec bearoff-formats.md §7, evaluation.md §3): the one place where
//! bearoff values become probabilities and equities, shared by the `bearoff`
//! tool and the evaluator.

use crate::one_sided::Distribution;

/// How a u16 probability becomes an f32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scale {
    /// `u / 65535.0` (gnubg's source, an IEEE build).
    #[default]
    Divide,
    /// `u * (1.0 / 65535.0)`: what Debian's fast-math gnubg 1.07 computes.
    Reciprocal,
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
        *o = match scale {
            Scale::Divide => f32::from(u) / 65535.0,
            Scale::Reciprocal => f32::from(u) * (1.0 / 65535.0),
        };
    }
    p
}

/// Probabilities with mean and standard deviation accumulated in f32 in
/// gnubg's order (`sx += r·p`, `sx2 += r·(r·p)`, r = 1..31).
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
/// (evaluation.md §3.4): `p1`/`g1` the side on roll, `p0`/`g0` the
/// opponent. `gammons` is true when the database has gammon distributions
/// and either side still has all 15 chequers. Returns the five outputs
/// (backgammons are 0). Accumulated in f32, i outer, j inner, ascending.
pub fn race_probabilities(
    p1: &[f32; 32],
    g1: &[f32; 32],
    p0: &[f32; 32],
    g0: &[f32; 32],
    gammons: bool,
) -> [f32; 5] {
    let mut win = 0f32;
    for i in 0..32 {
        for j in i..32 {
            win += p1[i] * p0[j];
        }
    }
    let (mut wg, mut lg) = (0f32, 0f32);
    if gammons {
        for i in 0..32 {
            for j in i..32 {
                wg += p1[i] * g0[j];
            }
        }
        for i in 0..32 {
            for j in i + 1..32 {
                lg += p0[i] * g1[j];
            }
        }
    }
    [win, wg, 0.0, lg, 0.0]
}

/// A stored two-sided u16 value as an equity: `u / 32767.5 − 1` (f32).
pub fn two_sided_equity(u: u16) -> f32 {
    f32::from(u) / 32767.5 - 1.0
}

/// A stored Hypergammon u24 probability: `u / 16777215`.
pub fn hyper_probability(u: u32) -> f32 {
    u as f32 / 16_777_215.0
}

/// A stored Hypergammon u24 equity: `(u / 16777215 − 0.5) · 6`.
pub fn hyper_equity(u: u32) -> f32 {
    (u as f32 / 16_777_215.0 - 0.5) * 6.0
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
}
