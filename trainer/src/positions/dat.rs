//! gnubg-nn's `.dat` training files (docs/formats.md#training-data-files):
//! data lines `KEY p0 p1 p2 p3 p4`, the key as 20 letters `A`–`P`.

use board::Probabilities;

/// Largest `.dat` file read (about 70 bytes a position: some 30 million
/// positions, read into memory whole).
pub const LIMIT: support::input::Limit = support::input::Limit {
    bytes: 2 << 30,
    what: "gnubg-nn .dat file",
};

/// A `.dat` line that is not data.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct DatError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub why: String,
}

/// The 20 letters of a key: each byte as `'A' + high nibble`, `'A' + low`.
pub fn key_to_letters(key: &[u8; 10]) -> String {
    key.iter()
        .flat_map(|b| [char::from(b'A' + (b >> 4)), char::from(b'A' + (b & 15))])
        .collect()
}

/// The key of 20 letters `A`–`P`.
pub fn letters_to_key(letters: &str) -> Option<[u8; 10]> {
    let b = letters.as_bytes();
    if b.len() != 20 || !b.iter().all(|c| (b'A'..=b'P').contains(c)) {
        return None;
    }
    Some(std::array::from_fn(|i| {
        ((b[2 * i] - b'A') << 4) | (b[2 * i + 1] - b'A')
    }))
}

/// Parses a `.dat` text: the data lines (a capital letter first) as keys
/// and five targets; other lines (comments, blank) are skipped. A data
/// line that is malformed, or whose targets are not probabilities
/// ([`crate::positions::db::check_targets`]), is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<([u8; 10], Probabilities)>, DatError> {
    Ok(parse_lines(text)?
        .into_iter()
        .map(|(_, key, targets)| (key, targets))
        .collect())
}

/// [`parse`], each data line with its 1-based line number.
fn parse_lines(text: &str) -> Result<Vec<(usize, [u8; 10], Probabilities)>, DatError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if !line.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let bad = |why: &str| DatError {
            line: n + 1,
            why: why.to_string(),
        };
        let mut fields = line.split_ascii_whitespace();
        let key = fields
            .next()
            .and_then(letters_to_key)
            .ok_or_else(|| bad("the key must be 20 letters A–P"))?;
        let mut targets = [0f32; 5];
        for t in &mut targets {
            let field = fields
                .next()
                .ok_or_else(|| bad("fewer than five targets after the key"))?;
            *t = field
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(&format!("{field:?} is not a number")))?;
        }
        crate::positions::db::check_targets(&targets).map_err(|why| bad(&why))?;
        out.push((n + 1, key, targets));
    }
    Ok(out)
}

/// A `.dat` text as position-database records with targets, classed by
/// `bearoff`, and the number of repeated keys skipped (the first line of a
/// key is kept). A malformed data line, or a key that is not a legal
/// position, is an error naming its line.
pub fn records(
    text: &str,
    bearoff: &nets::BearoffDatabases,
) -> Result<(Vec<crate::positions::db::Record>, usize), DatError> {
    use crate::positions::db::{Record, HAS_TARGETS};
    let rows = parse_lines(text)?;
    let mut seen = std::collections::HashSet::new();
    let mut records = Vec::with_capacity(rows.len());
    let mut duplicates = 0;
    for (line, key, targets) in rows {
        let board = board::Board::from_id_bytes(&key).map_err(|e| DatError {
            line,
            why: format!("not a position ({e})"),
        })?;
        if !seen.insert(key) {
            duplicates += 1;
            continue;
        }
        let mut r = Record::new(key, nets::classify(&board, bearoff));
        r.flags = HAS_TARGETS;
        r.targets = targets;
        r.equity = board::cubeless_equity(&targets);
        records.push(r);
    }
    Ok((records, duplicates))
}

/// Why a `.dat` file could not be read: its path, then the cause.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct ReadError {
    /// The file.
    pub path: std::path::PathBuf,
    /// What went wrong.
    #[source]
    pub error: ReadCause,
}

/// What went wrong reading a `.dat` file.
#[derive(Debug, thiserror::Error)]
pub enum ReadCause {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line is not data.
    #[error(transparent)]
    Dat(#[from] DatError),
}

/// The `.dat` file at `path` as a database (classes from `bearoff`), and
/// the number of repeated keys skipped ([`records`]).
pub fn read(
    path: &std::path::Path,
    bearoff: &nets::BearoffDatabases,
) -> Result<(crate::positions::db::PositionDb, usize), ReadError> {
    let fail = |error: ReadCause| ReadError {
        path: path.to_owned(),
        error,
    };
    let text = support::input::read_text(path, LIMIT).map_err(|e| fail(e.into()))?;
    let (records, duplicates) = records(&text, bearoff).map_err(|e| fail(e.into()))?;
    Ok((records.into(), duplicates))
}

/// One data line, targets with five decimals (as gnubg-nn writes them).
pub fn line(key: &[u8; 10], targets: &Probabilities) -> String {
    let mut s = key_to_letters(key);
    for t in targets {
        s.push_str(&format!(" {t:.5}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_position_key() {
        let key = board::Board::starting().id_bytes();
        assert_eq!(key_to_letters(&key), "OAHDPAABDAOAHDPAABDA");
        assert_eq!(letters_to_key("OAHDPAABDAOAHDPAABDA"), Some(key));
        assert_eq!(letters_to_key("OAHDPAABDAOAHDPAABDQ"), None);
    }

    #[test]
    fn parse_skips_comments_and_names_bad_lines() {
        let text =
            "# comment\n\nOAHDPAABDAOAHDPAABDA 0.52151 0.15391 0.00756 0.12985 0.00755 extra\n";
        let v = parse(text).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].1[0], 0.52151);
        let e = parse("# x\nOAHDPAABDAOAHDPAABDA 0.5 0.1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(parse("OAHDPAAB 0.5 0.1 0 0 0\n").is_err());
        assert!(parse("OAHDPAABDAOAHDPAABDA 0.5 x 0 0 0\n")
            .unwrap_err()
            .why
            .contains("\"x\""));
        let e = parse("# x\n\nOAHDPAABDAOAHDPAABDA 0.3 0.9 0 0 0\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.why.contains("more than the win target"), "{}", e.why);
    }

    #[test]
    fn read_names_the_file_once_then_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.dat");
        std::fs::write(&path, "# x\nOAHDPAABDAOAHDPAABDA 0.5 0.1\n").unwrap();
        let bearoff = nets::BearoffDatabases::open(&[test_support::GNUBG_OS0]).unwrap();
        let e = read(&path, &bearoff).unwrap_err();
        assert_eq!(e.to_string(), path.display().to_string());
        assert!(e.error.to_string().starts_with("line 2: "), "{}", e.error);
        let e = read(&dir.path().join("missing.dat"), &bearoff).unwrap_err();
        assert!(matches!(e.error, ReadCause::Io(_)));
    }

    #[test]
    fn records_keep_the_first_of_a_key_and_name_an_impossible_position() {
        let bearoff = nets::BearoffDatabases::open(&[test_support::GNUBG_OS0]).unwrap();
        let start = "OAHDPAABDAOAHDPAABDA 0.52151 0.15391 0.00756 0.12985 0.00755\n";
        let text = format!("# header\n{start}{start}");
        let (kept, duplicates) = records(&text, &bearoff).unwrap();
        assert_eq!((kept.len(), duplicates), (1, 1));
        assert_eq!(kept[0].class(), nets::Class::Contact);
        assert!(kept[0].has_targets());
        // Every bit set: far more than 15 chequers a side.
        let bad = format!("{start}PPPPPPPPPPPPPPPPPPPP 0.5 0 0 0 0\n");
        let e = records(&bad, &bearoff).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.why.contains("not a position"), "{}", e.why);
    }
}
