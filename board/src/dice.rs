//! The 21 distinct rolls in the order gnubg's database tools visit them,
//! and gnubg's default dice: its Mersenne Twister (docs/formats.md#dice).

use rand_mt::Mt;

/// A roll with `high >= low`, and how many of the 36 outcomes it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roll {
    /// The larger die (generated first).
    pub high: u8,
    /// The smaller die.
    pub low: u8,
}

impl Roll {
    /// 1 for doubles, 2 otherwise.
    pub const fn weight(self) -> u32 {
        if self.high == self.low {
            1
        } else {
            2
        }
    }

    /// True for doubles.
    pub const fn is_double(self) -> bool {
        self.high == self.low
    }

    /// The orders in which a move may play this roll's dice: four of the
    /// number for a double; high then low, and low then high, otherwise.
    pub fn play_orders(self) -> Vec<Vec<u8>> {
        if self.is_double() {
            vec![vec![self.high; 4]]
        } else {
            vec![vec![self.high, self.low], vec![self.low, self.high]]
        }
    }
}

const fn build_rolls() -> [Roll; 21] {
    let mut rolls = [Roll { high: 0, low: 0 }; 21];
    let mut k = 0;
    let mut high = 1;
    while high <= 6 {
        let mut low = 1;
        while low <= high {
            rolls[k] = Roll { high, low };
            k += 1;
            low += 1;
        }
        high += 1;
    }
    rolls
}

/// Outer loop `high = 1..=6`, inner loop `low = 1..=high`, as gnubg does.
pub const ROLLS: [Roll; 21] = build_rolls();

/// gnubg's dice: MT19937 (mt19937ar), one die per draw, the top four
/// values of each 32-bit draw rejected so the six faces are equally likely.
/// Seeded alike, it rolls exactly gnubg 1.07's sequence (`set rng mersenne`,
/// `set seed N`).
///
/// ```
/// use board::{Dice, ROLLS};
///
/// // gnubg 1.07: `set rng mersenne`, `set seed 1`.
/// let mut dice = Dice::new(1);
/// assert_eq!(dice.roll(), (3, 6));
/// assert_eq!(dice.roll(), (5, 6));
///
/// // Reproducible streams named by several words (a seed, a game number).
/// let (a, b) = Dice::with_key(&[1, 7]).opening_roll();
/// assert_ne!(a, b);
/// assert_eq!(Dice::with_key(&[1, 7]).opening_roll(), (a, b));
///
/// // The 21 distinct rolls stand for the 36 outcomes.
/// assert_eq!(ROLLS.iter().map(|r| r.weight()).sum::<u32>(), 36);
/// ```
#[derive(Clone)]
pub struct Dice {
    mt: Mt,
}

impl std::fmt::Debug for Dice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dice")
    }
}

/// Draws at or above this are rejected (6 · 715,827,882).
const REJECT_FROM: u32 = 4_294_967_292;
/// ⌊2³² / 6⌋: the width of one face's range of draws.
const FACE_WIDTH: u32 = 715_827_882;

impl Dice {
    /// gnubg's `set seed N` for `N < 2³²` (`init_genrand`).
    pub fn new(seed: u32) -> Dice {
        Dice { mt: Mt::new(seed) }
    }

    /// A generator seeded with several 32-bit words (`init_by_array` over
    /// exactly these words): independent streams named by, for example, a
    /// run's seed and a game number.
    pub fn with_key(key: &[u32]) -> Dice {
        Dice {
            mt: Mt::new_with_key(key.iter().copied()),
        }
    }

    /// One die, 1–6.
    pub fn die(&mut self) -> u8 {
        loop {
            let r = self.mt.next_u32();
            if r < REJECT_FROM {
                return 1 + (r / FACE_WIDTH) as u8;
            }
        }
    }

    /// Two dice, in the order drawn (gnubg does not sort them).
    pub fn roll(&mut self) -> (u8, u8) {
        let first = self.die();
        (first, self.die())
    }

    /// An opening roll: drawn again until it is not a double.
    pub fn opening_roll(&mut self) -> (u8, u8) {
        loop {
            let (a, b) = self.roll();
            if a != b {
                return (a, b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gnubg 1.07, `set rng mersenne`, `set seed 1`, eight rolls.
    #[test]
    fn rolls_as_gnubg_with_seed_1() {
        let mut d = Dice::new(1);
        let rolls: Vec<_> = (0..8).map(|_| d.roll()).collect();
        assert_eq!(
            rolls,
            [
                (3, 6),
                (5, 6),
                (1, 1),
                (2, 6),
                (1, 2),
                (1, 3),
                (2, 3),
                (3, 5)
            ]
        );
    }

    /// gnubg's seeds above 2³² key the generator with 624 words (the number
    /// split into words, least significant first, then zeros).
    #[test]
    fn rolls_as_gnubg_with_a_long_seed() {
        let n: u64 = 123_456_789_012;
        let mut key = vec![n as u32, (n >> 32) as u32];
        key.resize(624, 0);
        let mut d = Dice::with_key(&key);
        let rolls: Vec<_> = (0..4).map(|_| d.roll()).collect();
        assert_eq!(rolls, [(3, 1), (3, 5), (2, 4), (6, 5)]);
    }

    #[test]
    fn faces_are_uniform() {
        let mut d = Dice::new(7);
        let mut count = [0u32; 7];
        for _ in 0..60_000 {
            count[usize::from(d.die())] += 1;
        }
        assert_eq!(count[0], 0);
        for &c in &count[1..] {
            assert!((9_400..10_600).contains(&c), "{count:?}");
        }
    }

    #[test]
    fn order_and_weights() {
        assert_eq!(ROLLS[0], Roll { high: 1, low: 1 });
        assert_eq!(ROLLS[1], Roll { high: 2, low: 1 });
        assert_eq!(ROLLS[20], Roll { high: 6, low: 6 });
        assert_eq!(ROLLS.iter().map(|r| r.weight()).sum::<u32>(), 36);
    }
}
