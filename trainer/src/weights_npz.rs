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

use crate::init::check_hidden;
use crate::provenance::NTrained;
use ndarray::{arr0, Array1, Array2, ArrayD, Dimension};
use ndarray_npy::{NpzWriter, ReadNpyExt, ReadableElement};
use nets::weights::{Format, WeightsFile};
use nets::{Net, NetKind, NetShape, Nets, WeightsError};
use std::collections::BTreeMap;
use std::io::{Cursor, Read};

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

/// The name of `format` in `file.format`.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Binary => "binary",
        Format::Text => "text",
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

/// Weights read from an archive.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The six nets.
    pub nets: Nets,
    /// The format of the exported file (`file.format`), if recorded.
    pub source_format: Option<Format>,
    /// Its MD5 (`file.md5`), if recorded.
    pub source_md5: Option<String>,
    /// Each net's header counter (`P.header_counter`), if recorded.
    pub counters: [Option<i32>; 6],
    /// The training counts recorded (`P.n_trained`; 0 where absent), if
    /// any is.
    pub n_trained: Option<NTrained>,
}

impl Imported {
    /// The weights file in `format`: with the exported file's header
    /// counters when `format` is its format (so an export comes back byte
    /// for byte), else with the counters gnubg and bgkit write (so the
    /// other format comes out as `weights convert` writes it).
    pub fn to_bytes(&self, format: Format) -> Result<Vec<u8>, WeightsError> {
        let own = self.source_format == Some(format);
        let counters = self
            .counters
            .map(|c| c.filter(|_| own).unwrap_or(format.counter()));
        WeightsFile {
            nets: self.nets.clone(),
            format,
            counters: counters.map(Some),
        }
        .to_bytes()
    }
}

/// Largest array entry read, in bytes (the largest net `trainer new`
/// makes has 4,096 × 250 float32 hidden weights: 4 MB).
const MAX_ENTRY: u64 = 64 << 20;

/// Reads the weights of an `.npz` archive (its bytes), checking every
/// array: present, known, of its dtype and shape (inputs as gnubg's net
/// needs, 5 outputs, a hidden size gnubg 1.07 evaluates), finite, slopes
/// positive.
pub fn import(bytes: &[u8]) -> Result<Imported, NpzError> {
    let mut archive = Archive::open(bytes)?;
    let known = known_names();
    if let Some(unknown) = archive.entries.keys().find(|n| !known.contains(n)) {
        return Err(NpzError::Unknown(unknown.clone()));
    }
    if let Some(v) = archive.scalar::<i32>("layout_version", Dtype::I32)? {
        if v != LAYOUT_VERSION {
            return Err(invalid(
                "layout_version",
                format!("layout version {v}: this trainer reads version {LAYOUT_VERSION}"),
            ));
        }
    }
    let source_format = match archive.ascii("file.format")?.as_deref() {
        None => None,
        Some("binary") => Some(Format::Binary),
        Some("text") => Some(Format::Text),
        Some(other) => {
            return Err(invalid(
                "file.format",
                format!("{other:?}: must be \"binary\" or \"text\""),
            ))
        }
    };
    if let Some(v) = archive.scalar::<f32>("file.version", Dtype::F32)? {
        if v != nets::weights_binary::VERSION {
            return Err(invalid(
                "file.version",
                format!("version {v}: gnubg 1.07 reads only version 1.0"),
            ));
        }
    }
    let source_md5 = archive.ascii("file.md5")?;
    archive.scalar::<bool>("file.canonical", Dtype::Bool)?;
    let mut nets = Vec::with_capacity(6);
    let mut counters = [None; 6];
    let mut n_trained = None::<NTrained>;
    for (kind, counter) in NetKind::ALL.into_iter().zip(&mut counters) {
        nets.push(archive.net(kind)?);
        let p = prefix(kind);
        *counter = archive.scalar::<i32>(&format!("{p}.header_counter"), Dtype::I32)?;
        if let Some(n) = archive.scalar::<u64>(&format!("{p}.n_trained"), Dtype::U64)? {
            n_trained.get_or_insert_with(NTrained::default).set(kind, n);
        }
    }
    let nets: [Net; 6] = nets.try_into().expect("six nets were read");
    Ok(Imported {
        nets: Nets::new(nets)?,
        source_format,
        source_md5,
        counters,
        n_trained,
    })
}

fn invalid(name: &str, why: String) -> NpzError {
    NpzError::Invalid {
        name: name.to_owned(),
        why,
    }
}

/// Every array name the layout has.
fn known_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "layout_version",
        "file.format",
        "file.version",
        "file.md5",
        "file.canonical",
    ]
    .map(String::from)
    .to_vec();
    for kind in NetKind::ALL {
        let p = prefix(kind);
        for part in [
            "hidden.weight",
            "hidden.bias",
            "output.weight",
            "output.bias",
            "beta_hidden",
            "beta_output",
            "header_counter",
        ] {
            names.push(format!("{p}.{part}"));
        }
        if matches!(kind, NetKind::Contact | NetKind::Race | NetKind::Crashed) {
            names.push(format!("{p}.n_trained"));
        }
    }
    names
}

/// The element types of the layout, with the NumPy descriptors of each.
#[derive(Clone, Copy)]
enum Dtype {
    F32,
    I32,
    U64,
    U8,
    Bool,
}

impl Dtype {
    fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::I32 => "int32",
            Dtype::U64 => "uint64",
            Dtype::U8 => "uint8",
            Dtype::Bool => "bool",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::U64 => 8,
            Dtype::U8 | Dtype::Bool => 1,
        }
    }

    fn accepts(self, descr: &str) -> bool {
        let (le, be): (&str, &str) = match self {
            Dtype::F32 => ("<f4", ">f4"),
            Dtype::I32 => ("<i4", ">i4"),
            Dtype::U64 => ("<u8", ">u8"),
            Dtype::U8 => ("|u1", "u1"),
            Dtype::Bool => ("|b1", "|b1"),
        };
        descr == le || descr == be
    }
}

/// A NumPy shape as NumPy prints it: `()`, `(5,)`, `(128, 250)`.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The header of a `.npy` entry.
struct NpyHeader {
    descr: String,
    shape: Vec<usize>,
    data_start: usize,
}

/// The value following `'key':` in a `.npy` header dictionary.
fn header_field<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    ["'", "\""].iter().find_map(|q| {
        let at = dict.find(&format!("{q}{key}{q}"))?;
        let rest = dict[at + key.len() + 2..].trim_start();
        Some(rest.strip_prefix(':')?.trim_start())
    })
}

/// Parses a `.npy` header (format versions 1 to 3) far enough to check an
/// array before its data is allocated: its descriptor and shape.
fn npy_header(bytes: &[u8]) -> Result<NpyHeader, String> {
    let bad = || "not a .npy array".to_string();
    if !bytes.starts_with(b"\x93NUMPY") || bytes.len() < 10 {
        return Err(bad());
    }
    let (len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => {
            let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (usize::try_from(n).map_err(|_| bad())?, 12)
        }
        v => return Err(format!(".npy format version {v} is not supported")),
    };
    let dict = bytes
        .get(start..start + len)
        .and_then(|d| std::str::from_utf8(d).ok())
        .ok_or_else(bad)?;
    let descr = header_field(dict, "descr")
        .and_then(|v| {
            let q = v.chars().next().filter(|c| *c == '\'' || *c == '"')?;
            let v = &v[1..];
            Some(v[..v.find(q)?].to_string())
        })
        .unwrap_or_else(|| "(a structured dtype)".to_string());
    let shape = header_field(dict, "shape")
        .and_then(|v| v.strip_prefix('('))
        .and_then(|v| v.split_once(')'))
        .and_then(|(dims, _)| {
            dims.split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| d.parse::<usize>().ok())
                .collect::<Option<Vec<usize>>>()
        })
        .ok_or_else(|| "its .npy header has no readable shape".to_string())?;
    Ok(NpyHeader {
        descr,
        shape,
        data_start: start + len,
    })
}

/// The entries of an archive, read one by one with every size checked
/// before anything is allocated from it.
struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Array name (without `.npy`) → entry index.
    entries: BTreeMap<String, usize>,
}

impl<'a> Archive<'a> {
    fn open(bytes: &'a [u8]) -> Result<Archive<'a>, NpzError> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| NpzError::Archive(e.to_string()))?;
        let entries = (0..zip.len())
            .filter_map(|i| {
                let n = zip.name_for_index(i)?;
                Some((n.strip_suffix(".npy").unwrap_or(n).to_string(), i))
            })
            .collect();
        Ok(Archive { zip, entries })
    }

    /// The bytes of entry `name`, if present.
    fn raw(&mut self, name: &str) -> Result<Option<Vec<u8>>, NpzError> {
        let Some(&index) = self.entries.get(name) else {
            return Ok(None);
        };
        let unreadable = |why: String| NpzError::Unreadable {
            name: name.to_owned(),
            why,
        };
        let file = self
            .zip
            .by_index_raw(index)
            .map_err(|e| unreadable(e.to_string()))?;
        if file.compression() != zip::CompressionMethod::Stored || file.encrypted() {
            return Err(unreadable(
                "it is compressed or encrypted: write the archive with numpy.savez, \
                 not numpy.savez_compressed"
                    .into(),
            ));
        }
        if file.size() > MAX_ENTRY {
            return Err(unreadable(format!(
                "{} bytes, more than any net's array ({MAX_ENTRY} bytes at most)",
                file.size()
            )));
        }
        let mut bytes = Vec::new();
        file.take(MAX_ENTRY + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| unreadable(e.to_string()))?;
        Ok(Some(bytes))
    }

    /// Array `name` of `dtype`, if present: its header checked (dtype, a
    /// data size that matches the shape) before its data is read.
    fn array<T: ReadableElement>(
        &mut self,
        name: &str,
        dtype: Dtype,
    ) -> Result<Option<ArrayD<T>>, NpzError> {
        let Some(bytes) = self.raw(name)? else {
            return Ok(None);
        };
        let unreadable = |why: String| NpzError::Unreadable {
            name: name.to_owned(),
            why,
        };
        let header = npy_header(&bytes).map_err(unreadable)?;
        if !dtype.accepts(&header.descr) {
            return Err(NpzError::Dtype {
                name: name.to_owned(),
                found: header.descr,
                expected: dtype.name(),
            });
        }
        let values = header
            .shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d));
        let data = bytes.len().saturating_sub(header.data_start);
        if values.and_then(|n| n.checked_mul(dtype.size())) != Some(data) {
            return Err(unreadable(format!(
                "its data ({data} bytes) does not match its shape {}",
                shape_text(&header.shape)
            )));
        }
        let array = ArrayD::<T>::read_npy(&bytes[..]).map_err(|e| unreadable(e.to_string()))?;
        Ok(Some(array))
    }

    /// Array `name` of `dtype`, which must be present.
    fn required<T: ReadableElement>(
        &mut self,
        name: &str,
        dtype: Dtype,
    ) -> Result<ArrayD<T>, NpzError> {
        self.array(name, dtype)?
            .ok_or_else(|| NpzError::Missing(name.to_owned()))
    }

    /// The scalar (shape `()`) `name`, if present.
    fn scalar<T: ReadableElement + Copy>(
        &mut self,
        name: &str,
        dtype: Dtype,
    ) -> Result<Option<T>, NpzError> {
        let Some(a) = self.array::<T>(name, dtype)? else {
            return Ok(None);
        };
        expect_shape(name, a.shape(), &[], "()")?;
        Ok(a.iter().next().copied())
    }

    /// The ASCII text (1-d uint8) `name`, if present.
    fn ascii(&mut self, name: &str) -> Result<Option<String>, NpzError> {
        let Some(a) = self.array::<u8>(name, Dtype::U8)? else {
            return Ok(None);
        };
        if a.ndim() != 1 {
            return Err(NpzError::Shape {
                name: name.to_owned(),
                found: shape_text(a.shape()),
                expected: "(n,): ASCII bytes".into(),
            });
        }
        let bytes: Vec<u8> = a.iter().copied().collect();
        match String::from_utf8(bytes) {
            Ok(s) if s.is_ascii() => Ok(Some(s)),
            _ => Err(invalid(name, "not ASCII text".into())),
        }
    }

    /// The float32 array `name`, present, of shape `shape`, every value
    /// finite; its values in row-major order.
    fn floats(
        &mut self,
        name: &str,
        shape: &[usize],
        expected: &str,
    ) -> Result<Vec<f32>, NpzError> {
        let a = self.required::<f32>(name, Dtype::F32)?;
        expect_shape(name, a.shape(), shape, expected)?;
        finite(name, &a)?;
        Ok(a.as_standard_layout().iter().copied().collect())
    }

    /// Net `kind` from its arrays.
    fn net(&mut self, kind: NetKind) -> Result<Net, NpzError> {
        let p = prefix(kind);
        let (inputs, outputs) = (kind.inputs(), board::NUM_OUTPUTS);
        let name = format!("{p}.hidden.weight");
        let w = self.required::<f32>(&name, Dtype::F32)?;
        let hidden = match w.shape() {
            &[h, i] if i == inputs => h,
            other => {
                return Err(NpzError::Shape {
                    name,
                    found: shape_text(other),
                    expected: format!(
                        "(H, {inputs}): H hidden units × the {} net's {inputs} inputs",
                        kind.name()
                    ),
                })
            }
        };
        check_hidden(hidden).map_err(|e| invalid(&name, e.to_string()))?;
        finite(&name, &w)?;
        // Back to the file's input-major order.
        let hidden_weights: Vec<f32> = w.t().as_standard_layout().iter().copied().collect();
        let hidden_bias = self.floats(
            &format!("{p}.hidden.bias"),
            &[hidden],
            &format!("({hidden},): one per hidden unit"),
        )?;
        let output_weights = self.floats(
            &format!("{p}.output.weight"),
            &[outputs, hidden],
            &format!("({outputs}, {hidden}): the {outputs} outputs × {hidden} hidden units"),
        )?;
        let output_bias = self.floats(
            &format!("{p}.output.bias"),
            &[outputs],
            &format!("({outputs},): one per output"),
        )?;
        let mut beta = |what: &str| -> Result<f32, NpzError> {
            let name = format!("{p}.{what}");
            let v = self.floats(&name, &[], "(): a scalar")?[0];
            if v > 0.0 {
                Ok(v)
            } else {
                Err(invalid(&name, format!("{v}: a slope must be positive")))
            }
        };
        let beta_hidden = beta("beta_hidden")?;
        let beta_output = beta("beta_output")?;
        let shape = NetShape {
            inputs,
            hidden,
            outputs,
            beta_hidden,
            beta_output,
        };
        let mut values = hidden_weights;
        values.extend(output_weights);
        values.extend(hidden_bias);
        values.extend(output_bias);
        Ok(Net::from_values(shape, values)?)
    }
}

fn expect_shape(
    name: &str,
    found: &[usize],
    want: &[usize],
    expected: &str,
) -> Result<(), NpzError> {
    if found == want {
        return Ok(());
    }
    Err(NpzError::Shape {
        name: name.to_owned(),
        found: shape_text(found),
        expected: expected.to_owned(),
    })
}

/// Fails on the first value of `a` that is not finite.
fn finite(name: &str, a: &ArrayD<f32>) -> Result<(), NpzError> {
    match a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        None => Ok(()),
        Some((at, &value)) => Err(NpzError::NotFinite {
            name: name.to_owned(),
            value,
            at: match at.slice() {
                [] => String::new(),
                index => format!(
                    " at [{}]",
                    index
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
