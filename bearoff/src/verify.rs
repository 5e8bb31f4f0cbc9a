//! `bearoff verify`.

use crate::info::Checksum;
use crate::open::open;
use anyhow::Result;
use databases::verify::first_bad_record;
use databases::{Database, Kind};
use indicatif::{ProgressBar, ProgressStyle};
use makebearoff::regenerate::first_difference;
use std::path::{Path, PathBuf};
use support::cli::Outcome;

/// Files with at least this many records get a progress bar (when stderr is
/// a terminal).
const PROGRESS_RECORDS: usize = 1 << 20;

fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {percent:>3}% {elapsed_precise} (eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Names a record with its Position ID.
fn record_name(db: &Database, index: u64) -> String {
    match db.pair_at(index) {
        Ok(pair) => format!("record {index} (Position ID {})", pair.board.position_id()),
        Err(_) => format!("record {index}"),
    }
}

/// Checks one file (each database in it); returns its problems (empty if
/// it is good) and a summary of what was checked.
fn check(path: &Path, regenerate: bool, kind: Option<Kind>) -> Result<(Vec<String>, String)> {
    let first = open(path, kind)?;
    let mut problems = Vec::new();
    let mut summaries = Vec::new();
    for d in first.all_in_file() {
        let (found, summary) = check_database(d, regenerate)?;
        let at = |text: String| match d.offset_in_file() {
            0 => text,
            offset => format!("database at byte {offset}: {text}"),
        };
        problems.extend(found.into_iter().map(at));
        summaries.push(at(summary));
    }
    Ok((problems, summaries.join("; then ")))
}

/// Checks one database: its records' structure, its MD5 against the
/// published ones and, when asked, the bytes of a regenerated database.
fn check_database(db: &Database, regenerate: bool) -> Result<(Vec<String>, String)> {
    let mut problems = Vec::new();
    let progress =
        (db.records() >= PROGRESS_RECORDS).then(|| bar(db.records() as u64, "checking records"));
    let bad = first_bad_record(db, &|n| {
        if let Some(p) = &progress {
            p.inc(n)
        }
    });
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    let structure_ok = bad.is_none();
    if let Some(bad) = bad {
        problems.push(format!("{}: {}", record_name(db, bad.index), bad.problem));
    }
    let sum = Checksum::of(db)?;
    if sum.matches() == Some(false) {
        problems.push(format!("md5 {} {}", sum.md5, sum.describe()));
    }
    if regenerate && structure_ok {
        let p = bar(0, "regenerating");
        let diff = first_difference(db, &mut |done, total| {
            p.set_length(total as u64);
            p.set_position(done as u64);
        });
        p.finish_and_clear();
        match diff.map_err(anyhow::Error::msg)? {
            None => {}
            Some(d) => problems.push(match d.record {
                Some(r) => format!(
                    "{} differs from the regenerated database (first at byte {})",
                    record_name(db, r),
                    d.offset
                ),
                None => format!("differs from the regenerated database at byte {}", d.offset),
            }),
        }
    }
    let mut summary = format!("{} records of a {} database", db.records(), db.kind());
    match sum.matches() {
        Some(true) => summary.push_str(", md5 matches gnubg's published checksum"),
        Some(false) => {}
        None => summary.push_str(", no published md5"),
    }
    if regenerate {
        summary.push_str(", identical to the regenerated database");
    }
    Ok((problems, summary))
}

/// Runs `bearoff verify`: one line per file, `FILE: OK (…)` or
/// `FILE: FAILED: …`.
pub fn run(files: &[PathBuf], regenerate: bool, kind: Option<Kind>) -> Result<Outcome> {
    let mut outcome = Outcome::Done;
    for path in files {
        let name = path.display();
        match check(path, regenerate, kind) {
            Ok((problems, summary)) if problems.is_empty() => {
                support::outln!("{name}: OK ({summary})")?
            }
            Ok((problems, _)) => {
                support::outln!("{name}: FAILED: {}", problems.join("; "))?;
                outcome = Outcome::Failed;
            }
            Err(e) => {
                let message = format!("{e:#}").replace('\n', " ");
                let prefix = format!("{name}: ");
                let message = message.strip_prefix(&prefix).unwrap_or(&message);
                support::outln!("{name}: FAILED: {message}")?;
                outcome = Outcome::Failed;
            }
        }
    }
    Ok(outcome)
}
