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
    /// Standard output was closed by its reader (`… | head`): the tool
    /// stopped quietly, as a Unix tool killed by SIGPIPE does (128 + 13).
    pub const CLOSED_PIPE: u8 = 141;
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
    let _ = TOOL.set(tool.to_owned());
    catch_sigbus(tool);
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
            crate::note!(
                "{tool}: error: {}",
                one_line(first.trim_start_matches("error: "))
            );
            return ExitCode::from(status::ERROR);
        }
    };
    let result = run(cli).and_then(|outcome| {
        crate::stdio::flush_stdout()?;
        Ok(outcome)
    });
    match result {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(e) if closed_pipe(&e) => ExitCode::from(status::CLOSED_PIPE),
        Err(e) => {
            crate::note!("{tool}: error: {}", one_line(&chain_message(&e)));
            ExitCode::from(status::ERROR)
        }
    }
}

/// The error and its causes, `: `-separated, saying nothing twice: a cause
/// whose text the message already holds is left out (an I/O error wrapped
/// by a library that also prints it: "Is a directory (os error 21): Is a
/// directory (os error 21)"), and a cause that holds the whole message so
/// far replaces it (a context naming a file, then an error "FILE: why").
fn chain_message(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if text.contains(&message) {
            message = text;
            continue;
        }
        message.push_str(": ");
        message.push_str(&text);
    }
    message
}

/// Whether the error is (or was caused by) a closed pipe.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// What the SIGBUS handler writes, prepared before it is installed.
static SIGBUS_MESSAGE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// A read of a memory-mapped input that another process truncated raises
/// SIGBUS; instead of dying without a word, the tool says so on one line
/// and exits with [`status::ERROR`]. Outputs are written to temporary files
/// and renamed only when complete, so none is left half-written (a killed
/// run's temporary is removed by the next run).
fn catch_sigbus(tool: &str) {
    let message = format!(
        "{tool}: error: an input file was truncated or changed while it was being read \
         (SIGBUS); no output file was replaced\n"
    );
    if SIGBUS_MESSAGE.set(message.into_bytes()).is_ok() {
        install_sigbus_handler();
    }
}

#[cfg(unix)]
#[allow(unsafe_code)] // installing a signal handler; see the SAFETY notes
fn install_sigbus_handler() {
    extern "C" fn on_sigbus(_: libc::c_int) {
        if let Some(message) = SIGBUS_MESSAGE.get() {
            // SAFETY: write(2) is async-signal-safe; the buffer is a
            // `'static` allocation made before the handler was installed
            // and never changed (OnceLock), and `get` is a plain atomic load.
            unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        }
        // SAFETY: _exit(2) is async-signal-safe and ends the process
        // without running any code that could touch the interrupted state.
        unsafe { libc::_exit(status::ERROR.into()) }
    }
    let handler: extern "C" fn(libc::c_int) = on_sigbus;
    // SAFETY: `on_sigbus` only calls async-signal-safe functions (above) and
    // never returns into the faulting instruction.
    unsafe { libc::signal(libc::SIGBUS, handler as libc::sighandler_t) };
}

#[cfg(not(unix))]
fn install_sigbus_handler() {}

/// Longest error line a tool prints (bad input echoed in a message is cut).
const MAX_MESSAGE: usize = 1000;

/// The message on one line (line breaks become spaces), cut to
/// [`MAX_MESSAGE`] characters.
fn one_line(message: &str) -> String {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::stdio::shorten(&line, MAX_MESSAGE)
}

/// The running tool's name, set by [`main`] (for notes printed by shared
/// helpers).
static TOOL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The worker threads could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} threads: {error}")]
pub struct ThreadsError {
    threads: usize,
    error: rayon::ThreadPoolBuildError,
}

/// Most worker threads per core: the work is CPU-bound, so more threads
/// only cost start-up time and memory.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// `asked` threads, at most [`MAX_THREADS_PER_CORE`] per core.
fn capped_threads(asked: u16, cores: usize) -> usize {
    usize::from(asked).min(cores.max(1) * MAX_THREADS_PER_CORE)
}

/// Sets the number of rayon worker threads (default: all cores). More than
/// [`MAX_THREADS_PER_CORE`] per core are capped there, with a note on
/// stderr (`--threads 10000` would spend seconds starting threads that
/// cannot run at once).
pub fn init_threads(threads: Option<u16>) -> Result<(), ThreadsError> {
    let Some(asked) = threads else { return Ok(()) };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let n = capped_threads(asked, cores);
    if n < usize::from(asked) {
        let tool = TOOL.get().map_or("bgkit", String::as_str);
        crate::note!(
            "{tool}: note: --threads {asked} is more than {MAX_THREADS_PER_CORE} per core \
             ({cores} cores); using {n}"
        );
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|error| ThreadsError { threads: n, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_folded_onto_one_line() {
        assert_eq!(one_line("a\n  b\tc\n"), "a b c");
        let long = one_line(&"x".repeat(10 << 20));
        assert_eq!(
            long.chars().count(),
            MAX_MESSAGE + 1,
            "cut, with an ellipsis"
        );
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let os = || std::io::Error::from_raw_os_error(libc::EISDIR);
        let wrapped = std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            Wrapper(os()), // displays the OS error and gives it as its source
        );
        let e = anyhow::Error::new(wrapped).context("cannot write x.png");
        let message = chain_message(&e);
        assert_eq!(message.matches(&os().to_string()).count(), 1, "{message}");
        assert!(message.starts_with("cannot write x.png: "), "{message}");
        let distinct = anyhow::anyhow!("inner").context("outer");
        assert_eq!(chain_message(&distinct), "outer: inner");
        let named = anyhow::anyhow!("a.db: not a regular file").context("a.db");
        assert_eq!(chain_message(&named), "a.db: not a regular file");
    }

    #[derive(Debug)]
    struct Wrapper(std::io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}", self.0)
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn threads_are_capped_per_core() {
        assert_eq!(capped_threads(3, 2), 3);
        assert_eq!(capped_threads(8, 2), 8);
        assert_eq!(capped_threads(10_000, 2), 8);
        assert_eq!(capped_threads(u16::MAX, 0), MAX_THREADS_PER_CORE);
    }

    #[test]
    fn outcomes_have_distinct_statuses() {
        let codes = [Outcome::Done, Outcome::Failed, Outcome::Interrupted].map(Outcome::code);
        assert_eq!(codes, [0, 1, 130]);
        assert!(!codes.contains(&status::ERROR));
    }
}
