//! How well pruning nets prune (docs/trainer.md#pruning-nets): for a position
//! and a roll, is the move that a full, unpruned 1-ply search picks among
//! the moves the pruning net keeps? gnubg keeps the pruning net's 10 best
//! candidates before searching deeper, so a good pruning net keeps the
//! 1-ply best nearly always.

use board::{cubeless_equity, Board, MoveList};
use nets::{Class, Evaluator, Scratch};
use rayon::prelude::*;

/// Candidates a pruning net keeps (gnubg's figure at 1-ply and deeper).
pub const KEPT: usize = 10;

/// The result over a set of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PruneRecall {
    /// Positions where pruning applies: more than [`KEPT`] legal moves, all
    /// leading to one class with a pruning net.
    pub positions: usize,
    /// Of those, positions whose unpruned 1-ply best move is kept.
    pub kept_best: usize,
}

impl PruneRecall {
    /// `kept_best / positions` (1 if no position counted).
    pub fn rate(&self) -> f64 {
        if self.positions == 0 {
            1.0
        } else {
            self.kept_best as f64 / self.positions as f64
        }
    }
}

/// The roll tried for a position: one of the 21, from its key (so the same
/// position always gets the same roll).
pub fn roll_for(board: &Board) -> (u8, u8) {
    crate::keyed::unseeded_roll(board)
}

/// Whether the pruning nets of `eval` keep the unpruned 1-ply best move of
/// `board` (on roll) for `roll`, or `None` when pruning does not apply.
/// `list` and `scratch` are reusable working space.
pub fn keeps_best(
    eval: &Evaluator,
    board: &Board,
    roll: (u8, u8),
    list: &mut MoveList,
    scratch: &mut Scratch,
) -> Option<bool> {
    let moves = list.generate(board, roll.0, roll.1);
    if moves.len() <= KEPT {
        return None;
    }
    let opponents: Vec<Board> = moves.iter().map(Board::swapped).collect();
    let class = eval.classify(&opponents[0]);
    if class < Class::Race || opponents.iter().any(|o| eval.classify(o) != class) {
        return None;
    }
    // The full search: the move whose position is worst for the opponent at
    // 1-ply (first in gnubg's order on ties).
    let full: Vec<f32> = opponents
        .iter()
        .map(|o| eval.evaluate_plied(o, 1, false, scratch).equity())
        .collect();
    let best = (0..full.len())
        .min_by(|&a, &b| full[a].total_cmp(&full[b]).then(a.cmp(&b)))
        .expect("moves");
    // The pruning net's ranking of the same moves.
    let cheap: Vec<f32> = opponents
        .iter()
        .map(|o| cubeless_equity(&eval.evaluate_pruning_net(o, class, scratch)))
        .collect();
    let mut order: Vec<usize> = (0..cheap.len()).collect();
    order.sort_by(|&a, &b| cheap[a].total_cmp(&cheap[b]).then(a.cmp(&b)));
    Some(order[..KEPT].contains(&best))
}

/// [`keeps_best`] over `boards`, each with its [`roll_for`], in parallel
/// (the result does not depend on the threads).
pub fn prune_recall(eval: &Evaluator, boards: &[Board]) -> PruneRecall {
    let results: Vec<Option<bool>> = boards
        .par_iter()
        .map_init(
            || (MoveList::new(), eval.scratch()),
            |(list, scratch), b| keeps_best(eval, b, roll_for(b), list, scratch),
        )
        .collect();
    PruneRecall {
        positions: results.iter().flatten().count(),
        kept_best: results.iter().flatten().filter(|&&k| k).count(),
    }
}
