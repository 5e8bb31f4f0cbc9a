//! Players and whole cubeless money games between them
//! (docs/trainer.md#matches).

use crate::play::engine::{Engine, EngineError, EnginePool};
use board::{eval_over, Board, Dice, MoveList, Variant};
use nets::pubeval::pubeval_move;
use nets::{Evaluator, Scratch};

/// Who chooses the moves of one side.
#[derive(Clone, Copy, Debug)]
pub enum Player<'a> {
    /// A gnubg-style evaluator: its best move at 0-ply (no pruning nets).
    Net(&'a Evaluator),
    /// A gnubg-style evaluator choosing its moves at this many plies
    /// ([`Evaluator::best_move_plied`], pruning nets inside the search).
    Plied(&'a Evaluator, u32),
    /// Tesauro's pubeval.
    Pubeval,
    /// An external engine ([`crate::play::engine`]), one of the pool's per
    /// seat.
    Engine(&'a EnginePool),
}

/// A player with its per-thread buffers.
pub struct Seat<'a> {
    player: Player<'a>,
    scratch: Option<Scratch>,
    moves: MoveList,
    engine: Option<Engine>,
}

impl<'a> Seat<'a> {
    /// Buffers for `player`.
    pub fn new(player: Player<'a>) -> Seat<'a> {
        let scratch = match player {
            Player::Net(e) | Player::Plied(e, _) => Some(e.scratch()),
            Player::Pubeval | Player::Engine(_) => None,
        };
        Seat {
            player,
            scratch,
            moves: MoveList::new(),
            engine: None,
        }
    }

    /// The position after this player's move for dice `d0`, `d1` (mover
    /// still in `sides[1]`), or `None` if no move is legal. Only an engine
    /// fails.
    pub fn choose(&mut self, board: &Board, d0: u8, d1: u8) -> Result<Option<Board>, EngineError> {
        Ok(match (self.player, self.scratch.as_mut()) {
            (Player::Net(e), Some(s)) => e.best_move(board, d0, d1, false, s),
            (Player::Plied(e, plies), Some(s)) => e.best_move_plied(board, d0, d1, plies, true, s),
            (Player::Engine(pool), _) => {
                let legal = self.moves.generate(board, d0, d1);
                match legal.len() {
                    0 => None,
                    // One result: nothing to choose.
                    1 => Some(legal[0]),
                    _ => {
                        if self.engine.is_none() {
                            self.engine = Some(pool.take()?);
                        }
                        let engine = self.engine.as_mut().expect("taken");
                        Some(engine.choose(board, d0, d1, legal)?)
                    }
                }
            }
            _ => pubeval_move(board, d0, d1, &mut self.moves),
        })
    }
}

impl Drop for Seat<'_> {
    fn drop(&mut self) {
        if let (Player::Engine(pool), Some(engine)) = (self.player, self.engine.take()) {
            pool.give(engine);
        }
    }
}

/// The points a finished game is worth to the winner (1, 2 for a gammon, 3
/// for a backgammon), if the mover in `sides[1]` of `after` has just won.
fn points_won(after: &Board) -> Option<i32> {
    let p = eval_over(after, Variant::Standard)?;
    debug_assert_eq!(p[0], 1.0, "only the mover can have borne off");
    Some(1 + i32::from(p[1] == 1.0) + i32::from(p[2] == 1.0))
}

/// Plays one game from the starting position, `first` moving first with
/// the first non-double roll of `dice`, and returns the points from
/// `first`'s view (positive: `first` won). With `trace`, each move is
/// appended to it as `POSITIONID D0D1 AFTERID` (`-` for no move).
pub fn play_game<'a>(
    first: &mut Seat<'a>,
    second: &mut Seat<'a>,
    dice: &mut Dice,
    mut trace: Option<&mut Vec<String>>,
) -> Result<i32, EngineError> {
    let mut board = Board::starting();
    let (mut d0, mut d1) = dice.opening_roll();
    let mut first_to_move = true;
    loop {
        let seat = if first_to_move {
            &mut *first
        } else {
            &mut *second
        };
        let chosen = seat.choose(&board, d0, d1)?;
        if let Some(t) = trace.as_deref_mut() {
            let after = chosen.map_or_else(|| "-".into(), |b| b.position_id());
            t.push(format!("{} {d0}{d1} {after}", board.position_id()));
        }
        if let Some(after) = chosen {
            if let Some(points) = points_won(&after) {
                return Ok(if first_to_move { points } else { -points });
            }
            board = after;
        }
        board = board.swapped();
        first_to_move = !first_to_move;
        (d0, d1) = dice.roll();
    }
}

/// The dice of one game: an independent stream named by `seed`, a purpose
/// tag and the game (or game pair) number.
pub fn game_dice(seed: u64, purpose: u32, index: u64) -> Dice {
    crate::keyed::dice(seed, &[purpose, index as u32, (index >> 32) as u32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pubeval_games_end_with_legal_scores() {
        let mut a = Seat::new(Player::Pubeval);
        let mut b = Seat::new(Player::Pubeval);
        let mut seen = std::collections::BTreeSet::new();
        for g in 0..200 {
            let points = play_game(&mut a, &mut b, &mut game_dice(1, 0, g), None).unwrap();
            assert!((1..=3).contains(&points.abs()), "{points}");
            seen.insert(points);
        }
        assert!(seen.contains(&1) && seen.contains(&-1) && seen.contains(&2));
    }

    #[test]
    fn same_dice_same_game() {
        let mut a = Seat::new(Player::Pubeval);
        let mut b = Seat::new(Player::Pubeval);
        let r: Vec<i32> = (0..20)
            .map(|g| play_game(&mut a, &mut b, &mut game_dice(5, 0, g), None).unwrap())
            .collect();
        let s: Vec<i32> = (0..20)
            .map(|g| play_game(&mut a, &mut b, &mut game_dice(5, 0, g), None).unwrap())
            .collect();
        assert_eq!(r, s);
    }
}
