//! Positions for a database from 0-ply self-play, kept where the 0-ply and
//! 1-ply equities differ by at least a threshold (gnubg's former `database
//! generate`; docs/trainer.md#position-databases).

use crate::play::game::game_dice;
use crate::positions::db::Record;
use board::Board;
use nets::{Class, Evaluator, Scratch};
use rayon::prelude::*;
use std::collections::HashSet;

const GENERATE_TAG: u32 = 0x6E4;
const EXPLORE_TAG: u32 = 0xE8B;

/// Counts of a generation run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerateStats {
    /// Games played (fewer than asked if the run was stopped).
    pub games: u64,
    /// Positions of the requested classes seen (with repeats).
    pub examined: [u64; 8],
    /// Of those, how many met the threshold (with repeats).
    pub kept: [u64; 8],
}

/// The positions of one game that pass: pre-roll positions of the wanted
/// classes with |0-ply − 1-ply equity| ≥ `threshold`.
fn game_positions(
    eval: &Evaluator,
    seed: u64,
    g: u64,
    keep: Disagreement,
    classes: &[Class],
    s: &mut Scratch,
) -> (Vec<(Board, Class)>, Vec<Class>) {
    let mut dice = game_dice(seed, GENERATE_TAG, g);
    let mut explore = Exploration::new(keep.explore, seed, g);
    let mut board = Board::starting();
    let (mut d0, mut d1) = dice.opening_roll();
    let mut kept = Vec::new();
    let mut seen = Vec::new();
    loop {
        let class = eval.classify(&board);
        if class == Class::Over {
            return (kept, seen);
        }
        if classes.contains(&class) {
            seen.push(class);
            if keep.passes(eval, &board, s) {
                kept.push((board, class));
            }
        }
        let after = match explore.random_move(&board, d0, d1) {
            Some(random) => random,
            None => eval
                .choose_move(&board, d0, d1, false, s)
                .map_or(board, |m| m.board),
        };
        if board::eval_over(&after, board::Variant::Standard).is_some() {
            return (kept, seen);
        }
        board = after.swapped();
        (d0, d1) = dice.roll();
    }
}

/// Which self-play positions are kept, and how the games are played: the
/// positions whose 0-ply equity and `plies`-ply equity (with the pruning
/// nets if `prune`) differ by at least `threshold` (all of them at 0),
/// in games where each move is, with probability `explore`, a random legal
/// move instead of the best.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disagreement {
    /// The least equity difference kept.
    pub threshold: f32,
    /// The deeper evaluation's plies (1 to [`nets::MAX_PLIES`]).
    pub plies: u32,
    /// The deeper evaluation chooses its moves with the pruning nets.
    pub prune: bool,
    /// The share of moves played at random (0 to 1).
    pub explore: f64,
}

impl Disagreement {
    /// Whether `board` is kept (a threshold of 0 keeps every position
    /// without searching).
    fn passes(&self, eval: &Evaluator, board: &Board, s: &mut Scratch) -> bool {
        if self.threshold <= 0.0 {
            return true;
        }
        let e0 = eval.evaluate(board, s).equity();
        let e1 = eval
            .evaluate_plied(board, self.plies, self.prune, s)
            .equity();
        (e0 - e1).abs() >= self.threshold
    }
}

/// The random moves of one game, drawn from their own stream (keyed by the
/// seed and the game) so that the dice stay those of the game.
struct Exploration {
    share: f64,
    mt: rand_mt::Mt,
    moves: board::MoveList,
}

impl Exploration {
    fn new(share: f64, seed: u64, game: u64) -> Exploration {
        Exploration {
            share,
            mt: crate::keyed::mt(seed, &[game as u32, (game >> 32) as u32, EXPLORE_TAG]),
            moves: board::MoveList::new(),
        }
    }

    /// A random legal move for dice `d0`, `d1`, drawn with probability
    /// `share`; `None` to play the best move.
    fn random_move(&mut self, board: &Board, d0: u8, d1: u8) -> Option<Board> {
        if self.share <= 0.0 {
            return None;
        }
        let u = f64::from(self.mt.next_u32()) / 4_294_967_296.0;
        if u >= self.share {
            return None;
        }
        let moves = self.moves.generate(board, d0.max(d1), d0.min(d1));
        let pick = (u64::from(self.mt.next_u32()) * moves.len() as u64) >> 32;
        moves.get(pick as usize).copied()
    }
}

/// Plays `games` games (in parallel, in chunks; `progress(done)` after each)
/// and returns the unique positions that pass, in order of first
/// appearance (game by game), with counts per class. Once `stop()` holds,
/// the games under way are abandoned and the result is that of the games
/// before them: exactly what a run asked for that many games returns
/// (`stats.games` says how many).
pub fn generate(
    eval: &Evaluator,
    games: u64,
    seed: u64,
    keep: Disagreement,
    classes: &[Class],
    progress: &mut dyn FnMut(u64),
    stop: &(dyn Fn() -> bool + Sync),
) -> (Vec<Record>, GenerateStats) {
    let mut unique = HashSet::new();
    let mut records = Vec::new();
    let mut stats = GenerateStats::default();
    let chunk = 64;
    while stats.games < games {
        let end = (stats.games + chunk).min(games);
        let found: Option<Vec<_>> = (stats.games..end)
            .into_par_iter()
            .map_init(
                || eval.scratch(),
                |s, g| (!stop()).then(|| game_positions(eval, seed, g, keep, classes, s)),
            )
            .collect();
        let Some(found) = found else { break };
        for (kept, seen) in found {
            for c in seen {
                stats.examined[usize::from(crate::positions::db::class_code(c))] += 1;
            }
            for (board, class) in kept {
                stats.kept[usize::from(crate::positions::db::class_code(class))] += 1;
                let key = board.id_bytes();
                if unique.insert(key) {
                    records.push(Record::new(key, class));
                }
            }
        }
        stats.games = end;
        progress(end);
    }
    (records, stats)
}
