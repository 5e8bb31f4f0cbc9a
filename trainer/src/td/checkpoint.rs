//! The checkpoint of a TD run, `OUT.ckpt` (docs/trainer.md#checkpoints):
//! what gnubg's weights formats cannot hold (settings, games played, each
//! net's training count, the learning curve) and the weights, exactly.
//!
//! Layout (shared with `trainer train`'s checkpoint): a
//! [`support::checkpoint::Snapshot`] whose fingerprint is the kind (`td
//! checkpoint 3`) and whose one block holds a line of JSON (the parent
//! weights' MD5, the settings, the evaluator's arithmetic and bearoff
//! databases, and the progress) and the nets as a binary weights file
//! (every f32 bit kept). The block's hash refuses a flipped bit or an
//! edited count, never resumes from them; a checkpoint of an earlier
//! format is refused as another version's.

use crate::evaluator_args::EvaluatorId;
use crate::td::{TdProgress, TdSettings};
use nets::Nets;
use serde::{Deserialize, Serialize};
use support::checkpoint::{Problem, Snapshot};

/// The fingerprint of a TD checkpoint: its kind and version.
const KIND: &str = "td checkpoint 3";

/// Largest checkpoint read (`trainer td` and `trainer train`): the weights
/// and a line of JSON.
pub const LIMIT: support::input::Limit = support::input::Limit {
    bytes: 2 * nets::weights::MAX_FILE_LEN,
    what: "checkpoint",
};

/// The JSON line of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// MD5 of the weights file the run started from.
    pub parent_md5: String,
    /// The run's settings.
    pub settings: TdSettings,
    /// The arithmetic and bearoff databases of the run's evaluator.
    pub evaluator: EvaluatorId,
    /// What was done.
    pub progress: TdProgress,
    /// Pipelined runs: the length of the weights that play the next batch,
    /// stored after the run's weights (absent: the run's own weights play
    /// it, and the file has the layout of runs without pipelining).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_bytes: Option<u64>,
}

/// Why a checkpoint cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Not a checkpoint, or damaged (what is wrong).
    #[error(transparent)]
    Storage(Problem),
    /// Its contents cannot be read.
    #[error("not a bgkit trainer checkpoint or damaged ({0})")]
    Corrupt(String),
    /// Written by a version of the trainer whose format this one does not
    /// read.
    #[error("it was written by another version of the trainer ({0}); remove it and start afresh")]
    OtherVersion(String),
    /// A checkpoint of another kind (`found`, not `wanted`).
    #[error("it is a {found}, not a {wanted}")]
    OtherKind {
        /// Its kind.
        found: String,
        /// The kind read.
        wanted: &'static str,
    },
    /// The weights inside are unusable.
    #[error("the weights inside are damaged: {0}")]
    Weights(#[from] nets::WeightsError),
    /// Written by a run with other settings or another start.
    #[error("it was written by a run with other settings ({0}); remove it or rerun with the same settings")]
    Mismatch(String),
}

impl From<Problem> for CheckpointError {
    fn from(problem: Problem) -> Self {
        match problem {
            Problem::OlderFormat(first_line) => CheckpointError::OtherVersion(first_line),
            problem => CheckpointError::Storage(problem),
        }
    }
}

/// The checkpoint's bytes, with `player`, the weights that play a
/// pipelined run's next batch, after the run's own (refused if a net holds
/// a value that is not finite). `header.player_bytes` is set here.
pub fn to_bytes(
    header: &CheckpointHeader,
    nets: &Nets,
    player: Option<&Nets>,
) -> Result<Vec<u8>, nets::WeightsError> {
    let player = player
        .map(|p| nets::weights::to_bytes(p, nets::weights::Format::Binary))
        .transpose()?;
    let header = CheckpointHeader {
        player_bytes: player.as_ref().map(|p| p.len() as u64),
        ..header.clone()
    };
    let mut payload = weights_payload(&header, nets)?;
    payload.extend(player.unwrap_or_default());
    Ok(Snapshot::encode(KIND, &payload))
}

/// Parses a checkpoint: the header, the run's weights and, for a pipelined
/// run, the weights that play its next batch.
pub fn parse(bytes: &[u8]) -> Result<(CheckpointHeader, Nets, Option<Nets>), CheckpointError> {
    let (header, weights): (CheckpointHeader, _) = parse_header(KIND, bytes)?;
    let (own, player) = match header.player_bytes {
        None => (&weights[..], None),
        Some(len) => {
            let split = usize::try_from(len)
                .ok()
                .and_then(|n| weights.len().checked_sub(n))
                .ok_or_else(|| {
                    CheckpointError::Corrupt(format!(
                        "{len} bytes of player weights announced, fewer stored"
                    ))
                })?;
            let (own, player) = weights.split_at(split);
            (own, Some(nets::weights::parse(player)?.0))
        }
    };
    let (nets, _) = nets::weights::parse(own)?;
    Ok((header, nets, player))
}

/// The layout every trainer checkpoint shares: a snapshot of fingerprint
/// `kind` (`KIND checkpoint VERSION`) whose block holds one line of JSON
/// (`header`) and the nets as a binary weights file (every bit). Refused,
/// as every weights file is, if a net holds a value that is not finite: the
/// checkpoint already on disk is kept.
pub fn weights_checkpoint_bytes(
    kind: &str,
    header: &impl Serialize,
    nets: &Nets,
) -> Result<Vec<u8>, nets::WeightsError> {
    Ok(Snapshot::encode(kind, &weights_payload(header, nets)?))
}

/// The block of [`weights_checkpoint_bytes`]: the header's JSON line and
/// the binary weights.
fn weights_payload(header: &impl Serialize, nets: &Nets) -> Result<Vec<u8>, nets::WeightsError> {
    let weights = nets::weights::to_bytes(nets, nets::weights::Format::Binary)?;
    let mut payload = serde_json::to_vec(header).expect("the header serializes");
    payload.push(b'\n');
    payload.extend(weights);
    Ok(payload)
}

/// Parses the layout of [`weights_checkpoint_bytes`] for a checkpoint of
/// `kind`, checking its hash first. A checkpoint of the same kind in
/// another version's format is [`CheckpointError::OtherVersion`].
pub fn parse_weights_checkpoint<H: serde::de::DeserializeOwned>(
    kind: &'static str,
    bytes: &[u8],
) -> Result<(H, Nets), CheckpointError> {
    let (header, weights) = parse_header(kind, bytes)?;
    let (nets, _) = nets::weights::parse(&weights)?;
    Ok((header, nets))
}

/// The header of a checkpoint of `kind` in the layout of
/// [`weights_checkpoint_bytes`] and the bytes after it, hash checked.
fn parse_header<H: serde::de::DeserializeOwned>(
    kind: &'static str,
    bytes: &[u8],
) -> Result<(H, Vec<u8>), CheckpointError> {
    let Snapshot {
        fingerprint,
        payload,
    } = Snapshot::parse(bytes)?;
    if fingerprint != kind {
        // "td checkpoint " of "td checkpoint 3".
        let family = &kind[..kind.rfind(' ').map_or(0, |i| i + 1)];
        return Err(if fingerprint.starts_with(family) {
            CheckpointError::OtherVersion(support::stdio::shorten(&fingerprint, 40))
        } else {
            CheckpointError::OtherKind {
                found: support::stdio::shorten(&fingerprint, 40),
                wanted: kind,
            }
        });
    }
    let end = payload
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| CheckpointError::Corrupt("no header line".into()))?;
    let header: H = serde_json::from_slice(&payload[..end])
        .map_err(|e| CheckpointError::Corrupt(e.to_string()))?;
    let mut weights = payload;
    weights.drain(..=end);
    Ok((header, weights))
}

impl CheckpointHeader {
    /// Checks that the checkpoint belongs to a run from `parent_md5` with
    /// `settings` and `evaluator`, naming the first difference.
    pub fn check_matches(
        &self,
        parent_md5: &str,
        settings: &TdSettings,
        evaluator: &EvaluatorId,
    ) -> Result<(), CheckpointError> {
        let mismatch = |what: &str, was: String, now: String| {
            Err(CheckpointError::Mismatch(format!(
                "{what} {was}, now {now}"
            )))
        };
        if self.parent_md5 != parent_md5 {
            return mismatch(
                "starting weights MD5",
                self.parent_md5.clone(),
                parent_md5.into(),
            );
        }
        if let Some(difference) = self.evaluator.difference(evaluator) {
            return Err(CheckpointError::Mismatch(difference));
        }
        let (a, b) = (&self.settings, settings);
        if a.alpha != b.alpha {
            return mismatch("learning rate α", a.alpha.to_string(), b.alpha.to_string());
        }
        if a.anneal != b.anneal {
            return mismatch(
                "annealing exponent",
                a.anneal.to_string(),
                b.anneal.to_string(),
            );
        }
        if a.lambda != b.lambda {
            return mismatch("λ", a.lambda.to_string(), b.lambda.to_string());
        }
        if a.seed != b.seed {
            return mismatch("seed", a.seed.to_string(), b.seed.to_string());
        }
        let batch = |x: Option<u64>| x.map_or("none".to_string(), |b| b.to_string());
        if a.batch_games != b.batch_games {
            return mismatch(
                "games per batch",
                batch(a.batch_games),
                batch(b.batch_games),
            );
        }
        if a.pipeline != b.pipeline {
            let said = |p: bool| if p { "on" } else { "off" }.to_string();
            return mismatch("pipelining", said(a.pipeline), said(b.pipeline));
        }
        if (a.eval_every, a.eval_games) != (b.eval_every, b.eval_games) {
            return mismatch(
                "games between evaluations/evaluation games",
                format!("{}/{}", a.eval_every, a.eval_games),
                format!("{}/{}", b.eval_every, b.eval_games),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> TdSettings {
        TdSettings {
            alpha: 0.1,
            anneal: 0.3,
            lambda: 0.0,
            seed: 3,
            batch_games: None,
            pipeline: false,
            eval_every: 0,
            eval_games: 0,
        }
    }

    fn evaluator() -> EvaluatorId {
        EvaluatorId {
            arithmetic: "gnubg-fastmath".into(),
            bearoff_md5: vec!["0123".into()],
        }
    }

    fn header() -> CheckpointHeader {
        CheckpointHeader {
            parent_md5: "abc".into(),
            settings: settings(),
            evaluator: evaluator(),
            progress: TdProgress {
                games: 12,
                trained: [100, 20, 3],
                curve: vec![],
            },
            player_bytes: None,
        }
    }

    #[test]
    fn round_trip_keeps_every_bit() {
        let nets = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 4).unwrap();
        let header = header();
        let bytes = to_bytes(&header, &nets, None).unwrap();
        let (h, n, p) = parse(&bytes).unwrap();
        assert_eq!((h, n, p), (header.clone(), nets.clone(), None));
        // A pipelined run's checkpoint keeps the player's weights too.
        let player = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 5).unwrap();
        let both = to_bytes(&header, &nets, Some(&player)).unwrap();
        let (h, n, p) = parse(&both).unwrap();
        assert_eq!((n, p), (nets.clone(), Some(player)));
        assert!(h.player_bytes.is_some_and(|b| b > 0));
        assert!(parse(&both[..both.len() - 3]).is_err());
        assert!(parse(&bytes[..bytes.len() - 3]).is_err());
        assert!(parse(b"hello").is_err());
        assert!(header
            .check_matches("abc", &settings(), &evaluator())
            .is_ok());
        let other = TdSettings {
            lambda: 0.5,
            ..settings()
        };
        let e = header
            .check_matches("abc", &other, &evaluator())
            .unwrap_err()
            .to_string();
        assert!(e.contains("λ 0, now 0.5"), "{e}");
        let pipelined = TdSettings {
            pipeline: true,
            ..settings()
        };
        let e = header
            .check_matches("abc", &pipelined, &evaluator())
            .unwrap_err()
            .to_string();
        assert!(e.contains("pipelining off, now on"), "{e}");
        assert!(header
            .check_matches("abd", &settings(), &evaluator())
            .is_err());
        let ieee = EvaluatorId {
            arithmetic: "ieee".into(),
            ..evaluator()
        };
        let e = header
            .check_matches("abc", &settings(), &ieee)
            .unwrap_err()
            .to_string();
        assert!(e.contains("arithmetic gnubg-fastmath, now ieee"), "{e}");
        let bearoff = EvaluatorId {
            bearoff_md5: vec!["4567".into()],
            ..evaluator()
        };
        let e = header
            .check_matches("abc", &settings(), &bearoff)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bearoff"), "{e}");
    }

    #[test]
    fn damage_anywhere_is_refused() {
        let nets = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 4).unwrap();
        let bytes = to_bytes(&header(), &nets, Some(&nets)).unwrap();
        for at in (0..bytes.len()).step_by(53).chain([bytes.len() - 1]) {
            for bit in [0, 5] {
                let mut damaged = bytes.clone();
                damaged[at] ^= 1 << bit;
                assert!(parse(&damaged).is_err(), "bit {bit} of byte {at} flipped");
            }
        }
        let games = br#""games":12"#;
        let at = bytes.windows(games.len()).position(|w| w == games).unwrap();
        let mut edited = bytes.clone();
        edited[at + games.len() - 1] = b'3';
        let e = parse(&edited).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
    }

    #[test]
    fn an_older_format_is_named_not_misread() {
        let nets = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 4).unwrap();
        let payload = Snapshot::parse(&to_bytes(&header(), &nets, None).unwrap())
            .unwrap()
            .payload;
        for magic in ["bgkit td checkpoint 1\n", "bgkit td checkpoint 2\n"] {
            let old = [magic.as_bytes(), &payload].concat();
            let e = parse(&old).unwrap_err().to_string();
            let version = format!("another version of the trainer ({})", magic.trim_end());
            assert!(e.contains(&version), "{e}");
            assert!(e.contains("remove it and start afresh"), "{e}");
        }
        let newer = weights_checkpoint_bytes("td checkpoint 4", &header(), &nets).unwrap();
        let e = parse(&newer).unwrap_err().to_string();
        assert!(
            e.contains("another version of the trainer (td checkpoint 4)"),
            "{e}"
        );
        let train = weights_checkpoint_bytes("train checkpoint 3", &header(), &nets).unwrap();
        let e = parse(&train).unwrap_err().to_string();
        assert_eq!(e, "it is a train checkpoint 3, not a td checkpoint 3");
    }
}
