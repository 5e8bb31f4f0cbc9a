//! gnubg-nn's `.dat` training files (docs/formats.md#training-data-files):
//! data lines `KEY p0 p1 p2 p3 p4`, the key as 20 letters `A`–`P`.

use board::Probabilities;

/// Largest `.dat` file read (about 70 bytes a position: some 30 million
/// positions, held in memory).
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

/// Longest `.dat` line read (a data line has about 70 bytes): a file
/// without line breaks (binary data, NUL bytes) is refused at its first
/// line, in bounded memory.
pub const MAX_LINE: usize = 4096;

/// Parses a `.dat` text: the data lines (a capital letter first) as keys
/// and five targets; comments (`#` first, after any blanks) and blank
/// lines are skipped. Any other line, a malformed data line, or one whose
/// targets are not probabilities ([`crate::positions::db::check_targets`])
/// is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<([u8; 10], Probabilities)>, ReadCause> {
    Ok(parse_lines(text.as_bytes())?
        .into_iter()
        .map(|(_, key, targets)| (key, targets))
        .collect())
}

/// [`parse`] of what `reader` reads, line by line (each at most
/// [`MAX_LINE`] bytes), each data line with its 1-based line number.
fn parse_lines(
    mut reader: impl std::io::BufRead,
) -> Result<Vec<(usize, [u8; 10], Probabilities)>, ReadCause> {
    use std::io::{BufRead, Read};
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)?;
        if read == 0 {
            break;
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        let bad = |why: String| DatError { line: n, why };
        if buf.contains(&0) {
            return Err(bad("a NUL byte: not a text file".into()).into());
        }
        if buf.len() > MAX_LINE {
            return Err(bad(format!("longer than {MAX_LINE} bytes: not a .dat line")).into());
        }
        let line = std::str::from_utf8(&buf).map_err(|_| bad("not UTF-8 text".into()))?;
        // A byte-order mark some editors put first is not a character.
        let line = if n == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if let Some((key, targets)) = parse_line(line).map_err(bad)? {
            out.push((n, key, targets));
        }
    }
    Ok(out)
}

/// One line: a data line's key and targets, `None` for a comment or a
/// blank line; what is wrong with any other line.
fn parse_line(line: &str) -> Result<Option<([u8; 10], Probabilities)>, String> {
    let start = line.trim_start();
    if start.is_empty() || start.starts_with('#') {
        return Ok(None);
    }
    if !line.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Err(format!(
            "{:?} is not a data line (KEY p0 p1 p2 p3 p4, the key first), a # comment \
             or a blank line",
            support::stdio::shorten(line, 40)
        ));
    }
    let mut fields = line.split_ascii_whitespace();
    let key = fields
        .next()
        .and_then(letters_to_key)
        .ok_or("the key must be 20 letters A–P")?;
    let mut targets = [0f32; 5];
    for t in &mut targets {
        let field = fields
            .next()
            .ok_or("fewer than five targets after the key")?;
        *t = field
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{:?} is not a number", support::stdio::shorten(field, 40)))?;
    }
    crate::positions::db::check_targets(&targets)?;
    Ok(Some((key, targets)))
}

/// A `.dat` text (read from `reader`) as position-database records with
/// targets, classed by `bearoff`, and the number of repeated keys skipped
/// (the first line of a key is kept). A line that is not a `.dat` line
/// ([`parse`]), a key that is not a legal position, or a text without
/// positions is an error.
pub fn records(
    reader: impl std::io::BufRead,
    bearoff: &nets::BearoffDatabases,
) -> Result<(Vec<crate::positions::db::Record>, usize), ReadCause> {
    use crate::positions::db::{Record, HAS_TARGETS};
    let rows = parse_lines(reader)?;
    if rows.is_empty() {
        return Err(ReadCause::NoPositions);
    }
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
    /// Not one data line.
    #[error("no positions: not a gnubg-nn .dat file (its data lines are KEY p0 p1 p2 p3 p4)")]
    NoPositions,
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
    let (file, len) = support::input::open(path).map_err(|e| fail(e.into()))?;
    if len > LIMIT.bytes {
        let why = format!(
            "larger than any {} ({} at most)",
            LIMIT.what,
            support::stdio::human(LIMIT.bytes)
        );
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
        return Err(fail(e.into()));
    }
    // Read line by line: a file that is not text stops at its first line.
    let reader = std::io::BufReader::with_capacity(1 << 20, std::io::Read::take(file, LIMIT.bytes));
    let (records, duplicates) = records(reader, bearoff).map_err(fail)?;
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

    /// The line and message of a text's error.
    fn error(text: &[u8]) -> (usize, String) {
        match parse_lines(text) {
            Err(ReadCause::Dat(e)) => (e.line, e.why),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn starting_position_key() {
        let key = board::Board::starting().id_bytes();
        assert_eq!(key_to_letters(&key), "OAHDPAABDAOAHDPAABDA");
        assert_eq!(letters_to_key("OAHDPAABDAOAHDPAABDA"), Some(key));
        assert_eq!(letters_to_key("OAHDPAABDAOAHDPAABDQ"), None);
    }

    #[test]
    fn parse_skips_comments_and_names_bad_lines() {
        let text = "# comment\n\n  # indented\r\n \t\nOAHDPAABDAOAHDPAABDA 0.52151 0.15391 0.00756 0.12985 0.00755 extra\r\n";
        let v = parse(text).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].1[0], 0.52151);
        let data = &text[text.find("OAHD").unwrap()..];
        assert_eq!(parse(&format!("\u{feff}{data}")).unwrap(), v);
        assert_eq!(error(b"# x\nOAHDPAABDAOAHDPAABDA 0.5 0.1\n").0, 2);
        assert!(parse("OAHDPAAB 0.5 0.1 0 0 0\n").is_err());
        assert!(error(b"OAHDPAABDAOAHDPAABDA 0.5 x 0 0 0\n")
            .1
            .contains("\"x\""));
        let (line, why) = error(b"# x\n\nOAHDPAABDAOAHDPAABDA 0.3 0.9 0 0 0\n");
        assert_eq!(line, 3);
        assert!(why.contains("more than the win target"), "{why}");
    }

    #[test]
    fn lines_that_are_not_dat_lines_are_refused_at_once() {
        let start = "OAHDPAABDAOAHDPAABDA 0.5 0.1 0 0.1 0\n";
        let (line, why) = error(format!("{start}hello\n").as_bytes());
        assert_eq!(line, 2);
        assert!(why.contains("\"hello\" is not a data line"), "{why}");
        assert!(error(format!(" {start}").as_bytes())
            .1
            .contains("not a data line"));
        assert_eq!(
            error(b"\0\0\0\n"),
            (1, "a NUL byte: not a text file".into())
        );
        assert!(error(b"# \xff\xfe\n").1.contains("not UTF-8"));
        // No line break in sight: refused after MAX_LINE bytes, not read on.
        let mut endless = std::io::Read::take(std::io::repeat(b'A'), 1 << 40);
        let reader = std::io::BufReader::new(&mut endless);
        match parse_lines(reader) {
            Err(ReadCause::Dat(e)) => assert!(e.why.contains("longer than"), "{}", e.why),
            other => panic!("{other:?}"),
        }
        assert!(endless.limit() > (1 << 40) - (1 << 20), "read on");
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
        std::fs::write(&path, "# only a comment\n\n").unwrap();
        let e = read(&path, &bearoff).unwrap_err();
        assert!(matches!(e.error, ReadCause::NoPositions), "{e:?}");
    }

    #[test]
    fn records_keep_the_first_of_a_key_and_name_an_impossible_position() {
        let bearoff = nets::BearoffDatabases::open(&[test_support::GNUBG_OS0]).unwrap();
        let start = "OAHDPAABDAOAHDPAABDA 0.52151 0.15391 0.00756 0.12985 0.00755\n";
        let text = format!("# header\n{start}{start}");
        let (kept, duplicates) = records(text.as_bytes(), &bearoff).unwrap();
        assert_eq!((kept.len(), duplicates), (1, 1));
        assert_eq!(kept[0].class(), nets::Class::Contact);
        assert!(kept[0].has_targets());
        // Every bit set: far more than 15 chequers a side.
        let bad = format!("{start}PPPPPPPPPPPPPPPPPPPP 0.5 0 0 0 0\n");
        match records(bad.as_bytes(), &bearoff) {
            Err(ReadCause::Dat(e)) => {
                assert_eq!(e.line, 2);
                assert!(e.why.contains("not a position"), "{}", e.why);
            }
            other => panic!("{other:?}"),
        }
    }
}
