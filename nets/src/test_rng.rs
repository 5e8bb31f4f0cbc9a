//! The seeded xorshift generator of the unit tests' random positions.

/// Marsaglia's 64-bit xorshift from `seed` (not 0): the same sequence on
/// every machine.
pub(crate) fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
