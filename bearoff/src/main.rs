//! `bearoff`: inspect, dump, verify and compare gnubg bearoff and
//! Hypergammon databases.

mod compare;
mod dump;
mod info;
mod json;
mod open;
mod verify;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use support::cli::Outcome;

/// Inspect, dump, verify and compare gnubg bearoff and Hypergammon
/// databases (one-sided, two-sided, normal-distribution, Hypergammon 1–3).
///
/// Exit status: 0 success, 1 a check failed (verify found a problem,
/// compare exceeded the tolerance), 2 bad usage or unusable input.
#[derive(Parser, Debug)]
#[command(name = "bearoff", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options shared by every subcommand.
#[derive(clap::Args, Debug, Clone)]
struct FileOptions {
    /// Read files written without a header (`makebearoff -H`) as KIND:
    /// `os:P[:no-gammon][:no-compress]`, `nd:P`, `ts:PxC[:no-cubeful]`,
    /// `hyper:C`, or a header text such as `gnubg-OS-06-15-1-1-0`.
    #[arg(short = 'H', long = "no-header", value_name = "KIND", value_parser = open::parse_kind)]
    no_header: Option<databases::Kind>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show kind, points, chequers, flags, positions, size and MD5 (and
    /// whether it matches the checksum gnubg's manual publishes).
    Info {
        /// Database files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON (one object per file, in an array).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        opts: FileOptions,
    },
    /// Show one record as gnubg's bearoffdump shows it.
    #[command(group(clap::ArgGroup::new("position").required(true).args(["index", "id", "board"])))]
    Dump {
        /// Database file.
        file: PathBuf,
        /// Record number: a one-sided index (shown as the opponent, like
        /// bearoffdump), or `player · n + opponent` for two-sided and
        /// Hypergammon files.
        #[arg(short = 'n', long)]
        index: Option<u64>,
        /// gnubg Position ID (the side on roll is gnubg's board 1).
        #[arg(short = 'p', long, value_name = "POSITION_ID")]
        id: Option<String>,
        /// Chequer counts per point from the ace point up, side on roll
        /// first: "ON_ROLL / OPPONENT", e.g. "0 2 1 / 3"; one layout alone
        /// (one-sided files) is shown as the opponent, like --index.
        /// Hypergammon layouts have 25 entries, the 25th being the bar.
        #[arg(short = 'b', long, value_name = "LAYOUT")]
        board: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        opts: FileOptions,
    },
    /// Check every record's structure and the MD5 against gnubg's
    /// published checksums; exit 1 on any failure.
    Verify {
        /// Database files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also regenerate the database with bgkit's generator and compare
        /// it byte for byte (finds any altered value; as slow as
        /// generating; not for Hypergammon).
        #[arg(long)]
        regenerate: bool,
        #[command(flatten)]
        opts: FileOptions,
    },
    /// Compare two databases of the same kind field by field: maximum and
    /// mean absolute differences, worst position; exit 1 above --tolerance.
    Compare {
        /// First database.
        a: PathBuf,
        /// Second database.
        b: PathBuf,
        /// Largest absolute difference accepted in any field.
        #[arg(long, default_value_t = 0.0, value_parser = parse_tolerance)]
        tolerance: f64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        opts: FileOptions,
    },
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Info { files, json, opts } => info::run(&files, json, opts.no_header),
        Command::Dump {
            file,
            index,
            id,
            board,
            json,
            opts,
        } => {
            let what = match (index, id, board) {
                (Some(i), _, _) => dump::Target::Index(i),
                (_, Some(id), _) => dump::Target::PositionId(id),
                (_, _, Some(b)) => dump::Target::Board(b),
                _ => unreachable!("clap requires one of them"),
            };
            dump::run(&file, what, json, opts.no_header)
        }
        Command::Verify {
            files,
            regenerate,
            opts,
        } => verify::run(&files, regenerate, opts.no_header),
        Command::Compare {
            a,
            b,
            tolerance,
            json,
            opts,
        } => compare::run(&a, &b, tolerance, json, opts.no_header),
    }
}

/// A tolerance: a finite number, zero or more.
fn parse_tolerance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!(
            "the tolerance must be a number of at least 0, got {:?}",
            support::stdio::shorten(text, 20)
        )),
    }
}

fn main() -> ExitCode {
    support::cli::main("bearoff", run)
}
