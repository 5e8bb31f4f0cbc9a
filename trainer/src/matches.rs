//! Matches of cubeless money games between two players, with duplicate or
//! independent dice, and their points per game with a 95 % confidence
//! interval (docs/trainer.md#matches).

use crate::game::{game_dice, play_game, Player, Seat};
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
    #[error("--games must be at least 1")]
    NoGames,
    /// Duplicate dice need pairs of games.
    #[error("--games {0}: duplicate dice play games in pairs, so the number must be even")]
    OddDuplicate(u64),
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
    if games == 0 {
        return Err(MatchError::NoGames);
    }
    let per_unit = match mode {
        DiceMode::Duplicate if games % 2 == 1 => return Err(MatchError::OddDuplicate(games)),
        DiceMode::Duplicate => 2,
        DiceMode::Independent => 1,
    };
    let units = games / per_unit;
    let mut results: Vec<[i32; 2]> = Vec::with_capacity(units as usize);
    let mut start = 0;
    while start < units {
        let end = (start + CHUNK).min(units);
        let chunk: Vec<[i32; 2]> = (start..end)
            .into_par_iter()
            .map_init(
                || (Seat::new(a), Seat::new(b)),
                |(sa, sb), unit| match mode {
                    DiceMode::Duplicate => {
                        let first = play_game(sa, sb, &mut game_dice(seed, DUPLICATE_TAG, unit));
                        let second = play_game(sb, sa, &mut game_dice(seed, DUPLICATE_TAG, unit));
                        [first, -second]
                    }
                    DiceMode::Independent => {
                        let dice = &mut game_dice(seed, INDEPENDENT_TAG, unit);
                        let points = if unit % 2 == 0 {
                            play_game(sa, sb, dice)
                        } else {
                            -play_game(sb, sa, dice)
                        };
                        [points, 0]
                    }
                },
            )
            .collect();
        results.extend(chunk);
        start = end;
        progress(start * per_unit);
    }
    Ok(summarize(&results, per_unit))
}

/// Wins, mean and confidence interval over the units (pairs or games).
fn summarize(results: &[[i32; 2]], per_unit: u64) -> MatchResult {
    let n = results.len() as f64;
    let games = results.len() as u64 * per_unit;
    fn played(r: &[i32; 2], per_unit: u64) -> &[i32] {
        &r[..per_unit as usize]
    }
    let wins = results
        .iter()
        .flat_map(|r| played(r, per_unit).iter())
        .filter(|&&p| p > 0)
        .count() as u64;
    let unit_means: Vec<f64> = results
        .iter()
        .map(|r| {
            played(r, per_unit)
                .iter()
                .map(|&p| f64::from(p))
                .sum::<f64>()
                / per_unit as f64
        })
        .collect();
    let ppg = unit_means.iter().sum::<f64>() / n;
    let variance = if results.len() > 1 {
        unit_means.iter().map(|m| (m - ppg).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    MatchResult {
        games,
        wins,
        win_rate: wins as f64 / games as f64,
        ppg,
        ppg_ci95: 1.96 * (variance / n).sqrt(),
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
        let r = summarize(&[[1, -2], [3, 1]], 2);
        assert_eq!((r.games, r.wins), (4, 3));
        assert!((r.ppg - 0.75).abs() < 1e-12);
        // Pair means −0.5 and 2: sample variance 3.125, over 2 pairs.
        assert!((r.ppg_ci95 - 1.96 * (3.125f64 / 2.0).sqrt()).abs() < 1e-12);
    }
}
