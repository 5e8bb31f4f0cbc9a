//! The checkpoint of a TD run, `OUT.ckpt` (docs/trainer.md#checkpoints):
//! what gnubg's weights formats cannot hold (settings, games played, each
//! net's training count, the learning curve) and the weights, exactly.
//!
//! Layout: the line `bgkit td checkpoint 1`, one line of JSON (the parent
//! weights' MD5, the settings and the progress), then the nets as a binary
//! weights file (every f32 bit kept).

use crate::td::{TdProgress, TdSettings};
use nets::Nets;
use serde::{Deserialize, Serialize};

const MAGIC: &str = "bgkit td checkpoint 1\n";

/// The JSON line of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// MD5 of the weights file the run started from.
    pub parent_md5: String,
    /// The run's settings.
    pub settings: TdSettings,
    /// What was done.
    pub progress: TdProgress,
}

/// Why a checkpoint cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Not one of ours, or damaged.
    #[error("not a bgkit TD checkpoint or damaged ({0})")]
    Corrupt(String),
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

/// The layout every trainer checkpoint shares: the `magic` line, one line
/// of JSON (`header`), then the nets as a binary weights file (every bit).
/// Refused, as every weights file is, if a net holds a value that is not
/// finite: the checkpoint already on disk is kept.
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
    Ok(bytes)
}

/// Parses the layout of [`weights_checkpoint_bytes`].
pub fn parse_weights_checkpoint<H: serde::de::DeserializeOwned>(
    magic: &str,
    bytes: &[u8],
) -> Result<(H, Nets), CheckpointError> {
    let rest = bytes
        .strip_prefix(magic.as_bytes())
        .ok_or_else(|| CheckpointError::Corrupt("no checkpoint header".into()))?;
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| CheckpointError::Corrupt("truncated".into()))?;
    let header: H = serde_json::from_slice(&rest[..end])
        .map_err(|e| CheckpointError::Corrupt(e.to_string()))?;
    let (nets, _) = nets::weights::parse(&rest[end + 1..])?;
    Ok((header, nets))
}

impl CheckpointHeader {
    /// Checks that the checkpoint belongs to a run from `parent_md5` with
    /// `settings`, naming the first difference.
    pub fn check_matches(
        &self,
        parent_md5: &str,
        settings: &TdSettings,
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
        let (a, b) = (&self.settings, settings);
        if a.alpha != b.alpha {
            return mismatch("--alpha", a.alpha.to_string(), b.alpha.to_string());
        }
        if a.anneal != b.anneal {
            return mismatch("--anneal", a.anneal.to_string(), b.anneal.to_string());
        }
        if a.lambda != b.lambda {
            return mismatch("--lambda", a.lambda.to_string(), b.lambda.to_string());
        }
        if a.seed != b.seed {
            return mismatch("--seed", a.seed.to_string(), b.seed.to_string());
        }
        let batch = |x: Option<u64>| x.map_or("none".to_string(), |b| b.to_string());
        if a.batch_games != b.batch_games {
            return mismatch("--batch-games", batch(a.batch_games), batch(b.batch_games));
        }
        if (a.eval_every, a.eval_games) != (b.eval_every, b.eval_games) {
            return mismatch(
                "--eval-every/--eval-games",
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

    #[test]
    fn round_trip_keeps_every_bit() {
        let nets = crate::init::new_nets(8, crate::init::GNUBG_BETA_HIDDEN, 4).unwrap();
        let header = CheckpointHeader {
            parent_md5: "abc".into(),
            settings: settings(),
            progress: TdProgress {
                games: 12,
                trained: [100, 20, 3],
                curve: vec![],
            },
        };
        let bytes = to_bytes(&header, &nets).unwrap();
        let (h, n) = parse(&bytes).unwrap();
        assert_eq!((h, n), (header.clone(), nets));
        assert!(parse(&bytes[..bytes.len() - 3]).is_err());
        assert!(parse(b"hello").is_err());
        assert!(header.check_matches("abc", &settings()).is_ok());
        let other = TdSettings {
            lambda: 0.5,
            ..settings()
        };
        let e = header.check_matches("abc", &other).unwrap_err().to_string();
        assert!(e.contains("--lambda 0, now 0.5"), "{e}");
        assert!(header.check_matches("abd", &settings()).is_err());
    }
}
