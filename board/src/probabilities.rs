//! The five probabilities every evaluation, database and net produces, and
//! the two operations on them that every part of bgkit shares: seeing them
//! from the other side, and turning them into a cubeless money equity.
//!
//! The order is gnubg's (docs/formats.md#probabilities-and-equity): win,
//! win gammon, win backgammon, lose gammon, lose backgammon, from the view
//! of the side on roll; gammons include backgammons.

/// Number of probabilities (and of outputs of every gnubg net).
pub const NUM_OUTPUTS: usize = 5;

/// Win, win gammon, win backgammon, lose gammon, lose backgammon (gammons
/// include backgammons), from the view of the side on roll.
pub type Probabilities = [f32; NUM_OUTPUTS];

/// The same probabilities seen from the other side.
///
/// ```
/// use board::{cubeless_equity, invert, jacoby_equity};
///
/// // Win 75 % (a gammon 25 %), lose a gammon 12.5 %.
/// let p = [0.75, 0.25, 0.0, 0.125, 0.0];
/// let q = invert(&p);
/// assert_eq!(q, [0.25, 0.125, 0.0, 0.25, 0.0]);
/// assert_eq!(cubeless_equity(&p), 0.625);
/// assert_eq!(cubeless_equity(&q), -0.625);
/// assert_eq!(jacoby_equity(&p), 0.5);
/// ```
#[inline]
pub fn invert(p: &Probabilities) -> Probabilities {
    [1.0 - p[0], p[3], p[4], p[1], p[2]]
}

/// Cubeless money equity `2W − 1 + (WG − LG) + (WBG − LBG)` in f32, added
/// in gnubg's order (the order changes the last bit).
#[inline]
pub fn cubeless_equity(p: &Probabilities) -> f32 {
    ((p[0] * 2.0 - 1.0) + (p[1] - p[3])) + (p[2] - p[4])
}

/// Money equity when gammons do not count (the Jacoby rule with the cube
/// centred): `2W − 1`.
#[inline]
pub fn jacoby_equity(p: &Probabilities) -> f32 {
    p[0] * 2.0 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverting_twice_is_the_identity_and_negates_equity() {
        let p = [0.6, 0.2, 0.05, 0.1, 0.01];
        assert_eq!(invert(&invert(&p)), p);
        assert!((cubeless_equity(&p) + cubeless_equity(&invert(&p))).abs() < 1e-6);
        assert_eq!(cubeless_equity(&[1.0, 1.0, 1.0, 0.0, 0.0]), 3.0);
        assert_eq!(jacoby_equity(&[1.0, 1.0, 1.0, 0.0, 0.0]), 1.0);
    }
}
