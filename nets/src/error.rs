//! Errors of weights loading and saving.

/// Why a weights file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The OS error (part of the message, so not a `source`).
        error: std::io::Error,
    },
    /// The first line is not `GNU Backgammon <version>`.
    #[error("not a gnubg weights file (first line is not \"GNU Backgammon 1.00\")")]
    NotWeights,
    /// A text weights file holds bytes that are not text (UTF-8).
    #[error("line {line} is not text (not UTF-8)")]
    NotText {
        /// The first such line, from 1.
        line: usize,
    },
    /// The version token is not `1.00`.
    #[error("weights file has version {0:?}, expected \"1.00\"")]
    Version(String),
    /// The binary magic number is wrong.
    #[error("not a gnubg binary weights file (bad magic number)")]
    BinaryMagic,
    /// The binary version is not 1.0.
    #[error("binary weights file has version {0}, expected 1")]
    BinaryVersion(f32),
    /// The file ends before all nets are read.
    #[error("weights file is truncated: {0}")]
    Truncated(String),
    /// A token is not a number.
    #[error("{what}: cannot parse {token:?} as a number")]
    Parse {
        /// Where the token is.
        what: String,
        /// The token.
        token: String,
    },
    /// A net header or value is out of range.
    #[error("{0}")]
    Invalid(String),
    /// A net does not have the size gnubg requires for its slot.
    #[error("{net} net has {found}, gnubg requires {expected}")]
    WrongSize {
        /// The net's name.
        net: &'static str,
        /// What the file has.
        found: String,
        /// What gnubg asserts.
        expected: String,
    },
    /// Something follows the sixth net.
    #[error("unexpected data after the sixth net: {0:?}")]
    TrailingData(String),
    /// A net to be saved holds a NaN or an infinity (its training
    /// diverged); no weights file may hold one, so it is not written.
    #[error(
        "the {net} net's value #{index} is {value}: a net whose values are not all finite \
         is not saved (the training diverged; a smaller learning rate may help)"
    )]
    NotFinite {
        /// The net's name.
        net: &'static str,
        /// The value's position in file order.
        index: usize,
        /// The value.
        value: f32,
    },
}

impl WeightsError {
    /// Prefixes an [`WeightsError::Invalid`] message with the net it is
    /// about (`"contact net: ..."`); other errors already say where they are.
    pub(crate) fn in_net(self, name: &str) -> WeightsError {
        match self {
            WeightsError::Invalid(msg) => WeightsError::Invalid(format!("{name} net: {msg}")),
            other => other,
        }
    }
}
