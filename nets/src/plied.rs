//! n-ply evaluation, gnubg's `EvaluatePositionFull` without the cube
//! (docs/formats.md#n-ply-evaluation).

use crate::evaluate::{Evaluation, Evaluator, Scratch};
use board::{invert, Board, ROLLS};

/// The deepest search bgkit's tools offer (each ply costs about 21 times
/// the one below it).
pub const MAX_PLIES: u32 = 3;

impl Evaluator {
    /// n-ply evaluation (gnubg's `EvaluatePositionFull`): for each of the 21
    /// rolls the side on roll plays its best move (chosen at 0-ply, with
    /// gnubg's pruning nets if `prune`), the resulting position is evaluated
    /// at `plies − 1`, and the results are averaged and inverted. Exact
    /// classes (game over, two-sided bearoff) are never searched.
    pub fn evaluate_plied(
        &self,
        board: &Board,
        plies: u32,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Evaluation {
        let class = self.classify(board);
        if plies == 0 || class.is_exact() {
            return Evaluation {
                class,
                outputs: self.evaluate_class(board, class, &mut scratch.net),
            };
        }
        let mut acc = [0f32; 5];
        for roll in ROLLS {
            let reply = if plies == 1 {
                // The 0-ply value of the reply is the one the move was
                // chosen with.
                match self.choose_move_evaluated(board, roll.high, roll.low, prune, scratch) {
                    Some((_, value)) => value,
                    None => self.evaluate(&board.swapped(), scratch),
                }
            } else {
                let after = self
                    .best_move(board, roll.high, roll.low, prune, scratch)
                    .unwrap_or(*board);
                self.evaluate_plied(&after.swapped(), plies - 1, prune, scratch)
            };
            let w = roll.weight() as f32;
            for (a, v) in acc.iter_mut().zip(reply.outputs) {
                *a += w * v;
            }
        }
        let div = self.arithmetic().division();
        let mean = acc.map(|a| div.div(a, 36.0));
        Evaluation {
            class,
            outputs: invert(&mean),
        }
    }
}
