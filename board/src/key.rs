//! gnubg's 7-word position key (docs/formats.md#position-key): a lossless packing of both
//! sides, used as the identity of a resulting position.

use crate::Board;

/// Seven little-endian nibble-packed words covering both sides and bars.
///
/// ```
/// use board::{Board, PositionKey};
///
/// let start = Board::starting();
/// let key = PositionKey::from(&start);
/// assert_eq!(Board::from(&key), start);
///
/// let mut moved = start;
/// moved.sides[1][7] -= 1; // 8/5
/// moved.sides[1][4] += 1;
/// assert_ne!(PositionKey::from(&moved), key);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PositionKey(pub [u32; 7]);

impl From<&Board> for PositionKey {
    fn from(board: &Board) -> Self {
        let mut key = [0u32; 7];
        for w in 0..3 {
            for m in 0..8 {
                key[w] |= u32::from(board.sides[1][8 * w + m] & 15) << (4 * m);
                key[w + 3] |= u32::from(board.sides[0][8 * w + m] & 15) << (4 * m);
            }
        }
        key[6] = u32::from(board.sides[0][24] & 15) | (u32::from(board.sides[1][24] & 15) << 4);
        PositionKey(key)
    }
}

impl From<&PositionKey> for Board {
    fn from(key: &PositionKey) -> Self {
        let mut board = Board::EMPTY;
        for w in 0..3 {
            for m in 0..8 {
                board.sides[1][8 * w + m] = ((key.0[w] >> (4 * m)) & 15) as u8;
                board.sides[0][8 * w + m] = ((key.0[w + 3] >> (4 * m)) & 15) as u8;
            }
        }
        board.sides[0][24] = (key.0[6] & 15) as u8;
        board.sides[1][24] = ((key.0[6] >> 4) & 15) as u8;
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut b = Board::starting();
        b.sides[0][24] = 2;
        b.sides[1][24] = 1;
        b.sides[1][23] = 1;
        let key = PositionKey::from(&b);
        assert_eq!(Board::from(&key), b);
        assert_ne!(PositionKey::from(&Board::starting()), key);
    }
}
