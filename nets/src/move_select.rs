//! Move selection at 0-ply (gnubg's `FindBestMovePlied` with no plies) and
//! with the pruning nets (gnubg's `FindBestMoveInEval`, docs/formats.md#move-selection-and-pruning;
//! gnubg 1.07 keeps `5 + floor(log2(moves))` moves, not 10), and the move
//! gnubg plays, whose ties are broken by `RefreshMoveList`.

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
    /// Index in the list `board::MoveList::generate` returns (for
    /// [`Evaluator::choose_move`] with the larger die first, for
    /// [`Evaluator::play_move`] with the dice in the order given).
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

    /// The move gnubg 1.07 plays for dice `d0`, `d1` at 0-ply (its computer
    /// player, `hint` and Python `findbestmove`), or `None` if no legal move
    /// exists: the highest score, and among equal scores the order of
    /// gnubg's `RefreshMoveList` ([`Evaluator::play_move`]); the dice order
    /// (as rolled) can decide between moves that are equal in every
    /// respect, as in gnubg. With `prune`
    /// the moves are first pre-selected by the pruning nets, as
    /// [`Evaluator::choose_move`] does (gnubg itself never prunes its own
    /// play at 0-ply).
    pub fn best_move(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<Board> {
        self.play_move(board, d0, d1, prune, scratch)
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
        let chosen = self.play_move(board, d0, d1, false, scratch)?;
        Some(self.with_evaluation(chosen, scratch))
    }

    /// [`Evaluator::choose_move`] with the 0-ply evaluation of the position
    /// after the move, opponent on roll, as [`Evaluator::best_move_evaluated`]
    /// gives it (with the pruning nets if `prune`). Ties go to the first
    /// move, as inside gnubg's searches.
    pub fn choose_move_evaluated(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<(Board, Evaluation)> {
        let chosen = self.choose_move(board, d0, d1, prune, scratch)?;
        Some(self.with_evaluation(chosen, scratch))
    }

    /// A move just chosen, with the evaluation of the position after it
    /// (opponent on roll): from the batch it was scored in, else computed.
    fn with_evaluation(&self, chosen: ChosenMove, scratch: &mut Scratch) -> (Board, Evaluation) {
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
        (chosen.board, value)
    }

    /// [`Evaluator::best_move`], also returning the move's index. gnubg
    /// chooses the moves it plays with `FindnSaveBestMoves` (a stable sort
    /// by score, so ties in list order) and then re-sorts the list with
    /// `RefreshMoveList`, whose comparison (1.07's `CompareMovesGeneral`,
    /// read from Debian's binary) puts first a move that bears off the last
    /// chequer, then the higher score, and among equal scores the move that
    /// leaves fewer chequers on the board, then the one whose rearmost
    /// chequer is lower; moves still equal keep their order. gnubg's
    /// searches (`FindBestMove`, `FindBestMoveInEval`, rollouts) do not
    /// re-sort: [`Evaluator::choose_move`].
    pub fn play_move(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<ChosenMove> {
        // gnubg generates its play's moves with the dice in the order rolled
        // (its searches: larger first), which orders moves still equal.
        let first = self.choose(board, d0, d1, prune, scratch)?;
        if scratch.moves.boards().len() == 1 {
            return Some(first);
        }
        let index = self.played_move(first.index, scratch);
        Some(ChosenMove {
            index,
            board: scratch.moves.boards()[index],
        })
    }

    /// The move gnubg plays ([`Evaluator::play_move`]) among the candidates
    /// [`Evaluator::choose_move`] just scored (in `scratch.batch`), `first`
    /// being its choice: the first of them in gnubg's `hint` order
    /// ([`hint_order`]).
    fn played_move(&self, first: usize, scratch: &Scratch) -> usize {
        let all = scratch.moves.boards();
        // Most often `first` is the answer without sorting: when no move
        // can bear off the last chequer (a roll bears off at most four, so
        // none can if `first` leaves more than four) and no other move has
        // `first`'s score exactly.
        if all[first].chequers(1) > 4 {
            let best = self.batch_scores(scratch).find(|&(i, _)| i == first);
            if let Some((_, best)) = best.filter(|(_, s)| !s.is_nan()) {
                let unique = self
                    .batch_scores(scratch)
                    .all(|(i, s)| i == first || (s != best && !s.is_nan()));
                if unique {
                    return first;
                }
            }
        }
        self.batch_scores(scratch)
            .min_by(|&x, &y| hint_order(all, x, y))
            .map_or(first, |(i, _)| i)
    }

    /// The moves scored in `scratch`'s batch: each one's index in the move
    /// list and its score, the mover's equity (the negated equity of the
    /// opponent on roll), in batch order.
    fn batch_scores<'a>(&self, scratch: &'a Scratch) -> impl Iterator<Item = (usize, f32)> + 'a {
        let arith = self.arithmetic();
        let b = &scratch.batch;
        b.indices
            .iter()
            .zip(&b.outputs)
            .map(move |(&i, out)| (i, -arith.equity(out)))
    }

    /// Every move of the dice `d0`, `d1` (as rolled) at 0-ply in the order
    /// gnubg 1.07's `hint` lists them: a move that bears off the last
    /// chequer first, then by score, then fewer chequers left, then the
    /// lower rearmost chequer, else gnubg's order (the first is the move
    /// [`Evaluator::play_move`] plays). Each entry is the position after
    /// the move (mover in `sides[1]`) and its score, the mover's equity.
    pub fn ranked_moves(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        scratch: &mut Scratch,
    ) -> Vec<(Board, f32)> {
        let Some(first) = self.choose(board, d0, d1, false, scratch) else {
            return Vec::new();
        };
        if scratch.moves.boards().len() == 1 {
            return vec![(first.board, self.move_equity(&first.board, scratch))];
        }
        let all = scratch.moves.boards();
        let mut scored: Vec<(usize, f32)> = self.batch_scores(scratch).collect();
        // A stable sort: moves equal in every respect keep gnubg's order.
        scored.sort_by(|&x, &y| hint_order(all, x, y));
        scored
            .into_iter()
            .map(|(i, score)| (all[i], score))
            .collect()
    }

    /// The best move for dice `d0`, `d1` at 0-ply (with the pruning nets if
    /// `prune`) as gnubg's searches choose it (`FindBestMovePlied` at 0
    /// plies, `FindBestMoveInEval`): ties go to the first move in gnubg's
    /// order (generated with the larger die first). Also returns the move's
    /// index.
    pub fn choose_move(
        &self,
        board: &Board,
        d0: u8,
        d1: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<ChosenMove> {
        self.choose(board, d0.max(d1), d0.min(d1), prune, scratch)
    }

    /// [`Evaluator::choose_move`] with the moves generated for the dice in
    /// this order.
    fn choose(
        &self,
        board: &Board,
        first: u8,
        second: u8,
        prune: bool,
        scratch: &mut Scratch,
    ) -> Option<ChosenMove> {
        let n = scratch.moves.generate(board, first, second).len();
        let index = match n {
            0 => return None,
            1 => 0,
            _ if prune && n > prune_moves(n) => self.pruned_best(n, scratch),
            _ => self.first_best(0..n, None, scratch),
        };
        Some(ChosenMove {
            index,
            board: scratch.moves.boards()[index],
        })
    }

    /// Scores the listed moves with the full 0-ply evaluator, in the given
    /// order (`known`: the class of every move's position, if known);
    /// returns the first with the highest equity.
    fn first_best(
        &self,
        candidates: impl Iterator<Item = usize>,
        known: Option<Class>,
        scratch: &mut Scratch,
    ) -> usize {
        let Scratch {
            moves, batch, net, ..
        } = scratch;
        batch.indices.clear();
        batch.indices.extend(candidates);
        let all = moves.boards();
        swapped_into(&mut batch.boards, batch.indices.iter().map(|&i| &all[i]));
        self.evaluate_batch(batch, net, |_| known, false);
        first_highest(self.batch_scores(scratch)).unwrap_or(usize::MAX)
    }

    /// gnubg's pruning: if every move leads to the same net class, score all
    /// with that class's pruning net, keep the [`prune_moves`] with the
    /// lowest opponent equity (in gnubg's bookkeeping order) and score those
    /// fully; otherwise score every move fully.
    fn pruned_best(&self, n: usize, scratch: &mut Scratch) -> usize {
        match self.pruned(n, scratch) {
            Some((class, keep)) => self.first_best(keep.into_iter(), Some(class), scratch),
            None => self.first_best(0..n, None, scratch),
        }
    }

    /// The moves gnubg's pruning keeps out of the `n` in `scratch.moves`,
    /// in the order it scores them fully, with their class; `None` if the
    /// moves lead to different classes (or to no net's), when every move
    /// is scored fully.
    fn pruned(&self, n: usize, scratch: &mut Scratch) -> Option<(Class, Kept)> {
        let Scratch {
            moves, batch, net, ..
        } = scratch;
        swapped_into(&mut batch.boards, moves.boards()[..n].iter());
        let class = self.classify(&batch.boards[0]);
        if class < Class::Race || batch.boards[1..].iter().any(|b| self.classify(b) != class) {
            return None;
        }
        self.evaluate_pruning_batch(class, batch, net);
        let arith = self.arithmetic();
        scratch.scores.clear();
        scratch
            .scores
            .extend(scratch.batch.outputs.iter().map(|out| arith.equity(out)));
        let kept = prune_moves(n);
        let mut keep = [0usize; MAX_PRUNE_MOVES];
        // The score of each kept move, beside it (no look-up through `keep`).
        let mut ks = [0f32; MAX_PRUNE_MOVES];
        for (i, &score) in scratch.scores.iter().enumerate() {
            if i < kept {
                // Slot 0 holds the worst (highest) kept score.
                (keep[i], ks[i]) = (i, score);
                if score > ks[0] {
                    (keep[i], ks[i]) = (keep[0], ks[0]);
                    (keep[0], ks[0]) = (i, score);
                }
            } else if score < ks[0] {
                (keep[0], ks[0]) = (i, score);
                // The first highest; its score in a register, so that no
                // step waits for a load at the index the step before chose.
                let (mut m, mut highest) = (0, ks[0]);
                for (k, &v) in ks.iter().enumerate().take(kept).skip(1) {
                    if v > highest {
                        (m, highest) = (k, v);
                    }
                }
                (keep[0], ks[0]) = (keep[m], ks[m]);
                (keep[m], ks[m]) = (i, score);
            }
        }
        // The kept moves are of the class every move was found to have.
        Some((class, Kept { keep, kept }))
    }

    /// The best reply to `board` for each of the 21 rolls, in
    /// [`board::ROLLS`]' order, as [`Evaluator::choose_move_evaluated`]
    /// gives it: the position after the move (opponent on roll; without a
    /// legal move, `board` swapped) and its 0-ply value. Each roll's moves
    /// are generated and pruned in turn, then the candidates of every roll
    /// are scored in one batch (the same bits; one evaluation for a
    /// position two rolls reach), and each roll's best is the first with
    /// the highest equity.
    pub fn best_replies(&self, board: &Board, prune: bool, scratch: &mut Scratch) -> [Reply; 21] {
        let mut queued = std::mem::take(&mut scratch.batch.queued);
        let mut known = std::mem::take(&mut scratch.batch.queued_known);
        let mut ends = std::mem::take(&mut scratch.batch.queued_ends);
        queued.clear();
        known.clear();
        ends.clear();
        for roll in board::ROLLS {
            let n = scratch.moves.generate(board, roll.high, roll.low).len();
            let all = scratch.moves.boards();
            match n {
                0 | 1 => {
                    // No legal move leaves `board` as it is; a single one is
                    // played.
                    extend_swapped(&mut queued, std::iter::once(all.first().unwrap_or(board)));
                    known.push(None);
                }
                _ => {
                    let pruned = if prune && n > prune_moves(n) {
                        self.pruned(n, scratch)
                    } else {
                        None
                    };
                    let all = scratch.moves.boards();
                    match pruned {
                        Some((class, kept)) => {
                            extend_swapped(&mut queued, kept.into_iter().map(|i| &all[i]));
                            known.resize(queued.len(), Some(class));
                        }
                        None => {
                            extend_swapped(&mut queued, all[..n].iter());
                            known.resize(queued.len(), None);
                        }
                    }
                }
            }
            ends.push(queued.len());
        }
        let Scratch { batch, net, .. } = scratch;
        // The batch keeps the boards it evaluated (the old ones' room is
        // the next queue's); it no longer holds one roll's scored moves.
        std::mem::swap(&mut batch.boards, &mut queued);
        batch.indices.clear();
        // Several rolls often reach one position.
        self.evaluate_batch(batch, net, |i| known[i], true);
        let arith = self.arithmetic();
        let mut start = 0;
        let replies = std::array::from_fn(|r| {
            let end = ends[r];
            let scored = (start..end).map(|k| (k, -arith.equity(&batch.outputs[k])));
            let best = first_highest(scored).expect("every roll has a move to score");
            start = end;
            Reply {
                board: batch.boards[best],
                evaluation: Evaluation {
                    class: batch.class_of(best),
                    outputs: batch.outputs[best],
                },
            }
        });
        (batch.queued, batch.queued_known, batch.queued_ends) = (queued, known, ends);
        replies
    }
}

/// A roll's best reply ([`Evaluator::best_replies`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reply {
    /// The position after the move, the opponent on roll.
    pub board: Board,
    /// Its 0-ply value, the one the move was chosen by.
    pub evaluation: Evaluation,
}

/// The moves gnubg's pruning keeps ([`Evaluator::pruned`]): the first
/// `kept` indices of `keep`, in order.
struct Kept {
    keep: [usize; MAX_PRUNE_MOVES],
    kept: usize,
}

impl IntoIterator for Kept {
    type Item = usize;
    type IntoIter = std::iter::Take<std::array::IntoIter<usize, MAX_PRUNE_MOVES>>;

    fn into_iter(self) -> Self::IntoIter {
        self.keep.into_iter().take(self.kept)
    }
}

/// The first of the scored moves `(index, score)` with the highest score
/// (the first move if no score is above another, as with NaN), as gnubg's
/// searches keep the first of equal moves; `None` if there are none.
fn first_highest(scored: impl Iterator<Item = (usize, f32)>) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, score) in scored {
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i)
}

/// gnubg 1.07's order of scored moves (`CompareMovesGeneral`, by which
/// `RefreshMoveList` sorts the moves it plays and `hint` lists): a move
/// that bears off the last chequer first, then the higher score, then the
/// move that leaves fewer chequers on the board, then the one whose
/// rearmost chequer is lower. Each move is its index in `all` and score.
fn hint_order(all: &[Board], (i, si): (usize, f32), (j, sj): (usize, f32)) -> std::cmp::Ordering {
    let on = |k: usize| all[k].chequers(1) != 0;
    let key = |k: usize| (all[k].chequers(1), all[k].back(1));
    on(i)
        .cmp(&on(j))
        .then(sj.partial_cmp(&si).unwrap_or(std::cmp::Ordering::Equal))
        .then(key(i).cmp(&key(j)))
}

/// Fills `boards` with the given boards, sides exchanged
/// ([`extend_swapped`]).
fn swapped_into<'a>(boards: &mut Vec<Board>, from: impl ExactSizeIterator<Item = &'a Board>) {
    boards.clear();
    extend_swapped(boards, from);
}

/// Appends the given boards to `boards`, sides exchanged, each copied side
/// by side into its place: a swapped board built on the stack first and
/// then copied stalled the CPU (its halves were stored in pieces that the
/// copy's loads straddled), a tenth of move selection's time at 2 plies.
fn extend_swapped<'a>(boards: &mut Vec<Board>, from: impl ExactSizeIterator<Item = &'a Board>) {
    let start = boards.len();
    boards.resize(start + from.len(), Board::default());
    for (to, b) in boards[start..].iter_mut().zip(from) {
        to.sides[0] = b.sides[1];
        to.sides[1] = b.sides[0];
    }
}
