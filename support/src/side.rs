//! Side files: what bgkit keeps beside a file `X` — its journal
//! (`X.journal`), provenance (`X.json`), checkpoint (`X.ckpt`), lock
//! (`.X.lock`) and `trainer round`'s label marker (`X.labelled`). An
//! output named like one of them, beside a file that exists (or that the
//! run reads or writes), would replace what that file needs (a journal
//! that `--resume` continues, the record of how it was made): it is
//! refused ([`check_output`]), before any work.

use std::path::{Path, PathBuf};

/// The kinds of side files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideKind {
    /// `X.journal`: the finished positions of an interrupted rollout or
    /// labelling of the database `X`.
    Journal,
    /// `X.json`: how `X` was made.
    Provenance,
    /// `X.ckpt`: the checkpoint of an interrupted run writing `X`
    /// ([`crate::checkpoint::Checkpoint::path_for`]).
    Checkpoint,
    /// `.X.lock`: the lock of a run writing `X` ([`crate::lock::lock_path`]).
    Lock,
    /// `X.labelled`: `trainer round`'s marker that `X` was labelled.
    LabelMarker,
}

impl SideKind {
    /// Every kind.
    pub const ALL: [SideKind; 5] = [
        SideKind::Journal,
        SideKind::Provenance,
        SideKind::Checkpoint,
        SideKind::Lock,
        SideKind::LabelMarker,
    ];

    /// The suffix of a kind named `X` + suffix (`None` for the lock).
    fn suffix(self) -> Option<&'static str> {
        match self {
            SideKind::Journal => Some(".journal"),
            SideKind::Provenance => Some(".json"),
            SideKind::Checkpoint => Some(".ckpt"),
            SideKind::Lock => None,
            SideKind::LabelMarker => Some(".labelled"),
        }
    }

    /// The side file of this kind of `file`.
    pub fn path_of(self, file: &Path) -> PathBuf {
        match self.suffix() {
            Some(suffix) => crate::atomic::with_suffix(file, suffix),
            None => crate::lock::lock_path(file),
        }
    }

    /// The file whose side file of this kind `path` is named as, if its
    /// name fits (a name that is not UTF-8 fits none).
    pub fn owner(self, path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?.to_str()?;
        let stem = match self.suffix() {
            Some(suffix) => name.strip_suffix(suffix)?,
            None => name.strip_prefix('.')?.strip_suffix(".lock")?,
        };
        (!stem.is_empty() && stem != "." && stem != "..").then(|| path.with_file_name(stem))
    }

    /// What the file is to its owner, and why it matters.
    fn description(self) -> (&'static str, &'static str) {
        match self {
            SideKind::Journal => (
                "the journal",
                "an interrupted rollout or labelling's finished positions, which --resume continues",
            ),
            SideKind::Provenance => ("the provenance", "the record of how it was made"),
            SideKind::Checkpoint => (
                "the checkpoint",
                "an interrupted run's state, which --resume continues",
            ),
            SideKind::Lock => ("the lock file", "held by a run writing it"),
            SideKind::LabelMarker => (
                "the label marker",
                "trainer round's record that it was labelled",
            ),
        }
    }
}

/// An output named as another file's side file.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: is {} of {} ({}); choose another output name",
    .output.display(),
    .kind.description().0,
    .of.display(),
    .kind.description().1
)]
pub struct SideFileError {
    /// The output.
    pub output: PathBuf,
    /// Which side file it would be.
    pub kind: SideKind,
    /// The file it belongs to.
    pub of: PathBuf,
}

/// Fails if `output` is a side file of an existing regular file (a
/// symbolic link to one counts), or of a file for which `also` holds (the
/// run's inputs and other outputs, which may not exist yet).
pub fn check_output(output: &Path, also: impl Fn(&Path) -> bool) -> Result<(), SideFileError> {
    for kind in SideKind::ALL {
        let Some(of) = kind.owner(output) else {
            continue;
        };
        if std::fs::metadata(&of).is_ok_and(|m| m.is_file()) || also(&of) {
            return Err(SideFileError {
                output: output.to_path_buf(),
                kind,
                of,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_invert_the_side_file_names() {
        for kind in SideKind::ALL {
            for file in ["a.db", "dir/w.wd", "x"] {
                let side = kind.path_of(Path::new(file));
                let owner = kind.owner(&side).unwrap();
                assert_eq!(kind.path_of(&owner), side, "{kind:?} {file}");
            }
        }
        assert_eq!(SideKind::Journal.owner(Path::new(".journal")), None);
        assert_eq!(SideKind::Lock.owner(Path::new("a.lock")), None);
        assert_eq!(SideKind::Lock.owner(Path::new("..lock")), None);
        assert_eq!(SideKind::Provenance.owner(Path::new("a.db")), None);
    }

    #[test]
    fn a_side_file_of_an_existing_file_or_of_another_named_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("j.db"), b"db").unwrap();
        std::fs::create_dir(d.join("sub.db")).unwrap();
        for (name, what) in [
            ("j.db.journal", "is the journal of"),
            ("j.db.json", "is the provenance of"),
            ("j.db.ckpt", "is the checkpoint of"),
            (".j.db.lock", "is the lock file of"),
            ("j.db.labelled", "is the label marker of"),
        ] {
            let e = check_output(&d.join(name), |_| false).unwrap_err();
            let text = e.to_string();
            assert!(text.contains(what), "{text}");
            assert!(text.ends_with("choose another output name"), "{text}");
            assert_eq!(e.of, d.join("j.db"));
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("j.db", d.join("link.db")).unwrap();
            assert!(check_output(&d.join("link.db.json"), |_| false).is_err());
        }
        // A directory, a missing file or an ordinary name is no owner.
        for free in ["sub.db.json", "k.db.json", "j.db", "j.dbjson"] {
            check_output(&d.join(free), |_| false).unwrap();
        }
        // A file the run names (an output not written yet) is.
        let e = check_output(&d.join("t.db.json"), |p| p == d.join("t.db")).unwrap_err();
        assert_eq!(e.kind, SideKind::Provenance);
    }
}
