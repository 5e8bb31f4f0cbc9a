//! Reading database files: header detection, size validation, record access.

use crate::header::{HeaderError, Kind, HEADER_LEN};
use crate::one_sided::Distribution;
use std::path::Path;

/// Why a database file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The header is not a gnubg header.
    #[error("{path}: {source}")]
    Header {
        /// The file.
        path: String,
        /// What is wrong.
        source: HeaderError,
    },
    /// The size or index does not fit the header.
    #[error("{path}: {what}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
}

/// A database held in memory, validated against its header.
#[derive(Debug)]
pub struct Database {
    kind: Kind,
    bytes: Vec<u8>,
    positions: usize,
}

impl Database {
    /// Reads and validates a database file with a gnubg header.
    pub fn open(path: &Path) -> Result<Database, ReadError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
            path: name.clone(),
            source,
        })?;
        let kind = Kind::parse(&bytes).map_err(|source| ReadError::Header {
            path: name.clone(),
            source,
        })?;
        let positions = kind.side_positions();
        let db = Database {
            kind,
            bytes,
            positions,
        };
        db.validate()
            .map_err(|what| ReadError::Corrupt { path: name, what })?;
        Ok(db)
    }

    /// What the file holds.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// One-sided positions per side.
    pub fn side_positions(&self) -> usize {
        self.positions
    }

    fn expected_size(&self) -> Option<usize> {
        let n = self.positions;
        match self.kind {
            Kind::OneSided {
                compressed: false,
                gammons,
                ..
            } => Some(HEADER_LEN + n * if gammons { 128 } else { 64 }),
            Kind::OneSided {
                compressed: true, ..
            } => None,
            Kind::NormalDist { .. } => Some(HEADER_LEN + 16 * n),
            Kind::TwoSided { cubeful, .. } => {
                Some(HEADER_LEN + n * n * if cubeful { 8 } else { 2 })
            }
            Kind::Hyper { .. } => Some(HEADER_LEN + 28 * n * n),
        }
    }

    fn validate(&self) -> Result<(), String> {
        let len = self.bytes.len();
        if let Some(expected) = self.expected_size() {
            return if len == expected {
                Ok(())
            } else {
                Err(format!(
                    "file is {len} bytes, its header ({}) needs {expected}",
                    self.kind
                ))
            };
        }
        // Compressed one-sided: walk the index; offsets must run contiguously.
        let entry = self.entry_len();
        let data_start = HEADER_LEN + self.positions * entry;
        if len < data_start {
            return Err(format!(
                "file is {len} bytes, too short for the index of {} positions",
                self.positions
            ));
        }
        let mut expected_off = 0u64;
        for id in 0..self.positions {
            let e = &self.bytes[HEADER_LEN + id * entry..][..entry];
            let off = u64::from(u32::from_le_bytes([e[0], e[1], e[2], e[3]]));
            if off != expected_off {
                return Err(format!(
                    "index entry {id} has offset {off}, expected {expected_off}"
                ));
            }
            for w in e[4..].chunks(2) {
                if usize::from(w[0]) + usize::from(w[1]) > 32 || w[0] == 0 {
                    return Err(format!("index entry {id} has an invalid window {w:?}"));
                }
                expected_off += u64::from(w[0]);
            }
        }
        let expected = data_start as u64 + 2 * expected_off;
        if len as u64 != expected {
            return Err(format!("file is {len} bytes, its index needs {expected}"));
        }
        Ok(())
    }

    fn entry_len(&self) -> usize {
        match self.kind {
            Kind::OneSided { gammons: true, .. } => 8,
            _ => 6,
        }
    }

    fn u16_at(&self, byte: usize) -> u16 {
        u16::from_le_bytes([self.bytes[byte], self.bytes[byte + 1]])
    }

    /// The distributions of one-sided position `id` (exact kinds only).
    /// The gammon half is `None` for files without gammons.
    pub fn one_sided(&self, id: usize) -> (Distribution, Option<Distribution>) {
        let mut w = [0u16; 32];
        let mut g = [0u16; 32];
        let Kind::OneSided {
            gammons,
            compressed,
            ..
        } = self.kind
        else {
            panic!("one_sided() on a {} file", self.kind)
        };
        if compressed {
            let entry = self.entry_len();
            let e = &self.bytes[HEADER_LEN + id * entry..][..entry];
            let off = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize;
            let mut at = HEADER_LEN + self.positions * entry + 2 * off;
            for (dist, win) in [&mut w, &mut g].into_iter().zip(e[4..].chunks(2)) {
                let (nz, io) = (usize::from(win[0]), usize::from(win[1]));
                for v in &mut dist[io..io + nz] {
                    *v = self.u16_at(at);
                    at += 2;
                }
            }
        } else {
            let rec = if gammons { 128 } else { 64 };
            let base = HEADER_LEN + id * rec;
            for r in 0..32 {
                w[r] = self.u16_at(base + 2 * r);
                if gammons {
                    g[r] = self.u16_at(base + 64 + 2 * r);
                }
            }
        }
        (w, gammons.then_some(g))
    }

    /// The four floats of a normal-distribution record.
    pub fn normal(&self, id: usize) -> [f32; 4] {
        let base = HEADER_LEN + 16 * id;
        std::array::from_fn(|k| {
            let b = &self.bytes[base + 4 * k..base + 4 * k + 4];
            f32::from_le_bytes([b[0], b[1], b[2], b[3]])
        })
    }

    /// The stored two-sided values (as signed equities, `u − 32768`) of the
    /// pair (`us` on roll, `them`); one value for cubeless files, four otherwise.
    pub fn two_sided(&self, us: usize, them: usize) -> [i16; 4] {
        let Kind::TwoSided { cubeful, .. } = self.kind else {
            panic!("two_sided() on a {} file", self.kind)
        };
        let k = if cubeful { 4 } else { 1 };
        let base = HEADER_LEN + 2 * k * (us * self.positions + them);
        let mut out = [0i16; 4];
        for (i, v) in out.iter_mut().take(k).enumerate() {
            *v = (i32::from(self.u16_at(base + 2 * i)) - 32768) as i16;
        }
        out
    }
}
