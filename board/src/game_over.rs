//! Game-over detection and scoring (gnubg's `EvalOver`).

use crate::{Board, Probabilities};

/// Game variant: how many chequers each side starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Standard backgammon (15 chequers).
    Standard,
    /// Hypergammon with 1, 2 or 3 chequers.
    Hyper(u8),
}

impl Variant {
    /// Chequers per side.
    pub fn chequers(self) -> u32 {
        match self {
            Variant::Standard => 15,
            Variant::Hyper(n) => u32::from(n),
        }
    }
}

fn in_winners_home_or_bar(side: &crate::SideArray) -> bool {
    side[18..].iter().any(|&c| c > 0)
}

/// Scores a finished game, or returns `None` if both sides still have chequers.
///
/// ```
/// use board::{cubeless_equity, eval_over, Board, Variant};
///
/// let start = Board::starting();
/// assert_eq!(eval_over(&start, Variant::Standard), None);
///
/// // The side on roll has borne off; the opponent has all 15 left, two of
/// // them still in the winner's home board: a backgammon.
/// let mut over = start;
/// over.sides[1] = [0; 25];
/// let p = eval_over(&over, Variant::Standard).expect("the game is over");
/// assert_eq!(p, [1.0, 1.0, 1.0, 0.0, 0.0]);
/// assert_eq!(cubeless_equity(&p), 3.0);
/// ```
pub fn eval_over(board: &Board, variant: Variant) -> Option<Probabilities> {
    let n = variant.chequers();
    if board.chequers(0) == 0 {
        let mut out = [0.0; 5];
        if board.chequers(1) == n {
            out[3] = 1.0;
            if in_winners_home_or_bar(&board.sides[1]) {
                out[4] = 1.0;
            }
        }
        return Some(out);
    }
    if board.chequers(1) == 0 {
        let mut out = [1.0, 0.0, 0.0, 0.0, 0.0];
        if board.chequers(0) == n {
            out[1] = 1.0;
            if in_winners_home_or_bar(&board.sides[0]) {
                out[2] = 1.0;
            }
        }
        return Some(out);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoring() {
        let mut b = Board::EMPTY;
        assert_eq!(eval_over(&b, Variant::Standard), Some([0.0; 5]));
        b.sides[0][0] = 1;
        assert_eq!(
            eval_over(&b, Variant::Hyper(1)),
            Some([1.0, 1.0, 0.0, 0.0, 0.0])
        );
        b.sides[0][0] = 0;
        b.sides[0][20] = 1;
        assert_eq!(
            eval_over(&b, Variant::Hyper(1)),
            Some([1.0, 1.0, 1.0, 0.0, 0.0])
        );
        assert_eq!(
            eval_over(&b.swapped(), Variant::Hyper(1)),
            Some([0.0, 0.0, 0.0, 1.0, 1.0])
        );
        b.sides[1][3] = 1;
        assert_eq!(eval_over(&b, Variant::Hyper(2)), None);
        assert_eq!(eval_over(&Board::starting(), Variant::Standard), None);
    }
}
