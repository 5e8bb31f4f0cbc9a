//! One-sided roll distributions as the files store them
//! (docs/formats.md#one-sided-databases).

/// Probabilities (units of 1/65535) of finishing in exactly `r` rolls,
/// r = 0..31.
pub type Distribution = [u16; 32];

/// The distribution of a finished side: done in zero rolls.
pub const DONE: Distribution = {
    let mut d = [0u16; 32];
    d[0] = 65535;
    d
};
