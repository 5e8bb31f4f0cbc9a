//! Argument types every subcommand shares: typed by clap, so a wrong value
//! is clap's one-line error before anything runs.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A net's position class, as `--class`/`--classes` name it.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClassArg {
    /// Contact positions (gnubg's contact net).
    Contact,
    /// Crashed positions (gnubg's crashed net).
    Crashed,
    /// Races not covered by a bearoff database (gnubg's race net).
    Race,
}

impl From<ClassArg> for nets::Class {
    fn from(class: ClassArg) -> nets::Class {
        match class {
            ClassArg::Contact => nets::Class::Contact,
            ClassArg::Crashed => nets::Class::Crashed,
            ClassArg::Race => nets::Class::Race,
        }
    }
}

/// The classes of `args`, as nets' classes.
pub fn classes(args: &[ClassArg]) -> Vec<nets::Class> {
    args.iter().map(|&c| c.into()).collect()
}

/// How a command runs: worker threads and progress output.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct RunArgs {
    /// Worker threads (default: all cores); results never depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// No progress bar or progress lines.
    #[arg(short, long)]
    pub quiet: bool,
}

impl RunArgs {
    /// Sets up the worker threads and returns the flag that SIGINT and
    /// SIGTERM raise, for `tool` (e.g. `trainer td`), which says `stopping`
    /// on the first signal.
    pub fn start(
        &self,
        tool: &'static str,
        stopping: &'static str,
    ) -> anyhow::Result<Arc<AtomicBool>> {
        support::cli::init_threads(self.threads)?;
        Ok(support::signals::stop_flag(tool, stopping))
    }
}

impl ClassArg {
    /// The class's name, as `--class` takes it (`contact`, `crashed`,
    /// `race`).
    pub fn name(self) -> &'static str {
        match self {
            ClassArg::Contact => "contact",
            ClassArg::Crashed => "crashed",
            ClassArg::Race => "race",
        }
    }
}

impl RunArgs {
    /// Sets up the worker threads only, for a command that a signal simply
    /// ends.
    pub fn init_threads(&self) -> anyhow::Result<()> {
        Ok(support::cli::init_threads(self.threads)?)
    }
}
