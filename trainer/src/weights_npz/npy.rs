//! `.npy` entries: the layout's element types, and the header read (dtype
//! and shape) before an array's data is allocated.

/// The element types of the layout, with the NumPy descriptors of each.
#[derive(Clone, Copy)]
pub(super) enum Dtype {
    F32,
    I32,
    U64,
    U8,
    Bool,
}

impl Dtype {
    pub(super) fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::I32 => "int32",
            Dtype::U64 => "uint64",
            Dtype::U8 => "uint8",
            Dtype::Bool => "bool",
        }
    }

    pub(super) fn size(self) -> usize {
        match self {
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::U64 => 8,
            Dtype::U8 | Dtype::Bool => 1,
        }
    }

    pub(super) fn accepts(self, descr: &str) -> bool {
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
pub(super) fn shape_text(shape: &[usize]) -> String {
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
pub(super) struct NpyHeader {
    pub(super) descr: String,
    pub(super) shape: Vec<usize>,
    pub(super) data_start: usize,
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
pub(super) fn npy_header(bytes: &[u8]) -> Result<NpyHeader, String> {
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
