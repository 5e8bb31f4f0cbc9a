//! Keyed randomness: every random stream and random choice of the trainer
//! is named by the run's seed and by what it is for (a purpose tag, a
//! position's key, a trial or game number), never drawn from a shared
//! generator. So a result does not depend on the thread count, on the order
//! of the work, or on what else is in a database.
//!
//! Streams are gnubg's Mersenne Twister initialised by key (`init_by_array`)
//! with the words `[seed low, seed high, parts…]`; choices that need only
//! one number hash the seed and the position key.

use board::{Board, Dice};
use rand_mt::Mt;

/// The words a stream is keyed by: the seed's low and high halves, then
/// `parts`.
fn words(seed: u64, parts: &[u32]) -> Vec<u32> {
    let mut w = vec![seed as u32, (seed >> 32) as u32];
    w.extend_from_slice(parts);
    w
}

/// A Mersenne Twister keyed by `seed` and `parts`.
pub fn mt(seed: u64, parts: &[u32]) -> Mt {
    Mt::new_with_key(words(seed, parts))
}

/// gnubg's dice, keyed by `seed` and `parts`.
pub fn dice(seed: u64, parts: &[u32]) -> Dice {
    Dice::with_key(&words(seed, parts))
}

/// A position key (10 bytes) as three little-endian words, the last padded
/// with zeros: the `parts` that name a position.
pub fn key_words(key: &[u8; 10]) -> [u32; 3] {
    let mut k = [0u8; 12];
    k[..10].copy_from_slice(key);
    std::array::from_fn(|i| u32::from_le_bytes(k[4 * i..4 * i + 4].try_into().expect("4 bytes")))
}

/// A number in [0, 1) from `seed` and a position key (the first 64 bits of
/// the MD5 of the seed's 8 little-endian bytes and the key).
pub fn unit(seed: u64, key: &[u8; 10]) -> f64 {
    let mut bytes = seed.to_le_bytes().to_vec();
    bytes.extend_from_slice(key);
    let h = support::digest::md5_of(&bytes);
    u64::from_str_radix(&h[..16], 16).expect("hex") as f64 / 2f64.powi(64)
}

/// One of the 36 rolls, as (high, low), from `seed` and `board`'s key:
/// FNV-1a (64-bit) of the key, the seed mixed in by SplitMix64's finalizer.
pub fn roll(seed: u64, board: &Board) -> (u8, u8) {
    let mut h = board
        .id_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    h ^= seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    roll_of((h % 36) as u8)
}

/// One of the 36 rolls, as (high, low), from `board`'s key alone (FNV-1a,
/// 32-bit): the roll `bench --prune-check` tries, fixed so that its
/// figures stay comparable from run to run.
pub fn unseeded_roll(board: &Board) -> (u8, u8) {
    let h = board.id_bytes().iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    roll_of((h % 36) as u8)
}

/// Roll number `r` of 36 as (high, low).
fn roll_of(r: u8) -> (u8, u8) {
    let (a, b) = (r / 6 + 1, r % 6 + 1);
    (a.max(b), a.min(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_named_by_seed_and_parts() {
        let draw = |seed, parts: &[u32]| mt(seed, parts).next_u32();
        assert_eq!(draw(1, &[2, 3]), draw(1, &[2, 3]));
        assert_ne!(draw(1, &[2, 3]), draw(1, &[2, 4]));
        assert_ne!(draw(1, &[2, 3]), draw(1 << 32 | 1, &[2, 3]));
        let mut a = dice(9, &[1]);
        let mut b = Dice::with_key(&[9, 0, 1]);
        assert_eq!(a.roll(), b.roll());
    }

    #[test]
    fn choices_depend_on_the_position_and_the_seed() {
        let start = Board::starting();
        let u = unit(3, &start.id_bytes());
        assert!((0.0..1.0).contains(&u));
        assert_eq!(u, unit(3, &start.id_bytes()));
        assert_ne!(u, unit(4, &start.id_bytes()));
        let rolls: std::collections::HashSet<_> = (0..50).map(|s| roll(s, &start)).collect();
        assert!(rolls.len() > 10);
        let (h, l) = unseeded_roll(&start);
        assert!((1..=6).contains(&l) && l <= h && h <= 6);
        assert_eq!(key_words(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 4]), [1, 2, 0x0403]);
    }
}
