//! `trainer`: bgkit's training tool. For now one subcommand, `eval`, which
//! evaluates positions with gnubg-compatible nets.

mod defaults;
mod eval_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// bgkit trainer.
#[derive(Parser, Debug)]
#[command(name = "trainer", version, about)]
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
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(args) => eval_cmd::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("trainer: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
