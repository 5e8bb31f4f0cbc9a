//! Memory and disk checks made before a long run starts.

pub use crate::stdio::human;
use std::path::{Path, PathBuf};

/// Why a run cannot start on this machine.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    /// Not enough memory is available.
    #[error("this {what} needs about {} of memory, only {} is available", human(*.needed), human(*.available))]
    Memory {
        /// What needs it ("database", "training run").
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// Not enough free disk space.
    #[error("this {what} needs about {} of disk in {}, only {} is free", human(*.needed), .dir.display(), human(*.free))]
    Disk {
        /// What needs it.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// The directory.
        dir: PathBuf,
        /// Bytes free there.
        free: u64,
    },
    /// The free space could not be asked for.
    #[error("cannot query free space in {}: {error}", .dir.display())]
    Query {
        /// The directory.
        dir: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
}

/// Bytes of memory the kernel says are available, if known (Linux).
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Peak resident memory of this process so far, if known (Linux).
pub fn peak_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Fails if `memory` bytes of RAM or `disk` bytes in `dir` are not
/// available for this database.
pub fn ensure_fits(memory: u64, disk: u64, dir: &Path) -> Result<(), ResourceError> {
    let what = "database";
    if let Some(available) = available_memory() {
        if memory > available {
            return Err(ResourceError::Memory {
                what,
                needed: memory,
                available,
            });
        }
    }
    let free = fs4::available_space(dir).map_err(|error| ResourceError::Query {
        dir: dir.to_path_buf(),
        error,
    })?;
    if disk > free {
        return Err(ResourceError::Disk {
            what,
            needed: disk,
            dir: dir.to_path_buf(),
            free,
        });
    }
    Ok(())
}
