//! `makehyper`: gnubg-compatible Hypergammon database generator (the thin
//! command line over the `makehyper` library).

mod cli;
mod run;

use std::process::ExitCode;
use support::cli::{init_threads, Outcome};
use support::signals::stop_flag;

fn main() -> ExitCode {
    support::cli::main("makehyper", |cli: cli::Cli| {
        if cli.version {
            support::outln!("makehyper (bgkit) {}", env!("CARGO_PKG_VERSION"))?;
            return Ok(Outcome::Done);
        }
        init_threads(cli.threads)?;
        let stop = stop_flag(
            "makehyper",
            "stopping after this sweep (interrupt again to stop at once)",
        );
        run::run(&cli, stop)
    })
}
