//! `trainer db`: position databases (import/export gnubg-nn `.dat`, merge,
//! split, dump, stats, generate, rollout).

use crate::commands::common::{
    file_md5, io_context, read_text_input, with_suffix, write_atomically,
};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use support::claim::{Claim, Claimed};
use support::cli::Outcome;
use support::progress::Progress;
use trainer::evaluator_args::{bearoff_md5, EvaluatorArgs, EvaluatorId};
use trainer::positions::dat;
use trainer::positions::db::{class_code, class_from_code, position_id, PositionDb, Record};
use trainer::rollouts::job::{
    check_no_journal, finish, journal_path, journaled, rollout_db, JobOptions, Journal, Shard,
};
use trainer::rollouts::rollout::RolloutSettings;

/// Arguments of `trainer db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand, Debug)]
enum DbCommand {
    /// Read a gnubg-nn .dat file into a database (classes from the bearoff
    /// databases given, else gnubg's installed ones).
    Import {
        /// The .dat file.
        dat: PathBuf,
        /// The database to write.
        #[arg(short = 'o', long, value_name = "DB")]
        output: PathBuf,
        /// Bearoff database for the classes (repeatable).
        #[arg(long, value_name = "FILE")]
        bearoff: Vec<PathBuf>,
    },
    /// Write the positions that have targets as a gnubg-nn .dat file, or
    /// their net inputs and targets as NumPy arrays (.npz).
    Export {
        /// The database.
        db: PathBuf,
        /// The file to write.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: PathBuf,
        /// dat: gnubg-nn's text format; npz: CLASS_inputs, CLASS_targets and
        /// CLASS_keys arrays for contact, crashed and race.
        #[arg(long, value_enum, default_value_t = ExportFormat::Dat)]
        format: ExportFormat,
    },
    /// The union of databases (rolled-out copies win; conflicting results
    /// or settings are errors).
    Merge {
        /// The databases, in order.
        #[arg(required = true, num_args = 1..)]
        dbs: Vec<PathBuf>,
        /// The merged database.
        #[arg(short = 'o', long, value_name = "DB")]
        output: PathBuf,
        /// Leave out the positions of this database (a held-out set, say);
        /// repeatable.
        #[arg(long, value_name = "DB")]
        exclude: Vec<PathBuf>,
    },
    /// Split into a training set and a held-out set.
    Split {
        /// The database.
        db: PathBuf,
        /// Fraction of positions held out.
        #[arg(long, default_value_t = 0.1)]
        holdout: f64,
        /// Seed of the choice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// TRAIN then HELD.
        #[arg(
            short = 'o',
            long = "output",
            value_name = "DB",
            num_args = 1,
            required = true
        )]
        outputs: Vec<PathBuf>,
    },
    /// Print positions: Position ID, class, trials, targets, equity and
    /// standard errors.
    Dump {
        /// The database.
        db: PathBuf,
        /// At most this many positions.
        #[arg(long)]
        limit: Option<usize>,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Positions per class, rolled-out counts, trials, mean targets and
    /// standard errors.
    Stats {
        /// The database.
        db: PathBuf,
    },
    /// Positions from 0-ply self-play where the 0-ply and 1-ply equities
    /// differ by at least --threshold (gnubg's former `database generate`).
    Generate {
        #[command(flatten)]
        evaluator: EvaluatorArgs,
        /// Games to play.
        #[arg(long)]
        games: u64,
        /// The database to write.
        #[arg(short = 'o', long, value_name = "DB")]
        output: PathBuf,
        /// Minimum |0-ply − 1-ply| equity difference.
        #[arg(long, default_value_t = 0.1)]
        threshold: f32,
        /// Classes to keep (comma-separated: contact, crashed, race).
        #[arg(long, default_value = "contact,crashed,race", value_delimiter = ',')]
        classes: Vec<String>,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
    },
    /// The candidate moves of each position for one roll (chosen by the
    /// seed and the position), as positions with the opponent on roll: what
    /// a pruning net ranks. Label them with `db label --eval`.
    Candidates {
        /// The database of positions.
        db: PathBuf,
        /// The database to write (unlabelled positions).
        #[arg(short = 'o', long, value_name = "DB")]
        output: PathBuf,
        /// Classes to keep (comma-separated: contact, crashed, race).
        #[arg(long, default_value = "contact,crashed,race", value_delimiter = ',')]
        classes: Vec<String>,
        /// Seed of the rolls.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Bearoff database (repeatable), to classify the positions.
        #[arg(long, value_name = "FILE")]
        bearoff: Vec<PathBuf>,
    },
    /// Targets in place without a full rollout: `--race`, exact from the
    /// one-sided bearoff database where both sides fit, else a one-sided
    /// rollout (OSR) of each side, as gnubg-nn made its race targets; or
    /// `--eval`, the weights' own evaluation (to teach a pruning net or a
    /// smaller net what a full net says).
    Label(LabelArgs),
    /// Cubeless rollouts of the database's positions, in place.
    Rollout {
        /// The database (rewritten atomically at the end).
        db: PathBuf,
        #[command(flatten)]
        evaluator: EvaluatorArgs,
        /// Trials per position.
        #[arg(long, default_value_t = 1296)]
        trials: u32,
        /// Plies of the move choice.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1))]
        plies: u32,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores); results do not depend on it.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        /// Roll out only positions i with i mod N = K − 1.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Play every trial to the end instead of stopping at an exact
        /// two-sided bearoff position.
        #[arg(long)]
        no_truncate: bool,
        /// Lookahead variance reduction (each roll's luck, judged at 0-ply
        /// over all 21 rolls, is taken out): about 20× the work per trial,
        /// far smaller standard errors.
        #[arg(long)]
        variance_reduction: bool,
        /// Continue an interrupted rollout from DB.journal.
        #[arg(long)]
        resume: bool,
        /// Positions rolled out between journal syncs.
        #[arg(long, default_value_t = 8, hide = true)]
        chunk: usize,
        /// No progress bar.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
}

/// `db label`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("how").required(true).args(["race", "eval"])))]
struct LabelArgs {
    /// The database (rewritten atomically at the end).
    db: PathBuf,
    /// Label the race positions with one-sided targets.
    #[arg(long)]
    race: bool,
    /// Label every position with the weights' evaluation at --plies
    /// (replacing any targets it had).
    #[arg(long)]
    eval: bool,
    /// Plies of --eval's evaluation.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1))]
    plies: u32,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// One-sided rollout games per side outside the one-sided database
    /// (--race).
    #[arg(long, default_value_t = 1296, value_parser = clap::value_parser!(u32).range(12..))]
    games: u32,
    /// Seed of the dice (--race).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Continue an interrupted --race labelling from DB.journal.
    #[arg(long, requires = "race", conflicts_with = "eval")]
    resume: bool,
    /// Positions labelled between journal syncs.
    #[arg(long, default_value_t = 64, hide = true)]
    chunk: usize,
    /// Label only the race positions whose two sides both lie within the
    /// one-sided database (exact targets); leave the others as they are
    /// (--race).
    #[arg(long, requires = "race")]
    exact_only: bool,
    /// Worker threads (default: all cores); results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// `db export --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExportFormat {
    Dat,
    Npz,
}

impl DbArgs {
    /// Worker threads requested.
    pub fn threads(&self) -> Option<u16> {
        match &self.command {
            DbCommand::Generate { threads, .. } | DbCommand::Rollout { threads, .. } => *threads,
            DbCommand::Label(l) => l.threads,
            _ => None,
        }
    }
}

fn open(path: &Path) -> Result<PositionDb> {
    PositionDb::open(path).with_context(|| format!("{}", path.display()))
}

/// Refuses to replace or relabel a database that an interrupted rollout or
/// labelling still has a journal for (call it under the output's claim).
fn check_db_output(path: &Path) -> Result<()> {
    Ok(check_no_journal(path)?)
}

fn save(db: &PositionDb, path: &Path) -> Result<()> {
    db.save(path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The claim of a command writing the database `output` and its
/// provenance `DB.json` from `inputs`.
fn claim_db<P: AsRef<Path>>(inputs: impl IntoIterator<Item = P>, output: &Path) -> Result<Claimed> {
    Ok(Claim::new()
        .inputs(inputs)
        .output(output)
        .beside(output, trainer::provenance::path_for(output))
        .acquire()?)
}

/// Writes `DB.json`: how the database was made.
fn save_provenance(db: &Path, settings: serde_json::Value) -> Result<()> {
    let record = serde_json::json!({
        "tool": format!("bgkit trainer {}", env!("CARGO_PKG_VERSION")),
        "command": std::env::args().collect::<Vec<_>>(),
        "settings": settings,
        "md5": file_md5(db)?,
    });
    let path = with_suffix(db, ".json");
    let mut file = support::atomic::AtomicFile::create(&path).map_err(io_context(&path))?;
    file.write_all_with(|w| {
        writeln!(
            w,
            "{}",
            serde_json::to_string_pretty(&record).expect("json")
        )
    })
    .map_err(io_context(&path))?;
    file.commit().map_err(io_context(&path))
}

fn parse_class(name: &str) -> Result<nets::Class> {
    Ok(match name.trim() {
        "contact" => nets::Class::Contact,
        "crashed" => nets::Class::Crashed,
        "race" => nets::Class::Race,
        other => bail!("--classes: unknown class {other:?} (contact, crashed, race)"),
    })
}

/// Runs `trainer db`.
pub fn run(args: &DbArgs, stop: Arc<AtomicBool>) -> Result<Outcome> {
    match &args.command {
        DbCommand::Import {
            dat: input,
            output,
            bearoff,
        } => import(input, output, bearoff),
        DbCommand::Export {
            db,
            output,
            format: ExportFormat::Dat,
        } => export(db, output),
        DbCommand::Export { db, output, .. } => export_npz(db, output),
        DbCommand::Merge {
            dbs,
            output,
            exclude,
        } => {
            let _claim = Claim::new()
                .inputs(dbs.iter().chain(exclude))
                .output(output)
                .acquire()?;
            let all = dbs.iter().map(|p| open(p)).collect::<Result<Vec<_>>>()?;
            let mut left_out = std::collections::HashSet::new();
            for p in exclude {
                left_out.extend(open(p)?.records.iter().map(|r| r.key));
            }
            check_db_output(output)?;
            let mut merged = PositionDb::merge(&all)?;
            let before = merged.records.len();
            merged.records.retain(|r| !left_out.contains(&r.key));
            save(&merged, output)?;
            support::outln!(
                "trainer db: merged {} databases: {} positions ({} rolled out) into {}{}",
                dbs.len(),
                merged.records.len(),
                merged.records.iter().filter(|r| r.rolled_out()).count(),
                output.display(),
                aside(before - merged.records.len(), "excluded")
            )?;
            Ok(Outcome::Done)
        }
        DbCommand::Split {
            db,
            holdout,
            seed,
            outputs,
        } => split(db, *holdout, *seed, outputs),
        DbCommand::Dump { db, limit, json } => dump(db, *limit, *json),
        DbCommand::Stats { db } => stats(db),
        DbCommand::Generate {
            evaluator,
            games,
            output,
            threshold,
            classes,
            seed,
            ..
        } => generate(
            evaluator,
            *games,
            output,
            *threshold,
            classes,
            *seed,
            &|| stop.load(Ordering::SeqCst),
        ),
        DbCommand::Candidates {
            db,
            output,
            classes,
            seed,
            bearoff,
        } => candidates(db, output, classes, *seed, bearoff),
        DbCommand::Label(l) if l.eval => label_eval(l),
        DbCommand::Label(l) => label(l, &stop),
        DbCommand::Rollout {
            db,
            evaluator,
            trials,
            plies,
            seed,
            shard,
            no_truncate,
            variance_reduction,
            resume,
            chunk,
            quiet,
            ..
        } => {
            if *trials == 0 {
                bail!("--trials must be at least 1");
            }
            let shard: Shard = match shard {
                Some(s) => s.parse().map_err(anyhow::Error::msg)?,
                None => Shard::ALL,
            };
            let weights = trainer::defaults::weights(evaluator.weights.as_deref())?;
            let eval = evaluator.build()?;
            let _claim = claim_in_place(evaluator, db)?;
            let settings = RolloutSettings {
                trials: *trials,
                plies: *plies,
                seed: *seed,
                truncate: !no_truncate,
                variance_reduction: *variance_reduction,
                weights_md5: file_md5(&weights)?,
                evaluator: EvaluatorId::of(&eval)?,
            };
            let mut bar: Option<Progress> = None;
            let summary = rollout_db(
                db,
                &eval,
                &settings,
                JobOptions {
                    shard,
                    resume: *resume,
                    chunk: *chunk,
                },
                &mut |done, total| {
                    bar.get_or_insert_with(|| {
                        Progress::new("trainer db rollout", "positions", total as u64, *quiet)
                    })
                    .update(done as u64)
                },
                &|| stop.load(Ordering::SeqCst),
            )
            .with_context(|| format!("{}", db.display()))?;
            if let Some(b) = &bar {
                b.finish();
            }
            let Some(summary) = summary else {
                support::note!(
                    "trainer db rollout: stopped; finished positions are in {} (continue with --resume)",
                    journal_path(db).display()
                );
                return Ok(Outcome::Interrupted);
            };
            save_provenance(db, serde_json::to_value(&settings).expect("json"))?;
            support::outln!(
                "trainer db rollout: {} positions in shard {}/{}: {} rolled out now, {} from the journal, {} already done; wrote {}",
                summary.in_shard,
                shard.index,
                shard.count,
                summary.rolled,
                summary.resumed,
                summary.kept,
                db.display()
            )?;
            Ok(Outcome::Done)
        }
    }
}

/// A `.dat` file as a database (classes from `bearoff`), and the number of
/// repeated keys skipped.
pub fn read_dat(input: &Path, bearoff: &nets::BearoffDatabases) -> Result<(PositionDb, usize)> {
    let text = read_text_input(input, dat::LIMIT)?;
    let (records, duplicates) =
        dat::records(&text, bearoff).with_context(|| format!("{}", input.display()))?;
    let db = PositionDb {
        records,
        rollout_settings: None,
    };
    Ok((db, duplicates))
}

/// The claim of a job rewriting the database `db` in place (with its
/// provenance and journal) with the evaluator's files as inputs.
fn claim_in_place(evaluator: &EvaluatorArgs, db: &Path) -> Result<Claimed> {
    Ok(Claim::new()
        .inputs(evaluator.input_files())
        .output(db)
        .beside(db, trainer::provenance::path_for(db))
        .checkpoint(db, journal_path(db))
        .acquire()?)
}

/// `db label --race`: journaled like a rollout, so kill -9 loses no
/// finished position and `--resume` continues.
fn label(args: &LabelArgs, stop: &AtomicBool) -> Result<Outcome> {
    let bearoff_files = trainer::defaults::bearoff(&args.evaluator.bearoff);
    let bearoff = nets::BearoffDatabases::open(&bearoff_files)?;
    let _claim = claim_in_place(&args.evaluator, &args.db)?;
    let mut db = open(&args.db)?;
    // The races to label.
    let todo: Vec<usize> = db
        .records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((i, board::Board::from_id_bytes(&r.key).ok()?)))
        .filter(|(_, b)| trainer::rollouts::race_label::is_race(b))
        .filter(|(_, b)| !args.exact_only || trainer::rollouts::race_label::is_exact(&bearoff, b))
        .map(|(i, _)| i)
        .collect();
    if todo.is_empty() {
        let which = if args.exact_only {
            "race positions within the one-sided database"
        } else {
            "race positions"
        };
        bail!("{}: no {which} to label", args.db.display());
    }
    let mut settings = serde_json::json!({
        "label": "race",
        "exact_only": args.exact_only,
        "games": args.games,
        "seed": args.seed,
        "bearoff_md5": bearoff_md5(&bearoff)?,
    });
    let fingerprint = databases::published::md5_hex(settings.to_string().as_bytes())?;
    // For the provenance only: the fingerprint knows the files by content.
    settings["bearoff"] = serde_json::json!(bearoff.paths());
    let work = |i: usize, r: &Record| -> Result<Record, trainer::positions::db::DbError> {
        let board = board::Board::from_id_bytes(&r.key).map_err(|e| {
            trainer::positions::db::DbError::Corrupt(format!("record {i} is not a position ({e})"))
        })?;
        let l = trainer::rollouts::race_label::label(&bearoff, &board, args.games, args.seed)
            .map_err(|e| trainer::positions::db::DbError::Corrupt(format!("record {i}: {e}")))?;
        Ok(Record {
            flags: trainer::positions::db::HAS_TARGETS,
            trials: l.games,
            targets: l.targets,
            equity: l.equity,
            std_errors: l.std_errors,
            equity_std_error: l.equity_std_error,
            ..*r
        })
    };
    let total = todo.len();
    let indices = todo.clone();
    let mut bar = Progress::new("trainer db label", "positions", total as u64, args.quiet);
    let ran = journaled(
        &args.db,
        &mut db,
        &fingerprint,
        todo,
        Journal {
            resume: args.resume,
            chunk: args.chunk,
        },
        &work,
        &mut |done| bar.update(done as u64),
        &|| stop.load(Ordering::SeqCst),
    )
    .with_context(|| format!("{}", args.db.display()))?;
    bar.finish();
    let Some((resumed, _)) = ran else {
        support::note!(
            "trainer db label: stopped; finished positions are in {} (continue with --resume)",
            journal_path(&args.db).display()
        );
        return Ok(Outcome::Interrupted);
    };
    if !db.records.iter().any(|r| r.rolled_out()) {
        db.rollout_settings = None;
    }
    finish(&args.db, &db).with_context(|| format!("{}", args.db.display()))?;
    save_provenance(&args.db, settings)?;
    let labelled = indices.iter().map(|&i| &db.records[i]);
    let (exact, sum_se) = labelled.fold((0usize, 0f64), |(e, s), r| {
        (
            e + usize::from(r.trials == 0),
            s + f64::from(r.equity_std_error),
        )
    });
    support::outln!(
        "trainer db label: {} race positions labelled ({} exact, {} by one-sided rollouts of {} games a side{}); mean equity standard error {:.4}; wrote {}",
        total,
        exact,
        total - exact,
        args.games,
        if resumed > 0 {
            format!("; {resumed} from the journal")
        } else {
            String::new()
        },
        sum_se / total as f64,
        args.db.display()
    )?;
    Ok(Outcome::Done)
}

/// `db label --eval`.
fn label_eval(args: &LabelArgs) -> Result<Outcome> {
    use rayon::prelude::*;
    let weights = trainer::defaults::weights(args.evaluator.weights.as_deref())?;
    let eval = args.evaluator.build()?;
    let _claim = claim_in_place(&args.evaluator, &args.db)?;
    let mut db = open(&args.db)?;
    check_db_output(&args.db)?;
    if db.records.is_empty() {
        bail!("{}: no positions to label", args.db.display());
    }
    let boards = boards_of(&db, &args.db)?;
    let outputs: Vec<nets::Probabilities> = boards
        .par_iter()
        .map_init(
            || eval.scratch(),
            |s, b| eval.evaluate_plied(b, args.plies, false, s).outputs,
        )
        .collect();
    for (r, p) in db.records.iter_mut().zip(&outputs) {
        r.flags = trainer::positions::db::HAS_TARGETS;
        r.trials = 0;
        r.targets = *p;
        r.equity = board::cubeless_equity(p);
        r.std_errors = [0.0; 5];
        r.equity_std_error = 0.0;
    }
    db.rollout_settings = None;
    save(&db, &args.db)?;
    save_provenance(
        &args.db,
        serde_json::json!({
            "label": "eval",
            "plies": args.plies,
            "weights": weights, "weights_md5": file_md5(&weights)?,
        }),
    )?;
    support::outln!(
        "trainer db label: {} positions labelled with the {}-ply evaluation of {}; wrote {}",
        db.records.len(),
        args.plies,
        weights.display(),
        args.db.display()
    )?;
    Ok(Outcome::Done)
}

/// The positions of `db` (read from `path`), in record order.
fn boards_of(db: &PositionDb, path: &Path) -> Result<Vec<board::Board>> {
    db.records
        .iter()
        .map(|r| board::Board::from_id_bytes(&r.key))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{}: a position key is not valid", path.display()))
}

/// `db candidates`.
fn candidates(
    input: &Path,
    output: &Path,
    classes: &[String],
    seed: u64,
    bearoff: &[PathBuf],
) -> Result<Outcome> {
    let classes = classes
        .iter()
        .map(|c| parse_class(c))
        .collect::<Result<Vec<_>>>()?;
    let bearoff_files = trainer::defaults::bearoff(bearoff);
    let _claim = claim_db(
        bearoff_files.iter().map(PathBuf::as_path).chain([input]),
        output,
    )?;
    let bearoff = nets::BearoffDatabases::open(&bearoff_files)?;
    let db = open(input)?;
    check_db_output(output)?;
    let boards = boards_of(&db, input)?;
    let records: Vec<Record> = trainer::positions::candidates::candidates(&boards, seed)
        .into_iter()
        .filter_map(|b| {
            let class = nets::classify(&b, &bearoff);
            classes
                .contains(&class)
                .then(|| Record::new(b.id_bytes(), class))
        })
        .collect();
    let out = PositionDb {
        records,
        rollout_settings: None,
    };
    save(&out, output)?;
    save_provenance(
        output,
        serde_json::json!({
            "candidates_of": input, "seed": seed,
            "classes": classes.iter().map(|c| c.name()).collect::<Vec<_>>(),
        }),
    )?;
    support::outln!(
        "trainer db candidates: {} candidate positions of {} positions written to {}",
        out.records.len(),
        db.records.len(),
        output.display()
    )?;
    Ok(Outcome::Done)
}

fn import(input: &Path, output: &Path, bearoff: &[PathBuf]) -> Result<Outcome> {
    let db_files = trainer::defaults::bearoff(bearoff);
    let _claim = claim_db(db_files.iter().map(PathBuf::as_path).chain([input]), output)?;
    let bearoff = nets::BearoffDatabases::open(&db_files)?;
    let (db, duplicates) = read_dat(input, &bearoff)?;
    check_db_output(output)?;
    save(&db, output)?;
    save_provenance(
        output,
        serde_json::json!({ "imported": input, "md5": file_md5(input)? }),
    )?;
    support::outln!(
        "trainer db import: {} positions from {} into {}{}",
        db.records.len(),
        input.display(),
        output.display(),
        aside(
            duplicates,
            "repeated keys skipped: the first line of each key is kept"
        )
    )?;
    Ok(Outcome::Done)
}

/// " (N what)" when N is not 0, else nothing.
fn aside(n: usize, what: &str) -> String {
    if n > 0 {
        format!(" ({n} {what})")
    } else {
        String::new()
    }
}

/// The claim of `db export`.
fn claim_export(db: &Path, output: &Path) -> Result<Claimed> {
    Ok(Claim::new().input(db).output(output).acquire()?)
}

fn export(db: &Path, output: &Path) -> Result<Outcome> {
    let _claim = claim_export(db, output)?;
    let db_data = open(db)?;
    let mut text = String::new();
    let mut n = 0;
    for r in db_data.records.iter().filter(|r| r.has_targets()) {
        text.push_str(&dat::line(&r.key, &r.targets));
        text.push('\n');
        n += 1;
    }
    write_atomically(output, text.as_bytes())?;
    let skipped = db_data.records.len() - n;
    support::outln!(
        "trainer db export: {n} positions to {}{}",
        output.display(),
        aside(skipped, "without targets skipped")
    )?;
    Ok(Outcome::Done)
}

fn export_npz(db: &Path, output: &Path) -> Result<Outcome> {
    let _claim = claim_export(db, output)?;
    let data = open(db)?;
    let (bytes, counts) = trainer::positions::npz::npz_bytes(&data, nets::Arithmetic::default())?;
    write_atomically(output, &bytes)?;
    support::outln!(
        "trainer db export: {} contact, {} crashed, {} race positions to {}",
        counts[0],
        counts[1],
        counts[2],
        output.display()
    )?;
    Ok(Outcome::Done)
}

fn split(db: &Path, holdout: f64, seed: u64, outputs: &[PathBuf]) -> Result<Outcome> {
    if !(0.0..=1.0).contains(&holdout) {
        bail!("--holdout {holdout}: must be in [0, 1]");
    }
    let [train, held] = outputs else {
        bail!("give two outputs: -o TRAIN -o HELD");
    };
    let _claim = Claim::new()
        .input(db)
        .output(train)
        .output(held)
        .acquire()?;
    let data = open(db)?;
    for p in [train, held] {
        check_db_output(p)?;
    }
    let (mut a, mut b) = (PositionDb::default(), PositionDb::default());
    a.rollout_settings = data.rollout_settings.clone();
    b.rollout_settings = data.rollout_settings.clone();
    for r in &data.records {
        // A position's side depends only on the seed and its key.
        let mut key = seed.to_le_bytes().to_vec();
        key.extend_from_slice(&r.key);
        let h = databases::published::md5_hex(&key[..]).expect("memory");
        let u = u64::from_str_radix(&h[..16], 16).expect("hex") as f64 / 2f64.powi(64);
        if u < holdout {
            b.records.push(*r);
        } else {
            a.records.push(*r);
        }
    }
    save(&a, train)?;
    save(&b, held)?;
    support::outln!(
        "trainer db split: {} positions to {}, {} held out to {}",
        a.records.len(),
        train.display(),
        b.records.len(),
        held.display()
    )?;
    Ok(Outcome::Done)
}

fn dump(db: &Path, limit: Option<usize>, json: bool) -> Result<Outcome> {
    let data = open(db)?;
    for r in data.records.iter().take(limit.unwrap_or(usize::MAX)) {
        if json {
            support::outln!(
                "{}",
                serde_json::json!({
                    "id": position_id(&r.key),
                    "class": r.class().name(),
                    "trials": r.trials,
                    "targets": r.has_targets().then_some(r.targets),
                    "equity": r.has_targets().then_some(r.equity),
                    "std_errors": r.has_std_errors().then_some(r.std_errors),
                    "equity_std_error": r.has_std_errors().then_some(r.equity_std_error),
                })
            )?;
        } else {
            let t = if r.has_targets() {
                r.targets
                    .iter()
                    .map(|v| format!("{v:.6}"))
                    .collect::<Vec<_>>()
                    .join("\t")
            } else {
                "-\t-\t-\t-\t-".into()
            };
            support::outln!(
                "{}\t{}\t{}\t{t}\t{:.6}\t{:.6}",
                position_id(&r.key),
                r.class().name(),
                r.trials,
                r.equity,
                r.equity_std_error
            )?;
        }
    }
    Ok(Outcome::Done)
}

fn stats(db: &Path) -> Result<Outcome> {
    let data = open(db)?;
    support::outln!("{}: {} positions", db.display(), data.records.len())?;
    if let Some(s) = &data.rollout_settings {
        support::outln!("rollout settings: {s}")?;
    }
    support::outln!(
        "{:<10} {:>9} {:>9} {:>11} {:>9} {:>10} {:>12}",
        "class",
        "positions",
        "targets",
        "rolled out",
        "trials",
        "mean win",
        "mean eq. SE"
    )?;
    for code in 0..8u8 {
        let rs: Vec<&Record> = data.records.iter().filter(|r| r.class == code).collect();
        if rs.is_empty() {
            continue;
        }
        let with: Vec<&&Record> = rs.iter().filter(|r| r.has_targets()).collect();
        let rolled: Vec<&&Record> = rs.iter().filter(|r| r.rolled_out()).collect();
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let trials: u64 = rolled.iter().map(|r| u64::from(r.trials)).sum();
        let win = mean(
            &with
                .iter()
                .map(|r| f64::from(r.targets[0]))
                .collect::<Vec<_>>(),
        );
        let se = mean(
            &rolled
                .iter()
                .map(|r| f64::from(r.equity_std_error))
                .collect::<Vec<_>>(),
        );
        support::outln!(
            "{:<10} {:>9} {:>9} {:>11} {:>9} {:>10.4} {:>12.5}",
            class_from_code(code).map_or("?", |c| c.name()),
            rs.len(),
            with.len(),
            rolled.len(),
            trials,
            win,
            se
        )?;
    }
    Ok(Outcome::Done)
}

/// `db generate`; once `stop()` holds (SIGINT) it writes the positions of
/// the games finished (what `--games` that many would write) and ends
/// interrupted.
fn generate(
    evaluator: &EvaluatorArgs,
    games: u64,
    output: &Path,
    threshold: f32,
    classes: &[String],
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Outcome> {
    if games == 0 {
        bail!("--games must be at least 1");
    }
    if !(threshold >= 0.0 && threshold.is_finite()) {
        bail!("--threshold {threshold}: must be 0 or more");
    }
    let classes = classes
        .iter()
        .map(|c| parse_class(c))
        .collect::<Result<Vec<_>>>()?;
    let weights = trainer::defaults::weights(evaluator.weights.as_deref())?;
    let _claim = claim_db(evaluator.input_files(), output)?;
    let eval = evaluator.build()?;
    check_db_output(output)?;
    let mut bar = Progress::new("trainer db generate", "games", games, false);
    let (records, stats) = trainer::positions::generate::generate(
        &eval,
        games,
        seed,
        threshold,
        &classes,
        &mut |d| bar.update(d),
        stop,
    );
    bar.finish();
    if stats.games == 0 {
        support::note!("trainer db generate: stopped before a game finished; nothing written");
        return Ok(Outcome::Interrupted);
    }
    let db = PositionDb {
        records,
        rollout_settings: None,
    };
    save(&db, output)?;
    save_provenance(
        output,
        serde_json::json!({
            "games": stats.games, "seed": seed, "threshold": threshold,
            "classes": classes.iter().map(|c| c.name()).collect::<Vec<_>>(),
            "weights": weights, "weights_md5": file_md5(&weights)?,
        }),
    )?;
    for c in &classes {
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
