//! Atomic output files: written to a temporary file in the destination's
//! directory and renamed over the final name only when complete, so a crash,
//! a full disk or an error never leaves a truncated file under that name.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written; it appears under its final name on [`commit`](Self::commit).
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

/// The directory a path's file lives in (`.` for a bare name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` with `suffix` appended to its file name (`OUT` → `OUT.ckpt`):
/// the files a tool keeps beside its output.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically (an [`AtomicFile`], committed).
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all_with(|w| w.write_all(bytes))?;
    file.commit()
}

/// A hidden file next to `path` for bgkit's own use: `.NAME` followed by
/// `suffix` (temporaries, spares, locks), in `path`'s directory.
pub fn hidden_sibling(path: &Path, suffix: &str) -> PathBuf {
    parent_dir(path).join(format!(".{}{suffix}", file_name(path)))
}

/// The file name of `path` (`out` if it has none), as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned())
}

/// The file an output path names: the path itself if it is missing or a
/// regular file, the file a symbolic link points to if that is a regular
/// file. Anything else (a directory, a device such as `/dev/null`, a FIFO,
/// a socket, a dangling link) is refused, so that it is never replaced.
pub fn output_target(path: &Path) -> io::Result<PathBuf> {
    let refuse = |kind, what: &str| Err(io::Error::new(kind, what.to_owned()));
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(e),
        Ok(meta) => meta,
    };
    if meta.file_type().is_symlink() {
        return match std::fs::metadata(path) {
            Ok(target) if target.is_file() => std::fs::canonicalize(path),
            Ok(_) => refuse(
                io::ErrorKind::InvalidInput,
                "is a symbolic link to something that is not a regular file: refusing to replace it",
            ),
            Err(_) => refuse(io::ErrorKind::NotFound, "is a dangling symbolic link"),
        };
    }
    if meta.is_dir() {
        return refuse(io::ErrorKind::IsADirectory, "is a directory");
    }
    if !meta.is_file() {
        return refuse(
            io::ErrorKind::InvalidInput,
            "is not a regular file (a device, FIFO or socket): refusing to replace it",
        );
    }
    Ok(path.to_path_buf())
}

/// Fails unless `path` can be written: its target (see [`output_target`])
/// is missing or a regular file that may be written, and a file can be
/// created next to it. Also removes temporaries an earlier run left behind
/// when it was killed while writing `path`. Creates nothing.
pub fn check_writable(path: &Path) -> io::Result<()> {
    let target = output_target(path)?;
    if target.exists() {
        // An immutable or read-only file (for this user) cannot be
        // replaced: find out now, not after the work.
        std::fs::OpenOptions::new().write(true).open(&target)?;
    }
    remove_stale_temporaries(&target);
    drop(AtomicFile::create(&target)?);
    Ok(())
}

/// Fails unless `path` can be a checkpoint bgkit writes: missing or a
/// regular file, never a symbolic link (whose target would be overwritten).
pub fn check_checkpoint_name(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a symbolic link, not a checkpoint bgkit wrote: refusing to follow it",
        )),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file: refusing to replace it",
        )),
    }
}

/// Opens `path` for writing, created if missing, never through a symbolic
/// link (a link there fails, saying so, instead of redirecting the write).
pub fn open_no_follow(path: &Path, truncate: bool) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return io::Error::new(
                io::ErrorKind::InvalidInput,
                "is a symbolic link, not a file bgkit made: refusing to follow it",
            );
        }
        e
    })
}

/// Deletes `.NAME.XXXXXX.tmp` files (our temporaries for `path`) left by a
/// killed run.
fn remove_stale_temporaries(path: &Path) {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(parent_dir(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let stale = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|mid| mid.len() == 6 && mid.chars().all(|c| c.is_ascii_alphanumeric()));
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Deletes every temporary a killed run may have left for `path` or for
/// files named after it (`.NAME.*.tmp` in its directory: atomic writes,
/// spares, `NAME.save.*` and `NAME.json` temporaries). Only for a caller
/// that owns `path` and holds its lock.
pub fn remove_temporaries_of(path: &Path) -> io::Result<()> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(());
    };
    let prefix = format!(".{name}.");
    let entries = match std::fs::read_dir(parent_dir(path)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with(&prefix) && file.ends_with(".tmp") {
            remove_if_present(&entry.path())?;
        }
    }
    Ok(())
}

impl AtomicFile {
    /// Starts writing `path` (creates `.NAME.XXXXXX.tmp` next to it; a
    /// symbolic link to a regular file is written through, see
    /// [`output_target`]). Fails at once if the directory is missing or not
    /// writable, or the path names something other than a regular file.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let path = &output_target(path)?;
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{}.", file_name(path)))
            .suffix(".tmp")
            .tempfile_in(parent_dir(path))?;
        Ok(AtomicFile {
            tmp,
            path: path.to_owned(),
        })
    }

    /// Writes the whole content with `fill` through a buffer and returns
    /// what `fill` returns.
    pub fn write_all_with<T>(
        &mut self,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> io::Result<T> {
        let mut writer = BufWriter::with_capacity(1 << 22, self.tmp.as_file());
        let value = fill(&mut writer)?;
        writer.flush()?;
        Ok(value)
    }

    /// The temporary file being written (to re-read it before
    /// [`commit`](Self::commit)).
    pub fn path_being_written(&self) -> &Path {
        self.tmp.path()
    }

    /// Syncs the data and renames the file to its final name.
    pub fn commit(self) -> io::Result<()> {
        self.tmp.as_file().sync_all()?;
        make_readable(self.tmp.path());
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A file saved again and again (a checkpoint after every sweep) that always
/// names a complete version. Each version is written over the file of the
/// version before the previous one, a spare kept next to it, and then
/// renamed over the name: rewriting pages the page cache already holds is
/// several times faster than filling a new file, and a kill at any moment
/// leaves the last complete version under the name. The spare (and the
/// link to the previous version used while swapping) are temporaries that
/// [`check_writable`] removes if a run was killed.
pub struct RecycledFile {
    path: PathBuf,
    /// Where the next version is written.
    spare: PathBuf,
    /// The previous version's second name while the new one takes its place.
    previous: PathBuf,
}

impl RecycledFile {
    /// Saves versions of `path`.
    pub fn new(path: &Path) -> RecycledFile {
        RecycledFile {
            path: path.to_owned(),
            spare: hidden_sibling(path, ".spare0.tmp"),
            previous: hidden_sibling(path, ".spare1.tmp"),
        }
    }

    /// Makes `bytes` the content of the file: written to the spare and
    /// synced, then swapped in; the replaced version becomes the spare. An
    /// error about the spare's name (a planted link) names the spare; the
    /// caller names the file in the others (a full disk).
    pub fn save(&self, bytes: &[u8]) -> io::Result<()> {
        let written = open_no_follow(&self.spare, false)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.spare.display())))
            .and_then(|mut file| {
                file.write_all(bytes)?;
                file.set_len(bytes.len() as u64)?;
                file.sync_all()
            });
        if let Err(e) = written {
            // A spare cut short (disk full) is never left behind.
            let _ = self.remove_spare();
            return Err(e);
        }
        make_readable(&self.spare);
        remove_if_present(&self.previous)?;
        // Without hard links (some file systems) the replaced version is
        // simply dropped and the next one written to a new file.
        let linked = self.path.exists() && std::fs::hard_link(&self.path, &self.previous).is_ok();
        std::fs::rename(&self.spare, &self.path)?;
        if linked {
            std::fs::rename(&self.previous, &self.spare)?;
        }
        Ok(())
    }

    /// The path that names the latest version.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes the spare, keeping the latest version (when a run stops
    /// early and leaves it for a restart).
    pub fn remove_spare(&self) -> io::Result<()> {
        remove_if_present(&self.spare)?;
        remove_if_present(&self.previous)
    }

    /// Deletes the file and its spare.
    pub fn remove(self) -> io::Result<()> {
        self.remove_spare()?;
        remove_if_present(&self.path)
    }
}

/// At most one job running on a thread of its own: starting a job waits
/// for the one before, and so does dropping. A job's error is returned by
/// the next [`start`](Self::start) or [`wait`](Self::wait).
#[derive(Debug, Default)]
pub struct InFlight(Option<std::thread::JoinHandle<io::Result<()>>>);

impl InFlight {
    /// Waits for the job in flight, then starts `job` on a thread of its own.
    pub fn start(
        &mut self,
        job: impl FnOnce() -> io::Result<()> + Send + 'static,
    ) -> io::Result<()> {
        self.wait()?;
        self.0 = Some(std::thread::spawn(job));
        Ok(())
    }

    /// Waits for the job in flight, returning its error.
    pub fn wait(&mut self) -> io::Result<()> {
        match self.0.take() {
            Some(job) => job
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the background save panicked"))),
            None => Ok(()),
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let _ = self.wait();
    }
}

/// A [`RecycledFile`] saved on a thread of its own, so that a long run
/// goes on computing while its checkpoint is written and synced: at most
/// one save is in flight, and each save waits for the one before. A kill
/// at any moment still leaves the last complete version under the name.
/// An error of a save is returned by the next [`save`](Self::save) or by
/// [`wait`](Self::wait); dropping it waits for the save in flight.
pub struct BackgroundFile {
    file: std::sync::Arc<RecycledFile>,
    pending: std::sync::Mutex<InFlight>,
}

impl BackgroundFile {
    /// Saves versions of `file` in the background.
    pub fn new(file: RecycledFile) -> BackgroundFile {
        BackgroundFile {
            file: std::sync::Arc::new(file),
            pending: std::sync::Mutex::new(InFlight::default()),
        }
    }

    /// The path that names the latest version.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Waits for the save in flight, then starts saving `bytes`.
    pub fn save(&self, bytes: Vec<u8>) -> io::Result<()> {
        let file = std::sync::Arc::clone(&self.file);
        self.lock().start(move || file.save(&bytes))
    }

    /// Waits for the save in flight, returning its error.
    pub fn wait(&self) -> io::Result<()> {
        self.lock().wait()
    }

    /// Waits for the save in flight, then deletes the file and its spare.
    pub fn remove(self) -> io::Result<()> {
        self.wait()?;
        let file = std::sync::Arc::clone(&self.file);
        drop(self);
        std::sync::Arc::try_unwrap(file)
            .map_err(|_| io::Error::other("a checkpoint save is still running"))?
            .remove()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InFlight> {
        // A poisoned lock only means a panic elsewhere; the handle is intact.
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Removes `path`; a missing file is not an error.
pub fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        r => r,
    }
}

#[cfg(unix)]
fn make_readable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // Best effort: databases are not secret; gnubg creates them 0666 & umask.
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn make_readable(_: &Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_file_replaces_whole_files_beside_their_suffixed_siblings() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.db");
        let marker = with_suffix(&out, ".labelled");
        assert_eq!(marker, dir.path().join("out.db.labelled"));
        write_file(&out, b"first").unwrap();
        write_file(&out, b"2nd").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"2nd");
        remove_if_present(&marker).unwrap();
        write_file(&marker, b"").unwrap();
        remove_if_present(&marker).unwrap();
        assert!(!marker.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary left: {names:?}");
    }

    #[test]
    fn appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bd");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all_with(|w| w.write_all(b"abc")).unwrap();
        assert!(!path.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn stale_temporaries_are_removed_and_directories_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bd");
        std::fs::write(dir.path().join(".x.bd.AbC123.tmp"), b"old").unwrap();
        std::fs::write(dir.path().join(".y.bd.AbC123.tmp"), b"other").unwrap();
        check_writable(&path).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(".y.bd.AbC123.tmp")]);
        assert!(check_writable(dir.path()).is_err());
    }

    #[test]
    fn recycled_file_keeps_the_latest_version_and_one_spare() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bd.tmp");
        let file = RecycledFile::new(&path);
        for (k, content) in [&b"first version"[..], b"second", b"third, longer version"]
            .into_iter()
            .enumerate()
        {
            file.save(content).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), content);
            let names = std::fs::read_dir(dir.path()).unwrap().count();
            assert_eq!(names, if k == 0 { 1 } else { 2 }, "the file and a spare");
        }
        // A killed run's spare is a temporary the next run removes.
        check_writable(&path).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        file.save(b"after a restart").unwrap();
        file.save(b"stopped here").unwrap();
        file.remove_spare().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert_eq!(std::fs::read(&path).unwrap(), b"stopped here");
        file.save(b"again").unwrap();
        file.save(b"and again").unwrap();
        file.remove().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn background_saves_end_in_order_and_report_their_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let file = BackgroundFile::new(RecycledFile::new(&path));
        for k in 0..20u32 {
            file.save(format!("version {k}").into_bytes()).unwrap();
        }
        file.wait().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"version 19");
        // Dropping waits for the save in flight.
        file.save(b"last".to_vec()).unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"last");
        let file = BackgroundFile::new(RecycledFile::new(&path));
        file.save(b"removed".to_vec()).unwrap();
        file.remove().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // A save that fails (its directory is gone) is reported by the
        // next call, not lost.
        let gone = dir.path().join("gone");
        let file = BackgroundFile::new(RecycledFile::new(&gone.join("run.ckpt")));
        file.save(b"nowhere".to_vec()).unwrap();
        assert!(file.wait().is_err());
        assert!(file.wait().is_ok(), "an error is reported once");
        file.save(b"nowhere".to_vec()).unwrap();
        assert!(file.save(b"again".to_vec()).is_err());
    }

    #[test]
    fn dropped_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bd");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all_with(|w| w.write_all(b"partial")).unwrap();
        drop(f);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn special_files_and_planted_links_are_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        assert!(check_writable(&fifo).is_err());
        assert!(AtomicFile::create(&fifo).is_err());
        symlink(&fifo, d.join("to-fifo")).unwrap();
        assert!(check_writable(&d.join("to-fifo")).is_err());
        symlink(d.join("nowhere"), d.join("dangling")).unwrap();
        assert!(check_writable(&d.join("dangling")).is_err());
        // A link to a regular file is written through.
        std::fs::write(d.join("real"), b"old").unwrap();
        symlink("real", d.join("link")).unwrap();
        let mut f = AtomicFile::create(&d.join("link")).unwrap();
        f.write_all_with(|w| w.write_all(b"new")).unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(d.join("real")).unwrap(), b"new");
        assert!(std::fs::symlink_metadata(d.join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        // Checkpoint names never follow links.
        std::fs::write(d.join("precious"), b"precious").unwrap();
        symlink("precious", d.join("x.tmp")).unwrap();
        assert!(check_checkpoint_name(&d.join("x.tmp")).is_err());
        assert!(open_no_follow(&d.join("x.tmp"), true).is_err());
        let spare = RecycledFile::new(&d.join("y.tmp"));
        symlink("precious", d.join(".y.tmp.spare0.tmp")).unwrap();
        assert!(spare.save(b"checkpoint").is_err());
        assert_eq!(std::fs::read(d.join("precious")).unwrap(), b"precious");
        assert!(
            !d.join(".y.tmp.spare0.tmp").exists(),
            "the planted spare is removed"
        );
    }
}
