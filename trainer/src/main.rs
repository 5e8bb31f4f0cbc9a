//! `trainer`: bgkit's training tool (the thin command line over the
//! `trainer` library).

mod bench_cmd;
mod common;
mod db_cmd;
mod eval_cmd;
mod new_cmd;
mod play_cmd;
mod plot_cmd;
mod td_cmd;
mod train_cmd;
mod weights_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use support::cli::init_threads;

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
    New(new_cmd::NewArgs),
    /// Inspect, convert or splice weights files.
    Weights(weights_cmd::WeightsArgs),
    /// Train by TD self-play (gnubg's former `train td`).
    Td(td_cmd::TdArgs),
    /// Play cubeless money games against pubeval or other weights.
    Play(play_cmd::PlayArgs),
    /// Draw a learning curve (OUT.curve.csv) as PNG or SVG.
    Plot(plot_cmd::PlotArgs),
    /// Position databases: import/export .dat, merge, split, dump, stats,
    /// generate, rollout.
    Db(db_cmd::DbArgs),
    /// Supervised training of one class's net on a position database
    /// (gnubg-nn's schedule and Pareto saves).
    Train(train_cmd::TrainArgs),
    /// gnubg-nn's error measures of a net against a database's targets.
    Bench(bench_cmd::BenchArgs),
    /// Evaluate positions (Position IDs) at 0 or 1 ply.
    Eval(eval_cmd::EvalArgs),
}

fn main() -> ExitCode {
    support::cli::main("trainer", |cli: Cli| match cli.command {
        Command::New(args) => new_cmd::run(&args),
        Command::Weights(args) => weights_cmd::run(&args),
        Command::Td(args) => {
            init_threads(args.threads())?;
            let stop = support::signals::stop_flag(
                "trainer td",
                "saving a checkpoint and stopping (interrupt again to stop at once)",
            );
            td_cmd::run(&args, stop)
        }
        Command::Play(args) => {
            init_threads(args.threads())?;
            play_cmd::run(&args)
        }
        Command::Plot(args) => plot_cmd::run(&args),
        Command::Db(args) => {
            init_threads(args.threads())?;
            let stop = support::signals::stop_flag(
                "trainer db",
                "stopping after the positions in progress (interrupt again to stop at once)",
            );
            db_cmd::run(&args, stop)
        }
        Command::Train(args) => {
            init_threads(args.threads())?;
            let stop = support::signals::stop_flag(
                "trainer train",
                "saving a checkpoint after this epoch (interrupt again to stop at once)",
            );
            train_cmd::run(&args, stop)
        }
        Command::Bench(args) => {
            init_threads(args.threads())?;
            bench_cmd::run(&args)
        }
        Command::Eval(args) => eval_cmd::run(&args),
    })
}
