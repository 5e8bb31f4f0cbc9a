//! Jobs computed in dependency-ordered units (waves, shells, batches), which
//! a driver can checkpoint, resume and finally write out.

use std::io::{self, Write};

/// Why a checkpointed unit cannot be restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// The payload ends before the unit's contents.
    #[error("checkpoint unit is shorter than its contents")]
    Short,
    /// The payload goes on after the unit's contents.
    #[error("checkpoint unit has trailing bytes")]
    Trailing,
    /// The contents do not describe a valid unit.
    #[error("checkpoint holds {0}")]
    Invalid(&'static str),
}

/// A long computation split into units that complete in order (a database
/// generation, a training run), which a driver can checkpoint, resume and
/// finally write out.
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
    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError>;
    /// Exact size in bytes of the file [`Job::write`] produces.
    fn output_len(&self) -> u64;
    /// Writes the finished database (header included unless disabled).
    fn write(&self, out: &mut dyn Write) -> io::Result<()>;

    /// True once every unit is done.
    fn is_done(&self) -> bool {
        self.units_done() == self.units()
    }

    /// Computes every remaining unit.
    fn compute_all(&mut self) {
        while !self.is_done() {
            self.compute_next();
        }
    }

    /// The finished output in memory (what [`Job::write`] writes).
    fn to_bytes(&self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(self.output_len() as usize);
        self.write(&mut bytes)?;
        Ok(bytes)
    }
}

/// Little-endian cursor over a checkpoint payload.
pub struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// Reads `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], PayloadError> {
        if self.bytes.len() < n {
            return Err(PayloadError::Short);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    /// The next little-endian u16.
    pub fn u16(&mut self) -> Result<u16, PayloadError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<(), PayloadError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(PayloadError::Trailing)
        }
    }
}

impl<J: Job + ?Sized> Job for Box<J> {
    fn units(&self) -> usize {
        (**self).units()
    }
    fn units_done(&self) -> usize {
        (**self).units_done()
    }
    fn positions(&self) -> u64 {
        (**self).positions()
    }
    fn positions_done(&self) -> u64 {
        (**self).positions_done()
    }
    fn compute_next(&mut self) {
        (**self).compute_next()
    }
    fn encode_unit(&self, unit: usize, out: &mut Vec<u8>) {
        (**self).encode_unit(unit, out)
    }
    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        (**self).restore_unit(payload)
    }
    fn output_len(&self) -> u64 {
        (**self).output_len()
    }
    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        (**self).write(out)
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

    fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
        self.current().restore_unit(payload)
    }

    fn output_len(&self) -> u64 {
        self.jobs.iter().map(|j| j.output_len()).sum()
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        self.jobs.iter().try_for_each(|j| j.write(out))
    }
}
