//! `makehyper`: gnubg-compatible Hypergammon database generator.

mod cli;
mod run;

use databases::cli::{exit_code, init_threads, parse, stop_flag};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli: cli::Cli = match parse("makehyper") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if cli.version {
        println!("makehyper (bgkit) {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if let Err(code) = init_threads("makehyper", cli.threads) {
        return code;
    }
    let stop = stop_flag(
        "makehyper",
        "stopping after this sweep (interrupt again to stop at once)",
    );
    exit_code("makehyper", run::run(&cli, stop))
}
