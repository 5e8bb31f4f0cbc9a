//! The 21 distinct rolls in the order gnubg's database tools visit them.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_weights() {
        assert_eq!(ROLLS[0], Roll { high: 1, low: 1 });
        assert_eq!(ROLLS[1], Roll { high: 2, low: 1 });
        assert_eq!(ROLLS[20], Roll { high: 6, low: 6 });
        assert_eq!(ROLLS.iter().map(|r| r.weight()).sum::<u32>(), 36);
    }
}
