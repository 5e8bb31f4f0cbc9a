//! The weights parsers never panic, hang or allocate without bound on
//! damaged files: gnubg's binary and text weights with random edits (most
//! of them in the net headers) or cut short either parse or give an error.

mod common;

use proptest::prelude::*;
use std::sync::OnceLock;

fn binary() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| std::fs::read(common::weights_path()).expect("binary weights"))
}

fn text() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| common::shipped_text().as_bytes().to_vec())
}

/// `bytes` with `edits` applied (positions taken modulo `span`, the part
/// of the file most edits go to) and cut to `keep` of its length.
fn mutate(bytes: &[u8], edits: &[(usize, u8)], span: usize, keep: f64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for &(at, v) in edits {
        let at = at % span.min(b.len());
        b[at] = v;
    }
    b.truncate((b.len() as f64 * keep) as usize);
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn damaged_binary_weights(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        headers in any::<bool>(),
        keep in prop_oneof![Just(1.0), 0.0..1.0f64],
    ) {
        let span = if headers { 64 } else { usize::MAX };
        let _ = nets::weights::parse(&mutate(binary(), &edits, span, keep));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn damaged_text_weights(
        edits in proptest::collection::vec(
            (any::<usize>(), prop_oneof![Just(b' '), Just(b'\n'), Just(b'9'), Just(b'-'), Just(b'x'), any::<u8>()]),
            1..6,
        ),
        keep in prop_oneof![Just(1.0), 0.0..1.0f64],
    ) {
        let _ = nets::weights::parse(&mutate(text(), &edits, 4096, keep));
    }
}
