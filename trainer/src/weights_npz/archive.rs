//! The entries of an `.npz` archive, read with every size, dtype, shape
//! and value checked: the checks of an import.

use super::npy::{npy_header, shape_text, Dtype};
use super::{invalid, prefix, NpzError};
use crate::init::check_hidden;
use ndarray::{ArrayD, Dimension};
use ndarray_npy::{ReadNpyExt, ReadableElement};
use nets::{Net, NetKind, NetShape};
use std::collections::BTreeMap;
use std::io::{Cursor, Read};

/// Largest array entry read, in bytes (the largest net `trainer new`
/// makes has 4,096 × 250 float32 hidden weights: 4 MB).
const MAX_ENTRY: u64 = 64 << 20;

/// The entries of an archive, read one by one with every size checked
/// before anything is allocated from it.
pub(super) struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Array name (without `.npy`) → entry index.
    pub(super) entries: BTreeMap<String, usize>,
}

impl<'a> Archive<'a> {
    pub(super) fn open(bytes: &'a [u8]) -> Result<Archive<'a>, NpzError> {
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
    pub(super) fn scalar<T: ReadableElement + Copy>(
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
    pub(super) fn ascii(&mut self, name: &str) -> Result<Option<String>, NpzError> {
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
    pub(super) fn net(&mut self, kind: NetKind) -> Result<Net, NpzError> {
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
