//! The files one run writes, claimed before it starts. Every command that
//! writes files declares them once, with the files it reads:
//!
//! * no file it writes may be one of its inputs, or another file it writes
//!   (compared as files, not names: `./x`, `dir/../x`, symbolic and hard
//!   links to one file are the same file), so a command can never replace
//!   what it is reading, nor write two results over one another;
//! * no output may be a side file ([`crate::side`]: a journal, provenance,
//!   checkpoint, lock or label marker) of an existing file, an input or
//!   another output, so a command never replaces what another file needs;
//! * every output is locked for as long as the claim lives (see
//!   [`crate::lock`]), so a second run, short or long, writing the same
//!   file is refused at once instead of being overwritten by the first one
//!   (or overwriting it);
//! * every output is then checked writable ([`crate::atomic::check_writable`],
//!   which also removes temporaries a killed run left, safe only under the
//!   lock).
//!
//! Files a run writes beside an output (its provenance, learning curve,
//! checkpoint or journal) are covered by the output's lock; they are
//! checked against the inputs and the other files written, and checked
//! writable (a checkpoint as [`crate::atomic::check_checkpoint_name`] does:
//! never through a link).

use crate::atomic::{check_checkpoint_name, check_writable, output_target};
use crate::lock::{LockError, OutputLock};
use crate::side::SideFileError;
use std::io;
use std::path::{Path, PathBuf};

/// Why the files of a run cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// A file to write is one of the inputs.
    #[error("{} is the input {}: refusing to overwrite an input (write to another file)", .written, .input.display())]
    OverwritesInput {
        /// The file to write, as described to the user.
        written: String,
        /// The input.
        input: PathBuf,
    },
    /// Two files to write are one file.
    #[error("{first} and {second} are the same file: each output needs a file of its own")]
    SameFile {
        /// The first file, as described to the user.
        first: String,
        /// The second one.
        second: String,
    },
    /// An output is named as another file's side file.
    #[error(transparent)]
    SideFile(#[from] SideFileError),
    /// An output is locked by another run or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A file could not be examined, or an output cannot be written.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

/// The files of a run: what it reads and what it writes (see the module
/// documentation). Build it, then [`acquire`](Claim::acquire) it before
/// any work.
#[derive(Debug, Default)]
pub struct Claim {
    inputs: Vec<PathBuf>,
    outputs: Vec<PathBuf>,
    /// (file, the output it is written beside, whether it is a checkpoint).
    beside: Vec<(PathBuf, PathBuf, bool)>,
}

/// The claimed outputs' locks, released when this is dropped (at the end
/// of the run).
#[derive(Debug)]
#[must_use = "the outputs are only locked while the claim lives"]
pub struct Claimed {
    _locks: Vec<OutputLock>,
}

/// What a path names, to tell whether two paths are one file.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file (device and inode).
    #[cfg(unix)]
    Inode(u64, u64),
    /// A file that does not exist yet (or, off Unix, any file): its
    /// canonical directory and its name.
    Path(PathBuf),
}

impl Claim {
    /// No files yet.
    pub fn new() -> Claim {
        Claim::default()
    }

    /// A file the run reads.
    pub fn input(mut self, path: impl AsRef<Path>) -> Claim {
        self.inputs.push(path.as_ref().to_path_buf());
        self
    }

    /// Files the run reads.
    pub fn inputs<P: AsRef<Path>>(self, paths: impl IntoIterator<Item = P>) -> Claim {
        paths.into_iter().fold(self, Claim::input)
    }

    /// A file the run writes (or rewrites in place): locked and checked
    /// writable.
    pub fn output(mut self, path: impl AsRef<Path>) -> Claim {
        self.outputs.push(path.as_ref().to_path_buf());
        self
    }

    /// A file the run writes beside `output` (covered by its lock; checked
    /// writable).
    pub fn beside(mut self, output: impl AsRef<Path>, path: impl AsRef<Path>) -> Claim {
        let (path, output) = (path.as_ref().to_path_buf(), output.as_ref().to_path_buf());
        self.beside.push((path, output, false));
        self
    }

    /// A checkpoint or journal the run keeps beside `output` (covered by
    /// its lock; it may exist, to be resumed, but never as a link).
    pub fn checkpoint(mut self, output: impl AsRef<Path>, path: impl AsRef<Path>) -> Claim {
        let (path, output) = (path.as_ref().to_path_buf(), output.as_ref().to_path_buf());
        self.beside.push((path, output, true));
        self
    }

    /// Checks that no file written is an input or another file written,
    /// and that no output is a side file of another file, then locks every
    /// output and checks that every file written can be.
    pub fn acquire(self) -> Result<Claimed, ClaimError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| ClaimError::Io { path, error }
        };
        let mut inputs = Vec::new();
        for input in &self.inputs {
            // A missing input is reported by the reader.
            if let Some(id) = identity(input, true).map_err(io(input))? {
                inputs.push((id, input));
            }
        }
        let written = self
            .outputs
            .iter()
            .map(|o| (o, o.display().to_string()))
            .chain(self.beside.iter().map(|(path, output, _)| {
                let what = format!("{} (written beside {})", path.display(), output.display());
                (path, what)
            }));
        let mut seen: Vec<(Identity, String)> = Vec::new();
        for (path, what) in written {
            let Some(id) = identity(path, false).map_err(io(path))? else {
                continue;
            };
            if let Some((_, input)) = inputs.iter().find(|(i, _)| *i == id) {
                return Err(ClaimError::OverwritesInput {
                    written: what,
                    input: input.to_path_buf(),
                });
            }
            if let Some((_, first)) = seen.iter().find(|(s, _)| *s == id) {
                return Err(ClaimError::SameFile {
                    first: first.clone(),
                    second: what,
                });
            }
            seen.push((id, what));
        }
        // Files the run names: a side file of one is refused even before
        // it exists (`split -o t.db -o t.db.json`).
        let named: Vec<Identity> = inputs
            .into_iter()
            .map(|(id, _)| id)
            .chain(seen.into_iter().map(|(id, _)| id))
            .collect();
        for output in &self.outputs {
            crate::side::check_output(output, |of| {
                identity(of, false).is_ok_and(|id| id.is_some_and(|id| named.contains(&id)))
            })?;
        }
        let mut locks = Vec::new();
        for output in &self.outputs {
            // A link to a regular file is written through: lock the file it
            // names, whatever name each run gives it.
            let target = output_target(output).unwrap_or_else(|_| output.clone());
            locks.push(OutputLock::acquire(&target)?);
            check_writable(output).map_err(io(output))?;
        }
        for (path, _, checkpoint) in &self.beside {
            if *checkpoint {
                check_checkpoint_name(path).map_err(io(path))?;
            } else {
                check_writable(path).map_err(io(path))?;
            }
        }
        Ok(Claimed { _locks: locks })
    }
}

/// The identity of the file `path` names (following links), `None` for a
/// missing input.
fn identity(path: &Path, input: bool) -> io::Result<Option<Identity>> {
    match std::fs::metadata(path) {
        #[cfg(unix)]
        Ok(meta) => {
            use std::os::unix::fs::MetadataExt;
            Ok(Some(Identity::Inode(meta.dev(), meta.ino())))
        }
        #[cfg(not(unix))]
        Ok(_) => Ok(Some(Identity::Path(std::fs::canonicalize(path)?))),
        Err(e) if e.kind() == io::ErrorKind::NotFound && input => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Not there yet (or a dangling link, which the writability
            // check refuses): its directory, resolved, and its name.
            let dir = crate::atomic::parent_dir(path);
            match (std::fs::canonicalize(&dir), path.file_name()) {
                (Ok(dir), Some(name)) => Ok(Some(Identity::Path(dir.join(name)))),
                // A missing directory: the writability check says so.
                _ => Ok(Some(Identity::Path(path.to_path_buf()))),
            }
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_may_not_be_an_input_or_another_output_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("in.db");
        std::fs::write(&input, b"precious").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        let dotted = d.join(".").join("in.db");
        let refused = |claim: Claim| claim.acquire().unwrap_err().to_string();
        let e = refused(Claim::new().input(&input).output(&dotted));
        assert!(e.contains("refusing to overwrite an input"), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("in.db", d.join("link.db")).unwrap();
            std::fs::hard_link(&input, d.join("hard.db")).unwrap();
            for other in ["link.db", "hard.db"] {
                let e = refused(Claim::new().input(&input).output(d.join(other)));
                assert!(e.contains("refusing to overwrite an input"), "{other}: {e}");
            }
        }
        let e = refused(
            Claim::new()
                .input(&input)
                .output(d.join("out.wd"))
                .beside(d.join("out.wd"), d.join("sub/../in.db")),
        );
        assert!(e.contains("written beside"), "{e}");
        // Two outputs that do not exist yet, named differently.
        let e = refused(
            Claim::new()
                .output(d.join("new.db"))
                .output(d.join("sub").join("..").join("new.db")),
        );
        assert!(e.contains("are the same file"), "{e}");
        assert_eq!(std::fs::read(&input).unwrap(), b"precious");
        assert!(!d.join("new.db").exists());
        // Distinct files are claimed and locked until the claim ends.
        let claimed = Claim::new()
            .input(&input)
            .input(d.join("missing"))
            .output(d.join("a.db"))
            .output(d.join("b.db"))
            .acquire()
            .unwrap();
        let e = refused(Claim::new().output(d.join("./b.db")));
        assert!(e.contains("in use by another run"), "{e}");
        drop(claimed);
        drop(Claim::new().output(d.join("b.db")).acquire().unwrap());
        // A file written beside an output must be writable too.
        std::fs::create_dir(d.join("c.db.json")).unwrap();
        let e = refused(
            Claim::new()
                .output(d.join("c.db"))
                .beside(d.join("c.db"), d.join("c.db.json")),
        );
        assert!(e.contains("c.db.json: is a directory"), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("in.db", d.join("c.db.ckpt")).unwrap();
            let e = refused(
                Claim::new()
                    .output(d.join("c.db"))
                    .checkpoint(d.join("c.db"), d.join("c.db.ckpt")),
            );
            assert!(e.contains("c.db.ckpt: is a symbolic link"), "{e}");
        }
    }

    #[test]
    fn an_output_may_not_be_a_side_file_of_another_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("j.db"), b"db").unwrap();
        std::fs::write(d.join("j.db.journal"), b"journal").unwrap();
        let refused = |claim: Claim| claim.acquire().unwrap_err().to_string();
        let e = refused(
            Claim::new()
                .input(d.join("x.db"))
                .output(d.join("j.db.journal")),
        );
        assert!(e.contains("is the journal of"), "{e}");
        // Of an input or of another output, existing or not.
        let e = refused(
            Claim::new()
                .input(d.join("j.db"))
                .output(d.join("j.db.ckpt")),
        );
        assert!(e.contains("is the checkpoint of"), "{e}");
        let e = refused(
            Claim::new()
                .output(d.join("t.db"))
                .output(d.join("t.db.json")),
        );
        assert!(e.contains("is the provenance of"), "{e}");
        assert_eq!(std::fs::read(d.join("j.db.journal")).unwrap(), b"journal");
        assert!(!d.join(".j.db.journal.lock").exists(), "nothing locked");
        // Files written beside an output are its own side files.
        drop(
            Claim::new()
                .output(d.join("j.db"))
                .checkpoint(d.join("j.db"), d.join("j.db.journal"))
                .acquire()
                .unwrap(),
        );
    }
}
