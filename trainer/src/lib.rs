//! bgkit's training library: new weights, TD self-play training,
//! matches between players (gnubg-style nets and pubeval), learning curves
//! and their charts, position databases (gnubg-nn `.dat` import/export,
//! generation, resumable sharded rollouts), and evaluation of positions
//! with gnubg-compatible nets; `trainer` is its thin command line.
#![deny(missing_docs)]

pub mod bench;
pub mod candidates;
pub mod chart;
pub mod curve;
pub mod dat;
pub mod defaults;
pub mod eval;
pub mod evaluator_args;
pub mod game;
pub mod generate;
pub mod init;
pub mod matches;
pub mod npz;
pub mod posdb;
pub mod provenance;
pub mod prune_check;
pub mod race_label;
pub mod rollout;
pub mod rollout_job;
pub mod supervised;
pub mod td;
pub mod td_checkpoint;
pub mod train_curve;
