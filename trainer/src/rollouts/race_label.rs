//! Race targets from one-sided bearoff play (docs/trainer.md#race-labels):
//! exact where both sides lie within the one-sided database, else a
//! one-sided rollout (OSR) of each side that plays it alone until it reaches
//! the database and then takes the database's distribution from there.
//!
//! In a race the sides never meet, so the game is two independent races to
//! bear off. For a side, let F be the rolls it needs to bear off all its
//! chequers, G the rolls until its first chequer is off (0 if one already
//! is) and S the rolls until none of its chequers is left in the opponent's
//! home board. The side on roll, A, wins when it finishes first or on the
//! same roll number (it rolls first): with B the opponent,
//!
//! ```text
//! win   = Σ_t P(F_A = t)·P(F_B ≥ t)    lose gammon = Σ_t P(F_B = t)·P(G_A > t)
//! gammon = Σ_t P(F_A = t)·P(G_B ≥ t)   lose bg     = Σ_t P(F_B = t)·P(S_A > t)
//! bg     = Σ_t P(F_A = t)·P(S_B ≥ t)
//! ```
//!
//! (a side that still has a chequer in the winner's home board when the
//! game ends has borne off none, so S ≤ G). The distributions are kept in
//! f64. Within the database, F and G are the database's roll and gammon
//! distributions and S is 0. Outside it, each game of the OSR plays the side
//! with random dice, the first roll stratified over the 36 rolls, and moves
//! chosen by: fewest pips still needed to bring every chequer within the
//! database's points, then the smallest mean number of rolls (from the
//! database) of the chequers already there; and a second game with the same
//! first roll plays to save the gammon: fewest pips still needed to leave
//! the opponent's home board, then fewest chequers outside the database's
//! points, then a chequer borne off if the roll allows, then as the first. When every chequer is within the database's
//! points after t rolls, a game adds the database's distributions shifted by
//! t: F from the first game, G and S from the second (the database's gammon
//! distribution, too, assumes play for the first chequer off).
//!
//! Standard errors: the games are split into 12 consecutive batches; each
//! batch's targets come from that batch's distributions of both sides, and
//! the standard error is the batches' standard deviation over √12. Exact
//! targets have standard error 0.

use board::{cubeless_equity, Board, MoveList, Probabilities};
use nets::BearoffDatabases;
use rand_mt::Mt;

/// Rolls tracked per distribution (a 15-chequer side on the bar needs
/// about 60 at most; later rolls are added to the last).
const MAX_ROLLS: usize = 96;
/// Batches of games for the standard errors.
const BATCHES: usize = 12;
/// Tag keeping the OSR's random streams apart from the rollouts'.
const OSR_TAG: u32 = 0x05E1;

/// One side's distributions (probability of each number of rolls).
#[derive(Clone, Debug, PartialEq)]
struct SideRace {
    finish: [f64; MAX_ROLLS],
    first: [f64; MAX_ROLLS],
    safe: [f64; MAX_ROLLS],
}

impl SideRace {
    fn zero() -> SideRace {
        SideRace {
            finish: [0.0; MAX_ROLLS],
            first: [0.0; MAX_ROLLS],
            safe: [0.0; MAX_ROLLS],
        }
    }

    fn scaled(mut self, by: f64) -> SideRace {
        for v in self
            .finish
            .iter_mut()
            .chain(&mut self.first)
            .chain(&mut self.safe)
        {
            *v *= by;
        }
        self
    }

    fn add(&mut self, other: &SideRace) {
        for (a, b) in self.finish.iter_mut().zip(&other.finish) {
            *a += b;
        }
        for (a, b) in self.first.iter_mut().zip(&other.first) {
            *a += b;
        }
        for (a, b) in self.safe.iter_mut().zip(&other.safe) {
            *a += b;
        }
    }
}

/// Why a position cannot be labelled.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// The one-sided database has no gammon distributions.
    #[error("the one-sided bearoff database has no gammon distributions (gnubg's gnubg_os0.bd has them)")]
    NoGammons,
    /// The position is not a race.
    #[error("position {0} is not a race (the sides are in contact)")]
    NotARace(String),
}

/// Targets of one race position for the side on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaceLabel {
    /// The five probabilities.
    pub targets: Probabilities,
    /// Cubeless equity of the targets.
    pub equity: f32,
    /// Standard errors of the five probabilities (0 when exact).
    pub std_errors: Probabilities,
    /// Standard error of the equity.
    pub equity_std_error: f32,
    /// OSR games per side played (0 when both sides were exact).
    pub games: u32,
}

/// Labels a race position (`board.sides[1]` on roll) with `games` OSR games
/// per side that needs them, dice from `seed` and the position's key.
pub fn label(
    bearoff: &BearoffDatabases,
    board: &Board,
    games: u32,
    seed: u64,
) -> Result<RaceLabel, LabelError> {
    if !is_race(board) {
        return Err(LabelError::NotARace(board.position_id()));
    }
    let key = board.id_bytes();
    let sides: Vec<Vec<SideRace>> = (0..2)
        .map(|s| side_batches(bearoff, &board.sides[s], games, seed, &key, s as u32))
        .collect::<Result<_, _>>()?;
    let (a, b) = (&sides[1], &sides[0]);
    let whole = |v: &[SideRace]| {
        let mut t = SideRace::zero();
        for x in v {
            t.add(x);
        }
        t.scaled(1.0 / v.len() as f64)
    };
    let targets = combine(&whole(a), &whole(b));
    let exact = a.len() == 1 && b.len() == 1;
    let (mut std_errors, mut equity_std_error) = ([0f32; 5], 0f32);
    if !exact {
        let pick = |v: &[SideRace], k: usize| v[k.min(v.len() - 1)].clone();
        let per_batch: Vec<[f64; 5]> = (0..BATCHES)
            .map(|k| combine(&pick(a, k), &pick(b, k)))
            .collect();
        let se = |values: Vec<f64>| -> f32 {
            let n = values.len() as f64;
            let mean = values.iter().sum::<f64>() / n;
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (var / n).sqrt() as f32
        };
        for (i, e) in std_errors.iter_mut().enumerate() {
            *e = se(per_batch.iter().map(|p| p[i]).collect());
        }
        equity_std_error = se(per_batch
            .iter()
            .map(|p| f64::from(cubeless_equity(&p.map(|v| v as f32))))
            .collect());
    }
    let targets = targets.map(|v| v as f32);
    Ok(RaceLabel {
        targets,
        equity: cubeless_equity(&targets),
        std_errors,
        equity_std_error,
        games: if exact { 0 } else { games },
    })
}

/// True if every chequer of each side has passed every chequer of the other
/// (no contact), with neither side's game over.
pub fn is_race(board: &Board) -> bool {
    let back = |side: &[u8; 25]| side.iter().rposition(|&c| c > 0);
    match (back(&board.sides[0]), back(&board.sides[1])) {
        // My point i is the opponent's point 23 − i.
        (Some(b0), Some(b1)) => b0 < 24 && b1 < 24 && b0 + b1 < 23,
        _ => false,
    }
}

/// `P(X ≥ t)` for every t.
fn at_least(p: &[f64; MAX_ROLLS]) -> [f64; MAX_ROLLS + 1] {
    let mut tail = [0f64; MAX_ROLLS + 1];
    for t in (0..MAX_ROLLS).rev() {
        tail[t] = tail[t + 1] + p[t];
    }
    tail
}

/// The five probabilities for `a` on roll against `b`.
fn combine(a: &SideRace, b: &SideRace) -> [f64; 5] {
    let (bf, bg, bs) = (at_least(&b.finish), at_least(&b.first), at_least(&b.safe));
    let (ag, as_) = (at_least(&a.first), at_least(&a.safe));
    let mut out = [0f64; 5];
    for t in 0..MAX_ROLLS {
        out[0] += a.finish[t] * bf[t];
        out[1] += a.finish[t] * bg[t];
        out[2] += a.finish[t] * bs[t];
        out[3] += b.finish[t] * ag[t + 1];
        out[4] += b.finish[t] * as_[t + 1];
    }
    out
}

/// The side's distributions: one entry if exact (within the database),
/// else one per batch of OSR games.
fn side_batches(
    bearoff: &BearoffDatabases,
    side: &[u8; 25],
    games: u32,
    seed: u64,
    key: &[u8; 10],
    which: u32,
) -> Result<Vec<SideRace>, LabelError> {
    let points = bearoff.one_sided_points();
    let mut base = SideRace::zero();
    if within(side, points) {
        add_database(bearoff, side, 0, 1.0, &mut base)?;
        return Ok(vec![base]);
    }
    let k = crate::keyed::key_words(key);
    let mut mt = crate::keyed::mt(seed, &[k[0], k[1], k[2], OSR_TAG ^ which << 16]);
    let mut list = MoveList::new();
    let games = games.max(BATCHES as u32);
    let mut batches = vec![SideRace::zero(); BATCHES];
    let mut sizes = [0u32; BATCHES];
    for g in 0..games {
        let batch = (g as usize * BATCHES) / games as usize;
        sizes[batch] += 1;
        let first_roll = ((g % 6) as u8 + 1, ((g / 6) % 6) as u8 + 1);
        play_one(
            bearoff,
            side,
            first_roll,
            &mut mt,
            &mut list,
            &mut batches[batch],
        )?;
    }
    // Batches differ in size by at most one game: each is scaled by its own.
    Ok(batches
        .into_iter()
        .zip(sizes)
        .map(|(b, n)| b.scaled(1.0 / f64::from(n)))
        .collect())
}

/// True if both sides of `board` lie within `bearoff`'s one-sided
/// database, so that [`label`] gives exact targets with no rollout.
pub fn is_exact(bearoff: &BearoffDatabases, board: &Board) -> bool {
    let points = bearoff.one_sided_points();
    board.sides.iter().all(|side| within(side, points))
}

/// True if every chequer lies on points below `points`.
fn within(side: &[u8; 25], points: usize) -> bool {
    side[points..].iter().all(|&c| c == 0)
}

/// Adds `weight` × the database's distributions of `side` (within the
/// database), shifted by `shift` rolls, with S = `shift`.
fn add_database(
    bearoff: &BearoffDatabases,
    side: &[u8; 25],
    shift: usize,
    weight: f64,
    out: &mut SideRace,
) -> Result<(), LabelError> {
    let (d, g) = bearoff.one_sided_distribution(side);
    let g = g.ok_or(LabelError::NoGammons)?;
    let men: u32 = side.iter().map(|&c| u32::from(c)).sum();
    let slot = |t: usize| (t + shift).min(MAX_ROLLS - 1);
    let sum = |x: &[u16; 32]| x.iter().map(|&v| f64::from(v)).sum::<f64>();
    let (sd, sg) = (sum(&d), sum(&g));
    for t in 0..32 {
        out.finish[slot(t)] += weight * f64::from(d[t]) / sd;
        if men == 15 {
            out.first[slot(t)] += weight * f64::from(g[t]) / sg;
        }
    }
    if men < 15 {
        // A chequer is off already (taken off on the roll that reached the
        // database, or before the position): G is the shift.
        out.first[slot(0)] += weight;
    }
    out.safe[slot(0)] += weight;
    Ok(())
}

/// Pips still needed to bring every chequer below `points`.
fn pips_outside(side: &[u8; 25], points: usize) -> u32 {
    side.iter()
        .enumerate()
        .skip(points)
        .map(|(p, &c)| u32::from(c) * (p + 1 - points) as u32)
        .sum()
}

/// Mean rolls (from the database) of the chequers already within it.
fn mean_rolls_inside(bearoff: &BearoffDatabases, side: &[u8; 25], points: usize) -> f64 {
    let mut inside = [0u8; 25];
    inside[..points].copy_from_slice(&side[..points]);
    let (d, _) = bearoff.one_sided_distribution(&inside);
    let total: f64 = d.iter().map(|&v| f64::from(v)).sum();
    d.iter()
        .enumerate()
        .map(|(t, &v)| t as f64 * f64::from(v))
        .sum::<f64>()
        / total
}

/// What an OSR game plays for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// Bear off every chequer in as few rolls as possible: fewest pips
    /// still needed to bring the chequers within the database, then the
    /// smallest mean rolls of those already there.
    Finish,
    /// Leave the opponent's home board, then bear off the first chequer, as
    /// soon as possible: fewest pips still needed to leave the opponent's
    /// home board, then fewest chequers outside the database's points, then
    /// fewest chequers left (one borne off on the roll that brings the last
    /// one in), then as for `Finish`.
    FirstOff,
}

/// How an OSR game ended: the side on reaching the database's points, the
/// rolls it took, and the roll after which no chequer was left in the
/// opponent's home board.
struct Reached {
    side: [u8; 25],
    rolls: usize,
    safe_at: usize,
}

/// Plays `side` alone until every chequer is within the database's points.
fn play_to_database(
    bearoff: &BearoffDatabases,
    side: &[u8; 25],
    goal: Goal,
    first_roll: (u8, u8),
    mt: &mut Mt,
    list: &mut MoveList,
) -> Reached {
    let points = bearoff.one_sided_points();
    let in_home = |s: &[u8; 25]| s[18..].iter().all(|&c| c == 0);
    let outside = |s: &[u8; 25]| s[points..].iter().map(|&c| u32::from(c)).sum::<u32>();
    let mut me = *side;
    let mut safe_at: Option<usize> = in_home(&me).then_some(0);
    let mut rolls = 0usize;
    while !within(&me, points) {
        let (d0, d1) = if rolls == 0 {
            first_roll
        } else {
            ((mt.next_u32() % 6) as u8 + 1, (mt.next_u32() % 6) as u8 + 1)
        };
        let (hi, lo) = (d0.max(d1), d0.min(d1));
        let board = Board {
            sides: [[0; 25], me],
        };
        let plays = list.generate(&board, hi, lo);
        let chequers = |s: &[u8; 25]| match goal {
            Goal::Finish => (0, 0, 0),
            Goal::FirstOff => (
                pips_outside(s, 18),
                outside(s),
                s.iter().map(|&c| u32::from(c)).sum::<u32>(),
            ),
        };
        if let Some(best) = plays
            .iter()
            .map(|b| b.sides[1])
            .map(|s| {
                let key = (chequers(&s), pips_outside(&s, points));
                (key, mean_rolls_inside(bearoff, &s, points), s)
            })
            .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
        {
            me = best.2;
        }
        rolls += 1;
        if safe_at.is_none() && in_home(&me) {
            safe_at = Some(rolls);
        }
    }
    Reached {
        side: me,
        rolls,
        safe_at: safe_at.unwrap_or(rolls),
    }
}

/// Plays one OSR game of `side` for each goal and adds the game's
/// distributions to `out`: F from the `Finish` game, G and S from the
/// `FirstOff` game (as the database's gammon distribution assumes play for
/// the first chequer off).
fn play_one(
    bearoff: &BearoffDatabases,
    side: &[u8; 25],
    first_roll: (u8, u8),
    mt: &mut Mt,
    list: &mut MoveList,
    out: &mut SideRace,
) -> Result<(), LabelError> {
    let fast = play_to_database(bearoff, side, Goal::Finish, first_roll, mt, list);
    let mut game = SideRace::zero();
    add_database(bearoff, &fast.side, fast.rolls, 1.0, &mut game)?;
    let saving = play_to_database(bearoff, side, Goal::FirstOff, first_roll, mt, list);
    let mut gammon = SideRace::zero();
    add_database(bearoff, &saving.side, saving.rolls, 1.0, &mut gammon)?;
    game.first = gammon.first;
    if side.iter().map(|&c| u32::from(c)).sum::<u32>() < 15 {
        // A chequer was off before the game: never gammoned.
        game.first = [0.0; MAX_ROLLS];
        game.first[0] = 1.0;
    }
    game.safe = [0.0; MAX_ROLLS];
    game.safe[saving.safe_at.min(MAX_ROLLS - 1)] = 1.0;
    out.add(&game);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certain_finishes_decide_the_race() {
        let mut a = SideRace::zero();
        let mut b = SideRace::zero();
        // A needs exactly 3 rolls, B exactly 3: A, rolling first, wins.
        a.finish[3] = 1.0;
        b.finish[3] = 1.0;
        a.first[1] = 1.0;
        b.first[1] = 1.0;
        a.safe[0] = 1.0;
        b.safe[0] = 1.0;
        assert_eq!(combine(&a, &b), [1.0, 0.0, 0.0, 0.0, 0.0]);
        // B bears off its first chequer only on its 4th roll: A's win at
        // roll 3 is a gammon; B still in A's home board until roll 3: a
        // backgammon.
        b.first = [0.0; MAX_ROLLS];
        b.first[4] = 1.0;
        b.safe = [0.0; MAX_ROLLS];
        b.safe[3] = 1.0;
        b.finish = [0.0; MAX_ROLLS];
        b.finish[6] = 1.0;
        assert_eq!(combine(&a, &b), [1.0, 1.0, 1.0, 0.0, 0.0]);
        // A needs 4, B 3 (B's first chequer off at roll 1): B wins; A's
        // first chequer comes off at roll 1, so no gammon ...
        a.finish = [0.0; MAX_ROLLS];
        a.finish[4] = 1.0;
        b = SideRace::zero();
        b.finish[3] = 1.0;
        b.first[1] = 1.0;
        b.safe[0] = 1.0;
        assert_eq!(combine(&a, &b), [0.0, 0.0, 0.0, 0.0, 0.0]);
        // ... but if it comes off only at roll 4, B's win is a gammon.
        a.first = [0.0; MAX_ROLLS];
        a.first[4] = 1.0;
        assert_eq!(combine(&a, &b), [0.0, 0.0, 0.0, 1.0, 0.0]);
    }
}
