//! Move selection at 0-ply (gnubg's `FindBestMovePlied` with no plies) and
//! with the pruning nets (gnubg's `FindBestMoveInEval`, docs/formats.md#move-selection-and-pruning;
//! gnubg 1.07 keeps `5 + floor(log2(moves))` moves, not 10).

use crate::classify::Class;
use crate::evaluate::{Evaluation, Evaluator, Scratch};
use board::Board;

/// Fewest moves kept by the pruning nets.
pub const MIN_PRUNE_MOVES: usize = 5;
/// Most moves kept by the pruning nets (move lists have < 4096 entries).
pub const MAX_PRUNE_MOVES: usize = MIN_PRUNE_MOVES + 11;

/// Moves the pruning nets keep out of `n` legal moves (gnubg 1.07:
/// `5 + floor(log2(n))`; gnubg 1.00–1.06 kept 10).
pub fn prune_moves(n: usize) -> usize {
    (MIN_PRUNE_MOVES + n.max(1).ilog2() as usize).min(MAX_PRUNE_MOVES)
}

/// A chosen move: its index in gnubg's move list and the board right after
/// it (before the sides are swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChosenMove {
    /// Index in the list `board::MoveList::generate` returns.
    pub index: usize,
    /// The position after the move, mover still in `sides[1]`.
    pub board: Board,
}

impl Evaluator {
    /// The mover's 0-ply equity of the position after a move: the opponent
    /// (now on roll) is evaluated and the equity negated, as gnubg scores
    /// moves (in the arithmetic's association order, [`crate::Arithmetic::equity`]).
    pub fn move_equity(&self, after: &Board, scratch: &mut Scratch) -> f32 {
        -self
            .arithmetic()
            .equity(&self.evaluate(&after.swapped(), scratch).outputs)
    }

    /// The best move for dice `d0`, `d1` at 0-ply (with the pruning nets if
    /// `prune`), or `None` if no legal move exists. Ties go to the first move
    /// in gnubg's order.
    pub fn best_move(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<Board> {
        self.choose_move(board, d0, d1, prune, scratch)
            .map(|m| m.board)
    }

    /// Like [`Evaluator::best_move`] (no pruning), with the 0-ply
    /// evaluation of the position after the move, opponent on roll: the
    /// one the move was scored with, else (a single legal move) computed.
    /// The same bits as [`Evaluator::evaluate`] of that position either way.
    pub fn best_move_evaluated(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        scratch: &mut Scratch,
    ) -> Option<(Board, Evaluation)> {
        self.choose_move_evaluated(board, d0, d1, false, scratch)
    }

    /// [`Evaluator::best_move`] with the 0-ply evaluation of the position
    /// after the move, opponent on roll, as [`Evaluator::best_move_evaluated`]
    /// gives it (with the pruning nets if `prune`).
    pub fn choose_move_evaluated(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<(Board, Evaluation)> {
        let chosen = self.choose_move(board, d0, d1, prune, scratch)?;
        let next = chosen.board.swapped();
        let b = &scratch.batch;
        let scored = b
            .indices
            .iter()
            .position(|&i| i == chosen.index)
            .filter(|&k| b.boards.get(k) == Some(&next));
        let value = match scored {
            Some(k) => Evaluation {
                class: b.class_of(k),
                outputs: b.outputs[k],
            },
            None => self.evaluate(&next, scratch),
        };
        Some((chosen.board, value))
    }

    /// Like [`Evaluator::best_move`], also returning the move's index.
    pub fn choose_move(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<ChosenMove> {
        let (hi, lo) = (d0.max(d1), d0.min(d1));
        let n = scratch.moves.generate(board, hi, lo).len();
        let index = match n {
            0 => return None,
            1 => 0,
            _ if prune && n > prune_moves(n) => self.pruned_best(n, scratch),
            _ => self.first_best(0..n, scratch),
        };
        Some(ChosenMove {
            index,
            board: scratch.moves.boards()[index],
        })
    }

    /// Scores the listed moves with the full 0-ply evaluator, in the given
    /// order; returns the first with the highest equity.
    fn first_best(&self, candidates: impl Iterator<Item = usize>, scratch: &mut Scratch) -> usize {
        let Scratch {
            moves, batch, net, ..
        } = scratch;
        batch.indices.clear();
        batch.indices.extend(candidates);
        batch.boards.clear();
        let all = moves.boards();
        batch
            .boards
            .extend(batch.indices.iter().map(|&i| all[i].swapped()));
        self.evaluate_batch(batch, net);
        let arith = self.arithmetic();
        let mut best = (f32::NEG_INFINITY, usize::MAX);
        for (&i, out) in batch.indices.iter().zip(&batch.outputs) {
            let score = -arith.equity(out);
            if best.1 == usize::MAX || score > best.0 {
                best = (score, i);
            }
        }
        best.1
    }

    /// gnubg's pruning: if every move leads to the same net class, score all
    /// with that class's pruning net, keep the [`prune_moves`] with the
    /// lowest opponent equity (in gnubg's bookkeeping order) and score those
    /// fully; otherwise score every move fully.
    fn pruned_best(&self, n: usize, scratch: &mut Scratch) -> usize {
        let Scratch {
            moves, batch, net, ..
        } = scratch;
        batch.boards.clear();
        batch
            .boards
            .extend(moves.boards()[..n].iter().map(Board::swapped));
        let class = self.classify(&batch.boards[0]);
        if class < Class::Race || batch.boards[1..].iter().any(|b| self.classify(b) != class) {
            return self.first_best(0..n, scratch);
        }
        self.evaluate_pruning_batch(class, batch, net);
        let arith = self.arithmetic();
        scratch.scores.clear();
        scratch
            .scores
            .extend(scratch.batch.outputs.iter().map(|out| arith.equity(out)));
        let kept = prune_moves(n);
        let mut keep = [0usize; MAX_PRUNE_MOVES];
        let s = &scratch.scores;
        for (i, &score) in s.iter().enumerate() {
            if i < kept {
                // Slot 0 holds the worst (highest) kept score.
                keep[i] = i;
                if score > s[keep[0]] {
                    keep[i] = keep[0];
                    keep[0] = i;
                }
            } else if score < s[keep[0]] {
                keep[0] = i;
                let mut m = 0;
                for k in 1..kept {
                    if s[keep[k]] > s[keep[m]] {
                        m = k;
                    }
                }
                keep[0] = keep[m];
                keep[m] = i;
            }
        }
        self.first_best(keep.into_iter().take(kept), scratch)
    }
}
