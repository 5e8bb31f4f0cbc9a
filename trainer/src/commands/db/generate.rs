//! `db generate`.

use super::{check_db_output, claim_db, save_recorded, KeepClasses};
use crate::commands::args::RunArgs;
use crate::commands::common::file_md5;
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::EvaluatorArgs;
use trainer::positions::db::{class_code, PositionDb};
use trainer::positions::generate::{Disagreement, GenerateStats};

/// Arguments of `db generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// Games to play.
    #[arg(long)]
    games: u64,
    /// The database to write.
    #[arg(short = 'o', long, value_name = "DB")]
    output: PathBuf,
    /// Minimum |0-ply − n-ply| equity difference (n = --plies).
    #[arg(long, default_value_t = 0.1)]
    threshold: f32,
    /// The plies of the evaluation the 0-ply one is compared with.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=nets::MAX_PLIES as i64))]
    plies: u32,
    /// That evaluation chooses its moves with gnubg's pruning nets.
    #[arg(long)]
    prune: bool,
    /// The share of moves played at random instead of the best (0 to 1):
    /// exploration, for positions strong play rarely reaches.
    #[arg(long, default_value_t = 0.0)]
    explore: f64,
    #[command(flatten)]
    classes: KeepClasses,
    /// Seed of the dice (and of the random moves).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

/// Runs `db generate`; once `stop` is raised (SIGINT) it writes the
/// positions of the games finished (what `--games` that many would write)
/// and ends interrupted.
pub fn run(args: &GenerateArgs, stop: &AtomicBool) -> Result<Outcome> {
    let (games, output) = (args.games, &args.output);
    if games == 0 {
        bail!("--games must be at least 1");
    }
    let threshold = args.threshold;
    if !(threshold >= 0.0 && threshold.is_finite()) {
        bail!("--threshold {threshold}: must be 0 or more");
    }
    if !(0.0..=1.0).contains(&args.explore) {
        bail!("--explore {}: must be between 0 and 1", args.explore);
    }
    let classes = args.classes.classes();
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let _claim = claim_db(args.evaluator.input_files(), output)?;
    let eval = args.evaluator.build()?;
    check_db_output(output)?;
    let mut bar = Progress::new("trainer db generate", "games", games, args.run.quiet);
    let (records, stats) = trainer::positions::generate::generate(
        &eval,
        games,
        args.seed,
        Disagreement {
            threshold,
            plies: args.plies,
            prune: args.prune,
            explore: args.explore,
        },
        &classes,
        &mut |d| bar.update(d),
        &|| stop.load(Ordering::SeqCst),
    );
    bar.finish();
    if stats.games == 0 {
        support::note!("trainer db generate: stopped before a game finished; nothing written");
        return Ok(Outcome::Interrupted);
    }
    let db = PositionDb::from(records);
    save_recorded(
        &db,
        output,
        serde_json::json!({
            "games": stats.games, "seed": args.seed, "threshold": threshold,
            "plies": args.plies, "prune": args.prune, "explore": args.explore,
            "classes": args.classes.names(),
            "weights": weights, "weights_md5": file_md5(&weights)?,
        }),
    )?;
    report(&db, &classes, &stats)?;
    support::outln!(
        "trainer db generate: {} positions written to {}",
        db.records.len(),
        output.display()
    )?;
    if stats.games < games {
        support::note!(
            "trainer db generate: stopped after {} of {games} games; {} holds their positions (as --games {} would)",
            stats.games,
            output.display(),
            stats.games
        );
        return Ok(Outcome::Interrupted);
    }
    Ok(Outcome::Done)
}

/// One line per class: positions examined, passed and kept.
fn report(db: &PositionDb, classes: &[nets::Class], stats: &GenerateStats) -> Result<()> {
    for c in classes {
        let k = usize::from(class_code(*c));
        let unique = db
            .records
            .iter()
            .filter(|r| r.class == class_code(*c))
            .count();
        support::outln!(
            "trainer db generate: {:<8} {} positions examined, {} passed ({:.2} %), {} unique",
            c.name(),
            stats.examined[k],
            stats.kept[k],
            100.0 * stats.kept[k] as f64 / stats.examined[k].max(1) as f64,
            unique
        )?;
    }
    Ok(())
}
