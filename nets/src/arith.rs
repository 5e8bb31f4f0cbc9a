//! Which floating-point arithmetic the evaluator reproduces
//! (docs/formats.md#arithmetic-variants).

use board::{cubeless_equity, Probabilities};
use databases::decode::Scale;

/// The arithmetic of one gnubg build. All are deterministic; because gnubg's
/// table sigmoid is discontinuous, they differ from each other by up to
/// ~1e-3 on a few percent of positions (docs/nets.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Arithmetic {
    /// Portable IEEE f32 as gnubg's SSE build computes it without fast-math:
    /// SIMD-form hidden sigmoid with true division, output sums in four
    /// interleaved lanes.
    Ieee,
    /// The scalar reference (docs/formats.md#forward-pass): scalar hidden sigmoid and
    /// sequential output sums. Slower; for checking the worked examples.
    Reference,
    /// Debian's gnubg 1.07 (x86-64, built with fast-math) as it ran on the
    /// CPU that produced the reference data: the hidden sigmoid uses that
    /// CPU's approximate reciprocal (`rcpps`, emulated bit for bit by a
    /// table, so this works on any CPU), divisions by constants in the inputs
    /// become multiplications by the f32 reciprocal, bearoff probabilities are
    /// `u · (1/65535)`, the 1-ply average multiplies by `1/36`. The default:
    /// it gives gnubg 1.07's numbers bit for bit, on any CPU.
    #[default]
    GnubgFastMath,
    /// Like [`Arithmetic::GnubgFastMath`] with this CPU's own `rcpps`
    /// (`core::arch`, x86-64 only): what Debian's gnubg computes on this CPU.
    GnubgFastMathNative,
}

impl Arithmetic {
    /// True if this arithmetic can run on the current target.
    pub fn is_supported(self) -> bool {
        self != Arithmetic::GnubgFastMathNative || cfg!(target_arch = "x86_64")
    }

    /// How the input code divides by constants.
    pub(crate) fn division(self) -> Division {
        match self {
            Arithmetic::GnubgFastMath | Arithmetic::GnubgFastMathNative => Division::Reciprocal,
            _ => Division::True,
        }
    }

    /// The cubeless money equity gnubg scores moves with (its `UtilityME`),
    /// as this build computes it. The fast-math builds add the terms in
    /// another order than the source, `((2·win − lg) + (wg + wbg)) +
    /// (−1 − lbg)`, which rounds differently from
    /// [`board::cubeless_equity`] in the last bit: enough to tell apart or
    /// tie two moves of nearly equal score (docs/formats.md#move-selection-and-pruning).
    #[inline]
    pub fn equity(self, p: &Probabilities) -> f32 {
        match self {
            Arithmetic::GnubgFastMath | Arithmetic::GnubgFastMathNative => {
                ((p[0] + p[0] - p[3]) + (p[1] + p[2])) + (-1.0 - p[4])
            }
            Arithmetic::Ieee | Arithmetic::Reference => cubeless_equity(p),
        }
    }

    /// How bearoff database values become probabilities.
    pub fn bearoff_scale(self) -> Scale {
        match self {
            Arithmetic::GnubgFastMath | Arithmetic::GnubgFastMathNative => Scale::Reciprocal,
            _ => Scale::Divide,
        }
    }
}

/// Division by a constant: true f32 division, or (fast-math) multiplication
/// by the f32 reciprocal of the constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Division {
    True,
    Reciprocal,
}

impl Division {
    /// `x / c` in this arithmetic.
    #[inline(always)]
    pub(crate) fn div(self, x: f32, c: f32) -> f32 {
        match self {
            Division::True => x / c,
            Division::Reciprocal => x * (1.0 / c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_math_move_scores_tie_where_the_source_order_does_not() {
        // The opponent's 0-ply outputs after two 6-5 moves in the race
        // 3wMAAMA+wQcSAA: the gammons are one ulp apart. Debian's gnubg
        // scores both moves alike (and plays the first); the source's
        // order of addition would prefer the second.
        let first = [1.0, f32::from_bits(0x3f7f_fb37), 0.0, 0.0, 0.0];
        let second = [1.0, f32::from_bits(0x3f7f_fb36), 0.0, 0.0, 0.0];
        let fast = Arithmetic::GnubgFastMathNative;
        assert_eq!(fast.equity(&first), fast.equity(&second));
        assert_eq!(
            Arithmetic::GnubgFastMath.equity(&first).to_bits(),
            0x3fff_fd9c
        );
        assert!(Arithmetic::Ieee.equity(&first) > Arithmetic::Ieee.equity(&second));
        // Away from such rounding the orders agree.
        let p = [0.6, 0.2, 0.05, 0.1, 0.01];
        assert!((fast.equity(&p) - cubeless_equity(&p)).abs() < 1e-6);
        assert_eq!(Arithmetic::Reference.equity(&p), cubeless_equity(&p));
    }
}
