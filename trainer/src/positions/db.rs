//! Position databases (docs/formats.md#position-databases): positions with
//! their class, targets, trial counts and standard errors, in a versioned
//! file with a CRC-32 per block, read through a memory map.
//!
//! Layout (little-endian), version 2:
//!
//! ```text
//! header   128 bytes: "BGKITPDB", version u32 = 2, record length u32 = 64,
//!          count u64, records per block u32 = 1024, rollout settings
//!          (32 bytes: an MD5 in hex, or zeros), label stamp (32 bytes:
//!          the MD5 in hex of `db label eval`'s settings, or zeros; then
//!          its shard K u64 and N u64, see [`LabelPart`]), 16 zero bytes,
//!          CRC-32 of bytes 0..124
//! records  count × 64 bytes, in the database's order
//! checksums one CRC-32 per block of 1024 records (the last block may be short)
//! ```
//!
//! Version 1 files (still read) have a 64-byte header: the same fields up
//! to the rollout settings, then the CRC-32 of bytes 0..60; no label stamp.

use board::Probabilities;
use memmap2::Mmap;
use std::path::{Path, PathBuf};

pub use crate::positions::labels::{LabelPart, LabelStamp};

const MAGIC: &[u8; 8] = b"BGKITPDB";
/// The version written.
const VERSION: u32 = 2;
/// Bytes per record.
pub const RECORD_LEN: usize = 64;
/// Bytes of the header (version 2).
pub const HEADER_LEN: usize = 128;
/// Bytes of a version 1 header.
const HEADER_LEN_V1: usize = 64;
/// Records per checksummed block.
pub const BLOCK_RECORDS: usize = 1024;

/// The record has targets (imported, or rolled out).
pub const HAS_TARGETS: u8 = 1;
/// The targets come from a rollout (trials and standard errors are set).
pub const ROLLED_OUT: u8 = 2;

/// True if `head`, the start of a file, is a position database's (its
/// magic), as opposed to a `.dat` text, say.
pub fn is_position_db(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// One position and what is known about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    /// gnubg's 10-byte position key (`sides[1]` on roll).
    pub key: [u8; 10],
    /// The position class (as `nets::Class`, see [`class_code`]).
    pub class: u8,
    /// [`HAS_TARGETS`], [`ROLLED_OUT`].
    pub flags: u8,
    /// Rollout trials, or one-sided rollout games of `db label` (else 0).
    pub trials: u32,
    /// The five probabilities for the side on roll.
    pub targets: Probabilities,
    /// Cubeless equity (the mean of the trials' equities for a rollout).
    pub equity: f32,
    /// Standard errors of the five targets (0 unless rolled out or labelled).
    pub std_errors: Probabilities,
    /// Standard error of the equity.
    pub equity_std_error: f32,
}

impl Record {
    /// A position without targets.
    pub fn new(key: [u8; 10], class: nets::Class) -> Record {
        Record {
            key,
            class: class_code(class),
            flags: 0,
            trials: 0,
            targets: [0.0; 5],
            equity: 0.0,
            std_errors: [0.0; 5],
            equity_std_error: 0.0,
        }
    }

    /// True if the record has targets.
    pub fn has_targets(&self) -> bool {
        self.flags & HAS_TARGETS != 0
    }

    /// The standard errors are meaningful: rolled out, or labelled by
    /// `db label` (trials set; exact labels have trials 0 and errors 0).
    pub fn has_std_errors(&self) -> bool {
        self.rolled_out() || self.trials > 0
    }

    /// True if the targets come from a rollout.
    pub fn rolled_out(&self) -> bool {
        self.flags & ROLLED_OUT != 0
    }

    /// The class.
    pub fn class(&self) -> nets::Class {
        class_from_code(self.class).unwrap_or(nets::Class::Over)
    }

    pub(crate) fn to_bytes(self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[..10].copy_from_slice(&self.key);
        b[10] = self.class;
        b[11] = self.flags;
        b[12..16].copy_from_slice(&self.trials.to_le_bytes());
        let floats = self
            .targets
            .iter()
            .chain([&self.equity])
            .chain(&self.std_errors)
            .chain([&self.equity_std_error]);
        for (k, v) in floats.enumerate() {
            b[16 + 4 * k..20 + 4 * k].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    pub(crate) fn from_bytes(b: &[u8]) -> Result<Record, DbError> {
        let f =
            |k: usize| f32::from_le_bytes(b[16 + 4 * k..20 + 4 * k].try_into().expect("4 bytes"));
        let r = Record {
            key: b[..10].try_into().expect("10 bytes"),
            class: b[10],
            flags: b[11],
            trials: u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")),
            targets: std::array::from_fn(f),
            equity: f(5),
            std_errors: std::array::from_fn(|k| f(6 + k)),
            equity_std_error: f(11),
        };
        if class_from_code(r.class).is_none() || r.flags & !(HAS_TARGETS | ROLLED_OUT) != 0 {
            return Err(DbError::Corrupt(
                "a record has an unknown class or flags".into(),
            ));
        }
        Ok(r)
    }
}

/// The stable code of a class in a database record.
pub fn class_code(class: nets::Class) -> u8 {
    use nets::Class::*;
    match class {
        Over => 0,
        Bearoff2 => 1,
        BearoffTs => 2,
        Bearoff1 => 3,
        BearoffOs => 4,
        Race => 5,
        Crashed => 6,
        Contact => 7,
    }
}

/// The class of a code, if valid.
pub fn class_from_code(code: u8) -> Option<nets::Class> {
    use nets::Class::*;
    [
        Over, Bearoff2, BearoffTs, Bearoff1, BearoffOs, Race, Crashed, Contact,
    ]
    .get(usize::from(code))
    .copied()
}

/// Why a database cannot be read, written or combined.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Reading or writing failed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The bytes are not a position database, or are damaged.
    #[error("not a bgkit position database or damaged: {0}")]
    Corrupt(String),
    /// The file is not a position database, or is damaged.
    #[error("{}: not a bgkit position database or damaged: {why}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Two databases cannot be merged.
    #[error("{0}")]
    Conflict(String),
    /// Two databases to merge, one of them a shard (or part) of a
    /// labelling, were labelled with different settings.
    #[error(
        "databases {} and {} were labelled with different settings ({first_stamp}; {second_stamp}): \
         the shards of one labelling must share its settings",
        first + 1,
        second + 1
    )]
    LabelsDiffer {
        /// The first database (0-based, in the order given).
        first: usize,
        /// Its stamp.
        first_stamp: LabelStamp,
        /// The second one.
        second: usize,
        /// Its stamp.
        second_stamp: LabelStamp,
    },
}

/// A position database in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PositionDb {
    /// The positions, in order.
    pub records: Vec<Record>,
    /// The rollout settings of its rolled-out records (an MD5 in hex), if
    /// any were rolled out.
    pub rollout_settings: Option<String>,
    /// The settings `db label eval` labelled it with, and on which
    /// positions, if its labels are one labelling's.
    pub labels: Option<LabelStamp>,
}

fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

impl From<Vec<Record>> for PositionDb {
    /// A database of `records`, none of them rolled out.
    fn from(records: Vec<Record>) -> PositionDb {
        PositionDb {
            records,
            rollout_settings: None,
            labels: None,
        }
    }
}

impl PositionDb {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.records.len();
        let blocks = n.div_ceil(BLOCK_RECORDS);
        let mut bytes = Vec::with_capacity(HEADER_LEN + n * RECORD_LEN + 4 * blocks);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(RECORD_LEN as u32).to_le_bytes());
        bytes.extend_from_slice(&(n as u64).to_le_bytes());
        bytes.extend_from_slice(&(BLOCK_RECORDS as u32).to_le_bytes());
        let mut settings = [0u8; 32];
        if let Some(s) = &self.rollout_settings {
            let s = s.as_bytes();
            settings[..s.len().min(32)].copy_from_slice(&s[..s.len().min(32)]);
        }
        bytes.extend_from_slice(&settings);
        let (label, (index, count)) = match &self.labels {
            Some(stamp) => (stamp.settings.as_bytes(), stamp.part.to_pair()),
            None => (&[][..], (0, 0)),
        };
        let mut label_settings = [0u8; 32];
        let n = label.len().min(32);
        label_settings[..n].copy_from_slice(&label[..n]);
        bytes.extend_from_slice(&label_settings);
        bytes.extend_from_slice(&index.to_le_bytes());
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&[0; 16]);
        let header_crc = crc(&bytes[..HEADER_LEN - 4]);
        bytes.extend_from_slice(&header_crc.to_le_bytes());
        for r in &self.records {
            bytes.extend_from_slice(&r.to_bytes());
        }
        let checksums: Vec<u32> = bytes[HEADER_LEN..]
            .chunks(BLOCK_RECORDS * RECORD_LEN)
            .map(crc)
            .collect();
        for c in checksums {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
        bytes
    }

    /// Parses and checks a database's bytes (header, size, every block's
    /// checksum, every record's class and flags).
    pub fn from_bytes(bytes: &[u8]) -> Result<PositionDb, DbError> {
        let corrupt = |m: &str| Err(DbError::Corrupt(m.to_string()));
        if bytes.len() < HEADER_LEN_V1 || &bytes[..8] != MAGIC {
            return corrupt("no position-database header");
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let header_len = match u32_at(8) {
            1 => HEADER_LEN_V1,
            2 => HEADER_LEN,
            v => {
                return Err(DbError::Corrupt(format!(
                    "version {v} (this bgkit reads 1 to {VERSION})"
                )))
            }
        };
        if bytes.len() < header_len {
            return corrupt("no position-database header");
        }
        if crc(&bytes[..header_len - 4]) != u32_at(header_len - 4) {
            return corrupt("the header's checksum does not match");
        }
        let labels = if header_len == HEADER_LEN {
            label_stamp(&bytes[60..HEADER_LEN - 4])?
        } else {
            None
        };
        if u32_at(12) as usize != RECORD_LEN || u32_at(24) as usize != BLOCK_RECORDS {
            return corrupt("unexpected record or block size");
        }
        let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let n = usize::try_from(count)
            .ok()
            .filter(|&n| n <= (bytes.len() / RECORD_LEN));
        let Some(n) = n else {
            return corrupt("the record count does not fit the file");
        };
        let blocks = n.div_ceil(BLOCK_RECORDS);
        if bytes.len() != header_len + n * RECORD_LEN + 4 * blocks {
            return Err(DbError::Corrupt(format!(
                "{} bytes, expected {} for {n} records (truncated or extended)",
                bytes.len(),
                header_len + n * RECORD_LEN + 4 * blocks
            )));
        }
        let body = &bytes[header_len..header_len + n * RECORD_LEN];
        let sums = &bytes[header_len + n * RECORD_LEN..];
        for (b, chunk) in body.chunks(BLOCK_RECORDS * RECORD_LEN).enumerate() {
            let stored = u32::from_le_bytes(sums[4 * b..4 * b + 4].try_into().expect("4 bytes"));
            if crc(chunk) != stored {
                return Err(DbError::Corrupt(format!(
                    "block {b} (records {}–{}) fails its checksum",
                    b * BLOCK_RECORDS,
                    (b * BLOCK_RECORDS + BLOCK_RECORDS).min(n) - 1
                )));
            }
        }
        let records = body
            .chunks_exact(RECORD_LEN)
            .map(Record::from_bytes)
            .collect::<Result<Vec<_>, _>>()?;
        let settings = &bytes[28..60];
        let rollout_settings = (settings.iter().any(|&b| b != 0)).then(|| {
            String::from_utf8_lossy(settings)
                .trim_end_matches('\0')
                .to_string()
        });
        Ok(PositionDb {
            records,
            rollout_settings,
            labels,
        })
    }

    /// Opens a database through a memory map and checks it.
    pub fn open(path: &Path) -> Result<PositionDb, DbError> {
        let io = |error| DbError::Io {
            path: path.to_owned(),
            error,
        };
        // A regular file only, refused at once otherwise (a FIFO would
        // block the open).
        let (file, len) = support::input::open(path).map_err(io)?;
        let damaged = |why: String| DbError::Damaged {
            path: path.to_owned(),
            why,
        };
        if len == 0 {
            return Err(damaged("empty file".into()));
        }
        // SAFETY: the map is read-only and private to this call; bgkit
        // replaces databases by renaming complete files, never in place, so
        // the mapped pages do not change while they are parsed (a file
        // truncated by another program raises SIGBUS, which support's
        // handler reports as a one-line error).
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        PositionDb::from_bytes(&map).map_err(|e| match e {
            DbError::Corrupt(why) => damaged(why),
            e => e,
        })
    }

    /// Writes the database atomically.
    pub fn save(&self, path: &Path) -> Result<(), DbError> {
        let io = |error| DbError::Io {
            path: path.to_owned(),
            error,
        };
        support::atomic::write_file(path, &self.to_bytes()).map_err(io)
    }
}

/// The label stamp of a version 2 header's bytes 60..124 (its settings,
/// shard and reserved bytes), checked.
fn label_stamp(b: &[u8]) -> Result<Option<LabelStamp>, DbError> {
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let (settings, index, count) = (&b[..32], u64_at(32), u64_at(40));
    let bad = || DbError::Corrupt("the label stamp is not valid".into());
    if b[48..].iter().any(|&x| x != 0) {
        return Err(bad());
    }
    if settings.iter().all(|&x| x == 0) {
        return if (index, count) == (0, 0) {
            Ok(None)
        } else {
            Err(bad())
        };
    }
    let settings = std::str::from_utf8(settings).map_err(|_| bad())?;
    let part = LabelPart::from_pair(index, count).ok_or_else(bad)?;
    Ok(Some(LabelStamp {
        settings: settings.to_owned(),
        part,
    }))
}

/// The Position ID of a key (or the key in hex if it is not a position).
pub fn position_id(key: &[u8; 10]) -> String {
    board::Board::from_id_bytes(key).map_or_else(
        |_| key.iter().map(|b| format!("{b:02x}")).collect(),
        |b| b.position_id(),
    )
}

/// How far a stored target may stray outside what probabilities allow:
/// the rounding of a `.dat` file's five decimals, and the noise of
/// rollouts with variance reduction, whose means can leave [0, 1] slightly.
pub const TARGET_SLACK: f32 = 0.01;

/// Checks that five targets are probabilities (up to [`TARGET_SLACK`]):
/// each in [0, 1], gammons at most wins, backgammons at most gammons, lost
/// gammons at most losses, lost backgammons at most lost gammons. The error
/// names the first target that fails.
pub fn check_targets(t: &Probabilities) -> Result<(), String> {
    const NAMES: [&str; 5] = [
        "win",
        "win-gammon",
        "win-backgammon",
        "lose-gammon",
        "lose-backgammon",
    ];
    let slack = TARGET_SLACK;
    for (name, &v) in NAMES.iter().zip(t) {
        if !(-slack..=1.0 + slack).contains(&v) {
            return Err(format!("the {name} target {v:?} is not a probability"));
        }
    }
    let [win, wg, wbg, lg, lbg] = *t;
    for (part, of, within, whole) in [
        (wg, 1, win, "win"),
        (wbg, 2, wg, "win-gammon"),
        (lg, 3, 1.0 - win, "loss (1 − win)"),
        (lbg, 4, lg, "lose-gammon"),
    ] {
        if part > within + slack {
            return Err(format!(
                "the {} target {part:?} is more than the {whole} target {within:?}",
                NAMES[of]
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(k: u8, rolled: bool) -> Record {
        let mut r = Record::new([k; 10], nets::Class::Contact);
        if rolled {
            r.flags = HAS_TARGETS | ROLLED_OUT;
            r.trials = 36;
            r.targets = [0.5, 0.1, 0.0, 0.1, 0.0];
        }
        r
    }

    #[test]
    fn bytes_round_trip_and_damage_is_found() {
        let db = PositionDb {
            records: (0..2500)
                .map(|k| record((k % 200) as u8, k % 3 == 0))
                .collect(),
            rollout_settings: Some("0123456789abcdef0123456789abcdef".into()),
            labels: Some(LabelStamp {
                settings: "fedcba9876543210fedcba9876543210".into(),
                part: LabelPart::Shard { index: 2, count: 3 },
            }),
        };
        let bytes = db.to_bytes();
        assert_eq!(PositionDb::from_bytes(&bytes).unwrap(), db);
        for at in [
            3,
            8,
            61,
            95,
            110,
            HEADER_LEN + 5,
            HEADER_LEN + 2000 * RECORD_LEN + 20,
            bytes.len() - 1,
        ] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(PositionDb::from_bytes(&bad).is_err(), "flip at {at}");
        }
        assert!(PositionDb::from_bytes(&bytes[..bytes.len() - 4]).is_err());
        let empty = PositionDb::default();
        assert_eq!(PositionDb::from_bytes(&empty.to_bytes()).unwrap(), empty);
        // A stamp that is not one (a shard K > N), its CRC made right.
        let mut bad = bytes.clone();
        bad[92] = 4;
        let sum = crc(&bad[..HEADER_LEN - 4]);
        bad[HEADER_LEN - 4..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
        let e = PositionDb::from_bytes(&bad).unwrap_err().to_string();
        assert!(e.contains("label stamp"), "{e}");
    }

    #[test]
    fn the_layout_is_the_documented_one_and_version_1_is_read() {
        let db = PositionDb {
            records: vec![record(7, true)],
            rollout_settings: Some("0123456789abcdef0123456789abcdef".into()),
            labels: None,
        };
        let v2 = db.to_bytes();
        assert_eq!(v2.len(), HEADER_LEN + RECORD_LEN + 4);
        assert_eq!(&v2[8..12], &2u32.to_le_bytes());
        assert!(v2[60..124].iter().all(|&b| b == 0), "no stamp: zeros");
        // The same database as version 1: the 60 first bytes, its CRC.
        let mut v1 = v2[..60].to_vec();
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        let sum = crc(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        v1.extend_from_slice(&v2[HEADER_LEN..]);
        assert_eq!(PositionDb::from_bytes(&v1).unwrap(), db);
        let mut v3 = v2.clone();
        v3[8] = 3;
        let e = PositionDb::from_bytes(&v3).unwrap_err().to_string();
        assert!(e.contains("version 3"), "{e}");
    }

    #[test]
    fn targets_must_be_probabilities() {
        assert!(check_targets(&[0.52151, 0.15391, 0.00756, 0.12985, 0.00755]).is_ok());
        assert!(check_targets(&[1.0, 1.0, 1.0, 0.0, 0.0]).is_ok());
        // A variance-reduced rollout's mean just outside [0, 1] is kept.
        assert!(check_targets(&[1.002, 0.0, 0.0, -0.001, 0.0]).is_ok());
        for (bad, why) in [
            ([1e30, 0.0, 0.0, 0.0, 0.0], "win target 1e30"),
            ([-0.5, 0.0, 0.0, 0.0, 0.0], "win target -0.5"),
            ([0.5, 0.0, 0.0, 1.5, 0.0], "lose-gammon target 1.5"),
            ([f32::NAN, 0.0, 0.0, 0.0, 0.0], "NaN"),
            ([0.3, 0.9, 0.0, 0.0, 0.0], "more than the win target 0.3"),
            ([0.3, 0.2, 0.25, 0.0, 0.0], "more than the win-gammon"),
            ([0.8, 0.0, 0.0, 0.5, 0.0], "more than the loss"),
            ([0.5, 0.0, 0.0, 0.1, 0.2], "more than the lose-gammon"),
        ] {
            let e = check_targets(&bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }
}
