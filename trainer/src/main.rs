//! `trainer`: bgkit's training tool (the thin command line over the
//! `trainer` library). For now one subcommand, `eval`, which evaluates
//! positions with gnubg-compatible nets.

mod eval_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// bgkit trainer: evaluate positions with gnubg-compatible nets.
///
/// Exit status: 0 success, 1 some inputs were rejected (each reported on
/// stderr), 2 bad usage or unusable input.
#[derive(Parser, Debug)]
#[command(name = "trainer", version, about, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate positions (Position IDs) at 0 or 1 ply.
    Eval(eval_cmd::EvalArgs),
}

fn main() -> ExitCode {
    support::cli::main("trainer", |cli: Cli| match cli.command {
        Command::Eval(args) => eval_cmd::run(&args),
    })
}
