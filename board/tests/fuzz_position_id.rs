//! Position IDs from arbitrary text never panic, and every ID that decodes
//! encodes back to a board that decodes the same (thousands of cases).

use board::Board;
use proptest::prelude::*;

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text(text in ".{0,40}") {
        let _ = Board::from_position_id(&text);
    }

    #[test]
    fn base64_ids(chars in proptest::collection::vec(0usize..64, 14)) {
        let id: String = chars.iter().map(|&k| char::from(B64[k])).collect();
        if let Ok(board) = Board::from_position_id(&id) {
            prop_assert_eq!(Board::from_position_id(&board.position_id()), Ok(board));
        }
    }

    #[test]
    fn mutated_start(edits in proptest::collection::vec((0usize..14, 0usize..64), 1..4)) {
        let mut id = b"4HPwATDgc/ABMA".to_vec();
        for (at, k) in edits {
            id[at] = B64[k];
        }
        let id = String::from_utf8(id).unwrap();
        if let Ok(board) = Board::from_position_id(&id) {
            prop_assert_eq!(Board::from_position_id(&board.position_id()), Ok(board));
        }
    }
}
