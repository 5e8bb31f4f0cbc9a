//! `makebearoff`: gnubg-compatible bearoff database generator (the thin
//! command line over the `makebearoff` library).

mod cli;
mod run;

use std::process::ExitCode;
use support::cli::{init_threads, Outcome};
use support::signals::stop_flag;

fn main() -> ExitCode {
    support::cli::main("makebearoff", |cli: cli::Cli| {
        if cli.version {
            support::outln!("makebearoff (bgkit) {}", env!("CARGO_PKG_VERSION"))?;
            return Ok(Outcome::Done);
        }
        init_threads(cli.threads)?;
        let stop = stop_flag(
            "makebearoff",
            "stopping after this unit and saving a checkpoint (interrupt again to stop at once)",
        );
        run::run(&cli, stop)
    })
}
