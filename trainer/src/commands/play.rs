//! `trainer play`: cubeless money games between two players, each at its
//! own plies.

use crate::commands::args::RunArgs;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use support::checkpoint::Checkpoint;
use support::cli::Outcome;
use support::job::PayloadError;
use support::progress::Progress;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::play::engine::{EnginePool, EngineSpec};
use trainer::play::game::Player;
use trainer::play::matches::{play_match_journaled, DiceMode, Journaling, Tally, TALLY_BYTES};

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
    /// Side A is an external engine: the command line that starts it,
    /// quoted as one argument (docs/trainer.md#duels); one process per
    /// worker thread.
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with_all = ["weights", "pubeval"])]
    engine: Option<String>,
    /// Side B is an external engine (instead of --vs).
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with = "vs")]
    vs_engine: Option<String>,
    /// The longest an engine may take over one move (or to start), in
    /// seconds.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    engine_timeout: f64,
    /// Where the engines' standard error is appended (default: a file in
    /// the temporary directory, named in any engine error).
    #[arg(long, value_name = "FILE")]
    engine_log: Option<PathBuf>,
    /// Write every game (its number, who moved first, A's points and each
    /// move as `POSITIONID DICE AFTERID`) to FILE, one JSON object a line.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Keep the match's running totals in FILE, synced after every 64
    /// units (game pairs with duplicate dice), so that a long match killed
    /// at any moment loses at most those games; continue it with
    /// --resume. FILE is removed when the match ends.
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    journal: Option<PathBuf>,
    /// Continue the match kept in --journal FILE (refused if FILE was made
    /// for other players, games, seed or dice).
    #[arg(long, requires = "journal")]
    resume: bool,
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

/// The engine pool of `command`, if given.
fn engine_pool(args: &PlayArgs, command: &Option<String>) -> Result<Option<EnginePool>> {
    let Some(command) = command else {
        return Ok(None);
    };
    if !(args.engine_timeout > 0.0 && args.engine_timeout <= 86_400.0) {
        anyhow::bail!(
            "--engine-timeout {}: must be above 0 and at most 86400 seconds",
            args.engine_timeout
        );
    }
    let log = args.engine_log.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("bgkit-engines-{}.log", std::process::id()))
    });
    let spec = EngineSpec {
        command: command.clone(),
        timeout: Duration::from_secs_f64(args.engine_timeout),
        log,
    };
    Ok(Some(EnginePool::new(spec)?))
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
    if args.engine.is_some() && args.plies > 0 {
        anyhow::bail!(
            "--plies {}: an engine's plies are its own options",
            args.plies
        );
    }
    if args.vs_engine.is_some() && args.vs_plies > 0 {
        anyhow::bail!(
            "--vs-plies {}: an engine's plies are its own options",
            args.vs_plies
        );
    }
    let a_engine = engine_pool(args, &args.engine)?;
    let b_engine = engine_pool(args, &args.vs_engine)?;
    let a_eval = if args.pubeval || a_engine.is_some() {
        None
    } else {
        Some(args.evaluator.build()?)
    };
    let b_eval = match &args.vs {
        _ if b_engine.is_some() => None,
        Opponent::Pubeval => None,
        Opponent::Weights(path) => {
            let b = EvaluatorArgs {
                weights: Some(path.clone()),
                ..args.evaluator.clone()
            };
            Some(b.build()?)
        }
    };
    let a_name = match (&a_engine, args.pubeval) {
        (Some(pool), _) => format!("engine {} ({})", pool.command(), pool.name),
        (None, true) => "pubeval".to_string(),
        (None, false) => trainer::defaults::weights(args.evaluator.weights.as_deref())?
            .display()
            .to_string(),
    };
    let b_name = match &b_engine {
        Some(pool) => format!("engine {} ({})", pool.command(), pool.name),
        None => args.vs.to_string(),
    };
    let a_player = match &a_engine {
        Some(pool) => Player::Engine(pool),
        None => player(&a_eval, args.plies),
    };
    let b_player = match &b_engine {
        Some(pool) => Player::Engine(pool),
        None => player(&b_eval, args.vs_plies),
    };
    // The record's or journal's name is checked and locked before any game.
    let _claim = match args.record.as_ref().or(args.journal.as_ref()) {
        Some(path) => Some(support::claim::Claim::new().output(path).acquire()?),
        None => None,
    };
    let mut journal = match &args.journal {
        Some(path) => {
            let fingerprint = match_fingerprint(args, a_eval.as_ref().or(b_eval.as_ref()))?;
            Some(open_journal(path, &fingerprint, args.resume)?)
        }
        None => None,
    };
    let from = journal.as_ref().map_or_else(Tally::default, |(_, t)| *t);
    let mut lines: Vec<u8> = Vec::new();
    let mut progress = Progress::new(
        "trainer play",
        "games",
        args.games,
        args.json || args.run.quiet,
    );
    let mut keep = |tally: &Tally| match journal.as_mut() {
        Some((file, _)) => file.append_block(&tally.to_bytes()),
        None => Ok(()),
    };
    let result = play_match_journaled(
        a_player,
        b_player,
        args.games,
        args.seed,
        args.dice,
        &mut |done| progress.update(done),
        args.record
            .as_ref()
            .map(|_| &mut lines as &mut dyn std::io::Write),
        Journaling {
            from,
            after_chunk: &mut keep,
        },
    )?;
    progress.finish();
    if let Some(path) = &args.record {
        support::atomic::write_file(path, &lines)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    if args.json {
        support::outln!(
            "{}",
            serde_json::json!({
                "games": result.games,
                "wins": result.wins,
                "win_rate": result.win_rate,
                "ppg": result.ppg,
                "ppg_ci95": result.ppg_ci95,
                "a": a_name,
                "b": b_name,
                "seed": args.seed,
                "dice": args.dice,
            })
        )?;
    } else {
        support::outln!("{a_name} vs {b_name}: {result}")?;
    }
    if let Some((file, _)) = journal {
        let path = file.path().to_owned();
        file.remove()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    Ok(Outcome::Done)
}

/// What a match's journal belongs to: both players (a weights file by its
/// MD5 and plies, an engine by its command line), the evaluator's
/// arithmetic and bearoff databases, the games, the seed and the dice.
fn match_fingerprint(args: &PlayArgs, eval: Option<&nets::Evaluator>) -> Result<String> {
    // An engine by its command line, a net by its file's MD5 and plies,
    // pubeval when neither.
    let side = |engine: Option<&String>,
                weights: Option<&std::path::Path>,
                plies: u32|
     -> Result<serde_json::Value> {
        Ok(match (engine, weights) {
            (Some(command), _) => serde_json::json!({ "engine": command }),
            (None, None) => serde_json::json!("pubeval"),
            (None, Some(path)) => serde_json::json!({
                "weights_md5": crate::commands::common::file_md5(path)?,
                "plies": plies,
            }),
        })
    };
    let a_weights = if args.engine.is_some() || args.pubeval {
        None
    } else {
        Some(trainer::defaults::weights(
            args.evaluator.weights.as_deref(),
        )?)
    };
    let b_weights = match &args.vs {
        Opponent::Weights(path) => Some(path.as_path()),
        Opponent::Pubeval => None,
    };
    let a = side(args.engine.as_ref(), a_weights.as_deref(), args.plies)?;
    let b = side(args.vs_engine.as_ref(), b_weights, args.vs_plies)?;
    let evaluator = match eval {
        Some(e) => Some(trainer::evaluator_args::EvaluatorId::of(e)?),
        None => None,
    };
    let settings = serde_json::json!({
        "a": a,
        "b": b,
        "evaluator": evaluator,
        "games": args.games,
        "seed": args.seed,
        "dice": args.dice,
    });
    Ok(format!("bgkit play journal 1 {settings}"))
}

/// The journal at `path`: with `resume`, reopened (its fingerprint must be
/// `fingerprint`) with the totals of its last intact block; without, a new
/// one (an existing file is refused).
fn open_journal(
    path: &std::path::Path,
    fingerprint: &str,
    resume: bool,
) -> Result<(Checkpoint, Tally)> {
    if !resume {
        if path.exists() {
            anyhow::bail!(
                "{} exists: continue that match with --resume, or remove it to start again",
                path.display()
            );
        }
        if fingerprint.len() > support::checkpoint::MAX_FINGERPRINT {
            anyhow::bail!("--journal: the players' description is too long for a journal");
        }
        let file = Checkpoint::create(path, fingerprint)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        return Ok((file, Tally::default()));
    }
    let mut tally = Tally::default();
    let (file, damage) = Checkpoint::open(
        path,
        |found| {
            if found == fingerprint {
                Ok(())
            } else {
                Err("made for another match (players, plies, games, seed, dice, arithmetic or bearoff databases)".into())
            }
        },
        |payload| {
            tally = Tally::from_bytes(payload).ok_or(if payload.len() < TALLY_BYTES {
                PayloadError::Short
            } else {
                PayloadError::Trailing
            })?;
            Ok(())
        },
    )
    .map_err(|e| anyhow::anyhow!("--resume: {e}"))?;
    if let Some(d) = damage {
        support::note!(
            "trainer play: warning: journal {}: block {} is damaged; it and all after it ({} bytes) are dropped (those games are played again)",
            path.display(),
            d.block,
            d.bytes
        );
    }
    Ok((file, tally))
}
