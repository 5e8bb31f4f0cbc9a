//! Float arrays that start on a cache line.
//!
//! The allocator aligns a `Vec<f32>` to 16 bytes at best (a large one sits
//! 16 bytes past a page start), so a 256-byte block of a weight row would
//! span five 64-byte cache lines instead of four, and every other 32-byte
//! load would straddle two lines. [`Aligned`] over-allocates by one line
//! and starts its values on the first line boundary inside, in safe code.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Bytes of a cache line on the CPUs this crate targets.
const LINE: usize = 64;
/// Floats a line holds.
pub(crate) const PER_LINE: usize = LINE / std::mem::size_of::<f32>();

/// How many floats from the float at `at` to the first that starts a
/// cache line (0 to 15). A float's address is a multiple of 4, so the
/// distance to the next line is a whole number of floats.
pub(crate) fn floats_to_a_line(at: *const f32) -> usize {
    let misalignment = at as usize % LINE;
    (LINE - misalignment) % LINE / std::mem::size_of::<f32>()
}

/// A fixed-length run of floats whose first value starts a cache line.
pub struct Aligned {
    /// The values and one line more (never grown).
    buf: Vec<f32>,
    /// Where the values start in `buf`.
    start: usize,
}

impl Aligned {
    /// `values` copied to a line boundary.
    pub fn from_slice(values: &[f32]) -> Aligned {
        let mut a = Aligned::zeroed(values.len());
        a.copy_from_slice(values);
        a
    }

    /// `len` zeros.
    pub fn zeroed(len: usize) -> Aligned {
        let buf = vec![0.0f32; len + PER_LINE];
        // The buffer is never grown, so its address (and `start`) holds
        // for its lifetime.
        let start = floats_to_a_line(buf.as_ptr());
        Aligned { buf, start }
    }

    /// The values' range in `buf`.
    fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.buf.len() - PER_LINE
    }
}

impl Deref for Aligned {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.buf[self.range()]
    }
}

impl DerefMut for Aligned {
    fn deref_mut(&mut self) -> &mut [f32] {
        let range = self.range();
        &mut self.buf[range]
    }
}

impl FromIterator<f32> for Aligned {
    /// The values of `iter`, copied to a line boundary.
    fn from_iter<I: IntoIterator<Item = f32>>(iter: I) -> Aligned {
        let values: Vec<f32> = iter.into_iter().collect();
        Aligned::from_slice(&values)
    }
}

impl Clone for Aligned {
    /// A new buffer, aligned on its own (a copied `start` would not be).
    fn clone(&self) -> Aligned {
        Aligned::from_slice(self)
    }
}

impl PartialEq for Aligned {
    fn eq(&self, other: &Aligned) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Aligned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_start_on_a_line_and_survive_a_clone() {
        for len in [0, 1, 5, 16, 17, 1000, 250 * 128] {
            let values: Vec<f32> = (0..len).map(|i| i as f32 * 0.5).collect();
            let a = Aligned::from_slice(&values);
            let b = a.clone();
            for x in [&a, &b] {
                assert_eq!(x.as_ptr() as usize % LINE, 0, "length {len}");
                assert_eq!(&**x, &values[..]);
            }
        }
    }
}
