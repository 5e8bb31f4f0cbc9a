//! A generation job computed in dependency-ordered units (waves or shells),
//! which the driver can checkpoint, resume and finally write out.

use std::io::{self, Write};

/// A database generation split into units that complete in order.
pub trait Job: Send {
    /// Number of units in the whole job.
    fn units(&self) -> usize;
    /// Units completed so far (computed or restored).
    fn units_done(&self) -> usize;
    /// Records the finished database holds.
    fn positions(&self) -> u64;
    /// Records computed or restored so far.
    fn positions_done(&self) -> u64;
    /// Computes the next unit (using all rayon threads).
    fn compute_next(&mut self);
    /// Appends a serialisation of completed unit `unit` to `out`.
    fn encode_unit(&self, unit: usize, out: &mut Vec<u8>);
    /// Restores the next unit from a payload written by [`Job::encode_unit`].
    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), String>;
    /// Exact size in bytes of the file [`Job::write`] produces.
    fn output_len(&self) -> u64;
    /// Writes the finished database (header included unless disabled).
    fn write(&self, out: &mut dyn Write) -> io::Result<()>;

    /// True once every unit is done.
    fn is_done(&self) -> bool {
        self.units_done() == self.units()
    }
}

/// Little-endian cursor over a checkpoint payload.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.bytes.len() < n {
            return Err("checkpoint unit is shorter than its contents".into());
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub(crate) fn finish(&self) -> Result<(), String> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err("checkpoint unit has trailing bytes".into())
        }
    }
}
