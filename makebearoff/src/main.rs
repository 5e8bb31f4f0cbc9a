//! `makebearoff`: gnubg-compatible bearoff database generator.

mod cli;
mod run;

use databases::cli::{exit_code, init_threads, parse, stop_flag};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli: cli::Cli = match parse("makebearoff") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if cli.version {
        println!("makebearoff (bgkit) {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if let Err(code) = init_threads("makebearoff", cli.threads) {
        return code;
    }
    let stop = stop_flag(
        "makebearoff",
        "stopping after this unit and saving a checkpoint (interrupt again to stop at once)",
    );
    exit_code("makebearoff", run::run(&cli, stop))
}
