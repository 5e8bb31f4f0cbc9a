//! MD5 digests as lowercase hex: of bytes in memory ([`md5_of`]), of a
//! byte stream ([`md5_hex`]), and of everything written through a writer
//! ([`HashingWriter`], [`write_hashed`]). Databases, weights files, position
//! databases, settings fingerprints and provenance records all name their
//! contents this way.
//!
//! ```
//! use support::digest::{md5_hex, md5_of, write_hashed};
//!
//! assert_eq!(md5_of(b""), "d41d8cd98f00b204e9800998ecf8427e");
//! assert_eq!(md5_hex(&b"abc"[..])?, md5_of(b"abc"));
//! let mut out = Vec::new();
//! let md5 = write_hashed(&mut out, |w| w.write_all(b"abc"))?;
//! assert_eq!((out.as_slice(), md5), (&b"abc"[..], md5_of(b"abc")));
//! # Ok::<(), std::io::Error>(())
//! ```

use md5::{Digest, Md5};

/// Hex MD5 of bytes in memory.
pub fn md5_of(bytes: &[u8]) -> String {
    format!("{:x}", Md5::digest(bytes))
}

/// Hex MD5 of the input file at `path` (opened as every input is:
/// [`crate::input::open`]).
pub fn md5_of_file(path: &std::path::Path) -> std::io::Result<String> {
    let (file, _) = crate::input::open(path)?;
    md5_hex(file)
}

/// Hex MD5 of a byte stream.
pub fn md5_hex(mut reader: impl std::io::Read) -> std::io::Result<String> {
    let mut hasher = Md5::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Writes with `fill` into `out` and returns the hex MD5 of what was
/// written (the output is flushed).
pub fn write_hashed(
    out: &mut dyn std::io::Write,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<String> {
    use std::io::Write;
    let mut hashing = HashingWriter::new(out);
    fill(&mut hashing)?;
    hashing.flush()?;
    Ok(hashing.finish().1)
}

/// A writer that computes the MD5 of everything written through it.
pub struct HashingWriter<W> {
    inner: W,
    hasher: Md5,
}

impl<W: std::io::Write> HashingWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        HashingWriter {
            inner,
            hasher: Md5::new(),
        }
    }

    /// The inner writer and the hex MD5 of what passed through.
    pub fn finish(self) -> (W, String) {
        (self.inner, format!("{:x}", self.hasher.finalize()))
    }
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5s_of_bytes_streams_and_writes_agree() {
        assert_eq!(
            md5_hex(&b""[..]).unwrap(),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let md5 = md5_of(&bytes);
        assert_eq!(md5_hex(&bytes[..]).unwrap(), md5, "over several reads");
        let mut out = Vec::new();
        let written = write_hashed(&mut out, |w| {
            for part in bytes.chunks(4097) {
                w.write_all(part)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!((written, out), (md5, bytes));
    }
}
