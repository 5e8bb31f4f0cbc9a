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
        if plies == 0 {
            return self.evaluate(board, scratch);
        }
        scratch.within_search(|s| self.search(board, plies, prune, s))
    }

    /// [`Evaluator::evaluate_plied`] within a search.
    fn search(&self, board: &Board, plies: u32, prune: bool, scratch: &mut Scratch) -> Evaluation {
        let class = self.classify(board);
        if plies == 0 || class.is_exact() {
            return Evaluation {
                class,
                outputs: self.evaluate_class(board, class, &mut scratch.net),
            };
        }
        // A position met again in this search (several rolls often lead to
        // the same one) has the value it had the first time.
        let tag = u8::try_from(2 * plies + u32::from(prune)).ok();
        let key = tag.and_then(|tag| scratch.batch.plied_cache.tagged_key(board, tag));
        if let Some((class, outputs)) = scratch.batch.plied_cache.get_key(key.as_ref()) {
            return Evaluation { class, outputs };
        }
        let mut acc = [0f32; 5];
        // Every roll's move chosen at 0 ply, the candidates of all 21 rolls
        // scored in one batch; at 1 ply the value of each reply is the one
        // it was chosen by. Inside the search gnubg keeps the first of
        // equal moves (no `RefreshMoveList`).
        let replies = self.best_replies(board, prune, scratch);
        for (roll, reply) in ROLLS.into_iter().zip(&replies) {
            let reply = if plies == 1 {
                reply.evaluation
            } else {
                self.search(&reply.board, plies - 1, prune, scratch)
            };
            let w = roll.weight() as f32;
            for (a, v) in acc.iter_mut().zip(reply.outputs) {
                *a += w * v;
            }
        }
        let div = self.arithmetic().division();
        let outputs = invert(&acc.map(|a| div.div(a, 36.0)));
        scratch
            .batch
            .plied_cache
            .put_key(key.as_ref(), class, outputs);
        Evaluation { class, outputs }
    }
}

/// gnubg's default move filter for chequer play deeper than 1 ply: after
/// every move is scored at 0 ply, at most this many of the best are
/// searched further...
pub const FILTER_MOVES: usize = 8;
/// ...namely those within this much equity of the best 0-ply score.
pub const FILTER_EQUITY: f32 = 0.16;

impl Evaluator {
    /// The best move for dice `d0`, `d1` chosen at `plies` (chequer play):
    /// at 0 ply [`Evaluator::best_move`]; at 1 ply every legal move scored
    /// by the 1-ply evaluation of the position after it; deeper, gnubg's
    /// default move filter first (the [`FILTER_MOVES`] best 0-ply moves
    /// within [`FILTER_EQUITY`] of the best, in order of their 0-ply
    /// score), then those scored at `plies`. The first best move wins.
    /// `prune` chooses the moves inside each evaluation with the pruning
    /// nets. `None` if no move is legal.
    pub fn best_move_plied(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        plies: u32,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<Board> {
        if plies == 0 {
            return self.best_move(board, d0, d1, prune, scratch);
        }
        // One search for all the candidates: positions that several
        // candidates' searches meet are evaluated once.
        scratch.within_search(|s| self.best_move_searched(board, d0, d1, plies, prune, s))
    }

    /// [`Evaluator::best_move_plied`] above 0 ply, within a search.
    fn best_move_searched(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        plies: u32,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<Board> {
        let moves = scratch
            .moves
            .generate(board, d0.max(d1), d0.min(d1))
            .to_vec();
        if moves.len() <= 1 {
            return moves.first().copied();
        }
        let candidates = if plies == 1 {
            moves
        } else {
            filtered(self, moves, scratch)
        };
        let mut best: Option<(f32, Board)> = None;
        for after in candidates {
            let e = self.search(&after.swapped(), plies, prune, scratch);
            let score = -self.arithmetic().equity(&e.outputs);
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, after));
            }
        }
        best.map(|(_, b)| b)
    }
}

/// gnubg's default move filter: the moves within [`FILTER_EQUITY`] of the
/// best 0-ply score, at most [`FILTER_MOVES`], best first (ties in list
/// order).
fn filtered(eval: &Evaluator, moves: Vec<Board>, scratch: &mut Scratch) -> Vec<Board> {
    let mut scored: Vec<(f32, Board)> = moves
        .into_iter()
        .map(|after| (eval.move_equity(&after, scratch), after))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = scored[0].0;
    scored
        .into_iter()
        .take(FILTER_MOVES)
        .take_while(|&(score, _)| score >= best - FILTER_EQUITY)
        .map(|(_, after)| after)
        .collect()
}
