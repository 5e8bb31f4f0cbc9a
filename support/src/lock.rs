//! One run per output: an exclusive advisory lock on a hidden lock file next
//! to the output (`.NAME.lock`), held for the whole run, so a second run
//! writing the same file (or its checkpoint) is refused at once instead of
//! silently overwriting the first one's work.

use std::fs::File;
use std::path::{Path, PathBuf};

/// Why the output could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds the lock.
    #[error("{} is in use by another run (lock file {})", .output.display(), .lock.display())]
    InUse {
        /// The output.
        output: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock {}: {error}", .lock.display())]
    Io {
        /// The lock file.
        lock: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
}

/// An exclusive lock on an output for as long as it lives; the lock file is
/// removed when it is dropped.
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

/// The lock file of `output`: `.NAME.lock` in the same directory.
pub fn lock_path(output: &Path) -> PathBuf {
    crate::atomic::hidden_sibling(output, ".lock")
}

impl OutputLock {
    /// Locks `output` for this process, or fails at once if another run
    /// holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock, LockError> {
        let path = lock_path(output);
        let io = |error| LockError::Io {
            lock: path.clone(),
            error,
        };
        loop {
            // Never through a symbolic link: a link planted at the lock's
            // name is refused, named, instead of locking whatever it names.
            let file = crate::atomic::open_no_follow(&path, false).map_err(io)?;
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => {}
                Err(fs4::TryLockError::WouldBlock) => {
                    return Err(LockError::InUse {
                        output: output.to_path_buf(),
                        lock: path,
                    })
                }
                Err(fs4::TryLockError::Error(e)) => return Err(io(e)),
            }
            // The previous holder may have removed the file between our open
            // and our lock: then we hold a lock on a file nobody else can
            // find, and must lock the one that is there now.
            if same_file(&file, &path) {
                return Ok(OutputLock { file, path });
            }
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked: a run waiting to open it re-checks
        // (see `acquire`).
        let _ = std::fs::remove_file(&self.path);
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_output_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.bd");
        let first = OutputLock::acquire(&out).unwrap();
        let second = OutputLock::acquire(&out).unwrap_err();
        assert!(
            second.to_string().contains("in use by another run"),
            "{second}"
        );
        let other = OutputLock::acquire(&dir.path().join("y.bd")).unwrap();
        drop(first);
        drop(other);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "lock files removed"
        );
        let again = OutputLock::acquire(&out).unwrap();
        drop(again);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_the_lock_name_is_refused_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.bd");
        std::os::unix::fs::symlink("elsewhere", lock_path(&out)).unwrap();
        let e = OutputLock::acquire(&out).unwrap_err().to_string();
        assert!(
            e.contains(".x.bd.lock") && e.contains("symbolic link"),
            "{e}"
        );
        assert!(!dir.path().join("elsewhere").exists());
    }
}
