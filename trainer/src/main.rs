//! `trainer`: bgkit's training tool (the thin command line over the
//! `trainer` library).

mod commands;

use clap::{Parser, Subcommand};
use commands::{bench, db, eval, new, play, plot, round, td, train, weights};
use std::process::ExitCode;

/// bgkit trainer: make, train, compare and evaluate gnubg-compatible nets.
///
/// Start with `trainer new -o start.wd`, train with `trainer td --weights
/// start.wd -o trained.wd --games 200000 --batch-games 16 --eval-every
/// 10000`, measure with `trainer play --weights trained.wd`, draw the curve
/// with `trainer plot trained.wd.curve.csv -o curve.png`.
///
/// Exit status: 0 success, 1 some inputs were rejected (each reported on
/// stderr), 2 bad usage or unusable input, 130 interrupted (a checkpoint
/// was saved).
#[derive(Parser, Debug)]
#[command(name = "trainer", version, about, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write a weights file with random nets (gnubg's six nets and sizes).
    New(new::NewArgs),
    /// Inspect, convert or splice weights files; export them to NumPy arrays and import them back.
    Weights(weights::WeightsArgs),
    /// Train by TD self-play (gnubg's former `train td`).
    Td(td::TdArgs),
    /// Play cubeless money games against pubeval or other weights.
    Play(play::PlayArgs),
    /// Draw a learning curve (OUT.curve.csv) as PNG or SVG.
    Plot(plot::PlotArgs),
    /// Position databases: import/export .dat, merge, split, dump, stats,
    /// generate, candidates, rollout, label.
    Db(db::DbArgs),
    /// Supervised training of one class's net on a position database
    /// (gnubg-nn's schedule and Pareto saves).
    Train(train::TrainArgs),
    /// gnubg-nn's error measures of a net against a database's targets.
    Bench(bench::BenchArgs),
    /// Evaluate positions (Position IDs) at 0 to 3 plies.
    Eval(eval::EvalArgs),
    /// Run a training round from a plan file: self-play positions, a
    /// teacher's labels, the three nets trained, held-out errors and a
    /// match; resumable stage by stage.
    Round(round::RoundArgs),
}

impl Command {
    /// Checks the settings a command checks before it reads any file (for
    /// `trainer round`, before its first stage).
    fn check(&self) -> anyhow::Result<()> {
        match self {
            Command::Train(args) => args.check(),
            Command::New(args) => args.check(),
            _ => Ok(()),
        }
    }
}

fn main() -> ExitCode {
    support::cli::main("trainer", |cli: Cli| match cli.command {
        Command::New(args) => new::run(&args),
        Command::Weights(args) => weights::run(&args),
        Command::Td(args) => td::run(
            &args,
            args.run.start(
                "trainer td",
                "saving a checkpoint and stopping (interrupt again to stop at once)",
            )?,
        ),
        Command::Play(args) => {
            args.run.init_threads()?;
            play::run(&args)
        }
        Command::Plot(args) => plot::run(&args),
        Command::Db(args) => {
            let stop = args.start()?;
            db::run(&args, stop)
        }
        Command::Train(args) => {
            let stop = args.run.start(
                "trainer train",
                "saving a checkpoint after this epoch (interrupt again to stop at once)",
            )?;
            // The whole run on a worker thread of the pool: each batch's two
            // parallel loops then start from a worker instead of being handed
            // over from the main thread and handed back (a sleep and a wake-up
            // each, thousands of times a run: 11 % of a one-thread Adam run).
            rayon::scope(|_| train::run(&args, stop))
        }
        Command::Bench(args) => {
            support::cli::init_threads(args.threads)?;
            bench::run(&args)
        }
        Command::Eval(args) => eval::run(&args),
        Command::Round(args) => round::run(&args),
    })
}
