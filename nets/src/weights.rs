//! Loading and saving weights files in either format.

use crate::error::WeightsError;
use crate::net::Nets;
use crate::{weights_binary, weights_text};
use std::io::{self, Write};
use std::path::Path;
use support::AtomicFile;

/// The two weights file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `gnubg.weights`: ASCII, one value per line.
    Text,
    /// `gnubg.wd`: little-endian f32.
    Binary,
}

impl Format {
    /// The format a file name asks for: binary for a `.wd` extension, text
    /// otherwise.
    pub fn for_path(path: &Path) -> Format {
        match path.extension() {
            Some(ext) if ext.eq_ignore_ascii_case("wd") => Format::Binary,
            _ => Format::Text,
        }
    }
}

/// The bytes of a weights file of the nets in `format`; refused
/// ([`WeightsError::NotFinite`]) if a value is not finite, as no weights
/// file may hold one (so neither a weights file nor a checkpoint is ever
/// written from a net whose training diverged).
pub fn to_bytes(nets: &Nets, format: Format) -> Result<Vec<u8>, WeightsError> {
    nets.check_finite()?;
    Ok(match format {
        Format::Text => weights_text::write(nets).into_bytes(),
        Format::Binary => weights_binary::write(nets),
    })
}

fn io(path: &Path) -> impl FnOnce(io::Error) -> WeightsError + '_ {
    move |error| WeightsError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Parses weights in either format (binary files start with the magic
/// number).
pub fn parse(bytes: &[u8]) -> Result<(Nets, Format), WeightsError> {
    if weights_binary::is_binary(bytes) {
        return weights_binary::parse(bytes).map(|n| (n, Format::Binary));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => weights_text::parse(text).map(|n| (n, Format::Text)),
        Err(_) => {
            // The first line tells a text weights file from anything else;
            // a bad byte further on is reported where it is.
            let first = bytes.split(|&b| b == b'\n').next().unwrap_or(bytes);
            let first = std::str::from_utf8(first).map_err(|_| WeightsError::NotWeights)?;
            weights_text::check_header(first)?;
            let line = support::input::first_bad_line(bytes).unwrap_or(1);
            Err(WeightsError::NotText { line })
        }
    }
}

/// Largest weights file accepted (gnubg's are about 1 MB; a net with
/// thousands of hidden units stays far below this).
pub const MAX_FILE_LEN: u64 = 256 << 20;

/// Loads a weights file in either format. Only a regular file of at most
/// [`MAX_FILE_LEN`] bytes is read (a FIFO, a device such as `/dev/zero` or
/// a huge file is refused before reading; see [`support::input`]).
pub fn load(path: &Path) -> Result<Nets, WeightsError> {
    let limit = support::input::Limit {
        bytes: MAX_FILE_LEN,
        what: "weights file",
    };
    let bytes = support::input::read(path, limit).map_err(io(path))?;
    parse(&bytes).map(|(nets, _)| nets)
}

/// Saves the nets in the given format, atomically: the file appears under
/// `path` only once complete, and an existing file stays intact if the save
/// fails or the process dies midway. Nets with a value that is not finite
/// are refused before anything is written (see [`to_bytes`]).
pub fn save(nets: &Nets, path: &Path, format: Format) -> Result<(), WeightsError> {
    let bytes = to_bytes(nets, format)?;
    save_with(path, |w| w.write_all(&bytes)).map_err(io(path))
}

/// Writes `path` atomically with `fill`.
fn save_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all_with(fill)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_that_fails_midway_leaves_the_old_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.wd");
        std::fs::write(&path, b"old weights").unwrap();
        let result = save_with(&path, |w| {
            w.write_all(&[7u8; 1 << 16])?;
            w.flush()?;
            Err(io::Error::other("the disk is full"))
        });
        assert!(result.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old weights");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
        save_with(&path, |w| w.write_all(b"new weights")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new weights");
    }
}
