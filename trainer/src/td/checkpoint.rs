//! The checkpoint of a TD run, `OUT.ckpt` (docs/trainer.md#checkpoints):
//! what gnubg's weights formats cannot hold (settings, games played, each
//! net's training count, the learning curve) and the weights, exactly.
//!
//! Layout (shared with `trainer train`'s checkpoint): the line `bgkit td
//! checkpoint 2`, one line of JSON (the parent weights' MD5, the settings,
//! the evaluator's arithmetic and bearoff databases, and the progress),
//! the nets as a binary weights file (every f32 bit kept), then the CRC-32
//! of everything before it (4 bytes, little-endian): a flipped bit or an
//! edited count is refused, never resumed from.

use crate::evaluator_args::EvaluatorId;
use crate::td::{TdProgress, TdSettings};
use nets::Nets;
use serde::{Deserialize, Serialize};

const MAGIC: &str = "bgkit td checkpoint 2\n";

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
}

/// Why a checkpoint cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Not one of ours, or damaged.
    #[error("not a bgkit trainer checkpoint or damaged ({0})")]
    Corrupt(String),
    /// Written by a version of the trainer whose format this one does not
    /// read.
    #[error("it was written by another version of the trainer ({0}); remove it and start afresh")]
    OtherVersion(String),
    /// The weights inside are unusable.
    #[error("the weights inside are damaged: {0}")]
    Weights(#[from] nets::WeightsError),
    /// Written by a run with other settings or another start.
    #[error("it was written by a run with other settings ({0}); remove it or rerun with the same settings")]
    Mismatch(String),
}

/// The checkpoint's bytes (refused if a net holds a value that is not
/// finite).
pub fn to_bytes(header: &CheckpointHeader, nets: &Nets) -> Result<Vec<u8>, nets::WeightsError> {
    weights_checkpoint_bytes(MAGIC, header, nets)
}

/// Parses a checkpoint.
pub fn parse(bytes: &[u8]) -> Result<(CheckpointHeader, Nets), CheckpointError> {
    parse_weights_checkpoint(MAGIC, bytes)
}

/// The layout every trainer checkpoint shares: the `magic` line (`bgkit
/// KIND checkpoint VERSION`), one line of JSON (`header`), the nets as a
/// binary weights file (every bit), then the CRC-32 of all that. Refused,
/// as every weights file is, if a net holds a value that is not finite: the
/// checkpoint already on disk is kept.
pub fn weights_checkpoint_bytes(
    magic: &str,
    header: &impl Serialize,
    nets: &Nets,
) -> Result<Vec<u8>, nets::WeightsError> {
    let weights = nets::weights::to_bytes(nets, nets::weights::Format::Binary)?;
    let mut bytes = magic.as_bytes().to_vec();
    bytes.extend(serde_json::to_vec(header).expect("the header serializes"));
    bytes.push(b'\n');
    bytes.extend(weights);
    let crc = crc32fast::hash(&bytes);
    bytes.extend(crc.to_le_bytes());
    Ok(bytes)
}

/// Parses the layout of [`weights_checkpoint_bytes`], checking the CRC
/// first. A checkpoint of the same kind in another version's format is
/// [`CheckpointError::OtherVersion`].
pub fn parse_weights_checkpoint<H: serde::de::DeserializeOwned>(
    magic: &str,
    bytes: &[u8],
) -> Result<(H, Nets), CheckpointError> {
    let Some(rest) = bytes.strip_prefix(magic.as_bytes()) else {
        // "bgkit td checkpoint " of "bgkit td checkpoint 2\n".
        let kind = &magic[..magic.trim_end().rfind(' ').map_or(0, |i| i + 1)];
        let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
        return Err(match first.strip_prefix(kind.as_bytes()) {
            Some(_) if !kind.is_empty() => CheckpointError::OtherVersion(support::stdio::shorten(
                &String::from_utf8_lossy(first),
                40,
            )),
            _ => CheckpointError::Corrupt("no checkpoint header".into()),
        });
    };
    let Some(body_len) = rest.len().checked_sub(4) else {
        return Err(CheckpointError::Corrupt("truncated".into()));
    };
    let (body, crc) = rest.split_at(body_len);
    let whole = &bytes[..magic.len() + body_len];
    if crc32fast::hash(whole).to_le_bytes() != crc {
        return Err(CheckpointError::Corrupt(
            "its checksum does not match: the file was damaged or edited".into(),
        ));
    }
    let end = body
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| CheckpointError::Corrupt("truncated".into()))?;
    let header: H = serde_json::from_slice(&body[..end])
        .map_err(|e| CheckpointError::Corrupt(e.to_string()))?;
    let (nets, _) = nets::weights::parse(&body[end + 1..])?;
    Ok((header, nets))
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
        }
    }

    #[test]
    fn round_trip_keeps_every_bit() {
        let nets = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 4).unwrap();
        let header = header();
        let bytes = to_bytes(&header, &nets).unwrap();
        let (h, n) = parse(&bytes).unwrap();
        assert_eq!((h, n), (header.clone(), nets));
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
        let bytes = to_bytes(&header(), &nets).unwrap();
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
        let old = weights_checkpoint_bytes("bgkit td checkpoint 1\n", &header(), &nets).unwrap();
        let e = parse(&old).unwrap_err().to_string();
        assert!(
            e.contains("another version of the trainer (bgkit td checkpoint 1)"),
            "{e}"
        );
        let train =
            weights_checkpoint_bytes("bgkit train checkpoint 2\n", &header(), &nets).unwrap();
        let e = parse(&train).unwrap_err().to_string();
        assert!(e.contains("no checkpoint header"), "{e}");
    }
}
