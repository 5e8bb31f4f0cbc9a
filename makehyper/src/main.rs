//! `makehyper`: gnubg-compatible Hypergammon database generator.

mod cli;
mod run;

use clap::Parser;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("makehyper: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    if cli.version {
        println!("makehyper (bgkit) {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.into())
            .build_global()
        {
            eprintln!("makehyper: error: cannot start {n} threads: {e}");
            return ExitCode::FAILURE;
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let handler = move || {
        if flag.swap(true, Ordering::SeqCst) {
            // A second signal stops at once: files are only ever replaced
            // atomically, so this is as safe as kill -9.
            std::process::exit(130);
        }
        eprintln!("makehyper: stopping after this sweep (interrupt again to stop at once)");
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("makehyper: warning: no signal handler ({e})");
    }
    match run::run(&cli, stop) {
        Ok(run::Outcome::Done) => ExitCode::SUCCESS,
        Ok(run::Outcome::Interrupted) => ExitCode::from(130),
        Err(e) => {
            eprintln!("makehyper: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
