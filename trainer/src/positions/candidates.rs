//! The candidate moves of positions: for each position, every legal move of
//! one roll, as a position with the opponent on roll. These are what a
//! pruning net ranks (it sees the good moves and the bad), so a database of
//! them, labelled by a full net's evaluation (`db label eval`), teaches a
//! pruning net to rank moves as the full net does.

use board::{Board, MoveList};
use nets::Evaluator;
use std::collections::HashSet;

/// The roll whose moves are taken for `board`: one of the 36, from the
/// position's key and `seed`, so a position always gets the same roll for
/// a seed whatever else is in the database.
pub fn roll_for(board: &Board, seed: u64) -> (u8, u8) {
    crate::keyed::roll(seed, board)
}

/// The candidates of every position of `boards` (each `sides[1]` on roll)
/// for its [`roll_for`]: the positions after each legal move, swapped so the
/// opponent is on roll, each once, in order of first appearance. A position
/// with no legal move has none.
pub fn candidates(boards: &[Board], seed: u64) -> Vec<Board> {
    let mut list = MoveList::new();
    first_appearances(boards.iter().flat_map(|board| {
        let (d0, d1) = roll_for(board, seed);
        let moves: Vec<Board> = list
            .generate(board, d0, d1)
            .iter()
            .map(Board::swapped)
            .collect();
        moves
    }))
}

/// [`candidates`] keeping, of each position's moves, only the first
/// `best` in the order gnubg's `hint` lists them at 0 ply by `eval`
/// ([`Evaluator::ranked_moves`]: the move gnubg plays, then the moves
/// that compete with it). Positions are processed in parallel (rayon);
/// the result does not depend on the number of threads.
pub fn best_candidates(boards: &[Board], seed: u64, eval: &Evaluator, best: usize) -> Vec<Board> {
    use rayon::prelude::*;
    let per_position: Vec<Vec<Board>> = boards
        .par_iter()
        .map_init(
            || eval.scratch(),
            |scratch, board| {
                let (d0, d1) = roll_for(board, seed);
                let mut ranked = eval.ranked_moves(board, d0, d1, scratch);
                ranked.truncate(best);
                ranked
                    .into_iter()
                    .map(|(after, _)| after.swapped())
                    .collect()
            },
        )
        .collect();
    first_appearances(per_position.into_iter().flatten())
}

/// Each position of `boards` once, in order of first appearance.
fn first_appearances(boards: impl IntoIterator<Item = Board>) -> Vec<Board> {
    let mut seen = HashSet::new();
    boards
        .into_iter()
        .filter(|b| seen.insert(b.id_bytes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_moves_of_each_positions_roll_once_each() {
        let start = Board::starting();
        let (d0, d1) = roll_for(&start, 3);
        assert!(d0 >= d1 && (1..=6).contains(&d1));
        let moves = MoveList::new().generate(&start, d0, d1).to_vec();
        let got = candidates(&[start, start], 3);
        assert_eq!(got.len(), moves.len());
        for (c, m) in got.iter().zip(&moves) {
            assert_eq!(*c, m.swapped());
        }
        // Another seed picks its roll independently: over many seeds, more
        // than one roll.
        let rolls: HashSet<_> = (0..50).map(|s| roll_for(&start, s)).collect();
        assert!(rolls.len() > 5);
    }
}
