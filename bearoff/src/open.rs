//! Opening files, and the `--no-header KIND` syntax.

use anyhow::Result;
use databases::reader::check_kind;
use databases::{Database, Kind, HEADER_LEN};
use std::path::Path;

/// Opens a database, headerless as `kind` if given.
pub fn open(path: &Path, kind: Option<Kind>) -> Result<Database> {
    Ok(Database::open_as(path, kind)?)
}

/// Parses a `--no-header` kind: `os:P[:no-gammon][:no-compress]`, `nd:P`,
/// `ts:PxC[:no-cubeful]`, `hyper:C`, or a header text starting with `gnubg`.
pub fn parse_kind(text: &str) -> Result<Kind, String> {
    let kind = if text.starts_with("gnubg") {
        if text.len() >= HEADER_LEN {
            return Err(format!(
                "header text is longer than {} bytes",
                HEADER_LEN - 1
            ));
        }
        let mut header = [b'x'; HEADER_LEN];
        header[..text.len()].copy_from_slice(text.as_bytes());
        header[HEADER_LEN - 1] = b'\n';
        Kind::parse(&header).map_err(|e| e.to_string())?
    } else {
        parse_short(text)?
    };
    check_kind(kind).map_err(|e| e.to_string())?;
    Ok(kind)
}

fn number(text: &str, what: &str) -> Result<u8, String> {
    text.parse().map_err(|_| {
        format!(
            "invalid {what} {:?} in kind",
            support::stdio::shorten(text, 20)
        )
    })
}

fn parse_short(text: &str) -> Result<Kind, String> {
    let mut parts = text.split(':');
    let family = parts.next().unwrap_or_default();
    let size = parts.next().ok_or_else(|| {
        format!(
            "kind {:?} needs a size, e.g. os:6, ts:6x6, hyper:3",
            support::stdio::shorten(text, 20)
        )
    })?;
    let flags: Vec<&str> = parts.collect();
    let allow = |ok: &[&str]| -> Result<(), String> {
        match flags.iter().find(|f| !ok.contains(f)) {
            Some(f) => Err(format!("unknown flag {f:?} for kind {family:?}")),
            None => Ok(()),
        }
    };
    match family {
        "os" => {
            allow(&["no-gammon", "no-compress"])?;
            Ok(Kind::OneSided {
                points: number(size, "number of points")?,
                gammons: !flags.contains(&"no-gammon"),
                compressed: !flags.contains(&"no-compress"),
            })
        }
        "nd" => {
            allow(&[])?;
            Ok(Kind::NormalDist {
                points: number(size, "number of points")?,
            })
        }
        "ts" => {
            allow(&["no-cubeful"])?;
            let (p, c) = size
                .split_once('x')
                .ok_or_else(|| format!("two-sided size {size:?} must be PxC, e.g. 6x6"))?;
            Ok(Kind::TwoSided {
                points: number(p, "number of points")?,
                chequers: number(c, "number of chequers")?,
                cubeful: !flags.contains(&"no-cubeful"),
            })
        }
        "hyper" => {
            allow(&[])?;
            Ok(Kind::Hyper {
                chequers: number(size, "number of chequers")?,
            })
        }
        _ => Err(format!(
            "unknown kind {family:?}: use os, nd, ts, hyper or a gnubg header text"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            parse_kind("os:6"),
            Ok(Kind::OneSided {
                points: 6,
                gammons: true,
                compressed: true
            })
        );
        assert_eq!(
            parse_kind("os:4:no-compress:no-gammon"),
            Ok(Kind::OneSided {
                points: 4,
                gammons: false,
                compressed: false
            })
        );
        assert_eq!(
            parse_kind("ts:6x6:no-cubeful"),
            Ok(Kind::TwoSided {
                points: 6,
                chequers: 6,
                cubeful: false
            })
        );
        assert_eq!(parse_kind("hyper:2"), Ok(Kind::Hyper { chequers: 2 }));
        assert_eq!(
            parse_kind("gnubg-OS-04-15-1-0-1"),
            Ok(Kind::NormalDist { points: 4 })
        );
        for bad in [
            "os", "os:x", "os:6:zip", "ts:6", "hyper:4", "os:24", "xx:1", "gnubg-Q",
        ] {
            assert!(parse_kind(bad).is_err(), "{bad}");
        }
    }
}
