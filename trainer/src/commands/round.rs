//! `trainer round`: a training round's stages from a plan file, each
//! skipped when done, resumed when interrupted, refused when the round's
//! files disagree with the plan (docs/trainer.md#trainer-round).

use anyhow::{anyhow, Context, Result};
use clap::{Args, Parser};
use std::path::PathBuf;
use support::cli::Outcome;
use trainer::pipeline::slurm::{self, script::JobOptions, Layout};
use trainer::pipeline::{self, ledger, Plan, Round, RoundEnd, StageEvent, Status};
use trainer::rollouts::job::Shard;

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
    /// List every stage: done, queued, running, failed (with the end of
    /// its log) or to do, with its Slurm job IDs. Runs nothing.
    #[arg(long, conflicts_with_all = ["print", "slurm"])]
    status: bool,
    /// Worker threads of every stage, instead of the plan's `threads`
    /// (default: the plan's, else all cores); no result depends on it.
    /// With --slurm, --cpus-per-task.
    #[arg(long, value_name = "N", conflicts_with = "slurm", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    #[command(flatten)]
    slurm: SlurmArgs,
    /// A Slurm job's share of the round (the job scripts run it): the
    /// stage named, through the round's runner.
    #[arg(long, value_name = "STAGE", hide = true, conflicts_with_all = ["print", "slurm", "status"])]
    slurm_task: Option<String>,
    /// With --slurm-task: label shard K of N on its copy.
    #[arg(long, value_name = "K/N", hide = true, requires = "slurm_task")]
    shard: Option<Shard>,
    /// With --slurm-task: merge the N shards' copies, then run the stage.
    #[arg(
        long,
        value_name = "N",
        hide = true,
        requires = "slurm_task",
        conflicts_with = "shard",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    shards: Option<u32>,
}

/// `trainer round --slurm` and the job options.
#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// Submit the stages neither done nor queued as Slurm jobs chained
    /// with afterok (label stages as arrays of shard tasks, then a job
    /// that merges them) and return; run it again after a failure to
    /// submit what is left (docs/trainer.md#running-a-round-on-a-slurm-cluster).
    #[arg(long, conflicts_with = "print")]
    slurm: bool,
    /// With --slurm: write the job scripts (slurm/ in the round's
    /// directory) and print the sbatch commands; submit nothing.
    #[arg(long, requires = "slurm")]
    dry_run: bool,
    /// sbatch --partition of every job.
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// sbatch --account of every job.
    #[arg(long, requires = "slurm")]
    account: Option<String>,
    /// sbatch --time of every job (the longest stage's limit).
    #[arg(long, requires = "slurm")]
    time: Option<String>,
    /// sbatch --cpus-per-task of every job and task (a stage's threads,
    /// unless the plan sets `threads`).
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    cpus_per_task: Option<u32>,
    /// Shards (array tasks) a label stage is split in.
    #[arg(long, requires = "slurm", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    array_size: u32,
    /// At most this many of an array's tasks run at once (sbatch
    /// --array=…%M).
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    array_concurrency: Option<u32>,
    /// A further sbatch option for every job, one argument
    /// (--sbatch-arg=--qos=high); repeatable.
    #[arg(
        long,
        requires = "slurm",
        value_name = "ARG",
        allow_hyphen_values = true
    )]
    sbatch_arg: Vec<String>,
}

/// Runs `trainer round`.
pub fn run(args: &RoundArgs) -> Result<Outcome> {
    let plan = Plan::open(&args.plan)?;
    let dir = support::atomic::parent_dir(&args.plan);
    let dir = std::fs::canonicalize(&dir)
        .with_context(|| format!("{}: cannot open the round's directory", dir.display()))?;
    let stages = plan.stages();
    let own = [
        PathBuf::from(ledger::FILE),
        PathBuf::from(slurm::DIR).join("jobs.json"),
    ];
    plan.check_paths(&dir, &stages, &own)
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
    let layout = Layout::new(&dir);
    let threads = args.threads.map(usize::from).or(plan.threads);
    if args.status {
        let round = Round::open(&exe, &dir, stages, threads)?;
        for line in slurm::status::lines(&round, &layout)? {
            support::outln!("{line}")?;
        }
        return Ok(Outcome::Done);
    }
    if args.slurm.slurm {
        let open = || Ok(Round::open(&exe, &dir, stages.clone(), threads)?);
        return submit(args, &exe, &dir, &layout, &open);
    }
    if let (Some(name), Some(shard)) = (&args.slurm_task, args.shard) {
        // Shard tasks run side by side: they take no round lock and
        // touch only their own copy.
        let round = Round::open(&exe, &dir, stages, threads)?;
        let stop = support::signals::stop_flag(
            "trainer round",
            "the shard's labelling saves its journal and stops",
        );
        let (Ok(k), Ok(n)) = (u32::try_from(shard.index), u32::try_from(shard.count)) else {
            return Err(anyhow!(
                "--shard {}/{}: too many shards",
                shard.index,
                shard.count
            ));
        };
        let shard = (k, n);
        let end = slurm::task::run_shard(&round, &layout, name, shard, &stop)?;
        let what = format!("{name}: shard {}/{}", shard.0, shard.1);
        return task_ended(end, &what);
    }
    if args.print {
        // Reads only (the record is replaced atomically): no lock, so a
        // round or job under way is never kept from its record.
        let round = Round::open(&exe, &dir, stages, threads)?;
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
    // One round at a time in a directory.
    let _lock = support::lock::OutputLock::acquire(&ledger::path(&dir))?;
    let mut round = Round::open(&exe, &dir, stages, threads)?;
    let stop = support::signals::stop_flag(
        "trainer round",
        "the stage under way saves its work and stops; no further stage starts",
    );
    // What the stages run here cost, together.
    let mut spent: Option<pipeline::Cost> = None;
    let mut report = |stage: &pipeline::Stage, event| match event {
        StageEvent::Skipped => support::note!("trainer round: {}: done before", stage.name),
        StageEvent::Given => support::note!("trainer round: {}: given", stage.name),
        StageEvent::Starting { resume } => support::note!(
            "trainer round: {}{}",
            stage.name,
            if resume { " (resuming)" } else { "" }
        ),
        StageEvent::Done { cost } => {
            support::note!("trainer round: {}: done ({})", stage.name, cost.shown());
            spent = Some(spent.unwrap_or_default().plus(cost));
        }
    };
    if let Some(name) = &args.slurm_task {
        let end = slurm::task::run_job(&mut round, &layout, name, args.shards, &stop, &mut report)?;
        return task_ended(end, name);
    }
    round.clean()?;
    let end = round.run(&stop, args.stop_before.as_deref(), &mut report)?;
    if let Some(cost) = spent {
        support::note!(
            "trainer round: the stages done in this run took {}",
            cost.shown()
        );
    }
    ended(end, &dir, args.stop_before.as_deref())
}

/// What `trainer round` says and how it exits after a run that ended so.
fn ended(end: RoundEnd, dir: &std::path::Path, stop_before: Option<&str>) -> Result<Outcome> {
    Ok(match end {
        RoundEnd::Finished => {
            support::outln!("trainer round: every stage done in {}", dir.display())?;
            Outcome::Done
        }
        RoundEnd::Paused => {
            support::outln!(
                "trainer round: stopped before {:?} in {}",
                stop_before.unwrap_or_default(),
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

/// What a Slurm job's share of the round says and how it exits.
fn task_ended(end: RoundEnd, what: &str) -> Result<Outcome> {
    if end == RoundEnd::Interrupted {
        support::note!(
            "trainer round: {what}: stopped; its journal or checkpoint is kept for a requeued job or the round submitted again"
        );
        return Ok(Outcome::Interrupted);
    }
    support::outln!("trainer round: {what}: done")?;
    Ok(Outcome::Done)
}

/// `trainer round PLAN --slurm`.
fn submit(
    args: &RoundArgs,
    exe: &std::path::Path,
    dir: &std::path::Path,
    layout: &Layout,
    open: &dyn Fn() -> Result<Round, slurm::SlurmError>,
) -> Result<Outcome> {
    let a = &args.slurm;
    let options = JobOptions {
        partition: a.partition.clone(),
        account: a.account.clone(),
        time: a.time.clone(),
        cpus_per_task: a.cpus_per_task,
        extra: a.sbatch_arg.clone(),
    };
    let plan = std::fs::canonicalize(&args.plan)
        .with_context(|| format!("{}: cannot open the plan", args.plan.display()))?;
    let submission = slurm::submit::Submission {
        exe,
        plan: &plan,
        options: &options,
        shards: a.array_size,
        concurrency: a.array_concurrency,
        stop_before: args.stop_before.as_deref(),
        dry_run: a.dry_run,
    };
    let mut lines = Vec::new();
    let n = slurm::submit::submit(open, layout, &submission, &mut |l| lines.push(l))?;
    if a.dry_run {
        // A shell script that submits them.
        for l in &lines {
            support::outln!("{l}")?;
        }
        support::outln!(
            "# wrote the job scripts in {}; submitted nothing (--dry-run)",
            layout.dir().display()
        )?;
        return Ok(Outcome::Done);
    }
    for l in &lines {
        support::outln!("trainer round: {l}")?;
    }
    if n == 0 {
        support::outln!(
            "trainer round: nothing to submit in {} (every stage done or queued)",
            dir.display()
        )?;
    } else {
        support::outln!(
            "trainer round: submitted {n} jobs; follow them with trainer round {} --status",
            args.plan.display()
        )?;
    }
    Ok(Outcome::Done)
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
/// make it, the held-out set (`start` may be missing: it is made).
fn check_inputs(plan: &Plan, dir: &std::path::Path) -> Result<(), String> {
    let mut inputs = vec![("player", &plan.player), ("teacher", &plan.teacher)];
    if plan.opponent != plan.start {
        inputs.push(("opponent", &plan.opponent));
    }
    if plan.holdout == 0.0 && plan.held_games == 0 {
        inputs.push(("held", &plan.held));
    }
    inputs.extend(plan.crashed_from.iter().map(|p| ("crashed_from", p)));
    inputs.extend(plan.include.iter().map(|p| ("include", p)));
    inputs.extend(plan.exclude.iter().map(|p| ("exclude", p)));
    for (name, path) in inputs {
        support::input::open(&dir.join(path))
            .map_err(|e| format!("{name} {}: {e}", path.display()))?;
    }
    Ok(())
}
