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

/// A net of `inputs` × `hidden` × 5 with seeded weights in (−1, 1).
pub(crate) fn random_net(inputs: usize, hidden: usize, seed: u64) -> crate::net::Net {
    let shape = crate::net::NetShape {
        inputs,
        hidden,
        outputs: 5,
        beta_hidden: 0.1,
        beta_output: 1.0,
    };
    let mut next = xorshift(seed);
    let values = (0..shape.values())
        .map(|_| (next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        .collect();
    crate::net::Net::from_values(shape, values).unwrap()
}
