//! Opening database files: memory-mapped, kind detected from the 40-byte
//! header (or given by the caller for files written with `-H`), and validated
//! against that kind before any record is read, so that record access can
//! never read outside the file.

use crate::distribution::Distribution;
use crate::header::{HeaderError, Kind, HEADER_LEN};
use crate::problem::{fail, Problem};
use crate::record::Record;
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files up to this size are read into memory instead of being mapped.
const READ_LIMIT: u64 = 1 << 16;

/// Why a database file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error (part of the message, so not a `source`).
        error: std::io::Error,
    },
    /// The path is a directory or another non-regular file.
    #[error("{}: {what}", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The header is not a gnubg header.
    #[error("{}: {error}", path.display())]
    Header {
        /// The file.
        path: PathBuf,
        /// What is wrong (part of the message, so not a `source`).
        error: HeaderError,
    },
    /// The size or index does not fit the header.
    #[error("{}: {what}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: Problem,
    },
}

/// Why a lookup found no record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The index is not below the number of records.
    #[error("index {index} is out of range: the database has {count} records (0..={last})", last = count.saturating_sub(1))]
    IndexOutOfRange {
        /// The index asked for.
        index: u64,
        /// Records in the database.
        count: u64,
    },
    /// The position is not covered by the database.
    #[error("position is not in this database: {0}")]
    NotCovered(String),
}

/// The file's bytes: mapped, or read into memory for small files.
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(v) => v,
        }
    }
}

/// Maps `file` read-only.
#[allow(unsafe_code)]
fn map(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the file is opened read-only and mapped read-only; the map is
    // owned by the `Database` and every slice handed out borrows the
    // `Database`, so no reference outlives the map. Another process
    // truncating or rewriting the file while it is open is outside this
    // reader's contract (documented on `Database::open`): the bytes could
    // change under us or the access could fault.
    unsafe { Mmap::map(file) }
}

/// A validated database file.
pub struct Database {
    name: PathBuf,
    kind: Kind,
    /// The whole file; this database is `bytes[base..end]`.
    bytes: Arc<Bytes>,
    base: usize,
    end: usize,
    /// A database written after this one in the same file (makebearoff
    /// with both `-o` and `-t` writes the two-sided one after the
    /// one-sided one).
    next: Option<Box<Database>>,
    /// Offset of the first byte after the header (0 for headerless files).
    start: usize,
    positions: usize,
    records: usize,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("len", &self.len())
            .field("header", &self.has_header())
            .finish()
    }
}

/// Why a database's size does not fit its header.
enum SizeError {
    /// Longer than the database: `own_len` bytes are the database (a second
    /// one may follow).
    TooLong { own_len: usize, problem: Problem },
    /// Anything else.
    Invalid(Problem),
}
use SizeError::{Invalid, TooLong};

/// Checks that a kind given by a caller (or a header) is one the formats
/// allow, so that its sizes can be computed.
pub fn check_kind(kind: Kind) -> Result<(), Problem> {
    let bad = |what: &str, v: u8| fail(format!("invalid {what} {v} for a {kind} database"));
    match kind {
        Kind::OneSided { points, .. } | Kind::NormalDist { points }
            if !(1..=23).contains(&points) =>
        {
            bad("number of points", points)
        }
        Kind::TwoSided {
            points, chequers, ..
        } => {
            if !(1..=23).contains(&points) {
                bad("number of points", points)
            } else if !(1..=15).contains(&chequers) {
                bad("number of chequers", chequers)
            } else {
                Ok(())
            }
        }
        Kind::Hyper { chequers } if !(1..=3).contains(&chequers) => {
            bad("number of chequers", chequers)
        }
        _ => Ok(()),
    }
}

/// Bytes per fixed-size record, `None` for the compressed layout.
pub fn record_len(kind: Kind) -> Option<usize> {
    match kind {
        Kind::OneSided {
            compressed: true, ..
        } => None,
        Kind::OneSided { gammons, .. } => Some(if gammons { 128 } else { 64 }),
        Kind::NormalDist { .. } => Some(16),
        Kind::TwoSided { cubeful, .. } => Some(if cubeful { 8 } else { 2 }),
        Kind::Hyper { .. } => Some(28),
    }
}

/// Whether records are pairs (side on roll, opponent) rather than one side.
pub fn is_two_sided(kind: Kind) -> bool {
    matches!(kind, Kind::TwoSided { .. } | Kind::Hyper { .. })
}

impl Database {
    /// Opens and validates a database file with a gnubg header.
    ///
    /// The file is memory-mapped (small files are read): it must not be
    /// truncated or rewritten by another process while the `Database` lives.
    ///
    /// ```
    /// use databases::{Database, Kind};
    ///
    /// // What `makebearoff -t 1x1 -C -f ts1x1.bd` writes (see the crate's
    /// // example).
    /// let kind = Kind::TwoSided { points: 1, chequers: 1, cubeful: false };
    /// let mut bytes = kind.header().to_vec();
    /// for u in [0xFFFF_u16, 0xFFFF, 0x0000, 0xFFFF] {
    ///     bytes.extend_from_slice(&u.to_le_bytes());
    /// }
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("ts1x1.bd");
    /// std::fs::write(&path, &bytes)?;
    ///
    /// let db = Database::open(&path)?;
    /// assert_eq!((db.kind(), db.len()), (kind, 48));
    /// assert_eq!(db.two_sided(1, 1)[0], 32767); // +1 for the side on roll
    ///
    /// // A truncated file is refused, naming the problem.
    /// std::fs::write(&path, &bytes[..46])?;
    /// let error = Database::open(&path).unwrap_err();
    /// assert!(error.to_string().contains("truncated"), "{error}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: &Path) -> Result<Database, ReadError> {
        Database::open_as(path, None)
    }

    /// Opens a file; `headerless` gives the kind of a file written without
    /// a header (`makebearoff -H`), `None` reads the kind from the header.
    pub fn open_as(path: &Path, headerless: Option<Kind>) -> Result<Database, ReadError> {
        let name = path.to_path_buf();
        let io = |error| ReadError::Io {
            path: name.clone(),
            error,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if meta.is_dir() {
            return Err(ReadError::NotAFile {
                path: name,
                what: "is a directory",
            });
        }
        if !meta.is_file() {
            return Err(ReadError::NotAFile {
                path: name,
                what: "is not a regular file",
            });
        }
        let bytes = if meta.len() <= READ_LIMIT {
            Bytes::Owned(std::fs::read(path).map_err(io)?)
        } else {
            let file = File::open(path).map_err(io)?;
            Bytes::Mapped(map(&file).map_err(io)?)
        };
        Database::validate(name, Arc::new(bytes), 0, headerless)
    }

    /// Validates a database held in memory (`name` is used in messages).
    pub fn from_bytes(
        name: impl Into<PathBuf>,
        bytes: Vec<u8>,
        headerless: Option<Kind>,
    ) -> Result<Database, ReadError> {
        Database::validate(name.into(), Arc::new(Bytes::Owned(bytes)), 0, headerless)
    }

    /// Validates the database starting at `base` in `bytes`; a complete
    /// database with its own header may follow it.
    fn validate(
        name: PathBuf,
        bytes: Arc<Bytes>,
        base: usize,
        headerless: Option<Kind>,
    ) -> Result<Database, ReadError> {
        let data = &bytes.as_slice()[base..];
        let (kind, start) = match headerless {
            Some(kind) => (kind, 0),
            None => {
                if data.is_empty() {
                    return Err(ReadError::Header {
                        path: name,
                        error: HeaderError::Short,
                    });
                }
                let kind = Kind::parse(data).map_err(|error| ReadError::Header {
                    path: name.clone(),
                    error,
                })?;
                (kind, HEADER_LEN)
            }
        };
        let corrupt = |what: Problem| ReadError::Corrupt {
            path: name.clone(),
            what,
        };
        check_kind(kind).map_err(corrupt)?;
        let positions = kind.side_positions();
        let records = if is_two_sided(kind) {
            positions.checked_mul(positions)
        } else {
            Some(positions)
        }
        .ok_or_else(|| corrupt(format!("{kind} is too large for this machine").into()))?;
        let len = bytes.as_slice().len();
        let mut db = Database {
            kind,
            start,
            positions,
            records,
            name: name.clone(),
            bytes,
            base,
            end: len,
            next: None,
        };
        match db.check_size() {
            Ok(()) => Ok(db),
            Err(TooLong { own_len, problem }) => {
                // A second database with its own header may follow a
                // headered one (makebearoff -o P -t PxC writes both).
                let at = base + own_len;
                let follows = headerless
                    .is_none()
                    .then(|| Database::validate(name.clone(), Arc::clone(&db.bytes), at, None))
                    .and_then(Result::ok);
                match follows {
                    Some(next) => {
                        db.end = at;
                        db.next = Some(Box::new(next));
                        Ok(db)
                    }
                    None => Err(corrupt(problem)),
                }
            }
            Err(Invalid(problem)) => Err(corrupt(problem)),
        }
    }

    /// The database written after this one in the same file, if any
    /// (makebearoff with both `-o` and `-t` writes two into one file).
    pub fn next_in_file(&self) -> Option<&Database> {
        self.next.as_deref()
    }

    /// This database and every one written after it in the same file.
    pub fn all_in_file(&self) -> impl Iterator<Item = &Database> {
        std::iter::successors(Some(self), |d| d.next_in_file())
    }

    /// Checks the file size against the header's sizes, and for the
    /// compressed layout the index: offsets contiguous from 0, windows inside
    /// the 32 rolls, data exactly filling the rest of the file.
    fn check_size(&self) -> Result<(), SizeError> {
        let len = self.bytes().len() as u64;
        let body = len - self.start as u64;
        let kind = self.kind;
        if let Some(rec) = record_len(kind) {
            let expected = (self.records as u64)
                .checked_mul(rec as u64)
                .ok_or_else(|| Invalid(format!("{kind} is too large for this machine").into()))?;
            return match body.cmp(&expected) {
                std::cmp::Ordering::Equal => Ok(()),
                std::cmp::Ordering::Less => Err(Invalid(Problem(format!(
                    "file is {len} bytes, a {kind} file needs {}: truncated, record {} is incomplete",
                    expected + self.start as u64,
                    body / rec as u64
                )))),
                std::cmp::Ordering::Greater => Err(TooLong {
                    own_len: (expected + self.start as u64) as usize,
                    problem: Problem(format!(
                        "file is {len} bytes, a {kind} file needs {}: {} bytes too many",
                        expected + self.start as u64,
                        body - expected
                    )),
                }),
            };
        }
        let entry = self.entry_len();
        let index_len = (self.positions as u64) * entry as u64;
        if body < index_len {
            return Err(Invalid(Problem(format!(
                "file is {len} bytes, too short for the index of {} positions: truncated, index entry {} is incomplete",
                self.positions,
                body / entry as u64
            ))));
        }
        let index = &self.body()[..index_len as usize];
        let data_len = body - index_len;
        let mut expected_off = 0u64;
        let mut first_cut = None;
        for (id, e) in index.chunks_exact(entry).enumerate() {
            let off = u64::from(u32::from_le_bytes([e[0], e[1], e[2], e[3]]));
            if off != expected_off {
                return Err(Invalid(Problem(format!(
                    "index entry {id} has offset {off}, expected {expected_off} (index is not contiguous)"
                ))));
            }
            for (w, part) in e[4..]
                .chunks_exact(2)
                .zip(["distribution", "gammon distribution"])
            {
                let (nz, io) = (usize::from(w[0]), usize::from(w[1]));
                if nz == 0 || nz + io > 32 {
                    return Err(Invalid(Problem(format!(
                        "index entry {id} has an invalid {part} window ({nz} values from roll {io})"
                    ))));
                }
                expected_off += nz as u64;
            }
            if first_cut.is_none() && 2 * expected_off > data_len {
                first_cut = Some(id);
            }
        }
        let expected = len - data_len + 2 * expected_off;
        match first_cut {
            Some(id) => Err(Invalid(Problem(format!(
                "file is {len} bytes, its index needs {expected}: truncated, record {id} is incomplete"
            )))),
            None if len != expected => Err(TooLong {
                own_len: expected as usize,
                problem: Problem(format!(
                    "file is {len} bytes, its index needs {expected}: {} bytes too many",
                    len - expected
                )),
            }),
            None => Ok(()),
        }
    }

    /// The record whose bytes (data or index entry) include file offset
    /// `offset`; `None` in the header or past the end.
    pub fn record_at_offset(&self, offset: usize) -> Option<u64> {
        let start = if self.has_header() { HEADER_LEN } else { 0 };
        let body = offset.checked_sub(start)?;
        if offset >= self.len() {
            return None;
        }
        if let Some(rec) = record_len(self.kind()) {
            return Some((body / rec) as u64);
        }
        let entry = self.entry_len();
        let index_len = self.side_positions() * entry;
        if body < index_len {
            return Some((body / entry) as u64);
        }
        // The data of record i starts at its entry's offset: find the last
        // record starting at or before this byte.
        let data_start = |id: usize| self.compressed_entry(id).0;
        let (mut lo, mut hi) = (0, self.side_positions());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if data_start(mid) <= offset {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo as u64)
    }

    /// The path given when opening.
    pub fn path(&self) -> &Path {
        &self.name
    }

    /// What the file holds.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether the file starts with a 40-byte header.
    pub fn has_header(&self) -> bool {
        self.start != 0
    }

    /// Where this database starts in its file (0 unless it follows another
    /// one, see [`Database::next_in_file`]).
    pub fn offset_in_file(&self) -> usize {
        self.base
    }

    /// This database's bytes: the whole file unless another database
    /// follows it.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes.as_slice()[self.base..self.end]
    }

    /// This database's bytes, owned (copied unless it is a whole file read
    /// into memory).
    pub fn into_bytes(self) -> Vec<u8> {
        let whole = self.base == 0 && self.end == self.bytes.as_slice().len();
        match Arc::try_unwrap(self.bytes) {
            Ok(Bytes::Owned(bytes)) if whole => bytes,
            Ok(b) => b.as_slice()[self.base..self.end].to_vec(),
            Err(shared) => shared.as_slice()[self.base..self.end].to_vec(),
        }
    }

    /// File size in bytes.
    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Always false: a valid database has at least its records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file after its header.
    fn body(&self) -> &[u8] {
        &self.bytes()[self.start..]
    }

    /// One-sided positions per side.
    pub fn side_positions(&self) -> usize {
        self.positions
    }

    /// Records in the file: one per position for one-sided kinds, one per
    /// ordered pair of positions for two-sided and Hypergammon kinds.
    pub fn records(&self) -> usize {
        self.records
    }

    /// Bytes per index entry of the compressed layout.
    pub(crate) fn entry_len(&self) -> usize {
        match self.kind {
            Kind::OneSided { gammons: true, .. } => 8,
            _ => 6,
        }
    }

    /// Byte offset (from the start of the file) of the data of record `id`
    /// of a compressed file, with its index entry.
    pub(crate) fn compressed_entry(&self, id: usize) -> (usize, [u8; 8]) {
        let entry = self.entry_len();
        let e = &self.body()[id * entry..][..entry];
        let mut out = [0u8; 8];
        out[..entry].copy_from_slice(e);
        let off = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize;
        (self.start + self.positions * entry + 2 * off, out)
    }

    fn u16_at(&self, byte: usize) -> u16 {
        let b = self.bytes();
        u16::from_le_bytes([b[byte], b[byte + 1]])
    }

    fn u24_at(&self, byte: usize) -> u32 {
        let b = &self.bytes()[byte..byte + 3];
        u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16
    }

    /// Record number `index` (see [`Database::records`]).
    pub fn record(&self, index: u64) -> Result<Record, LookupError> {
        if index >= self.records as u64 {
            return Err(LookupError::IndexOutOfRange {
                index,
                count: self.records as u64,
            });
        }
        let i = index as usize;
        Ok(match self.kind {
            Kind::OneSided { .. } => {
                let (bearoff, gammon) = self.one_sided(i);
                Record::OneSided { bearoff, gammon }
            }
            Kind::NormalDist { .. } => Record::Normal(self.normal(i)),
            Kind::TwoSided { cubeful, .. } => {
                let base = self.start + i * if cubeful { 8 } else { 2 };
                let count = if cubeful { 4 } else { 1 };
                let mut values = [0u16; 4];
                for (k, v) in values.iter_mut().take(count).enumerate() {
                    *v = self.u16_at(base + 2 * k);
                }
                Record::TwoSided { values, cubeful }
            }
            Kind::Hyper { .. } => {
                let base = self.start + 28 * i;
                Record::Hyper {
                    probabilities: std::array::from_fn(|k| self.u24_at(base + 3 * k)),
                    equities: std::array::from_fn(|k| self.u24_at(base + 15 + 3 * k)),
                    padding: self.bytes()[base + 27],
                }
            }
        })
    }

    /// The distributions of one-sided position `id` (exact kinds only).
    /// The gammon half is `None` for files without gammons.
    ///
    /// Panics if the file is not an exact one-sided database or `id` is not
    /// below [`Database::side_positions`]; see [`Database::record`] for a
    /// checked lookup.
    pub fn one_sided(&self, id: usize) -> (Distribution, Option<Distribution>) {
        let Kind::OneSided {
            gammons,
            compressed,
            ..
        } = self.kind
        else {
            panic!("one_sided() on a {} file", self.kind)
        };
        assert!(id < self.positions, "one-sided index {id} out of range");
        let mut w = [0u16; 32];
        let mut g = [0u16; 32];
        if compressed {
            let (mut at, e) = self.compressed_entry(id);
            let parts = if gammons { 2 } else { 1 };
            for (dist, win) in [&mut w, &mut g]
                .into_iter()
                .zip(e[4..].chunks(2))
                .take(parts)
            {
                let (nz, io) = (usize::from(win[0]), usize::from(win[1]));
                for v in &mut dist[io..io + nz] {
                    *v = self.u16_at(at);
                    at += 2;
                }
            }
        } else {
            let base = self.start + id * if gammons { 128 } else { 64 };
            for r in 0..32 {
                w[r] = self.u16_at(base + 2 * r);
                if gammons {
                    g[r] = self.u16_at(base + 64 + 2 * r);
                }
            }
        }
        (w, gammons.then_some(g))
    }

    /// The four floats of a normal-distribution record: mean and standard
    /// deviation of the rolls to bear off, and of the rolls to save the
    /// gammon. Panics like [`Database::one_sided`].
    pub fn normal(&self, id: usize) -> [f32; 4] {
        assert!(
            matches!(self.kind, Kind::NormalDist { .. }),
            "normal() on a {} file",
            self.kind
        );
        assert!(id < self.positions, "one-sided index {id} out of range");
        let base = self.start + 16 * id;
        let b = self.bytes();
        std::array::from_fn(|k| {
            let at = base + 4 * k;
            f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
        })
    }

    /// The stored two-sided values (as signed equities, `u − 32768`) of the
    /// pair (`us` on roll, `them`); one value for cubeless files, four
    /// otherwise. Panics if the file is not two-sided or an index is not
    /// below [`Database::side_positions`].
    pub fn two_sided(&self, us: usize, them: usize) -> [i16; 4] {
        assert!(
            us < self.positions && them < self.positions,
            "two-sided pair ({us}, {them}) out of range"
        );
        let Ok(Record::TwoSided { values, cubeful }) =
            self.record((us * self.positions + them) as u64)
        else {
            panic!("two_sided() on a {} file", self.kind)
        };
        let count = if cubeful { 4 } else { 1 };
        let mut out = [0i16; 4];
        for (o, &u) in out.iter_mut().zip(&values).take(count) {
            *o = (i32::from(u) - 32768) as i16;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_os(points: u8, gammons: bool, compressed: bool) -> Kind {
        Kind::OneSided {
            points,
            gammons,
            compressed,
        }
    }

    /// A compressed 1-point file with a valid layout (the values are not
    /// real bearoff values: record `i` finishes in exactly `i` rolls).
    fn compressed_one_point() -> Vec<u8> {
        let kind = kind_os(1, true, true);
        let n = kind.side_positions();
        let mut bytes = kind.header().to_vec();
        for id in 0..n {
            bytes.extend_from_slice(&(2 * id as u32).to_le_bytes());
            bytes.extend_from_slice(&[1, id.min(31) as u8, 1, 0]);
        }
        for _ in 0..n {
            bytes.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
        }
        bytes
    }

    #[test]
    fn compressed_layout_is_read_and_checked() {
        let bytes = compressed_one_point();
        let db = Database::from_bytes("mem", bytes.clone(), None).unwrap();
        assert_eq!(db.records(), 16);
        let (w, g) = db.one_sided(3);
        assert_eq!(
            (w[3], w.iter().map(|&v| u32::from(v)).sum::<u32>()),
            (65535, 65535)
        );
        assert_eq!(g.unwrap()[0], 65535);

        let mut cut = bytes.clone();
        cut.truncate(cut.len() - 5);
        let err = Database::from_bytes("mem", cut, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("record 14 is incomplete"), "{err}");

        let mut bad = bytes.clone();
        bad[40 + 8 * 5] ^= 1;
        let err = Database::from_bytes("mem", bad, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("index entry 5"), "{err}");

        let mut bad = bytes;
        bad[40 + 8 * 7 + 5] = 32;
        let err = Database::from_bytes("mem", bad, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("index entry 7 has an invalid distribution window"),
            "{err}"
        );
    }

    #[test]
    fn fixed_sizes_are_checked() {
        let kind = Kind::TwoSided {
            points: 2,
            chequers: 1,
            cubeful: false,
        };
        let mut bytes = kind.header().to_vec();
        bytes.resize(40 + 2 * 9, 0);
        let db = Database::from_bytes("mem", bytes.clone(), None).unwrap();
        assert_eq!((db.side_positions(), db.records()), (3, 9));
        assert_eq!(db.two_sided(2, 1), [-32768, 0, 0, 0]);
        bytes.pop();
        let err = Database::from_bytes("mem", bytes.clone(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("record 8 is incomplete"), "{err}");
        bytes.extend_from_slice(&[0, 0, 0]);
        let err = Database::from_bytes("mem", bytes, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("2 bytes too many"), "{err}");
    }

    #[test]
    fn headerless_files_take_the_callers_kind() {
        let kind = Kind::Hyper { chequers: 1 };
        let db = Database::from_bytes("mem", vec![0; 28 * 26 * 26], Some(kind)).unwrap();
        assert!(!db.has_header());
        assert_eq!(db.records(), 676);
        assert!(matches!(
            db.record(676),
            Err(LookupError::IndexOutOfRange {
                index: 676,
                count: 676
            })
        ));
        let bad = Kind::Hyper { chequers: 4 };
        assert!(Database::from_bytes("mem", vec![], Some(bad)).is_err());
        assert!(Database::from_bytes("mem", vec![], None).is_err());
    }
}
