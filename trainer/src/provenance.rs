//! `OUT.json`, written beside every weights file and position database the
//! trainer writes: how the file was made (docs/trainer.md#provenance).

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NTrained {
    /// Contact net.
    pub contact: u64,
    /// Race net.
    pub race: u64,
    /// Crashed net.
    pub crashed: u64,
}

impl NTrained {
    /// The count of net `kind` (`None` for the pruning nets, not counted).
    pub fn get(&self, kind: nets::NetKind) -> Option<u64> {
        match kind {
            nets::NetKind::Contact => Some(self.contact),
            nets::NetKind::Race => Some(self.race),
            nets::NetKind::Crashed => Some(self.crashed),
            _ => None,
        }
    }

    /// Sets the count of net `kind` (nothing for a pruning net).
    pub fn set(&mut self, kind: nets::NetKind, n: u64) {
        match kind {
            nets::NetKind::Contact => self.contact = n,
            nets::NetKind::Race => self.race = n,
            nets::NetKind::Crashed => self.crashed = n,
            _ => {}
        }
    }
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
    /// A record for this process's command line; its [`md5`](Self::md5)
    /// is set when the weights are written.
    pub fn new(
        seed: u64,
        games: u64,
        n_trained: NTrained,
        parent: Option<Parent>,
        settings: serde_json::Value,
    ) -> Provenance {
        Provenance {
            tool: format!("bgkit trainer {}", env!("CARGO_PKG_VERSION")),
            command: command_line(),
            seed,
            games,
            n_trained,
            parent,
            md5: String::new(),
            settings,
        }
    }
}

/// This process's command line as a record holds it: without `--resume`,
/// so that a resumed run writes the record an uninterrupted one does (an
/// argument that is not UTF-8 is kept lossily).
pub fn command_line() -> Vec<String> {
    without_resume(std::env::args_os().map(|a| a.to_string_lossy().into_owned()))
}

/// `args` without `--resume`.
fn without_resume(args: impl Iterator<Item = String>) -> Vec<String> {
    args.filter(|a| a != "--resume").collect()
}

/// The provenance file of a weights file: `OUT.json`.
pub fn path_for(weights: &Path) -> PathBuf {
    support::side::SideKind::Provenance.path_of(weights)
}

/// Largest provenance file read (they hold a command line and settings:
/// a few kB).
const MAX_RECORD_LEN: u64 = 16 << 20;

/// What the provenance file beside a weights file says about it.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// The training counts, from a record of this very file.
    Counts(NTrained),
    /// No provenance file (gnubg's files, or weights not written by bgkit).
    Missing,
    /// A record of this very file that keeps no training counts (a record
    /// written by hand, as the shipped `nets/weights/bgkit.wd.json` is).
    Uncounted,
    /// A provenance file that is not a record of this file (it records
    /// another MD5: it was left by an older file of that name), or that
    /// cannot be read; it is ignored, for the reason given.
    Ignored(String),
}

/// The training counts recorded beside `weights` (whose MD5 is `md5`), if
/// its provenance file is a record of it (gnubg's formats do not hold them).
pub fn recorded_n_trained(weights: &Path, md5: &str) -> Recorded {
    #[derive(serde::Deserialize)]
    struct Counts {
        n_trained: Option<NTrained>,
        md5: String,
    }
    let path = path_for(weights);
    let limit = support::input::Limit {
        bytes: MAX_RECORD_LEN,
        what: "provenance file",
    };
    let text = match support::input::read_text(&path, limit) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Recorded::Missing,
        Err(e) => return Recorded::Ignored(format!("{}: {e}", path.display())),
    };
    match serde_json::from_str::<Counts>(&text) {
        Ok(c) if c.md5 == md5 => c.n_trained.map_or(Recorded::Uncounted, Recorded::Counts),
        Ok(c) => Recorded::Ignored(format!(
            "{} records another file (MD5 {}, this one has {md5})",
            path.display(),
            c.md5
        )),
        Err(e) => Recorded::Ignored(format!("{}: not a provenance record ({e})", path.display())),
    }
}

/// The settings recorded beside `file` (the database or weights whose
/// MD5 is `md5`), if its provenance file is a record of it.
pub fn recorded_settings(file: &Path, md5: &str) -> Option<serde_json::Value> {
    let record = read_record(file)?;
    (record.get("md5")? == md5).then(|| record.get("settings").cloned())?
}

/// The provenance record beside `file` as JSON, if there is one that
/// bgkit wrote (another `FILE.json` is not a record).
fn read_record(file: &Path) -> Option<serde_json::Value> {
    let limit = support::input::Limit {
        bytes: MAX_RECORD_LEN,
        what: "provenance file",
    };
    let text = support::input::read_text(&path_for(file), limit).ok()?;
    let record: serde_json::Value = serde_json::from_str(&text).ok()?;
    let tool = record.get("tool")?.as_str()?;
    (tool.starts_with("bgkit ") && record.get("md5")?.is_string()).then_some(record)
}

/// Removes the provenance record beside `file` if it records another file
/// (an older file of that name): for commands that write a file without a
/// record, so that none describes it wrongly. A `FILE.json` bgkit did not
/// write is left alone.
pub fn remove_stale(file: &Path) -> Result<(), SaveError> {
    let Some(record) = read_record(file) else {
        return Ok(());
    };
    let fail = |path: &Path| {
        let path = path.to_owned();
        move |error| SaveError { path, error }
    };
    let md5 = support::digest::md5_of_file(file).map_err(fail(file))?;
    if record["md5"] == md5.as_str() {
        return Ok(());
    }
    let path = path_for(file);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(&path)(e)),
        _ => Ok(()),
    }
}

impl Recorded {
    /// The counts if recorded, else zeros (training starts counting anew).
    pub fn or_zero(&self) -> NTrained {
        match self {
            Recorded::Counts(t) => *t,
            _ => NTrained::default(),
        }
    }
}

/// Writes `OUT.json` for `weights` atomically.
pub fn save(weights: &Path, record: &Provenance) -> std::io::Result<()> {
    write_record(&path_for(weights), record)
}

/// A provenance file that could not be written, or the file it records
/// that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct SaveError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub error: std::io::Error,
}

/// Writes `DB.json` beside the position database `db` atomically: the
/// tool, the command line, `settings` and the MD5 of `db` as written.
pub fn save_for_db(db: &Path, settings: serde_json::Value) -> Result<(), SaveError> {
    let fail = |path: &Path| {
        let path = path.to_owned();
        move |error| SaveError { path, error }
    };
    let md5 = support::digest::md5_of_file(db).map_err(fail(db))?;
    let record = serde_json::json!({
        "tool": format!("bgkit trainer {}", env!("CARGO_PKG_VERSION")),
        "command": command_line(),
        "settings": settings,
        "md5": md5,
    });
    let path = path_for(db);
    write_record(&path, &record).map_err(fail(&path))
}

/// Writes a provenance record as pretty JSON and a newline, atomically:
/// the one writer of every provenance file.
fn write_record(path: &Path, record: &impl Serialize) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(record).expect("provenance serializes");
    text.push('\n');
    support::atomic::write_file(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_record_holds_the_settings_and_the_md5() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        std::fs::write(&db, b"positions").unwrap();
        save_for_db(&db, serde_json::json!({ "seed": 3 })).unwrap();
        let text = std::fs::read_to_string(path_for(&db)).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(record["settings"]["seed"], 3);
        assert_eq!(
            record["md5"],
            support::digest::md5_hex(&b"positions"[..]).unwrap()
        );
        let missing = dir.path().join("none.db");
        let e = save_for_db(&missing, serde_json::json!({})).unwrap_err();
        assert_eq!(e.path, missing);
    }

    #[test]
    fn resume_is_left_out_of_the_command() {
        let args = ["trainer", "db", "rollout", "a.db", "--resume", "-q"].map(String::from);
        assert_eq!(
            without_resume(args.into_iter()),
            ["trainer", "db", "rollout", "a.db", "-q"]
        );
    }

    #[test]
    fn only_a_stale_bgkit_record_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        std::fs::write(&db, b"old").unwrap();
        save_for_db(&db, serde_json::json!({ "seed": 3 })).unwrap();
        let md5 = support::digest::md5_hex(&b"old"[..]).unwrap();
        assert_eq!(recorded_settings(&db, &md5).unwrap()["seed"], 3);
        remove_stale(&db).unwrap();
        assert!(path_for(&db).exists(), "a record of this very file is kept");
        std::fs::write(&db, b"new").unwrap();
        assert_eq!(recorded_settings(&db, "0"), None);
        remove_stale(&db).unwrap();
        assert!(!path_for(&db).exists(), "the old file's record is removed");
        std::fs::write(path_for(&db), b"{\"mine\": 1}").unwrap();
        remove_stale(&db).unwrap();
        assert!(path_for(&db).exists(), "a file bgkit did not write is kept");
    }

    #[test]
    fn a_record_of_another_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let weights = dir.path().join("x.wd");
        let mut record = Provenance::new(1, 5, [3, 4, 5].into(), None, serde_json::json!({}));
        record.md5 = "aa".repeat(16);
        save(&weights, &record).unwrap();
        assert_eq!(
            recorded_n_trained(&weights, &"aa".repeat(16)),
            Recorded::Counts([3, 4, 5].into())
        );
        let other = recorded_n_trained(&weights, &"bb".repeat(16));
        assert!(
            matches!(&other, Recorded::Ignored(why) if why.contains("records another file")),
            "{other:?}"
        );
        assert_eq!(other.or_zero(), NTrained::default());
        assert_eq!(
            recorded_n_trained(&dir.path().join("y.wd"), "00"),
            Recorded::Missing
        );
    }

    #[test]
    fn a_record_without_counts_is_a_record_of_no_counts() {
        let dir = tempfile::tempdir().unwrap();
        let weights = dir.path().join("x.wd");
        let md5 = "aa".repeat(16);
        let record = serde_json::json!({ "md5": md5, "file": "x.wd", "note": "by hand" });
        std::fs::write(path_for(&weights), record.to_string()).unwrap();
        let got = recorded_n_trained(&weights, &md5);
        assert_eq!(got, Recorded::Uncounted);
        assert_eq!(got.or_zero(), NTrained::default());
        assert!(matches!(
            recorded_n_trained(&weights, &"bb".repeat(16)),
            Recorded::Ignored(why) if why.contains("records another file")
        ));
        std::fs::write(path_for(&weights), "{\"n_trained\": 3}").unwrap();
        assert!(matches!(
            recorded_n_trained(&weights, &md5),
            Recorded::Ignored(why) if why.contains("not a provenance record")
        ));
    }
}
