//! `trainer play`: cubeless money games between two players, each at its
//! own plies.

use crate::commands::args::RunArgs;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::play::game::Player;
use trainer::play::matches::{play_match, DiceMode};

/// Arguments of `trainer play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Play pubeval as side A instead of the --weights net.
    #[arg(long, conflicts_with = "weights")]
    pubeval: bool,
    /// The opponent: `pubeval` or a weights file (evaluated with the same
    /// databases and arithmetic as A).
    #[arg(long, default_value = "pubeval", value_name = "pubeval|FILE", value_parser = Opponent::parse)]
    vs: Opponent,
    /// Games to play (even with duplicate dice).
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// duplicate: each dice sequence played twice, sides swapped;
    /// independent: fresh dice every game.
    #[arg(long, value_enum, default_value_t = DiceMode::Duplicate)]
    dice: DiceMode,
    /// Plies of side A's move choice (0: its 0-ply best move; 1 to 3:
    /// gnubg's n-ply chequer play with the pruning nets inside the search).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// Plies of side B's move choice (a weights file's net only).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=nets::MAX_PLIES as i64))]
    vs_plies: u32,
    /// Print the result as one JSON object (the last line of stdout).
    #[arg(long)]
    json: bool,
}

/// `--vs`: the player side B is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Tesauro's pubeval.
    Pubeval,
    /// A net of this weights file.
    Weights(PathBuf),
}

impl Opponent {
    /// `pubeval` or a weights file's name.
    fn parse(value: &str) -> Result<Opponent, String> {
        match value {
            "" => Err("give pubeval or a weights file".into()),
            "pubeval" => Ok(Opponent::Pubeval),
            file => Ok(Opponent::Weights(file.into())),
        }
    }
}

impl std::fmt::Display for Opponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opponent::Pubeval => f.write_str("pubeval"),
            Opponent::Weights(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The player of `e` (pubeval if none) choosing its moves at `plies`.
fn player(e: &Option<nets::Evaluator>, plies: u32) -> Player<'_> {
    match (e, plies) {
        (None, _) => Player::Pubeval,
        (Some(e), 0) => Player::Net(e),
        (Some(e), plies) => Player::Plied(e, plies),
    }
}

/// Runs `trainer play`.
pub fn run(args: &PlayArgs) -> Result<Outcome> {
    if args.pubeval && args.plies > 0 {
        anyhow::bail!(
            "--plies {}: pubeval has no plies (it is side A)",
            args.plies
        );
    }
    if args.vs == Opponent::Pubeval && args.vs_plies > 0 {
        anyhow::bail!(
            "--vs-plies {}: pubeval has no plies (it is side B)",
            args.vs_plies
        );
    }
    let a_eval = if args.pubeval {
        None
    } else {
        Some(args.evaluator.build()?)
    };
    let b_eval = match &args.vs {
        Opponent::Pubeval => None,
        Opponent::Weights(path) => {
            let b = EvaluatorArgs {
                weights: Some(path.clone()),
                ..args.evaluator.clone()
            };
            Some(b.build()?)
        }
    };
    let a_name = if args.pubeval {
        "pubeval".to_string()
    } else {
        trainer::defaults::weights(args.evaluator.weights.as_deref())?
            .display()
            .to_string()
    };
    let mut progress = Progress::new(
        "trainer play",
        "games",
        args.games,
        args.json || args.run.quiet,
    );
    let result = play_match(
        player(&a_eval, args.plies),
        player(&b_eval, args.vs_plies),
        args.games,
        args.seed,
        args.dice,
        &mut |done| progress.update(done),
    )?;
    progress.finish();
    if args.json {
        support::outln!(
            "{}",
            serde_json::json!({
                "games": result.games,
                "wins": result.wins,
                "win_rate": result.win_rate,
                "ppg": result.ppg,
                "ppg_ci95": result.ppg_ci95,
            })
        )?;
    } else {
        support::outln!("{a_name} vs {}: {result}", args.vs)?;
    }
    Ok(Outcome::Done)
}
