//! Loading and saving weights files in either format.

use crate::error::WeightsError;
use crate::net::Nets;
use crate::{weights_binary, weights_text};
use std::path::Path;

/// The two weights file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `gnubg.weights`: ASCII, one value per line.
    Text,
    /// `gnubg.wd`: little-endian f32.
    Binary,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WeightsError + '_ {
    move |source| WeightsError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Parses weights in either format (binary files start with the magic
/// number).
pub fn parse(bytes: &[u8]) -> Result<(Nets, Format), WeightsError> {
    if weights_binary::is_binary(bytes) {
        return weights_binary::parse(bytes).map(|n| (n, Format::Binary));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| WeightsError::NotWeights)?;
    weights_text::parse(text).map(|n| (n, Format::Text))
}

/// Loads a weights file in either format.
pub fn load(path: &Path) -> Result<Nets, WeightsError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    parse(&bytes).map(|(nets, _)| nets)
}

/// Saves the nets in the given format.
pub fn save(nets: &Nets, path: &Path, format: Format) -> Result<(), WeightsError> {
    let bytes = match format {
        Format::Text => weights_text::write(nets).into_bytes(),
        Format::Binary => weights_binary::write(nets),
    };
    std::fs::write(path, bytes).map_err(io(path))
}
