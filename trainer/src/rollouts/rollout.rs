//! Cubeless rollouts (docs/trainer.md#rollouts): each trial plays a
//! position to the end (or to an exact two-sided bearoff position) with the
//! evaluator's best moves; the first two rolls are stratified over the 1,296
//! pairs of rolls, later rolls come from gnubg's Mersenne Twister keyed by
//! the seed, the position and the trial, so a result depends on nothing
//! else (not threads, shards or order).

use crate::keyed::{self, key_words};
use board::{cubeless_equity, eval_over, invert, Board, Dice, Probabilities, Variant};
use nets::{Class, Evaluator, Scratch};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;

/// What a rollout does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RolloutSettings {
    /// Trials per position.
    pub trials: u32,
    /// Plies of the move choice (0 to [`nets::MAX_PLIES`], as
    /// [`nets::Evaluator::best_move_plied`] chooses).
    pub plies: u32,
    /// Seed of the dice.
    pub seed: u64,
    /// Stop a trial at an exact (two-sided) bearoff position and use its
    /// database value.
    pub truncate: bool,
    /// Lookahead variance reduction: subtract each roll's luck (the 0-ply
    /// value after the best move for the roll played, minus the mean over
    /// all 36 rolls) from the trial's outcome.
    pub variance_reduction: bool,
    /// MD5 of the weights file.
    pub weights_md5: String,
    /// The arithmetic and bearoff databases.
    #[serde(flatten)]
    pub evaluator: crate::evaluator_args::EvaluatorId,
}

impl RolloutSettings {
    /// The settings' fingerprint (MD5 in hex of their JSON), stored in the
    /// database so results of different settings are never mixed.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_vec(self).expect("settings serialize");
        support::digest::md5_of(&json)
    }
}

/// The mean outcome of a position's trials, for the side on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutResult {
    /// Trials played.
    pub trials: u32,
    /// Mean of the five outcome probabilities.
    pub mean: Probabilities,
    /// Mean cubeless equity.
    pub equity: f32,
    /// Standard errors of the five means.
    pub std_error: Probabilities,
    /// Standard error of the equity.
    pub equity_std_error: f32,
}

/// Tags keeping the random streams apart.
const ORDER_TAG: u32 = 0x0F1A;
const LATER_TAG: u32 = 0x1A7E;

/// Two permutations of the 36 rolls for a position: the orders in which
/// trials take their first and second rolls.
fn roll_orders(seed: u64, key: &[u8; 10]) -> [[u8; 36]; 2] {
    let w = key_words(key);
    let mut mt = keyed::mt(seed, &[w[0], w[1], w[2], ORDER_TAG]);
    std::array::from_fn(|_| {
        let mut p: [u8; 36] = std::array::from_fn(|i| i as u8);
        for i in (1..36).rev() {
            let j = ((u64::from(mt.next_u32()) * (i as u64 + 1)) >> 32) as usize;
            p.swap(i, j);
        }
        p
    })
}

fn roll_of(index: u8) -> (u8, u8) {
    (index / 6 + 1, index % 6 + 1)
}

/// One turn of a trial: the mover's luck for the roll (with variance
/// reduction), from its own side, and the position after its move (the
/// position itself when the roll has no legal move), before the sides
/// swap.
#[derive(Clone, Copy)]
struct Turn {
    luck: Option<Probabilities>,
    after: Board,
}

/// Plays `roll` in `board` (not over, not truncated) as a trial does.
fn play_turn(
    eval: &Evaluator,
    board: &Board,
    (d0, d1): (u8, u8),
    settings: &RolloutSettings,
    s: &mut Scratch,
) -> Turn {
    // The 0-ply best move of the roll, when variance reduction found it.
    let mut known = None;
    let mut luck = None;
    if settings.variance_reduction {
        let (d, best) = roll_luck(eval, board, (d0, d1), s);
        known = best.filter(|_| settings.plies == 0);
        luck = Some(d);
    }
    let after = match known {
        Some(after) => after,
        None => eval
            .best_move_plied(board, d0, d1, settings.plies, false, s)
            .unwrap_or(*board),
    };
    Turn { luck, after }
}

/// The turns of a rollout's first two plies, each played once. Every trial
/// starts from the same position and takes its first two rolls from the 36
/// (so 36 first turns, and at most 36 second turns after each first), and
/// a turn is a function of its position and its roll alone (dice order
/// included: it orders equal moves), so sharing one changes no bit.
#[derive(Default)]
struct OpeningTurns(Mutex<HashMap<(Board, u8, u8), Turn>>);

impl OpeningTurns {
    /// The turn of `roll` in `board`, played now if no trial played it yet.
    fn turn(
        &self,
        eval: &Evaluator,
        board: &Board,
        roll: (u8, u8),
        settings: &RolloutSettings,
        s: &mut Scratch,
    ) -> Turn {
        let key = (*board, roll.0, roll.1);
        let known = self.0.lock().map(|m| m.get(&key).copied());
        // A poisoned lock only means another trial panicked; play the turn.
        if let Ok(Some(turn)) = known {
            return turn;
        }
        let turn = play_turn(eval, board, roll, settings, s);
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, turn);
        }
        turn
    }
}

/// The outcome of one trial for the side on roll in `start`: the first
/// two rolls are `opening`, the later ones come from `later`. Its first
/// two turns come from `openings` when given.
fn trial(
    eval: &Evaluator,
    start: &Board,
    settings: &RolloutSettings,
    opening: [(u8, u8); 2],
    later: &mut Dice,
    openings: Option<&OpeningTurns>,
    s: &mut Scratch,
) -> Probabilities {
    let mut board = *start;
    let mut flipped = false;
    let mut turn = 0u32;
    // The sum of the rolls' luck so far, from the start's side.
    let mut luck = [0f32; 5];
    let view = |p: Probabilities, flipped: bool| if flipped { invert(&p) } else { p };
    let result = |p: Probabilities, luck: &Probabilities| -> Probabilities {
        std::array::from_fn(|k| p[k] - luck[k])
    };
    loop {
        let class = eval.classify(&board);
        if class == Class::Over {
            let p = eval_over(&board, Variant::Standard).expect("an OVER position");
            return result(view(p, flipped), &luck);
        }
        if settings.truncate && class.is_exact() {
            return result(view(eval.evaluate(&board, s).outputs, flipped), &luck);
        }
        let roll = match turn {
            0 | 1 => opening[turn as usize],
            _ => later.roll(),
        };
        let played = match openings {
            Some(o) if turn < 2 => o.turn(eval, &board, roll, settings, s),
            _ => play_turn(eval, &board, roll, settings, s),
        };
        if let Some(d) = played.luck {
            // Differences of probabilities change sides without the
            // constant of `invert`: win ↔ −win, gammons swap.
            let d = if flipped {
                [-d[0], d[3], d[4], d[1], d[2]]
            } else {
                d
            };
            for (l, v) in luck.iter_mut().zip(d) {
                *l += v;
            }
        }
        let after = played.after;
        if let Some(p) = eval_over(&after, Variant::Standard) {
            return result(view(p, flipped), &luck);
        }
        board = after.swapped();
        flipped = !flipped;
        turn += 1;
    }
}

/// The luck of rolling `roll` in `board`, from the mover's side: the 0-ply
/// value after the best move for it minus the mean over the 36 rolls; and
/// that best 0-ply move (`None` if the roll has no legal move). The 21
/// rolls' moves run as one search ([`Scratch::within_search`]): a
/// position that several rolls reach (4-1 and 3-2 both move one chequer
/// five pips) is evaluated once, with the same bits.
fn roll_luck(
    eval: &Evaluator,
    board: &Board,
    roll: (u8, u8),
    s: &mut Scratch,
) -> (Probabilities, Option<Board>) {
    s.within_search(|s| roll_luck_searched(eval, board, roll, s))
}

/// [`roll_luck`] within a search.
fn roll_luck_searched(
    eval: &Evaluator,
    board: &Board,
    roll: (u8, u8),
    s: &mut Scratch,
) -> (Probabilities, Option<Board>) {
    let mut mean = [0f32; 5];
    let mut actual = ([0f32; 5], None);
    let (hi, lo) = (roll.0.max(roll.1), roll.0.min(roll.1));
    for r in board::ROLLS {
        // Inside a rollout gnubg keeps the first of equal moves.
        let scored = eval.choose_move_evaluated(board, r.high, r.low, false, s);
        let best = scored.map(|(after, _)| after);
        let after = best.unwrap_or(*board);
        let v = match (eval_over(&after, Variant::Standard), scored) {
            (Some(p), _) => p,
            (None, Some((_, value))) => invert(&value.outputs),
            (None, None) => invert(&eval.evaluate(&after.swapped(), s).outputs),
        };
        let w = r.weight() as f32 / 36.0;
        for (m, x) in mean.iter_mut().zip(v) {
            *m += w * x;
        }
        if (r.high, r.low) == (hi, lo) {
            actual = (v, best);
        }
    }
    (std::array::from_fn(|k| actual.0[k] - mean[k]), actual.1)
}

/// Trials played between two additions to the sums: the outcomes of one
/// chunk are all a rollout keeps, so any number of trials runs in bounded
/// memory.
const TRIAL_CHUNK: u32 = 4096;

/// Rolls out `board` (`sides[1]` on roll): `settings.trials` trials, in
/// parallel (a chunk at a time), summed in trial order.
pub fn rollout(eval: &Evaluator, board: &Board, settings: &RolloutSettings) -> RolloutResult {
    rollout_with(eval, board, settings, Some(&OpeningTurns::default()))
}

/// [`rollout`], its trials' first two turns shared through `openings` if
/// given, else each played by its own trial.
fn rollout_with(
    eval: &Evaluator,
    board: &Board,
    settings: &RolloutSettings,
    openings: Option<&OpeningTurns>,
) -> RolloutResult {
    let key = board.id_bytes();
    let orders = roll_orders(settings.seed, &key);
    let w = key_words(&key);
    let seed = settings.seed;
    let mut sums = Sums::default();
    let mut start = 0;
    while start < settings.trials {
        let end = start.saturating_add(TRIAL_CHUNK).min(settings.trials);
        let outcomes: Vec<Probabilities> = (start..end)
            .into_par_iter()
            .map_init(
                || eval.scratch(),
                |s, t| {
                    let first = roll_of(orders[0][(t % 36) as usize]);
                    let second = roll_of(orders[1][((t / 36) % 36) as usize]);
                    let mut later = keyed::dice(seed, &[w[0], w[1], w[2], t, LATER_TAG]);
                    trial(
                        eval,
                        board,
                        settings,
                        [first, second],
                        &mut later,
                        openings,
                        s,
                    )
                },
            )
            .collect();
        outcomes.iter().for_each(|p| sums.add(p));
        start = end;
    }
    sums.result()
}

/// Running f64 sums of trial outcomes (the five probabilities and the
/// equity) and of their squares, added in trial order.
#[derive(Default)]
struct Sums {
    n: u32,
    sum: [f64; 6],
    sq: [f64; 6],
}

impl Sums {
    fn add(&mut self, p: &Probabilities) {
        let v: [f64; 6] = std::array::from_fn(|k| {
            if k < 5 {
                f64::from(p[k])
            } else {
                f64::from(cubeless_equity(p))
            }
        });
        for ((sum, sq), x) in self.sum.iter_mut().zip(&mut self.sq).zip(v) {
            *sum += x;
            *sq += x * x;
        }
        self.n += 1;
    }

    /// Means and standard errors.
    fn result(&self) -> RolloutResult {
        let n = f64::from(self.n);
        let mean: [f64; 6] = std::array::from_fn(|k| self.sum[k] / n);
        let se: [f64; 6] = std::array::from_fn(|k| {
            if n > 1.0 {
                ((self.sq[k] - n * mean[k] * mean[k]).max(0.0) / (n - 1.0) / n).sqrt()
            } else {
                0.0
            }
        });
        RolloutResult {
            trials: self.n,
            mean: std::array::from_fn(|k| mean[k] as f32),
            equity: mean[5] as f32,
            std_error: std::array::from_fn(|k| se[k] as f32),
            equity_std_error: se[5] as f32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The luck of every roll, its 21 rolls' moves run as one search, has
    /// the bits of the same computation with nothing cached, in contact,
    /// crashed and race positions (gnubg's weights, one-sided database).
    #[test]
    fn a_rolls_luck_is_the_same_with_its_search_cache() {
        let nets = nets::weights::load(crate::defaults::GNUBG_WEIGHTS.as_ref()).unwrap();
        let bearoff = nets::BearoffDatabases::open(&[test_support::GNUBG_OS0]).unwrap();
        let eval = Evaluator::new(nets, bearoff, nets::Arithmetic::GnubgFastMath).unwrap();
        let (mut cached, mut plain) = (eval.scratch(), eval.scratch());
        let mut classes = Vec::new();
        for id in [
            "4HPwATDgc/ABMA",
            "MU/wATDgc+EBYA",
            "33YAAMDubgAgCA",
            "bbdFAQBnuwUGAA",
            "2O4DAAA/4AAAAA",
        ] {
            let board = Board::from_position_id(id).unwrap();
            classes.push(eval.classify(&board));
            for r in board::ROLLS {
                let roll = (r.low, r.high);
                let (luck, best) = roll_luck(&eval, &board, roll, &mut cached);
                let (want, want_best) = roll_luck_searched(&eval, &board, roll, &mut plain);
                assert_eq!(
                    luck.map(f32::to_bits),
                    want.map(f32::to_bits),
                    "{id} {roll:?}"
                );
                assert_eq!(best, want_best, "{id} {roll:?}");
            }
        }
        for class in [Class::Contact, Class::Crashed, Class::Race] {
            assert!(classes.contains(&class), "{classes:?}");
        }
    }

    /// A rollout whose trials share their first two turns has the bits of
    /// one whose trials play every turn, with and without variance
    /// reduction, in contact and race; and the sharing is real: far fewer
    /// turns are played than the trials' first two.
    #[test]
    fn shared_opening_turns_change_no_bit() {
        let nets = nets::weights::load(crate::defaults::GNUBG_WEIGHTS.as_ref()).unwrap();
        let bearoff = nets::BearoffDatabases::open(&[test_support::GNUBG_OS0]).unwrap();
        let eval = Evaluator::new(nets, bearoff, nets::Arithmetic::GnubgFastMath).unwrap();
        let trials = 108;
        // Part of the settings only: the rollout itself never reads it.
        let evaluator = crate::evaluator_args::EvaluatorId::of(&eval).unwrap();
        for (id, variance_reduction) in [
            ("4HPwATDgc/ABMA", false),
            ("MU/wATDgc+EBYA", true),
            ("2O4DAAA/4AAAAA", false),
        ] {
            let board = Board::from_position_id(id).unwrap();
            let settings = RolloutSettings {
                trials,
                plies: 0,
                seed: 7,
                truncate: false,
                variance_reduction,
                weights_md5: String::new(),
                evaluator: evaluator.clone(),
            };
            let openings = OpeningTurns::default();
            let shared = rollout_with(&eval, &board, &settings, Some(&openings));
            let alone = rollout_with(&eval, &board, &settings, None);
            let bits = |r: &RolloutResult| {
                let mut v: Vec<u32> = r
                    .mean
                    .iter()
                    .chain(&r.std_error)
                    .map(|x| x.to_bits())
                    .collect();
                v.extend([r.equity.to_bits(), r.equity_std_error.to_bits()]);
                v
            };
            assert_eq!(bits(&shared), bits(&alone), "{id}");
            // 36 first turns and at most 36 second turns after each.
            let played = openings.0.lock().unwrap().len();
            assert!(
                played <= 36 + trials as usize && played > 36,
                "{id}: {played} turns played"
            );
        }
    }

    #[test]
    fn roll_orders_are_permutations_keyed_by_position() {
        let a = roll_orders(1, &[1; 10]);
        let b = roll_orders(1, &[2; 10]);
        for p in &a {
            let mut q = p.to_vec();
            q.sort_unstable();
            assert_eq!(q, (0..36).collect::<Vec<u8>>());
        }
        assert_ne!(a, b);
        assert_eq!(a, roll_orders(1, &[1; 10]));
    }

    #[test]
    fn summary_statistics() {
        let mut sums = Sums::default();
        sums.add(&[1.0, 0.0, 0.0, 0.0, 0.0]);
        sums.add(&[0.0, 0.0, 0.0, 1.0, 0.0]);
        let r = sums.result();
        assert_eq!(r.mean, [0.5, 0.0, 0.0, 0.5, 0.0]);
        assert_eq!(r.equity, -0.5);
        // Equities 1 and −2: sd 2.1213, se 1.5.
        assert!((r.equity_std_error - 1.5).abs() < 1e-6);
        assert!((r.std_error[0] - 0.5).abs() < 1e-6);
    }
}
