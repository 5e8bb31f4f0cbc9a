//! Targets for positions: cubeless rollouts, race labels from one-sided
//! bearoff play, and the journaled, sharded jobs that compute them for a
//! database.

pub mod job;
pub mod journal;
pub mod labelling;
pub mod race_label;
pub mod rollout;
