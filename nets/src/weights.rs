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
    to_bytes_counted(nets, format, &[format.counter(); 6])
}

fn io(path: &Path) -> impl FnOnce(io::Error) -> WeightsError + '_ {
    move |error| WeightsError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// [`to_bytes`] with `counters` as the nets' training counters (the
/// header field gnubg reads and ignores; [`Format::counter`] is what gnubg
/// and bgkit write), in file order.
pub fn to_bytes_counted(
    nets: &Nets,
    format: Format,
    counters: &[i32; 6],
) -> Result<Vec<u8>, WeightsError> {
    nets.check_finite()?;
    Ok(match format {
        Format::Text => weights_text::write_counted(nets, counters).into_bytes(),
        Format::Binary => weights_binary::write_counted(nets, counters),
    })
}

impl Format {
    /// The training counter gnubg and bgkit write in each net's header in
    /// this format: 1 in binary files, 0 in text files.
    pub fn counter(self) -> i32 {
        match self {
            Format::Text => weights_text::COUNTER,
            Format::Binary => weights_binary::COUNTER,
        }
    }
}

/// Everything a weights file holds: its nets, its format, and each net's
/// training counter.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsFile {
    /// The six nets.
    pub nets: Nets,
    /// The file's format.
    pub format: Format,
    /// Each net's training counter, in file order: the header field gnubg
    /// reads and ignores (an `i32` in a binary file; in a text file the
    /// header's fourth word, `None` if it is not an `i32`).
    pub counters: [Option<i32>; 6],
}

impl WeightsFile {
    /// The bytes of the file written back in its own format with its
    /// counters (a text counter that is not an `i32` becomes the format's
    /// [`Format::counter`]): the very bytes parsed when the file was
    /// written as gnubg and bgkit write their files.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WeightsError> {
        let counters = self.counters.map(|c| c.unwrap_or(self.format.counter()));
        to_bytes_counted(&self.nets, self.format, &counters)
    }
}

/// Parses weights in either format (binary files start with the magic
/// number).
pub fn parse(bytes: &[u8]) -> Result<(Nets, Format), WeightsError> {
    parse_file(bytes).map(|f| (f.nets, f.format))
}

/// [`parse`], keeping the training counters of the nets' headers.
pub fn parse_file(bytes: &[u8]) -> Result<WeightsFile, WeightsError> {
    if weights_binary::is_binary(bytes) {
        let (nets, counters) = weights_binary::parse_counted(bytes)?;
        return Ok(WeightsFile {
            nets,
            format: Format::Binary,
            counters: counters.map(Some),
        });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let (nets, counters) = weights_text::parse_counted(text)?;
            Ok(WeightsFile {
                nets,
                format: Format::Text,
                counters,
            })
        }
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
    use crate::net::{Net, NetKind, NetShape};

    #[test]
    fn header_counters_are_kept_in_both_formats() {
        let nets: Vec<Net> = NetKind::ALL
            .iter()
            .map(|k| {
                let shape = NetShape {
                    inputs: k.inputs(),
                    hidden: 4,
                    outputs: 5,
                    beta_hidden: 0.1,
                    beta_output: 1.0,
                };
                Net::zeroed(shape).unwrap()
            })
            .collect();
        let nets = Nets::new(nets.try_into().unwrap()).unwrap();
        let counters = [3, -1, 0, 7, 1, i32::MAX];
        for format in [Format::Binary, Format::Text] {
            let bytes = to_bytes_counted(&nets, format, &counters).unwrap();
            let file = parse_file(&bytes).unwrap();
            assert_eq!(file.format, format);
            assert_eq!(file.counters, counters.map(Some));
            assert_eq!(file.to_bytes().unwrap(), bytes);
            let plain = to_bytes(&nets, format).unwrap();
            assert_eq!(
                parse_file(&plain).unwrap().counters,
                [Some(format.counter()); 6]
            );
        }
        // A text counter that is not an i32 is read (gnubg ignores it) but
        // not kept: the file comes back with gnubg's 0.
        let text = String::from_utf8(to_bytes(&nets, Format::Text).unwrap()).unwrap();
        let odd = text.replacen("250 4 5 0 ", "250 4 5 x1 ", 1);
        let file = parse_file(odd.as_bytes()).unwrap();
        assert_eq!(file.counters[0], None);
        assert_eq!(file.to_bytes().unwrap(), text.as_bytes());
    }

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
