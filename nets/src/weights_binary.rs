//! gnubg's binary weights file, `gnubg.wd` (docs/formats.md#binary-weights-file): little-endian
//! magic 472.3782f, version 1.0f, then six nets (u32 sizes, i32 training
//! counter, f32 slopes, f32 values in text-file order).

use crate::error::WeightsError;
use crate::net::{Net, NetKind, NetShape, Nets};

/// The f32 magic number at offset 0.
pub const MAGIC: f32 = 472.3782;
/// The f32 version at offset 4.
pub const VERSION: f32 = 1.0;

/// True if `bytes` starts with the binary magic number.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == MAGIC
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self, what: impl Fn() -> String) -> Result<[u8; 4], WeightsError> {
        let b = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or_else(|| WeightsError::Truncated(what()))?;
        self.at += 4;
        Ok([b[0], b[1], b[2], b[3]])
    }

    fn f32(&mut self, what: impl Fn() -> String) -> Result<f32, WeightsError> {
        self.word(what).map(f32::from_le_bytes)
    }

    fn u32(&mut self, what: impl Fn() -> String) -> Result<u32, WeightsError> {
        self.word(what).map(u32::from_le_bytes)
    }
}

/// Parses a binary weights file. Trailing bytes after the sixth net are an
/// error.
pub fn parse(bytes: &[u8]) -> Result<Nets, WeightsError> {
    parse_counted(bytes).map(|(nets, _)| nets)
}

/// [`parse`], also returning each net's training counter (the header field
/// gnubg reads and ignores), in file order.
pub fn parse_counted(bytes: &[u8]) -> Result<(Nets, [i32; 6]), WeightsError> {
    let mut r = Reader { bytes, at: 0 };
    let mut counters = [0i32; 6];
    let magic = r.f32(|| "no magic number".into())?;
    if magic != MAGIC {
        return Err(WeightsError::BinaryMagic);
    }
    let version = r.f32(|| "no version number".into())?;
    if version != VERSION {
        return Err(WeightsError::BinaryVersion(version));
    }
    let mut nets = Vec::with_capacity(6);
    for (kind, counter) in NetKind::ALL.into_iter().zip(&mut counters) {
        let name = kind.name();
        let header = || format!("{name} net ends inside its header");
        let inputs = r.u32(header)? as usize;
        let hidden = r.u32(header)? as usize;
        let outputs = r.u32(header)? as usize;
        *counter = r.word(header).map(i32::from_le_bytes)?; // training counter, ignored by gnubg
        let beta_hidden = r.f32(header)?;
        let beta_output = r.f32(header)?;
        let shape = NetShape {
            inputs,
            hidden,
            outputs,
            beta_hidden,
            beta_output,
        };
        let named = |e: WeightsError| e.in_net(name);
        shape.validate().map_err(named)?;
        let n = shape.values();
        let body = bytes
            .get(r.at..)
            .filter(|rest| rest.len() / 4 >= n)
            .ok_or_else(|| {
                WeightsError::Truncated(format!(
                    "{name} net has {} of its {n} values",
                    (bytes.len() - r.at) / 4
                ))
            })?;
        let values = body[..4 * n]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        r.at += 4 * n;
        nets.push(Net::from_values(shape, values).map_err(named)?);
    }
    if r.at != bytes.len() {
        return Err(WeightsError::TrailingData(format!(
            "{} bytes",
            bytes.len() - r.at
        )));
    }
    let nets: [Net; 6] = nets.try_into().expect("six nets were parsed");
    Ok((Nets::new(nets)?, counters))
}

/// The training counter gnubg's `makeweights` (and bgkit) write in every
/// net's header.
pub const COUNTER: i32 = 1;

/// Writes the binary file as gnubg's `makeweights` does (training counter
/// [`COUNTER`]).
pub fn write(nets: &Nets) -> Vec<u8> {
    write_counted(nets, &[COUNTER; 6])
}

/// Writes the binary file with `counters` as the nets' training counters
/// (file order).
pub fn write_counted(nets: &Nets, counters: &[i32; 6]) -> Vec<u8> {
    let total: usize = nets.all().iter().map(|n| 24 + 4 * n.shape().values()).sum();
    let mut out = Vec::with_capacity(8 + total);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    for (net, counter) in nets.all().iter().zip(counters) {
        let s = net.shape();
        for size in [s.inputs, s.hidden, s.outputs] {
            out.extend_from_slice(&(size as u32).to_le_bytes());
        }
        out.extend_from_slice(&counter.to_le_bytes());
        out.extend_from_slice(&s.beta_hidden.to_le_bytes());
        out.extend_from_slice(&s.beta_output.to_le_bytes());
        for v in net.values() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}
