//! Export: a weights file's nets, format and header counters as the
//! arrays of an `.npz` archive.

use super::{prefix, NpzError, LAYOUT_VERSION};
use crate::provenance::NTrained;
use ndarray::{arr0, Array1, Array2};
use ndarray_npy::NpzWriter;
use nets::weights::Format;
use nets::NetKind;
use std::io::Cursor;

/// The name of `format` in `file.format`.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Binary => "binary",
        Format::Text => "text",
    }
}

/// An exported weights file.
pub struct Exported {
    /// The `.npz` archive.
    pub bytes: Vec<u8>,
    /// The file was written as gnubg and bgkit write weights files, so
    /// that importing the archive in its format gives its very bytes
    /// (false for, say, a hand-edited text file: importing gives the same
    /// nets in that canonical form).
    pub canonical: bool,
    /// The file's format.
    pub format: Format,
}

/// The `.npz` archive of the weights file `file` (its bytes), with the
/// training counts `n_trained` recorded for it (its provenance record), if
/// any.
pub fn export(file: &[u8], n_trained: Option<NTrained>) -> Result<Exported, NpzError> {
    let parsed = nets::weights::parse_file(file)?;
    let canonical = parsed.counters.iter().all(Option::is_some) && parsed.to_bytes()? == file;
    let write = |e: ndarray_npy::WriteNpzError| NpzError::Write(e.to_string());
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("layout_version", &arr0(LAYOUT_VERSION))
        .map_err(write)?;
    let ascii = |s: &str| Array1::from(s.as_bytes().to_vec());
    npz.add_array("file.format", &ascii(format_name(parsed.format)))
        .map_err(write)?;
    npz.add_array("file.version", &arr0(nets::weights_binary::VERSION))
        .map_err(write)?;
    npz.add_array("file.md5", &ascii(&support::digest::md5_of(file)))
        .map_err(write)?;
    npz.add_array("file.canonical", &arr0(canonical))
        .map_err(write)?;
    for (kind, counter) in NetKind::ALL.into_iter().zip(parsed.counters) {
        let net = parsed.nets.get(kind);
        let p = prefix(kind);
        let (i, h, o) = (net.inputs(), net.hidden(), net.outputs());
        // The file's hidden weights are input-major, [i][j]: transposed to
        // [j][i], the layout of a linear layer's weight.
        let hidden = Array2::from_shape_vec((i, h), net.hidden_weights().to_vec())
            .expect("a net's hidden weights are inputs × hidden")
            .reversed_axes()
            .as_standard_layout()
            .into_owned();
        let output = Array2::from_shape_vec((o, h), net.output_weights().to_vec())
            .expect("a net's output weights are outputs × hidden");
        npz.add_array(format!("{p}.hidden.weight"), &hidden)
            .map_err(write)?;
        npz.add_array(
            format!("{p}.hidden.bias"),
            &Array1::from(net.hidden_thresholds().to_vec()),
        )
        .map_err(write)?;
        npz.add_array(format!("{p}.output.weight"), &output)
            .map_err(write)?;
        npz.add_array(
            format!("{p}.output.bias"),
            &Array1::from(net.output_thresholds().to_vec()),
        )
        .map_err(write)?;
        npz.add_array(format!("{p}.beta_hidden"), &arr0(net.beta_hidden()))
            .map_err(write)?;
        npz.add_array(format!("{p}.beta_output"), &arr0(net.beta_output()))
            .map_err(write)?;
        if let Some(c) = counter {
            npz.add_array(format!("{p}.header_counter"), &arr0(c))
                .map_err(write)?;
        }
        if let Some(n) = n_trained.and_then(|t| t.get(kind)) {
            npz.add_array(format!("{p}.n_trained"), &arr0(n))
                .map_err(write)?;
        }
    }
    let bytes = npz.finish().map_err(write)?.into_inner();
    Ok(Exported {
        bytes,
        canonical,
        format: parsed.format,
    })
}
