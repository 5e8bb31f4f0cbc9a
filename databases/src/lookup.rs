//! From record indices and boards (Position IDs) to database positions,
//! with gnubg's conventions: `board.sides[1]` is the side on roll
//! ("Player"), `board.sides[0]` its opponent.

use crate::reader::{is_two_sided, Database, LookupError};
use board::bearoff_index::{rank, unrank};
use board::Board;

/// A position as a database sees it: a board and the one-sided indices of
/// its two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The board (side on roll in `sides[1]`).
    pub board: Board,
    /// One-sided index of the side on roll.
    pub player: usize,
    /// One-sided index of the opponent.
    pub opponent: usize,
}

impl Database {
    /// The position of record `index`. Two-sided and Hypergammon records
    /// are pairs `player · n + opponent`; a one-sided record `i` is shown as
    /// gnubg's bearoffdump shows it: the layout as the opponent, nothing for
    /// the side on roll.
    pub fn pair_at(&self, index: u64) -> Result<Pair, LookupError> {
        if index >= self.records() as u64 {
            return Err(LookupError::IndexOutOfRange {
                index,
                count: self.records() as u64,
            });
        }
        let n = self.side_positions() as u64;
        let (player, opponent) = if is_two_sided(self.kind()) {
            ((index / n) as usize, (index % n) as usize)
        } else {
            (0, index as usize)
        };
        let (p, c) = (self.kind().points(), self.kind().chequers());
        let mut board = Board::EMPTY;
        unrank(player, c, &mut board.sides[1][..p]);
        unrank(opponent, c, &mut board.sides[0][..p]);
        Ok(Pair {
            board,
            player,
            opponent,
        })
    }

    /// The position of a board, if both sides fit the database (chequers
    /// only on its points, at most its number of chequers).
    pub fn pair_of(&self, board: &Board) -> Result<Pair, LookupError> {
        let (p, c) = (self.kind().points(), self.kind().chequers());
        let mut idx = [0usize; 2];
        for (side, name) in [(1, "the side on roll"), (0, "the opponent")] {
            let layout = &board.sides[side];
            if let Some(far) = layout[p..].iter().rposition(|&v| v > 0) {
                let point = p + far + 1;
                let at = if point == 25 {
                    "the bar".to_string()
                } else {
                    format!("point {point}")
                };
                return Err(LookupError::NotCovered(format!(
                    "{name} has chequers on {at}, the database covers {p} points"
                )));
            }
            let count = board.chequers(side) as usize;
            if count > c {
                return Err(LookupError::NotCovered(format!(
                    "{name} has {count} chequers, the database covers up to {c}"
                )));
            }
            idx[side] = rank(&layout[..p]);
        }
        Ok(Pair {
            board: *board,
            player: idx[1],
            opponent: idx[0],
        })
    }

    /// The record holding a pair's values: for two-sided and Hypergammon
    /// files `player · n + opponent`; `None` for one-sided files, whose
    /// records are the sides' own indices.
    pub fn pair_record(&self, pair: &Pair) -> Option<u64> {
        is_two_sided(self.kind())
            .then(|| pair.player as u64 * self.side_positions() as u64 + pair.opponent as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::Kind;

    #[test]
    fn indices_and_boards_round_trip() {
        let kind = Kind::TwoSided {
            points: 6,
            chequers: 1,
            cubeful: true,
        };
        let db = Database::from_bytes("mem", vec![0; 8 * 49], Some(kind)).unwrap();
        // docs/formats.md#two-sided-records example: us one chequer on the 6-point, them on the ace.
        let pair = db.pair_at(43).unwrap();
        assert_eq!((pair.player, pair.opponent), (6, 1));
        assert_eq!(pair.board.sides[1][5], 1);
        assert_eq!(pair.board.sides[0][0], 1);
        assert_eq!(db.pair_of(&pair.board).unwrap(), pair);
        assert_eq!(db.pair_record(&pair), Some(43));

        let mut far = pair.board;
        far.sides[0][6] = 1;
        let err = db.pair_of(&far).unwrap_err().to_string();
        assert!(err.contains("opponent has chequers on point 7"), "{err}");
        let mut many = pair.board;
        many.sides[1][2] = 1;
        let err = db.pair_of(&many).unwrap_err().to_string();
        assert!(err.contains("side on roll has 2 chequers"), "{err}");
        assert!(db.pair_at(49).is_err());
    }
}
