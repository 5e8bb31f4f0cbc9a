//! The 40-byte ASCII header of gnubg database files (docs/formats.md#database-header).

use std::fmt;

/// Length of every header, including its trailing newline.
pub const HEADER_LEN: usize = 40;

/// What a database file contains, as its header (or the caller) describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One-sided exact distributions, 15 chequers on `points` points.
    OneSided {
        /// Points covered (1..=18 is what the index supports).
        points: u8,
        /// Gammon (first-chequer-off) distributions stored too.
        gammons: bool,
        /// Compressed layout (index + windows).
        compressed: bool,
    },
    /// One-sided normal-distribution approximation: four f32 per position.
    NormalDist {
        /// Points covered.
        points: u8,
    },
    /// Two-sided equities, up to `chequers` chequers per side on `points` points.
    TwoSided {
        /// Points covered.
        points: u8,
        /// Chequers per side.
        chequers: u8,
        /// Four cubeful values per record (else cubeless only).
        cubeful: bool,
    },
    /// Hypergammon with 1..=3 chequers per side.
    Hyper {
        /// Chequers per side.
        chequers: u8,
    },
}

/// Why a header is not one gnubg would read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// Fewer than 40 bytes.
    #[error("file too short for a 40-byte database header")]
    Short,
    /// Does not start with `gnubg`.
    #[error("not a gnubg database (header does not start with \"gnubg\")")]
    Magic,
    /// Neither `OS`, `TS` nor `H`.
    #[error("unknown database type in header ({0:?})")]
    UnknownType(String),
    /// A numeric field is out of range.
    #[error("header field {field} has invalid value {value}")]
    Field {
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: i64,
    },
}

/// C `atoi` on a byte slice: optional sign, digits, stops at the first non-digit.
fn atoi(bytes: &[u8]) -> i64 {
    let mut it = bytes.iter().peekable();
    let neg = match it.peek() {
        Some(b'-') => {
            it.next();
            true
        }
        Some(b'+') => {
            it.next();
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for &b in it {
        if !b.is_ascii_digit() || v > 1_000_000 {
            break;
        }
        v = v * 10 + i64::from(b - b'0');
    }
    if neg {
        -v
    } else {
        v
    }
}

impl Kind {
    /// The exact 40-byte header gnubg's tools write for this kind.
    pub fn header(&self) -> [u8; HEADER_LEN] {
        let text = match *self {
            Kind::OneSided {
                points,
                gammons,
                compressed,
            } => format!(
                "gnubg-OS-{:02}-15-{}-{}-0",
                points,
                u8::from(gammons),
                u8::from(compressed)
            ),
            Kind::NormalDist { points } => format!("gnubg-OS-{points:02}-15-1-0-1"),
            Kind::TwoSided {
                points,
                chequers,
                cubeful,
            } => format!("gnubg-TS-{points:02}-{chequers:02}-{}", u8::from(cubeful)),
            Kind::Hyper { chequers } => format!("gnubg-H{chequers}"),
        };
        let mut out = [b'x'; HEADER_LEN];
        out[..text.len()].copy_from_slice(text.as_bytes());
        out[HEADER_LEN - 1] = b'\n';
        out
    }

    /// Parses a header the way gnubg's reader does, with range checks on
    /// the fields gnubg validates and on the flags (which must be 0 or 1).
    ///
    /// ```
    /// use databases::header::{HeaderError, Kind};
    ///
    /// // The header of gnubg_os0.bd.
    /// let header = b"gnubg-OS-06-15-1-1-0xxxxxxxxxxxxxxxxxxx\n";
    /// let kind = Kind::parse(header)?;
    /// assert_eq!(kind, Kind::OneSided { points: 6, gammons: true, compressed: true });
    /// assert_eq!(kind.side_positions(), 54_264);
    /// assert_eq!(&kind.header(), header);
    /// assert_eq!(
    ///     kind.to_string(),
    ///     "one-sided, 6 points, 15 chequers, gammons yes, compressed yes"
    /// );
    ///
    /// assert_eq!(Kind::parse(b"gnubg-OS-06"), Err(HeaderError::Short));
    /// let mut other = *header;
    /// other[..5].copy_from_slice(b"GNUBG");
    /// assert_eq!(Kind::parse(&other), Err(HeaderError::Magic));
    /// # Ok::<(), HeaderError>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Kind, HeaderError> {
        if bytes.len() < HEADER_LEN {
            return Err(HeaderError::Short);
        }
        if &bytes[..5] != b"gnubg" {
            return Err(HeaderError::Magic);
        }
        let field = |name: &'static str, at: usize, lo: i64, hi: i64| {
            let value = atoi(&bytes[at..HEADER_LEN]);
            if (lo..=hi).contains(&value) {
                Ok(value as u8)
            } else {
                Err(HeaderError::Field { field: name, value })
            }
        };
        match &bytes[6..8] {
            b"TS" | b"OS" => {
                let points = field("points", 9, 1, 23)?;
                let chequers = field("chequers", 12, 1, 15)?;
                if &bytes[6..8] == b"TS" {
                    let cubeful = field("cubeful flag", 15, 0, 1)? == 1;
                    return Ok(Kind::TwoSided {
                        points,
                        chequers,
                        cubeful,
                    });
                }
                if chequers != 15 {
                    return Err(HeaderError::Field {
                        field: "chequers",
                        value: chequers.into(),
                    });
                }
                let gammons = field("gammon flag", 15, 0, 1)? == 1;
                let compressed = field("compression flag", 17, 0, 1)? == 1;
                let normal = field("normal-distribution flag", 19, 0, 1)? == 1;
                Ok(if normal {
                    Kind::NormalDist { points }
                } else {
                    Kind::OneSided {
                        points,
                        gammons,
                        compressed,
                    }
                })
            }
            [b'H', _] => Ok(Kind::Hyper {
                chequers: field("chequers", 7, 1, 3)?,
            }),
            other => Err(HeaderError::UnknownType(
                String::from_utf8_lossy(other).into_owned(),
            )),
        }
    }

    /// Points per side covered by the index (25 for Hypergammon).
    pub fn points(&self) -> usize {
        match *self {
            Kind::OneSided { points, .. }
            | Kind::NormalDist { points }
            | Kind::TwoSided { points, .. } => points.into(),
            Kind::Hyper { .. } => 25,
        }
    }

    /// Chequers per side.
    pub fn chequers(&self) -> usize {
        match *self {
            Kind::OneSided { .. } | Kind::NormalDist { .. } => 15,
            Kind::TwoSided { chequers, .. } | Kind::Hyper { chequers } => chequers.into(),
        }
    }

    /// One-sided positions per side: `C(points + chequers, points)`.
    pub fn side_positions(&self) -> usize {
        board::bearoff_index::position_count(self.points(), self.chequers())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yn = |b: bool| if b { "yes" } else { "no" };
        match *self {
            Kind::OneSided {
                points,
                gammons,
                compressed,
            } => write!(
                f,
                "one-sided, {points} points, 15 chequers, gammons {}, compressed {}",
                yn(gammons),
                yn(compressed)
            ),
            Kind::NormalDist { points } => {
                write!(
                    f,
                    "one-sided normal-distribution, {points} points, 15 chequers"
                )
            }
            Kind::TwoSided {
                points,
                chequers,
                cubeful,
            } => write!(
                f,
                "two-sided, {points} points, {chequers} chequers, {}",
                if cubeful { "cubeful" } else { "cubeless" }
            ),
            Kind::Hyper { chequers } => write!(f, "Hypergammon, {chequers} chequers"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_match_spec_examples() {
        let os = Kind::OneSided {
            points: 6,
            gammons: true,
            compressed: true,
        };
        assert_eq!(&os.header(), b"gnubg-OS-06-15-1-1-0xxxxxxxxxxxxxxxxxxx\n");
        let ts = Kind::TwoSided {
            points: 6,
            chequers: 8,
            cubeful: true,
        };
        assert_eq!(&ts.header(), b"gnubg-TS-06-08-1xxxxxxxxxxxxxxxxxxxxxxx\n");
        let h = Kind::Hyper { chequers: 3 };
        assert_eq!(&h.header(), b"gnubg-H3xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
        let nd = Kind::NormalDist { points: 13 };
        assert_eq!(&nd.header(), b"gnubg-OS-13-15-1-0-1xxxxxxxxxxxxxxxxxxx\n");
        for k in [os, ts, h, nd] {
            assert_eq!(Kind::parse(&k.header()), Ok(k));
        }
    }

    #[test]
    fn rejects_bad_headers() {
        assert_eq!(Kind::parse(b"gnubg"), Err(HeaderError::Short));
        let mut h = Kind::Hyper { chequers: 2 }.header();
        h[0] = b'G';
        assert_eq!(Kind::parse(&h), Err(HeaderError::Magic));
        let mut h = Kind::Hyper { chequers: 2 }.header();
        h[6] = b'Q';
        assert!(matches!(Kind::parse(&h), Err(HeaderError::UnknownType(_))));
        let mut h = Kind::TwoSided {
            points: 6,
            chequers: 6,
            cubeful: true,
        }
        .header();
        h[9] = b'9';
        h[10] = b'9';
        assert!(matches!(Kind::parse(&h), Err(HeaderError::Field { .. })));
    }
}
