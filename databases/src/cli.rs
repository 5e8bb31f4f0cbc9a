//! Plumbing shared by bgkit's command-line tools: one-line argument errors,
//! the worker-thread count, the stop flag set by SIGINT/SIGTERM, exit codes.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How a long-running tool ended without error.
pub enum Outcome {
    /// Finished and written.
    Done,
    /// Stopped by a signal; its checkpoint holds the work so far.
    Interrupted,
}

/// Parses the command line; `--help` and `--version` output and argument
/// errors end the process (an error on one line, exit 2).
pub fn parse<C: clap::Parser>(tool: &str) -> Result<C, ExitCode> {
    match C::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            // clap's first line names the problem; usage lines follow.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("{tool}: {}", first.trim_start_matches("error: "));
            Err(ExitCode::from(2))
        }
    }
}

/// Sets the number of rayon worker threads (default: all cores).
pub fn init_threads(tool: &str, threads: Option<u16>) -> Result<(), ExitCode> {
    let Some(n) = threads else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(n.into())
        .build_global()
        .map_err(|e| {
            eprintln!("{tool}: error: cannot start {n} threads: {e}");
            ExitCode::FAILURE
        })
}

/// A flag set by the first SIGINT/SIGTERM (the tool then checkpoints and
/// stops, printing `first_notice`); a second signal exits at once with 130,
/// which is safe because every file is replaced atomically.
pub fn stop_flag(tool: &'static str, first_notice: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let handler = move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("{tool}: {first_notice}");
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("{tool}: warning: no signal handler ({e}); an interrupt will not checkpoint");
    }
    stop
}

/// The exit code of a run: 0 done, 130 interrupted, 1 with a one-line error.
pub fn exit_code(tool: &str, result: anyhow::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(e) => {
            eprintln!("{tool}: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
