//! The round's record of its stages, `round-stages.json` in the round's
//! directory: each stage's command line (its settings: without `-q`,
//! `--threads` and `--resume`, which change no result) when it starts and
//! when it is done. A rerun skips what is recorded done with the same
//! command line and refuses a stage recorded with another one, so a round
//! never mixes the results of two plans. The file holds nothing that
//! depends on time or on the machine: a round interrupted and run again
//! ends with the same bytes as one run through.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The record's file name, in the round's directory.
pub const FILE: &str = "round-stages.json";
/// Largest record read (a round has a few dozen stages).
const MAX_LEN: u64 = 16 << 20;

/// How far a stage got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Its command was started: the round owns its outputs (partial ones
    /// included).
    Started,
    /// Its command finished and its `done` file was written.
    Done,
}

/// One stage's entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The stage's name.
    pub stage: String,
    /// Its command line's settings.
    pub command: Vec<String>,
    /// How far it got.
    pub state: State,
}

/// The record, in stage order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// What `trainer` wrote it.
    pub kind: String,
    /// The entries.
    pub stages: Vec<Entry>,
}

/// What this version writes as [`Ledger::kind`].
const KIND: &str = "bgkit trainer round stages 1";

impl Ledger {
    /// The record at `path`, or an empty one if there is none.
    pub fn open(path: &Path) -> Result<Ledger, String> {
        let ledger: Option<Ledger> = read_json(path, "round record", |l: &Ledger| &l.kind, KIND)?;
        Ok(ledger.unwrap_or_else(|| Ledger {
            kind: KIND.into(),
            stages: vec![],
        }))
    }

    /// The entry of `stage`.
    pub fn get(&self, stage: &str) -> Option<&Entry> {
        self.stages.iter().find(|e| e.stage == stage)
    }

    /// Records `stage` with `command` in `state`, keeping the order of
    /// `order` (the plan's stage names).
    pub fn set(&mut self, stage: &str, command: Vec<String>, state: State, order: &[&str]) {
        self.stages.retain(|e| e.stage != stage);
        self.stages.push(Entry {
            stage: stage.into(),
            command,
            state,
        });
        let rank = |name: &str| order.iter().position(|n| *n == name).unwrap_or(usize::MAX);
        self.stages.sort_by_key(|e| rank(&e.stage));
    }

    /// Writes the record atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_json(path, self)
    }
}

/// A JSON record the round keeps (this one, its Slurm jobs) at `path`:
/// `None` if there is none; refused if it is not JSON of `T` or its kind
/// (`kind_of`) is not `kind`. `what` names it in messages.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &'static str,
    kind_of: impl Fn(&T) -> &String,
    kind: &str,
) -> Result<Option<T>, String> {
    let limit = support::input::Limit {
        bytes: MAX_LEN,
        what,
    };
    let text = match support::input::read_text(path, limit) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let record: T = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a {what} ({e})", path.display()))?;
    let have = kind_of(&record);
    if have != kind {
        return Err(format!(
            "{}: a {what} of another kind ({have:?}, this trainer writes {kind:?})",
            path.display()
        ));
    }
    Ok(Some(record))
}

/// Writes `record` as pretty JSON and a newline, atomically.
pub(crate) fn write_json(path: &Path, record: &impl Serialize) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(record).expect("a record serializes");
    text.push('\n');
    support::atomic::write_file(path, text.as_bytes())
}

/// The record's path for a round in `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// A command line's settings as recorded: lossless for UTF-8 arguments.
pub fn recorded(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The first difference between a recorded command line and the plan's,
/// as `--seed 5 → 6` (or the two lines when they differ in shape).
pub fn difference(recorded: &[String], planned: &[String]) -> String {
    if recorded.len() == planned.len() {
        if let Some(i) = (0..planned.len()).find(|&i| recorded[i] != planned[i]) {
            let flag = (i > 0 && planned[i - 1].starts_with("--")).then(|| planned[i - 1].as_str());
            return match flag {
                Some(flag) => format!("{flag} {} → {}", recorded[i], planned[i]),
                None => format!("{} → {}", recorded[i], planned[i]),
            };
        }
    }
    format!("`{}` → `{}`", recorded.join(" "), planned.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_in_stage_order_and_names_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        let mut ledger = Ledger::open(&path).unwrap();
        assert!(ledger.stages.is_empty());
        let order = ["a", "b"];
        ledger.set("b", vec!["x".into()], State::Started, &order);
        ledger.set("a", vec!["y".into()], State::Done, &order);
        ledger.set("b", vec!["x".into()], State::Done, &order);
        ledger.save(&path).unwrap();
        let back = Ledger::open(&path).unwrap();
        assert_eq!(back, ledger);
        let names: Vec<&str> = back.stages.iter().map(|e| e.stage.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let old: Vec<String> = ["db", "generate", "--seed", "5"].map(String::from).into();
        let new: Vec<String> = ["db", "generate", "--seed", "6"].map(String::from).into();
        assert_eq!(difference(&old, &new), "--seed 5 → 6");
        std::fs::write(&path, "{\"kind\": \"x\", \"stages\": []}").unwrap();
        assert!(Ledger::open(&path).unwrap_err().contains("another kind"));
    }
}
