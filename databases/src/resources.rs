//! Memory and disk checks made before a long run starts.

use anyhow::{bail, Context, Result};
use std::path::Path;

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

/// Human-readable size.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// Fails if `memory` bytes of RAM or `disk` bytes in `dir` are not available.
pub fn ensure_fits(memory: u64, disk: u64, dir: &Path) -> Result<()> {
    if let Some(avail) = available_memory() {
        if memory > avail {
            bail!(
                "this database needs about {} of memory, only {} is available",
                human(memory),
                human(avail)
            );
        }
    }
    let free = fs4::available_space(dir)
        .with_context(|| format!("cannot query free space in {}", dir.display()))?;
    if disk > free {
        bail!(
            "this database needs about {} of disk in {}, only {} is free",
            human(disk),
            dir.display(),
            human(free)
        );
    }
    Ok(())
}
