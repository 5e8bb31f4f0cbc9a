//! Move lists against gnubg's own (content AND order), for 300 self-play
//! positions × 21 rolls, from `fixtures/gnubg_movegen.tsv` (gnubg 1.07 data,
//! see shared/reference/movegen/README.txt).

use board::{Board, MoveList};

#[test]
fn move_lists_match_gnubg_in_content_and_order() {
    let data = include_str!("fixtures/gnubg_movegen.tsv");
    let mut list = MoveList::new();
    let mut rows = 0;
    for line in data.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let board = Board::from_position_id(f[0]).expect("fixture ID");
        let (d0, d1): (u8, u8) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let count: usize = f[3].parse().unwrap();
        let expected: Vec<&str> = f.get(4).map_or(vec![], |s| s.split_whitespace().collect());
        assert_eq!(expected.len(), count);
        let ours: Vec<String> = list
            .generate(&board, d0, d1)
            .iter()
            .map(Board::position_id)
            .collect();
        assert_eq!(ours, expected, "position {} roll {d0}-{d1}", f[0]);
        rows += 1;
    }
    assert_eq!(rows, 300 * 21);
}

#[test]
fn position_ids_round_trip() {
    let data = include_str!("fixtures/gnubg_movegen.tsv");
    for line in data.lines().skip(1) {
        for id in line
            .split('\t')
            .skip(4)
            .flat_map(|s| s.split_whitespace())
            .chain(line.split('\t').take(1))
        {
            let board = Board::from_position_id(id).unwrap();
            assert_eq!(board.position_id(), id);
        }
    }
}
