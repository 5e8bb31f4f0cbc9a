//! gnubg's 14-character Position ID (docs/formats.md#position-id).

use crate::{Board, POINTS};

/// Length of a Position ID in characters.
pub const ID_LEN: usize = 14;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a string is not a valid Position ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionIdError {
    /// Not exactly 14 characters.
    #[error("a Position ID has 14 characters, got {0}")]
    Length(usize),
    /// A character outside the Base64 alphabet.
    #[error("invalid character {0:?} in Position ID")]
    Character(char),
    /// The bit string describes more than 15 chequers for a side.
    #[error("Position ID puts more than 15 chequers on one side")]
    TooManyChequers,
    /// Both sides on one point.
    #[error("Position ID puts both sides on the same point")]
    SharedPoint,
    /// Padding bits that cannot come from a board.
    #[error("Position ID has trailing bits that no board produces")]
    Trailing,
}

impl Board {
    /// The 10-byte key behind the Position ID: `sides[0]` first, then `sides[1]`.
    pub fn id_bytes(&self) -> [u8; 10] {
        let mut bytes = [0u8; 10];
        let mut bit = 0usize;
        for side in &self.sides {
            for &count in side {
                for _ in 0..count {
                    bytes[bit / 8] |= 1 << (bit % 8);
                    bit += 1;
                }
                bit += 1;
            }
        }
        bytes
    }

    /// The Position ID, e.g. `4HPwATDgc/ABMA` for the starting position.
    pub fn position_id(&self) -> String {
        let b = self.id_bytes();
        let mut out = String::with_capacity(ID_LEN);
        for group in b[..9].chunks(3) {
            let v = (u32::from(group[0]) << 16) | (u32::from(group[1]) << 8) | u32::from(group[2]);
            for shift in [18, 12, 6, 0] {
                out.push(ALPHABET[((v >> shift) & 63) as usize] as char);
            }
        }
        out.push(ALPHABET[usize::from(b[9] >> 2)] as char);
        out.push(ALPHABET[usize::from((b[9] & 3) << 4)] as char);
        out
    }

    /// Parses a Position ID and checks that it describes a legal board.
    ///
    /// ```
    /// use board::{Board, PositionIdError};
    ///
    /// let board = Board::from_position_id("4HPwATDgc/ABMA")?;
    /// assert_eq!(board, Board::starting());
    /// assert_eq!(board.position_id(), "4HPwATDgc/ABMA");
    /// assert_eq!(Board::from_id_bytes(&board.id_bytes()), Ok(board));
    ///
    /// assert_eq!(
    ///     Board::from_position_id("4HPwATDgc"),
    ///     Err(PositionIdError::Length(9))
    /// );
    /// assert_eq!(
    ///     Board::from_position_id("4HPwATDgc/AB!A"),
    ///     Err(PositionIdError::Character('!'))
    /// );
    /// # Ok::<(), PositionIdError>(())
    /// ```
    pub fn from_position_id(id: &str) -> Result<Board, PositionIdError> {
        let chars: Vec<char> = id.chars().collect();
        if chars.len() != ID_LEN {
            return Err(PositionIdError::Length(chars.len()));
        }
        let mut six = [0u8; ID_LEN];
        for (v, &c) in six.iter_mut().zip(&chars) {
            *v = ALPHABET
                .iter()
                .position(|&a| a as char == c)
                .ok_or(PositionIdError::Character(c))? as u8;
        }
        let mut bytes = [0u8; 10];
        for g in 0..3 {
            let s = &six[4 * g..4 * g + 4];
            let v = (u32::from(s[0]) << 18)
                | (u32::from(s[1]) << 12)
                | (u32::from(s[2]) << 6)
                | u32::from(s[3]);
            bytes[3 * g] = (v >> 16) as u8;
            bytes[3 * g + 1] = (v >> 8) as u8;
            bytes[3 * g + 2] = v as u8;
        }
        if six[13] & 15 != 0 {
            return Err(PositionIdError::Trailing);
        }
        bytes[9] = (six[12] << 2) | (six[13] >> 4);
        Board::from_id_bytes(&bytes)
    }

    /// Decodes the 10-byte key and validates the board.
    pub fn from_id_bytes(bytes: &[u8; 10]) -> Result<Board, PositionIdError> {
        let mut board = Board::EMPTY;
        let (mut side, mut idx) = (0usize, 0usize);
        for bit in 0..80 {
            let set = bytes[bit / 8] & (1 << (bit % 8)) != 0;
            if side == 2 {
                if set {
                    return Err(PositionIdError::Trailing);
                }
                continue;
            }
            if set {
                board.sides[side][idx] += 1;
                if board.chequers(side) > 15 {
                    return Err(PositionIdError::TooManyChequers);
                }
            } else {
                idx += 1;
                if idx == POINTS {
                    idx = 0;
                    side += 1;
                }
            }
        }
        for p in 0..24 {
            if board.sides[1][p] > 0 && board.sides[0][23 - p] > 0 {
                return Err(PositionIdError::SharedPoint);
            }
        }
        Ok(board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_position() {
        let start = Board::starting();
        assert_eq!(
            start.id_bytes(),
            [0xE0, 0x73, 0xF0, 0x01, 0x30, 0xE0, 0x73, 0xF0, 0x01, 0x30]
        );
        assert_eq!(start.position_id(), "4HPwATDgc/ABMA");
        assert_eq!(Board::from_position_id("4HPwATDgc/ABMA"), Ok(start));
    }

    #[test]
    fn rejects_bad_ids() {
        assert_eq!(
            Board::from_position_id("4HPwATDgc/ABM"),
            Err(PositionIdError::Length(13))
        );
        assert_eq!(
            Board::from_position_id("4HPwATDgc/AB*A"),
            Err(PositionIdError::Character('*'))
        );
        assert_eq!(
            Board::from_position_id("//8AAAAAAAAAAA"),
            Err(PositionIdError::TooManyChequers)
        );
        assert_eq!(
            Board::from_position_id("//////////////"),
            Err(PositionIdError::Trailing)
        );
    }
}
