//! `bearoff info`.

use crate::json;
use crate::open::open;
use anyhow::Result;
use databases::published::published_md5;
use databases::{Database, Kind, HEADER_LEN};
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use support::cli::Outcome;
use support::digest::md5_hex;

/// A file's MD5 and how it relates to gnubg's published checksums.
pub struct Checksum {
    /// MD5 of the file.
    pub md5: String,
    /// MD5 of the header followed by the file, for headerless files (the
    /// published checksums are of files with a header).
    pub with_header: Option<String>,
    /// The published checksum for this kind, if gnubg's manual lists one.
    pub published: Option<&'static str>,
}

impl Checksum {
    /// Computes the checksums of `db`.
    pub fn of(db: &Database) -> Result<Checksum> {
        let md5 = md5_hex(db.bytes())?;
        let published = published_md5(db.kind());
        let with_header = if db.has_header() || published.is_none() {
            None
        } else {
            let header = db.kind().header();
            Some(md5_hex(header.as_slice().chain(db.bytes()))?)
        };
        Ok(Checksum {
            md5,
            with_header,
            published,
        })
    }

    /// Whether the (header-completed) MD5 equals the published one.
    pub fn matches(&self) -> Option<bool> {
        let ours = self.with_header.as_ref().unwrap_or(&self.md5);
        self.published.map(|p| p == ours)
    }

    /// One line describing the comparison with the published checksum.
    pub fn describe(&self) -> String {
        let via = if self.with_header.is_some() {
            " (with the header prepended)"
        } else {
            ""
        };
        match (self.published, self.matches()) {
            (Some(_), Some(true)) => format!("matches gnubg's published MD5{via}"),
            (Some(p), _) => format!("DIFFERS from gnubg's published MD5 {p}{via}"),
            (None, _) => "gnubg publishes no MD5 for this kind".into(),
        }
    }
}

/// The header text without its `x` padding.
fn header_text(kind: Kind) -> String {
    let h = kind.header();
    String::from_utf8_lossy(&h[..HEADER_LEN - 1])
        .trim_end_matches('x')
        .to_string()
}

fn family(kind: Kind) -> &'static str {
    match kind {
        Kind::OneSided { .. } => "one-sided",
        Kind::NormalDist { .. } => "one-sided normal-distribution",
        Kind::TwoSided { .. } => "two-sided",
        Kind::Hyper { .. } => "Hypergammon",
    }
}

fn describe(db: &Database) -> Result<Value> {
    let kind = db.kind();
    let sum = Checksum::of(db)?;
    let (gammons, compressed, cubeful) = match kind {
        Kind::OneSided {
            gammons,
            compressed,
            ..
        } => (Some(gammons), Some(compressed), None),
        Kind::NormalDist { .. } => (Some(true), Some(false), None),
        Kind::TwoSided { cubeful, .. } => (None, None, Some(cubeful)),
        Kind::Hyper { .. } => (None, None, None),
    };
    Ok(json!({
        "file": db.path().display().to_string(),
        "offset": db.offset_in_file(),
        "kind": family(kind),
        "header": if db.has_header() { Value::from(header_text(kind)) } else { Value::Null },
        "points": kind.points(),
        "chequers": kind.chequers(),
        "gammons": gammons,
        "compressed": compressed,
        "cubeful": cubeful,
        "positions_per_side": db.side_positions(),
        "records": db.records(),
        "size": db.len(),
        "md5": sum.md5,
        "md5_with_header": sum.with_header,
        "published_md5": sum.published,
        "matches_published": sum.matches(),
        "published": sum.describe(),
    }))
}

fn print_text(v: &Value) -> std::io::Result<()> {
    let yn = |v: &Value| match v.as_bool() {
        Some(true) => "yes",
        _ => "no",
    };
    match v["offset"].as_u64() {
        Some(offset) if offset > 0 => support::outln!(
            "File      : {} (the database at byte {offset})",
            v["file"].as_str().unwrap_or_default()
        )?,
        _ => support::outln!("File      : {}", v["file"].as_str().unwrap_or_default())?,
    }
    support::outln!("Kind      : {}", v["kind"].as_str().unwrap_or_default())?;
    match v["header"].as_str() {
        Some(h) => support::outln!("Header    : {h}")?,
        None => support::outln!("Header    : none (read as given by --no-header)")?,
    }
    support::outln!("Points    : {}", v["points"])?;
    support::outln!("Chequers  : {}", v["chequers"])?;
    for flag in ["gammons", "compressed", "cubeful"] {
        if !v[flag].is_null() {
            let name = format!("{}{}", flag[..1].to_uppercase(), &flag[1..]);
            support::outln!("{name:<10}: {}", yn(&v[flag]))?;
        }
    }
    support::outln!("Positions : {} per side", v["positions_per_side"])?;
    support::outln!("Records   : {}", v["records"])?;
    support::outln!("Size      : {} bytes", v["size"])?;
    support::outln!("MD5       : {}", v["md5"].as_str().unwrap_or_default())?;
    support::outln!(
        "Published : {}",
        v["published"].as_str().unwrap_or_default()
    )
}

/// Runs `bearoff info`.
pub fn run(files: &[PathBuf], as_json: bool, kind: Option<Kind>) -> Result<Outcome> {
    let mut all = Vec::new();
    for path in files {
        let first = open(path, kind)?;
        for db in first.all_in_file() {
            all.push(describe(db)?);
        }
    }
    if !as_json {
        for (i, v) in all.iter().enumerate() {
            if i > 0 {
                support::outln!()?;
            }
            print_text(v)?;
        }
    }
    if as_json {
        json::print(&Value::Array(all))?;
    }
    Ok(Outcome::Done)
}
