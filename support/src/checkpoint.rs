//! Append-only checkpoint files for [`Job`]s.
//!
//! Layout: a magic line, the job's fingerprint (its options), then one block
//! per completed unit: `unit (u64) | length (u64) | payload | hash (u64)`.
//! Blocks are appended and synced; a block cut short by a crash fails its
//! length or hash check and is dropped on resume, so a resumed job recomputes
//! from the last complete unit and produces identical output.

use crate::job::{Job, PayloadError};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"bgkit-ckpt-v1\n\0\0";

/// Why a checkpoint cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// I/O failure on the checkpoint file.
    #[error("checkpoint {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error (part of the message, so not a `source`).
        error: io::Error,
    },
    /// Not a bgkit checkpoint.
    #[error("{} is not a bgkit checkpoint", .0.display())]
    NotCheckpoint(PathBuf),
    /// Made by a run with other options.
    #[error(
        "checkpoint {} was made with different options ({found}); expected {expected}",
        path.display()
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// Its fingerprint.
        found: String,
        /// This run's fingerprint.
        expected: String,
    },
    /// A block decoded but did not fit the job.
    #[error("checkpoint {}: unit {unit}: {error}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The unit that does not fit.
        unit: u64,
        /// What is wrong.
        error: PayloadError,
    },
}

/// 64-bit FNV-1a over words, enough to detect torn or corrupted blocks.
fn hash(unit: u64, payload: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ unit;
    let mut chunks = payload.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes(c.try_into().expect("8 bytes"))).wrapping_mul(0x100_0000_01b3);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h ^ payload.len() as u64
}

/// An open checkpoint, holding the units written so far.
pub struct Checkpoint {
    file: File,
    path: PathBuf,
    units_written: usize,
}

impl Checkpoint {
    /// The conventional checkpoint path for an output file: `FILE.ckpt`.
    pub fn path_for(output: &Path) -> PathBuf {
        let mut s = output.as_os_str().to_owned();
        s.push(".ckpt");
        PathBuf::from(s)
    }

    /// Starts a new checkpoint (replacing any old one; a symbolic link at
    /// `path` is refused, never followed).
    pub fn create(path: &Path, fingerprint: &str) -> io::Result<Checkpoint> {
        crate::atomic::check_checkpoint_name(path)?;
        let mut file = crate::atomic::open_no_follow(path, true)?;
        let mut head = Vec::new();
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&(fingerprint.len() as u64).to_le_bytes());
        head.extend_from_slice(fingerprint.as_bytes());
        file.write_all(&head)?;
        file.sync_data()?;
        Ok(Checkpoint {
            file,
            path: path.to_owned(),
            units_written: 0,
        })
    }

    /// Reopens a checkpoint made with the same `fingerprint` and restores its
    /// complete units into `job` (which must be fresh). A torn last block is
    /// discarded.
    pub fn resume(
        path: &Path,
        fingerprint: &str,
        job: &mut dyn Job,
    ) -> Result<Checkpoint, CheckpointError> {
        let name = path.to_path_buf();
        let io_err = |error| CheckpointError::Io {
            path: name.clone(),
            error,
        };
        crate::atomic::check_checkpoint_name(path).map_err(io_err)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        let mut r = BufReader::with_capacity(1 << 20, &mut file);
        let mut magic = [0u8; 16];
        let mut word = [0u8; 8];
        if r.read_exact(&mut magic).is_err() || &magic != MAGIC || r.read_exact(&mut word).is_err()
        {
            return Err(CheckpointError::NotCheckpoint(name));
        }
        let flen = u64::from_le_bytes(word);
        if flen > 4096 {
            return Err(CheckpointError::NotCheckpoint(name));
        }
        let mut found = vec![0u8; flen as usize];
        r.read_exact(&mut found)
            .map_err(|_| CheckpointError::NotCheckpoint(name.clone()))?;
        let found = String::from_utf8_lossy(&found).into_owned();
        if found != fingerprint {
            return Err(CheckpointError::Mismatch {
                path: name,
                found,
                expected: fingerprint.to_owned(),
            });
        }
        let mut good_end = 24 + flen;
        let mut payload = Vec::new();
        while job.units_done() < job.units() {
            let mut head = [0u8; 16];
            if r.read_exact(&mut head).is_err() {
                break;
            }
            let unit = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
            let plen = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
            if unit != job.units_done() as u64 || good_end + 24 + plen > len {
                break;
            }
            payload.resize(plen as usize, 0);
            if r.read_exact(&mut payload).is_err() || r.read_exact(&mut word).is_err() {
                break;
            }
            if u64::from_le_bytes(word) != hash(unit, &payload) {
                break;
            }
            job.restore_unit(&payload)
                .map_err(|error| CheckpointError::Invalid {
                    path: name.clone(),
                    unit,
                    error,
                })?;
            good_end += 24 + plen;
        }
        drop(r);
        file.set_len(good_end).map_err(io_err)?;
        file.seek(SeekFrom::Start(good_end)).map_err(io_err)?;
        Ok(Checkpoint {
            file,
            path: path.to_owned(),
            units_written: job.units_done(),
        })
    }

    /// Appends every unit `job` completed since the last call, then syncs.
    pub fn append(&mut self, job: &dyn Job) -> io::Result<()> {
        if self.units_written == job.units_done() {
            return Ok(());
        }
        let mut out = io::BufWriter::with_capacity(1 << 20, &mut self.file);
        let mut payload = Vec::new();
        for unit in self.units_written..job.units_done() {
            payload.clear();
            job.encode_unit(unit, &mut payload);
            out.write_all(&(unit as u64).to_le_bytes())?;
            out.write_all(&(payload.len() as u64).to_le_bytes())?;
            out.write_all(&payload)?;
            out.write_all(&hash(unit as u64, &payload).to_le_bytes())?;
        }
        out.flush()?;
        drop(out);
        self.file.sync_data()?;
        self.units_written = job.units_done();
        Ok(())
    }

    /// Units safely on disk.
    pub fn units_written(&self) -> usize {
        self.units_written
    }

    /// The checkpoint's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes the checkpoint (after the output is safely written).
    pub fn remove(self) -> io::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
    }
}
