//! `trainer round`: a training round's stages from a plan file, each
//! skipped when done, resumed when interrupted, refused when the round's
//! files disagree with the plan (docs/trainer.md#trainer-round).

use anyhow::{anyhow, Context, Result};
use clap::{Args, Parser};
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::pipeline::{self, ledger, Plan, Round, RoundEnd, StageEvent, Status};

/// Arguments of `trainer round`.
#[derive(Args, Debug)]
pub struct RoundArgs {
    /// The round's plan (JSON; docs/trainer.md lists its fields). Its
    /// directory is the round's: relative paths start there, every file
    /// the round makes is written there, and the stages run there.
    plan: PathBuf,
    /// Print each stage's state (done, given, to do) and its command line
    /// (with --resume where a stage would resume), and run nothing.
    #[arg(long)]
    print: bool,
    /// Run the stages before the one named (as --print names them, e.g.
    /// "label new") and stop there with exit 0: the stage can then be run
    /// by hand, in shards on other machines, and the round run again.
    #[arg(long, value_name = "STAGE")]
    stop_before: Option<String>,
}

/// Runs `trainer round`.
pub fn run(args: &RoundArgs) -> Result<Outcome> {
    let plan = Plan::open(&args.plan)?;
    let dir = support::atomic::parent_dir(&args.plan);
    let dir = std::fs::canonicalize(&dir)
        .with_context(|| format!("{}: cannot open the round's directory", dir.display()))?;
    let stages = plan.stages();
    plan.check_paths(&dir, &stages, &[PathBuf::from(ledger::FILE)])
        .map_err(|why| anyhow!("{}: {why}", args.plan.display()))?;
    for stage in &stages {
        check_stage_command(&stage.args)
            .map_err(|why| anyhow!("{}: stage {}: {why}", args.plan.display(), stage.name))?;
    }
    check_inputs(&plan, &dir).map_err(|why| anyhow!("{}: {why}", args.plan.display()))?;
    if let Some(name) = &args.stop_before {
        if !stages.iter().any(|s| s.name == *name) {
            let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
            return Err(anyhow!(
                "--stop-before {name:?}: the plan has no such stage (its stages: {})",
                names.join(", ")
            ));
        }
    }
    let exe = std::env::current_exe().context("cannot find the trainer executable")?;
    // One round at a time in a directory.
    let _lock = support::lock::OutputLock::acquire(&ledger::path(&dir))?;
    let mut round = Round::open(&exe, &dir, stages, plan.threads)?;
    if args.print {
        support::outln!("cd {}", dir.display())?;
        for stage in round.stages() {
            let state = match round.status(stage) {
                Status::Done => "done",
                Status::Given => "given",
                Status::ToDo => "to do",
            };
            support::outln!("# {} ({state})", stage.name)?;
            support::outln!("{}", pipeline::shown(&round.command_line(stage)))?;
        }
        return Ok(Outcome::Done);
    }
    let stop = support::signals::stop_flag(
        "trainer round",
        "the stage under way saves its work and stops; no further stage starts",
    );
    round.clean()?;
    let end = round.run(
        &stop,
        args.stop_before.as_deref(),
        &mut |stage, event| match event {
            StageEvent::Skipped => support::note!("trainer round: {}: done before", stage.name),
            StageEvent::Given => support::note!("trainer round: {}: given", stage.name),
            StageEvent::Starting { resume } => support::note!(
                "trainer round: {}{}",
                stage.name,
                if resume { " (resuming)" } else { "" }
            ),
            StageEvent::Done => {}
        },
    )?;
    Ok(match end {
        RoundEnd::Finished => {
            support::outln!("trainer round: every stage done in {}", dir.display())?;
            Outcome::Done
        }
        RoundEnd::Paused => {
            support::outln!(
                "trainer round: stopped before {:?} in {}",
                args.stop_before.as_deref().unwrap_or_default(),
                dir.display()
            )?;
            Outcome::Done
        }
        RoundEnd::Interrupted => {
            support::note!("trainer round: stopped; run it again to go on");
            Outcome::Interrupted
        }
    })
}

/// A stage's command line as `trainer` itself would take it: parsed, and
/// the settings that its command checks before reading any file checked
/// the same way.
fn check_stage_command(args: &[std::ffi::OsString]) -> Result<(), String> {
    let line = std::iter::once("trainer".into()).chain(args.iter().cloned());
    let cli = crate::Cli::try_parse_from(line).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        first.trim_start_matches("error: ").to_owned()
    })?;
    cli.command.check().map_err(|e| e.to_string())
}

/// The plan's inputs exist as regular files: the weights that play, label
/// and oppose, the earlier rounds' databases and, when the round does not
/// split it off, the held-out set (`start` may be missing: it is made).
fn check_inputs(plan: &Plan, dir: &std::path::Path) -> Result<(), String> {
    let mut inputs = vec![("player", &plan.player), ("teacher", &plan.teacher)];
    if plan.opponent != plan.start {
        inputs.push(("opponent", &plan.opponent));
    }
    if plan.holdout == 0.0 {
        inputs.push(("held", &plan.held));
    }
    inputs.extend(plan.include.iter().map(|p| ("include", p)));
    for (name, path) in inputs {
        support::input::open(&dir.join(path))
            .map_err(|e| format!("{name} {}: {e}", path.display()))?;
    }
    Ok(())
}
