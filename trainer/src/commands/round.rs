//! `trainer round`: a training round's stages from a plan file, each
//! skipped when done, resumed when interrupted (docs/training.md#the-round-pipeline).

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::pipeline::{self, Plan, RoundEnd, StageEvent};

/// Arguments of `trainer round`.
#[derive(Args, Debug)]
pub struct RoundArgs {
    /// The round's plan (JSON; docs/trainer.md lists its fields). Its
    /// directory is the round's: relative paths start there, and every file
    /// the round makes is written there.
    plan: PathBuf,
    /// Print each stage's command line (with --resume where a stage would
    /// resume) and whether it is done, and run nothing.
    #[arg(long)]
    print: bool,
}

/// Runs `trainer round`.
pub fn run(args: &RoundArgs) -> Result<Outcome> {
    let plan = Plan::open(&args.plan)?;
    let dir = support::atomic::parent_dir(&args.plan);
    let stages = plan.stages(&dir);
    let exe = std::env::current_exe().context("cannot find the trainer executable")?;
    if args.print {
        for stage in &stages {
            let state = if stage.done.exists() { "done" } else { "to do" };
            support::outln!("# {} ({state})", stage.name)?;
            support::outln!("{}", pipeline::shown(&pipeline::command_line(&exe, stage)))?;
        }
        return Ok(Outcome::Done);
    }
    // A SIGINT reaches the stage's command too: it checkpoints and ends
    // with 130, and the round stops after it.
    let _stop = support::signals::stop_flag(
        "trainer round",
        "the stage under way saves its work and stops",
    );
    let end = pipeline::run(&exe, &stages, &mut |stage, event| match event {
        StageEvent::Skipped => support::note!("trainer round: {}: done before", stage.name),
        StageEvent::Starting { resume } => support::note!(
            "trainer round: {}{}",
            stage.name,
            if resume { " (resuming)" } else { "" }
        ),
        StageEvent::Done => {}
    })?;
    Ok(match end {
        RoundEnd::Finished => {
            support::outln!("trainer round: every stage done in {}", dir.display())?;
            Outcome::Done
        }
        RoundEnd::Interrupted => Outcome::Interrupted,
    })
}
