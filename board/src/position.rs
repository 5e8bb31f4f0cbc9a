//! The board representation shared by every bgkit tool.

/// Number of entries in one side's array: 24 points and the bar.
pub const POINTS: usize = 25;
/// Index of the bar in a side's array.
pub const BAR: usize = 24;

/// One side's chequer counts in its own numbering (0 = ace point, 24 = bar).
pub type SideArray = [u8; POINTS];

/// A position: `sides[1]` is the side on roll, `sides[0]` the opponent.
///
/// ```
/// use board::{Board, BAR, POINTS};
///
/// // The side on roll: two chequers on its 6-point and one on the bar;
/// // the opponent: three on its ace point.
/// let mut on_roll = [0u8; POINTS];
/// on_roll[5] = 2;
/// on_roll[BAR] = 1;
/// let mut opponent = [0u8; POINTS];
/// opponent[0] = 3;
/// let board = Board::new(opponent, on_roll);
///
/// assert_eq!(board.chequers(1), 3);
/// assert_eq!(board.pips(1), 2 * 6 + 25);
/// assert_eq!(board.back(1), Some(BAR));
/// assert_eq!(board.swapped().pips(1), 3);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Chequer counts per side; borne-off chequers are not stored.
    pub sides: [SideArray; 2],
}

impl Board {
    /// The empty board (both sides borne off).
    pub const EMPTY: Board = Board {
        sides: [[0; POINTS]; 2],
    };

    /// The standard starting position.
    pub fn starting() -> Board {
        let mut side = [0u8; POINTS];
        side[5] = 5;
        side[7] = 3;
        side[12] = 5;
        side[23] = 2;
        Board {
            sides: [side, side],
        }
    }

    /// Builds a board from the opponent's (`sides[0]`) and the roller's array.
    pub fn new(opponent: SideArray, on_roll: SideArray) -> Board {
        Board {
            sides: [opponent, on_roll],
        }
    }

    /// Exchanges the two sides (gnubg's `SwapSides`): the opponent is now on roll.
    pub fn swapped(&self) -> Board {
        Board {
            sides: [self.sides[1], self.sides[0]],
        }
    }

    /// Number of chequers of `side` still on the board (bar included).
    pub fn chequers(&self, side: usize) -> u32 {
        self.sides[side].iter().map(|&c| u32::from(c)).sum()
    }

    /// Highest occupied index of `side` (24 = bar), or `None` if all are off.
    pub fn back(&self, side: usize) -> Option<usize> {
        self.sides[side].iter().rposition(|&c| c > 0)
    }

    /// Pip count of `side` (bar counts 25).
    pub fn pips(&self, side: usize) -> u32 {
        self.sides[side]
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
            .sum()
    }
}
