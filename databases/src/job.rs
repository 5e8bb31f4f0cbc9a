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

/// Several jobs run one after another, written back to back into one file
/// (gnubg's makebearoff appends a two-sided database after a one-sided one
/// when both are requested in one run).
pub struct Chain {
    jobs: Vec<Box<dyn Job>>,
}

impl Chain {
    /// Chains `jobs` in order.
    pub fn new(jobs: Vec<Box<dyn Job>>) -> Chain {
        Chain { jobs }
    }

    fn current(&mut self) -> &mut Box<dyn Job> {
        self.jobs
            .iter_mut()
            .find(|j| !j.is_done())
            .expect("chain has work left")
    }
}

impl Job for Chain {
    fn units(&self) -> usize {
        self.jobs.iter().map(|j| j.units()).sum()
    }

    fn units_done(&self) -> usize {
        self.jobs.iter().map(|j| j.units_done()).sum()
    }

    fn positions(&self) -> u64 {
        self.jobs.iter().map(|j| j.positions()).sum()
    }

    fn positions_done(&self) -> u64 {
        self.jobs.iter().map(|j| j.positions_done()).sum()
    }

    fn compute_next(&mut self) {
        self.current().compute_next();
    }

    fn encode_unit(&self, mut unit: usize, out: &mut Vec<u8>) {
        for j in &self.jobs {
            if unit < j.units() {
                return j.encode_unit(unit, out);
            }
            unit -= j.units();
        }
        panic!("unit out of range");
    }

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), String> {
        self.current().restore_unit(payload)
    }

    fn output_len(&self) -> u64 {
        self.jobs.iter().map(|j| j.output_len()).sum()
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        self.jobs.iter().try_for_each(|j| j.write(out))
    }
}
