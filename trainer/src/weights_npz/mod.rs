//! A weights file as NumPy arrays (`trainer weights export|import`,
//! docs/trainer.md#weights-interchange-numpy-pytorch): every net's
//! weights, biases and slopes, and what else the file holds (its format,
//! the training counters of the nets' headers), so that importing an
//! export writes the original file back byte for byte.
//!
//! Arrays (`P` is a net's prefix, [`prefix`]):
//!
//! | array | dtype | shape |
//! |---|---|---|
//! | `P.hidden.weight` | float32 | (H, I) |
//! | `P.hidden.bias` | float32 | (H,) |
//! | `P.output.weight` | float32 | (5, H) |
//! | `P.output.bias` | float32 | (5,) |
//! | `P.beta_hidden`, `P.beta_output` | float32 | () |
//! | `P.header_counter` (optional) | int32 | () |
//! | `P.n_trained` (optional; contact, race, crashed) | uint64 | () |
//! | `layout_version` (optional) | int32 | () |
//! | `file.format`, `file.md5` (optional) | uint8 (ASCII) | (n,) |
//! | `file.version` (optional) | float32 | () |
//! | `file.canonical` (optional) | bool | () |

mod archive;
mod export;
mod import;
mod npy;

pub use export::{export, Exported};
pub use import::{import, Imported};

use nets::{NetKind, WeightsError};

/// The version of this layout, in the array `layout_version`.
pub const LAYOUT_VERSION: i32 = 1;

/// The prefix of the arrays of net `kind`: `contact`, `race`, `crashed`,
/// `prune_contact`, `prune_crashed`, `prune_race`.
pub fn prefix(kind: NetKind) -> &'static str {
    match kind {
        NetKind::Contact => "contact",
        NetKind::Race => "race",
        NetKind::Crashed => "crashed",
        NetKind::PruneContact => "prune_contact",
        NetKind::PruneCrashed => "prune_crashed",
        NetKind::PruneRace => "prune_race",
    }
}

/// Why weights cannot be exported or imported. Every message about an
/// array names it.
#[derive(Debug, thiserror::Error)]
pub enum NpzError {
    /// The file is not a zip archive that can be read.
    #[error("not a NumPy .npz archive ({0})")]
    Archive(String),
    /// An array the layout requires is absent.
    #[error("missing array `{0}`")]
    Missing(String),
    /// An array that is not part of the layout.
    #[error("unknown array `{0}` (not part of bgkit's weights layout)")]
    Unknown(String),
    /// An entry that is not a readable `.npy` array.
    #[error("array `{name}` cannot be read: {why}")]
    Unreadable {
        /// The array.
        name: String,
        /// Why.
        why: String,
    },
    /// An array of another element type.
    #[error("array `{name}` has dtype {found}, must be {expected}")]
    Dtype {
        /// The array.
        name: String,
        /// Its dtype (NumPy's descriptor, e.g. `<f8`).
        found: String,
        /// The dtype required.
        expected: &'static str,
    },
    /// An array of another shape.
    #[error("array `{name}` has shape {found}, must be {expected}")]
    Shape {
        /// The array.
        name: String,
        /// Its shape, as NumPy prints it.
        found: String,
        /// The shape required.
        expected: String,
    },
    /// A weight, bias or slope that is NaN or infinite.
    #[error("array `{name}` holds {value}{at}: weights must be finite")]
    NotFinite {
        /// The array.
        name: String,
        /// The value.
        value: f32,
        /// Where: ` at [i, j]` (nothing for a scalar).
        at: String,
    },
    /// An array whose values gnubg cannot use.
    #[error("array `{name}`: {why}")]
    Invalid {
        /// The array.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// The weights file to export cannot be read.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// The archive cannot be written.
    #[error("cannot write the npz archive: {0}")]
    Write(String),
}

fn invalid(name: &str, why: String) -> NpzError {
    NpzError::Invalid {
        name: name.to_owned(),
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::archive::Archive;
    use super::import::known_names;
    use super::npy::{npy_header, shape_text};
    use crate::provenance::NTrained;
    use ndarray::Array2;
    use nets::weights::Format;

    #[test]
    fn npy_headers_are_read_before_the_data() {
        let mut bytes = Vec::new();
        ndarray_npy::WriteNpyExt::write_npy(&Array2::<f32>::zeros((3, 2)), &mut bytes).unwrap();
        let h = npy_header(&bytes).unwrap();
        assert_eq!((h.descr.as_str(), h.shape.as_slice()), ("<f4", &[3, 2][..]));
        assert_eq!(bytes.len() - h.data_start, 24);
        let dict = "{\"descr\": \"|b1\", \"shape\": (), }\n";
        let mut scalar = b"\x93NUMPY\x01\x00".to_vec();
        scalar.extend((dict.len() as u16).to_le_bytes());
        scalar.extend(dict.as_bytes());
        let h = npy_header(&scalar).unwrap();
        assert_eq!((h.descr.as_str(), h.shape.len()), ("|b1", 0));
        for bad in [
            &b"PK\x03\x04"[..],
            b"\x93NUMPY\x09\x00\x00\x00",
            b"\x93NUMPY\x01\x00\xff\x00{}",
        ] {
            assert!(npy_header(bad).is_err());
        }
        assert_eq!(shape_text(&[]), "()");
        assert_eq!(shape_text(&[5]), "(5,)");
        assert_eq!(shape_text(&[128, 250]), "(128, 250)");
    }

    #[test]
    fn every_array_name_of_an_export_is_known() {
        let nets = crate::init::new_nets(8, 0.1, 1).unwrap();
        let file = nets::weights::to_bytes(&nets, Format::Binary).unwrap();
        let exported = export(&file, Some(NTrained::from([1, 2, 3]))).unwrap();
        assert!(exported.canonical);
        let archive = Archive::open(&exported.bytes).unwrap();
        let known = known_names();
        assert_eq!(archive.entries.len(), known.len());
        assert!(archive.entries.keys().all(|n| known.contains(n)));
        let imported = import(&exported.bytes).unwrap();
        assert_eq!(imported.nets, nets);
        assert_eq!(imported.n_trained, Some(NTrained::from([1, 2, 3])));
        assert_eq!(imported.to_bytes(Format::Binary).unwrap(), file);
    }
}
