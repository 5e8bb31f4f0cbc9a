//! The `main` of every bgkit tool: the command line is parsed with one-line
//! errors, the run's result becomes one of the exit statuses every tool
//! shares, and an error is printed as one line.

use std::process::ExitCode;

/// Exit statuses shared by every bgkit tool.
pub mod status {
    /// The run did what was asked.
    pub const SUCCESS: u8 = 0;
    /// The run completed but found failures and reported them (a check or
    /// comparison failed, some input lines were rejected).
    pub const FAILED: u8 = 1;
    /// Nothing useful was done: bad arguments, unusable input, an I/O
    /// error, too little memory or disk. One line on stderr says why.
    pub const ERROR: u8 = 2;
    /// Stopped by SIGINT/SIGTERM after saving a checkpoint.
    pub const INTERRUPTED: u8 = 130;
}

/// How a run ended when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Finished (and written).
    Done,
    /// Finished, but a check failed or some inputs were rejected; the
    /// report says which.
    Failed,
    /// Stopped by a signal; its checkpoint holds the work so far.
    Interrupted,
}

impl Outcome {
    /// The exit status of this outcome.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Done => status::SUCCESS,
            Outcome::Failed => status::FAILED,
            Outcome::Interrupted => status::INTERRUPTED,
        }
    }
}

/// Runs a tool: parses its command line (`--help` and `--version` print and
/// exit 0; an argument error is one line `TOOL: error: …`, exit 2), calls `run`,
/// and turns its result into the tool's exit status (an error is one line
/// `TOOL: error: …`, exit 2).
pub fn main<C: clap::Parser>(
    tool: &str,
    run: impl FnOnce(C) -> anyhow::Result<Outcome>,
) -> ExitCode {
    let cli = match C::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A tool run with no arguments at all shows its help.
            let _ = e.print();
            return ExitCode::from(status::ERROR);
        }
        Err(e) => {
            // clap's first line names the problem; usage lines follow.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("{tool}: error: {}", first.trim_start_matches("error: "));
            return ExitCode::from(status::ERROR);
        }
    };
    match run(cli) {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(e) => {
            eprintln!("{tool}: error: {}", one_line(&format!("{e:#}")));
            ExitCode::from(status::ERROR)
        }
    }
}

/// The message on one line: line breaks become spaces.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The worker threads could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} threads: {error}")]
pub struct ThreadsError {
    threads: u16,
    error: rayon::ThreadPoolBuildError,
}

/// Sets the number of rayon worker threads (default: all cores).
pub fn init_threads(threads: Option<u16>) -> Result<(), ThreadsError> {
    let Some(n) = threads else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(n.into())
        .build_global()
        .map_err(|error| ThreadsError { threads: n, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_folded_onto_one_line() {
        assert_eq!(one_line("a\n  b\tc\n"), "a b c");
    }

    #[test]
    fn outcomes_have_distinct_statuses() {
        let codes = [Outcome::Done, Outcome::Failed, Outcome::Interrupted].map(Outcome::code);
        assert_eq!(codes, [0, 1, 130]);
        assert!(!codes.contains(&status::ERROR));
    }
}
