//! `OUT.json`, written beside every weights file the trainer writes: how
//! the file was made (docs/trainer.md#provenance).

use serde::Serialize;
use std::path::{Path, PathBuf};

/// The weights a file was trained from.
#[derive(Clone, Debug, Serialize)]
pub struct Parent {
    /// The file as given.
    pub path: PathBuf,
    /// Its MD5.
    pub md5: String,
}

/// The record of one written weights file.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    /// `trainer` and its version.
    pub tool: String,
    /// The command line, one argument per element.
    pub command: Vec<String>,
    /// The subcommand's seed.
    pub seed: u64,
    /// Games trained (0 for `trainer new`).
    pub games: u64,
    /// Training steps of the contact, race and crashed nets, including
    /// those of the parent's run if it was a bgkit run.
    pub n_trained: NTrained,
    /// The starting weights (`null` for `trainer new`).
    pub parent: Option<Parent>,
    /// The written file's MD5.
    pub md5: String,
    /// Subcommand-specific settings.
    pub settings: serde_json::Value,
}

/// Each trained net's training count.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize)]
pub struct NTrained {
    /// Contact net.
    pub contact: u64,
    /// Race net.
    pub race: u64,
    /// Crashed net.
    pub crashed: u64,
}

impl From<[u64; 3]> for NTrained {
    fn from(t: [u64; 3]) -> NTrained {
        NTrained {
            contact: t[0],
            race: t[1],
            crashed: t[2],
        }
    }
}

impl Provenance {
    /// A record for this process's command line.
    pub fn new(
        seed: u64,
        games: u64,
        n_trained: NTrained,
        parent: Option<Parent>,
        md5: String,
        settings: serde_json::Value,
    ) -> Provenance {
        Provenance {
            tool: format!("bgkit trainer {}", env!("CARGO_PKG_VERSION")),
            command: std::env::args().collect(),
            seed,
            games,
            n_trained,
            parent,
            md5,
            settings,
        }
    }
}

/// The provenance file of a weights file: `OUT.json`.
pub fn path_for(weights: &Path) -> PathBuf {
    let mut name = weights.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The training counts recorded beside a weights file, if it has a
/// provenance file (gnubg's formats do not hold them).
pub fn recorded_n_trained(weights: &Path) -> Option<NTrained> {
    #[derive(serde::Deserialize)]
    struct Counts {
        n_trained: NTrained,
    }
    let text = std::fs::read_to_string(path_for(weights)).ok()?;
    serde_json::from_str::<Counts>(&text)
        .ok()
        .map(|c| c.n_trained)
}

/// Writes `OUT.json` for `weights` atomically.
pub fn save(weights: &Path, record: &Provenance) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(record).expect("provenance serializes");
    text.push('\n');
    let mut file = support::atomic::AtomicFile::create(&path_for(weights))?;
    file.write_all_with(|w| w.write_all(text.as_bytes()))?;
    file.commit()
}
