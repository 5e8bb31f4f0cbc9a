//! The checkpoint of a supervised run, `OUT.ckpt`: the layout of
//! [`crate::td::checkpoint`] under its own kind (`train checkpoint 3`) with
//! its own header (what the run started from, the schedule, where it
//! stands and the curve so far).

use crate::evaluator_args::EvaluatorId;
use crate::supervised::run::CurvePoint;
use crate::supervised::{Schedule, ScheduleState};
use crate::td::checkpoint::{parse_weights_checkpoint, weights_checkpoint_bytes, CheckpointError};
use nets::{Adam, Nets};
use serde::{Deserialize, Serialize};

/// The fingerprint of a supervised checkpoint: its kind and version.
const KIND: &str = "train checkpoint 3";

/// The JSON line of a supervised checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SupervisedCheckpoint {
    /// MD5 of the position database.
    pub db_md5: String,
    /// MD5 of the weights file the run started from.
    pub weights_md5: String,
    /// The arithmetic and bearoff databases of the run's evaluator.
    pub evaluator: EvaluatorId,
    /// The trained class (`contact`, `crashed` or `race`).
    pub class: String,
    /// The schedule's settings.
    pub schedule: Schedule,
    /// Where the schedule stands.
    pub state: ScheduleState,
    /// The learning curve so far.
    pub curve: Vec<CurvePoint>,
    /// Adam's state, for a run with Adam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adam: Option<AdamState>,
}

/// Adam's state in a checkpoint: the step count and the moments as the
/// bits of their `f32`s (JSON numbers of any other kind could round).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamState {
    /// Steps taken.
    pub steps: u64,
    /// The first moment's bits.
    pub first: Vec<u32>,
    /// The second moment's bits.
    pub second: Vec<u32>,
}

impl From<&Adam> for AdamState {
    fn from(adam: &Adam) -> AdamState {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect();
        AdamState {
            steps: adam.steps,
            first: bits(&adam.first),
            second: bits(&adam.second),
        }
    }
}

impl From<&AdamState> for Adam {
    fn from(state: &AdamState) -> Adam {
        let floats = |v: &[u32]| v.iter().map(|&b| f32::from_bits(b)).collect();
        Adam {
            steps: state.steps,
            first: floats(&state.first),
            second: floats(&state.second),
        }
    }
}

impl SupervisedCheckpoint {
    /// The checkpoint's bytes with `nets` (refused if a net holds a value
    /// that is not finite).
    pub fn to_bytes(&self, nets: &Nets) -> Result<Vec<u8>, nets::WeightsError> {
        weights_checkpoint_bytes(KIND, self, nets)
    }

    /// Parses a checkpoint.
    pub fn parse(bytes: &[u8]) -> Result<(SupervisedCheckpoint, Nets), CheckpointError> {
        parse_weights_checkpoint(KIND, bytes)
    }

    /// Checks that the checkpoint belongs to a run that started as `start`
    /// does (database, weights, evaluator, class, schedule).
    pub fn check_matches(&self, start: &SupervisedCheckpoint) -> Result<(), CheckpointError> {
        if let Some(difference) = self.evaluator.difference(&start.evaluator) {
            return Err(CheckpointError::Mismatch(difference));
        }
        if (&self.db_md5, &self.weights_md5, &self.class, &self.schedule)
            != (
                &start.db_md5,
                &start.weights_md5,
                &start.class,
                &start.schedule,
            )
        {
            return Err(CheckpointError::Mismatch(
                "another database, weights, class or schedule".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> SupervisedCheckpoint {
        let schedule = Schedule::default();
        SupervisedCheckpoint {
            db_md5: "db".into(),
            weights_md5: "w".into(),
            evaluator: EvaluatorId {
                arithmetic: "gnubg-fastmath".into(),
                bearoff_md5: vec!["0123".into()],
            },
            class: "race".into(),
            state: ScheduleState::start(&schedule),
            schedule,
            curve: vec![(0, 20.0, 0.05, 0.4)],
            adam: None,
        }
    }

    #[test]
    fn a_checkpoint_reads_back_and_names_what_differs() {
        let nets = crate::init::new_nets(8, 0.1, 1).unwrap();
        let bytes = start().to_bytes(&nets).unwrap();
        let (header, back) = SupervisedCheckpoint::parse(&bytes).unwrap();
        assert_eq!(header, start());
        assert_eq!(back, nets);
        assert!(header.check_matches(&start()).is_ok());
        let mut other = start();
        other.evaluator.arithmetic = "ieee".into();
        let why = header.check_matches(&other).unwrap_err().to_string();
        assert!(
            why.contains("the arithmetic gnubg-fastmath, now ieee"),
            "{why}"
        );
        other = start();
        other.schedule.seed = 2;
        let why = header.check_matches(&other).unwrap_err().to_string();
        assert!(
            why.contains("another database, weights, class or schedule"),
            "{why}"
        );
        assert!(crate::td::checkpoint::parse(&bytes).is_err());
    }

    #[test]
    fn adam_state_reads_back_to_the_bit() {
        let nets = crate::init::new_nets(8, 0.1, 1).unwrap();
        let mut adam = Adam::new(nets.get(nets::NetKind::Race));
        adam.steps = 7;
        adam.first[3] = 0.1 + 0.2;
        adam.second[5] = f32::MIN_POSITIVE / 3.0;
        let header = SupervisedCheckpoint {
            adam: Some((&adam).into()),
            ..start()
        };
        let (back, _) = SupervisedCheckpoint::parse(&header.to_bytes(&nets).unwrap()).unwrap();
        assert_eq!(Adam::from(back.adam.as_ref().unwrap()), adam);
    }
}
