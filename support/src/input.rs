//! Input files, opened the one safe way every tool shares: only a regular
//! file is read. The file is opened without waiting (a FIFO with no writer
//! is refused at once instead of blocking the tool, and with it the
//! signals it would have to answer), checked with `fstat` on the opened
//! file (no race with a rename), and a reader that loads the whole file
//! first compares its size from the metadata with a limit, so that a
//! device such as `/dev/zero` or a huge file never fills memory.
//!
//! Errors are [`io::Error`]s that do not repeat the path: callers name the
//! file once, as every tool does (`PATH: why`).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most bytes an input of some kind may have, and what to call it in
/// the message when it has more.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// Bytes at most.
    pub bytes: u64,
    /// The kind of file, as in "larger than any {what}".
    pub what: &'static str,
}

/// Opens `path` for reading if it is a regular file (a symbolic link to
/// one is followed), and returns it with its length. A directory, device,
/// FIFO or socket is refused without blocking and without reading.
pub fn open(path: &Path) -> io::Result<(File, u64)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading waits for a writer unless O_NONBLOCK
        // is given. On a regular file (all that is kept) the flag changes
        // nothing.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a regular file",
        ));
    }
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO or socket): refusing to read it",
        ));
    }
    Ok((file, meta.len()))
}

/// The whole content of the regular file `path`, refused before reading if
/// its metadata says it is larger than `limit` (and cut off, with the same
/// error, if it grows past it while being read).
pub fn read(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let (file, len) = open(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "larger than any {} ({} at most)",
                limit.what,
                crate::stdio::human(limit.bytes)
            ),
        )
    };
    if len > limit.bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read`] as UTF-8 text; text that is not UTF-8 is refused naming the
/// first line that is not.
pub fn read_text(path: &Path, limit: Limit) -> io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|e| {
        let line = first_bad_line(e.as_bytes()).unwrap_or(1);
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("line {line} is not UTF-8 text"),
        )
    })
}

/// The 1-based number of the first line of `bytes` that is not UTF-8, if
/// any.
pub fn first_bad_line(bytes: &[u8]) -> Option<usize> {
    let valid = std::str::from_utf8(bytes).err()?.valid_up_to();
    Some(1 + bytes[..valid].iter().filter(|&&b| b == b'\n').count())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Limit = Limit {
        bytes: 16,
        what: "test file",
    };

    #[test]
    fn regular_files_are_read_within_their_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"one\ntwo\n").unwrap();
        assert_eq!(read(&path, LIMIT).unwrap(), b"one\ntwo\n");
        assert_eq!(read_text(&path, LIMIT).unwrap(), "one\ntwo\n");
        std::fs::write(&path, [b'x'; 17]).unwrap();
        let e = read(&path, LIMIT).unwrap_err();
        assert_eq!(e.to_string(), "larger than any test file (16 B at most)");
        std::fs::write(&path, b"one\ntwo\n\xffx\n").unwrap();
        let e = read_text(&path, LIMIT).unwrap_err();
        assert_eq!(e.to_string(), "line 3 is not UTF-8 text");
        assert_eq!(first_bad_line(b"ok"), None);
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let start = std::time::Instant::now();
        // A FIFO without a writer would block an ordinary open for ever.
        let e = open(&fifo).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read(Path::new("/dev/zero"), LIMIT).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = open(dir.path()).unwrap_err();
        assert_eq!(e.to_string(), "is a directory, not a regular file");
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        std::os::unix::fs::symlink(&fifo, dir.path().join("link")).unwrap();
        assert!(open(&dir.path().join("link")).is_err());
    }
}
