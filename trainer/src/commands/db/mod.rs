//! `trainer db`: position databases (import/export gnubg-nn `.dat`, merge,
//! split, dump, stats, generate, candidates, label, rollout). Each
//! subcommand's handler lives in a file of its own.

mod candidates;
mod export;
mod generate;
mod import;
mod label;
mod merge;
mod rollout;
mod show;
mod split;

use crate::commands::args::{ClassArg, RunArgs};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use support::claim::{Claim, Claimed};
use support::cli::Outcome;
use trainer::positions::db::PositionDb;
use trainer::rollouts::job::{check_no_journal, journal_path};

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
    Import(import::ImportArgs),
    /// Write the positions that have targets as a gnubg-nn .dat file, or
    /// their net inputs and targets as NumPy arrays (.npz).
    Export(export::ExportArgs),
    /// The union of databases (rolled-out copies win; conflicting results
    /// or settings are errors).
    Merge(merge::MergeArgs),
    /// Split into a training set and a held-out set.
    Split(split::SplitArgs),
    /// Print positions: Position ID, class, trials, targets, equity and
    /// standard errors.
    Dump(show::DumpArgs),
    /// Positions per class, rolled-out counts, trials, mean targets and
    /// standard errors.
    Stats(show::StatsArgs),
    /// Positions from 0-ply self-play where the 0-ply and 1-ply equities
    /// differ by at least --threshold (gnubg's former `database generate`).
    Generate(generate::GenerateArgs),
    /// The candidate moves of each position for one roll (chosen by the
    /// seed and the position), as positions with the opponent on roll: what
    /// a pruning net ranks. Label them with `db label eval`.
    Candidates(candidates::CandidatesArgs),
    /// Targets in place without a full rollout: `race`, exact from the
    /// one-sided bearoff database where both sides fit, else a one-sided
    /// rollout (OSR) of each side, as gnubg-nn made its race targets; or
    /// `eval`, the weights' own evaluation (to teach a pruning net or a
    /// smaller net what a full net says).
    Label(label::LabelArgs),
    /// Cubeless rollouts of the database's positions, in place.
    Rollout(rollout::RolloutArgs),
}

impl DbArgs {
    /// Sets up the worker threads the subcommand asks for and returns the
    /// flag SIGINT raises ([`RunArgs::start`]).
    pub fn start(&self) -> Result<Arc<AtomicBool>> {
        let run = match &self.command {
            DbCommand::Generate(a) => a.run,
            DbCommand::Rollout(a) => a.run,
            DbCommand::Label(a) => *a.run(),
            _ => RunArgs::default(),
        };
        run.start(
            "trainer db",
            "stopping after the positions in progress (interrupt again to stop at once)",
        )
    }
}

/// Runs `trainer db`; `stop` is the flag SIGINT raises.
pub fn run(args: &DbArgs, stop: Arc<AtomicBool>) -> Result<Outcome> {
    match &args.command {
        DbCommand::Import(a) => import::run(a),
        DbCommand::Export(a) => export::run(a),
        DbCommand::Merge(a) => merge::run(a),
        DbCommand::Split(a) => split::run(a),
        DbCommand::Dump(a) => show::dump(a),
        DbCommand::Stats(a) => show::stats(a),
        DbCommand::Generate(a) => generate::run(a, &stop),
        DbCommand::Candidates(a) => candidates::run(a),
        DbCommand::Label(a) => label::run(a, &stop),
        DbCommand::Rollout(a) => rollout::run(a, &stop),
    }
}

/// `--classes` of `db generate` and `db candidates`: the classes kept.
#[derive(Args, Clone, Debug)]
struct KeepClasses {
    /// Classes to keep (comma-separated: contact, crashed, race).
    #[arg(
        long,
        value_enum,
        default_value = "contact,crashed,race",
        value_delimiter = ','
    )]
    classes: Vec<ClassArg>,
}

impl KeepClasses {
    /// The classes, as nets' classes.
    fn classes(&self) -> Vec<nets::Class> {
        crate::commands::args::classes(&self.classes)
    }

    /// Their names, for a provenance record.
    fn names(&self) -> Vec<&'static str> {
        self.classes().iter().map(|c| c.name()).collect()
    }
}

/// Opens a database, naming it in the error.
fn open(path: &Path) -> Result<PositionDb> {
    Ok(PositionDb::open(path)?)
}

/// Refuses to replace or relabel a database that an interrupted rollout or
/// labelling still has a journal for (call it under the output's claim).
fn check_db_output(path: &Path) -> Result<()> {
    Ok(check_no_journal(path)?)
}

/// Saves a database atomically.
fn save(db: &PositionDb, path: &Path) -> Result<()> {
    db.save(path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `DB.json`, how the database `db` was made.
fn save_provenance(db: &Path, settings: serde_json::Value) -> Result<()> {
    Ok(trainer::provenance::save_for_db(db, settings)?)
}

/// Saves a database atomically, then its provenance `DB.json`
/// (`settings`).
fn save_recorded(db: &PositionDb, path: &Path, settings: serde_json::Value) -> Result<()> {
    save(db, path)?;
    save_provenance(path, settings)
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

/// The claim of a command reading `inputs` and classing positions with the
/// bearoff databases `bearoff` (given, else gnubg's) to write the database
/// `output`, and those databases opened.
fn claim_with_bearoff(
    bearoff: &[PathBuf],
    inputs: &[&Path],
    output: &Path,
) -> Result<(Claimed, nets::BearoffDatabases)> {
    let files = trainer::defaults::bearoff(bearoff);
    let claim = claim_db(
        files
            .iter()
            .map(PathBuf::as_path)
            .chain(inputs.iter().copied()),
        output,
    )?;
    Ok((claim, nets::BearoffDatabases::open(&files)?))
}

/// The claim of a job rewriting the database `db` in place (with its
/// provenance and journal) from `inputs`.
fn claim_in_place(inputs: Vec<PathBuf>, db: &Path) -> Result<Claimed> {
    Ok(Claim::new()
        .inputs(inputs)
        .output(db)
        .beside(db, trainer::provenance::path_for(db))
        .checkpoint(db, journal_path(db))
        .acquire()?)
}

/// " (N what)" when N is not 0, else nothing.
fn aside(n: usize, what: &str) -> String {
    if n > 0 {
        format!(" ({n} {what})")
    } else {
        String::new()
    }
}

/// The positions of `db` (read from `path`), in record order.
fn boards_of(db: &PositionDb, path: &Path) -> Result<Vec<board::Board>> {
    db.records
        .iter()
        .map(|r| board::Board::from_id_bytes(&r.key))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{}: a position key is not valid", path.display()))
}
