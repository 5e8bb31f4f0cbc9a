//! Matches of cubeless money games between two players, with duplicate or
//! independent dice, and their points per game with a 95 % confidence
//! interval (docs/trainer.md#matches).

use crate::play::engine::EngineError;
use crate::play::game::{game_dice, play_game, Player, Seat};
use rayon::prelude::*;

/// How the dice of a match are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiceMode {
    /// Games in pairs: one dice sequence played twice, each player moving
    /// first once (luck cancels out, so fewer games are needed).
    Duplicate,
    /// A fresh dice sequence for every game, the first move alternating.
    Independent,
}

/// Purpose tags keeping the dice of different uses apart.
const DUPLICATE_TAG: u32 = 0xD0;
const INDEPENDENT_TAG: u32 = 0x1D;

/// Why a match cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// Zero games.
    #[error("the number of games must be at least 1")]
    NoGames,
    /// Duplicate dice need pairs of games.
    #[error("{0} games: duplicate dice play games in pairs, so the number must be even")]
    OddDuplicate(u64),
    /// An external engine failed: the match has no result.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The record of the games could not be written.
    #[error("the record of the games: {0}")]
    Record(std::io::Error),
    /// The journal of the match could not be written.
    #[error("the journal of the match: {0}")]
    Journal(std::io::Error),
    /// A journal's totals do not fit the match.
    #[error("the journal holds {0} game units, more than this match has")]
    TooFar(u64),
}

/// The outcome of a match, from player A's view.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MatchResult {
    /// Games played.
    pub games: u64,
    /// Games A won.
    pub wins: u64,
    /// `wins / games`.
    pub win_rate: f64,
    /// A's mean points per game (gammon 2, backgammon 3).
    pub ppg: f64,
    /// Half-width of the 95 % confidence interval of `ppg` (normal
    /// approximation; with duplicate dice over the means of game pairs).
    pub ppg_ci95: f64,
}

impl std::fmt::Display for MatchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games, {} won ({:.2} %), {:+.4} points per game ± {:.4} (95 %)",
            self.games,
            self.wins,
            100.0 * self.win_rate,
            self.ppg,
            self.ppg_ci95
        )
    }
}

/// Units played between two progress reports.
const CHUNK: u64 = 64;

/// Plays `games` games of `a` against `b` with the dice of `seed`, on the
/// current rayon pool; the result depends only on the players, `games`,
/// `seed` and `mode`, never on the number of threads. `progress` is called
/// with the games finished so far.
pub fn play_match(
    a: Player,
    b: Player,
    games: u64,
    seed: u64,
    mode: DiceMode,
    progress: &mut dyn FnMut(u64),
) -> Result<MatchResult, MatchError> {
    let journal = Journaling {
        from: Tally::default(),
        after_chunk: &mut |_| Ok(()),
    };
    play_match_journaled(a, b, games, seed, mode, progress, None, journal)
}

/// Where a journaled match starts and what it does with its totals.
pub struct Journaling<'a> {
    /// The totals of the units already played (by an interrupted run).
    pub from: Tally,
    /// Called with the totals after each chunk of units (to keep them).
    pub after_chunk: &'a mut dyn FnMut(&Tally) -> std::io::Result<()>,
}

/// [`play_match`], writing every game to `record` if given (in the order
/// of the games, one JSON object a line: the game's number, who moved
/// first, `a` or `b`, A's points and its moves as `POSITIONID D0D1
/// AFTERID`, `-` for no move), continued from `journal.from`: the units it
/// counts are not played again, and `journal.after_chunk` gets the totals
/// after every chunk of units. The result is the same as an uninterrupted
/// match's: each unit's dice depend on its number alone, and the totals
/// are exact integers.
#[allow(clippy::too_many_arguments)]
pub fn play_match_journaled(
    a: Player,
    b: Player,
    games: u64,
    seed: u64,
    mode: DiceMode,
    progress: &mut dyn FnMut(u64),
    mut record: Option<&mut dyn std::io::Write>,
    journal: Journaling,
) -> Result<MatchResult, MatchError> {
    if games == 0 {
        return Err(MatchError::NoGames);
    }
    let per_unit = match mode {
        DiceMode::Duplicate if games % 2 == 1 => return Err(MatchError::OddDuplicate(games)),
        DiceMode::Duplicate => 2,
        DiceMode::Independent => 1,
    };
    let units = games / per_unit;
    let tracing = record.is_some();
    // Only the totals are kept, so any number of games runs in bounded memory.
    let mut tally = journal.from;
    if tally.units > units {
        return Err(MatchError::TooFar(tally.units));
    }
    let mut start = tally.units;
    progress(start * per_unit);
    while start < units {
        let end = (start + CHUNK).min(units);
        let chunk: Vec<Unit> = (start..end)
            .into_par_iter()
            .map_init(
                || (Seat::new(a), Seat::new(b)),
                |(sa, sb), unit| play_unit(sa, sb, seed, mode, unit, tracing),
            )
            .collect::<Result<_, EngineError>>()?;
        for u in &chunk {
            tally.add(&u.points[..per_unit as usize]);
            if let Some(out) = record.as_deref_mut() {
                u.write(out).map_err(MatchError::Record)?;
            }
        }
        (journal.after_chunk)(&tally).map_err(MatchError::Journal)?;
        start = end;
        progress(start * per_unit);
    }
    Ok(tally.summary(per_unit))
}

/// One unit of a match: a pair of games (duplicate dice) or one game.
struct Unit {
    /// Its first game's number.
    first_game: u64,
    /// A's points in each game.
    points: [i32; 2],
    /// Who moved first in each game (A: true).
    a_first: [bool; 2],
    /// Each game's moves, if traced.
    moves: [Vec<String>; 2],
    /// Games in the unit.
    games: usize,
}

impl Unit {
    fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        for g in 0..self.games {
            let line = serde_json::json!({
                "game": self.first_game + g as u64,
                "first": if self.a_first[g] { "a" } else { "b" },
                "points": self.points[g],
                "moves": self.moves[g],
            });
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

/// Plays unit `unit` of a match between the seats `sa` (A) and `sb`.
fn play_unit<'a>(
    sa: &mut Seat<'a>,
    sb: &mut Seat<'a>,
    seed: u64,
    mode: DiceMode,
    unit: u64,
    tracing: bool,
) -> Result<Unit, EngineError> {
    let mut moves: [Vec<String>; 2] = Default::default();
    let [m0, m1] = &mut moves;
    let (t0, t1) = if tracing {
        (Some(m0), Some(m1))
    } else {
        (None, None)
    };
    Ok(match mode {
        DiceMode::Duplicate => {
            let first = play_game(sa, sb, &mut game_dice(seed, DUPLICATE_TAG, unit), t0)?;
            let second = play_game(sb, sa, &mut game_dice(seed, DUPLICATE_TAG, unit), t1)?;
            Unit {
                first_game: 2 * unit,
                points: [first, -second],
                a_first: [true, false],
                moves,
                games: 2,
            }
        }
        DiceMode::Independent => {
            let dice = &mut game_dice(seed, INDEPENDENT_TAG, unit);
            let a_first = unit.is_multiple_of(2);
            let points = if a_first {
                play_game(sa, sb, dice, t0)?
            } else {
                -play_game(sb, sa, dice, t0)?
            };
            Unit {
                first_game: unit,
                points: [points, 0],
                a_first: [a_first, false],
                moves,
                games: 1,
            }
        }
    })
}

/// Exact integer totals over the units (pairs or games) of a match: their
/// count, the games A won, and the sums of each unit's points and of their
/// squares. A journal keeps them ([`Tally::to_bytes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    units: u64,
    wins: u64,
    points: i128,
    squares: i128,
}

/// Bytes of [`Tally::to_bytes`].
pub const TALLY_BYTES: usize = 48;

impl Tally {
    /// Units counted.
    pub fn units(&self) -> u64 {
        self.units
    }

    /// The totals as 48 little-endian bytes (units, wins, points, squares).
    pub fn to_bytes(&self) -> [u8; TALLY_BYTES] {
        let mut out = [0u8; TALLY_BYTES];
        out[..8].copy_from_slice(&self.units.to_le_bytes());
        out[8..16].copy_from_slice(&self.wins.to_le_bytes());
        out[16..32].copy_from_slice(&self.points.to_le_bytes());
        out[32..].copy_from_slice(&self.squares.to_le_bytes());
        out
    }

    /// The totals of [`Tally::to_bytes`], or `None` for bytes of another
    /// length.
    pub fn from_bytes(bytes: &[u8]) -> Option<Tally> {
        if bytes.len() != TALLY_BYTES {
            return None;
        }
        let (units, rest) = bytes.split_at(8);
        let (wins, rest) = rest.split_at(8);
        let (points, squares) = rest.split_at(16);
        let fixed = "lengths fixed above";
        Some(Tally {
            units: u64::from_le_bytes(units.try_into().expect(fixed)),
            wins: u64::from_le_bytes(wins.try_into().expect(fixed)),
            points: i128::from_le_bytes(points.try_into().expect(fixed)),
            squares: i128::from_le_bytes(squares.try_into().expect(fixed)),
        })
    }

    /// Adds one unit: A's points in each of its games.
    fn add(&mut self, games: &[i32]) {
        let points: i32 = games.iter().sum();
        self.units += 1;
        self.wins += games.iter().filter(|&&p| p > 0).count() as u64;
        self.points += i128::from(points);
        self.squares += i128::from(points) * i128::from(points);
    }

    /// Wins, mean and confidence interval, the variance taken over the
    /// units' means.
    fn summary(&self, per_unit: u64) -> MatchResult {
        let n = self.units as f64;
        let games = self.units * per_unit;
        let per = per_unit as f64;
        let ppg = self.points as f64 / per / n;
        // n·Σ(s − s̄)² = n·Σs² − (Σs)², exact in integers unless the match
        // is astronomically long.
        let variance = if self.units > 1 {
            let exact = (self.squares.checked_mul(i128::from(self.units)))
                .zip(self.points.checked_mul(self.points))
                .map(|(a, b)| (a - b) as f64);
            let spread =
                exact.unwrap_or_else(|| self.squares as f64 * n - (self.points as f64).powi(2));
            spread.max(0.0) / n / (n - 1.0) / (per * per)
        } else {
            0.0
        };
        MatchResult {
            games,
            wins: self.wins,
            win_rate: self.wins as f64 / games as f64,
            ppg,
            ppg_ci95: 1.96 * (variance / n).sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_needs_pairs_and_games_are_counted() {
        let none = &mut |_| {};
        assert!(matches!(
            play_match(
                Player::Pubeval,
                Player::Pubeval,
                3,
                1,
                DiceMode::Duplicate,
                none
            ),
            Err(MatchError::OddDuplicate(3))
        ));
        assert!(matches!(
            play_match(
                Player::Pubeval,
                Player::Pubeval,
                0,
                1,
                DiceMode::Independent,
                none
            ),
            Err(MatchError::NoGames)
        ));
        let r = play_match(
            Player::Pubeval,
            Player::Pubeval,
            40,
            1,
            DiceMode::Duplicate,
            none,
        )
        .unwrap();
        assert_eq!(r.games, 40);
        assert!(r.wins <= 40 && r.ppg_ci95 >= 0.0);
    }

    #[test]
    fn summary_statistics() {
        let mut sums = Tally::default();
        sums.add(&[1, -2]);
        sums.add(&[3, 1]);
        assert_eq!(Tally::from_bytes(&sums.to_bytes()), Some(sums));
        assert_eq!(Tally::from_bytes(&sums.to_bytes()[1..]), None);
        let r = sums.summary(2);
        assert_eq!((r.games, r.wins), (4, 3));
        assert!((r.ppg - 0.75).abs() < 1e-12);
        // Pair means −0.5 and 2: sample variance 3.125, over 2 pairs.
        assert!((r.ppg_ci95 - 1.96 * (3.125f64 / 2.0).sqrt()).abs() < 1e-12);
    }

    /// Pubeval against itself over `games` (seed 7, duplicate dice) from
    /// the totals `from`, calling `after_chunk` and `progress`.
    fn pubeval_match(
        games: u64,
        from: Tally,
        after_chunk: &mut dyn FnMut(&Tally) -> std::io::Result<()>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<MatchResult, MatchError> {
        let p = Player::Pubeval;
        let journal = Journaling { from, after_chunk };
        play_match_journaled(p, p, games, 7, DiceMode::Duplicate, progress, None, journal)
    }

    #[test]
    fn a_match_continued_from_its_journal_ends_as_an_uninterrupted_one() {
        let games = 2 * (2 * CHUNK + 10);
        let fresh = Tally::default();
        let whole = pubeval_match(games, fresh, &mut |_| Ok(()), &mut |_| {}).unwrap();
        // The first run keeps the totals of its first chunk, then fails.
        let mut kept = Vec::new();
        let mut fail = |t: &Tally| {
            kept.push(*t);
            Err(std::io::Error::other("disk full"))
        };
        let interrupted = pubeval_match(games, fresh, &mut fail, &mut |_| {});
        assert!(matches!(interrupted, Err(MatchError::Journal(_))));
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].units(), CHUNK);
        let mut started = None;
        let mut first = |done| {
            started.get_or_insert(done);
        };
        let resumed = pubeval_match(games, kept[0], &mut |_| Ok(()), &mut first).unwrap();
        assert_eq!(
            started,
            Some(2 * CHUNK),
            "the journal's games are not played again"
        );
        assert_eq!(resumed, whole);
        // Totals from a longer match are refused.
        let too_far = pubeval_match(2 * CHUNK - 2, kept[0], &mut |_| Ok(()), &mut |_| {});
        assert!(matches!(too_far, Err(MatchError::TooFar(_))));
    }
}
