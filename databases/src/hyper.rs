//! The Hypergammon file format (docs/formats.md#hypergammon-databases):
//! a 40-byte header, then one 28-byte record per (side on roll, opponent)
//! pair of 1–3 chequer positions, holding five probabilities and four
//! cubeful equities as 24-bit integers.

use crate::decode::{hyper_equity, hyper_probability};
use crate::header::{Kind, HEADER_LEN};
use board::bearoff_index::position_count;
use board::{cubeless_equity, Probabilities};

/// Bytes per record in the file.
pub const RECORD_LEN: usize = 28;

/// Five probabilities and five equities of one pair, from the roller's
/// view. Equities: cubeless, roller owns the cube, centred, centred with the
/// Jacoby rule, opponent owns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Entry {
    /// Win, win gammon, win backgammon, lose gammon, lose backgammon.
    pub out: Probabilities,
    /// Cubeless, owned, centred, centred-Jacoby, opponent owns.
    pub eq: [f32; 5],
}

impl Entry {
    /// Encodes the record as gnubg writes it: each value scaled to
    /// 0..16777215 (equities mapped from [−3, 3]) and truncated.
    pub fn encode(&self) -> [u8; RECORD_LEN] {
        let mut rec = [0u8; RECORD_LEN];
        let scale = 16_777_215.0f32;
        let values = self
            .out
            .iter()
            .map(|&p| p * scale)
            .chain(self.eq[1..].iter().map(|&e| (e / 6.0 + 0.5) * scale));
        for (k, v) in values.enumerate() {
            let u = (v as u32) & 0xFF_FFFF;
            rec[3 * k..3 * k + 3].copy_from_slice(&u.to_le_bytes()[..3]);
        }
        rec
    }

    /// Decodes a record as gnubg's restart does; the cubeless equity is
    /// recomputed from the probabilities.
    ///
    /// # Panics
    /// If `rec` is shorter than [`RECORD_LEN`].
    pub fn decode(rec: &[u8]) -> Entry {
        let u24 = |k: usize| u32::from_le_bytes([rec[3 * k], rec[3 * k + 1], rec[3 * k + 2], 0]);
        let out: Probabilities = std::array::from_fn(|k| hyper_probability(u24(k)));
        let mut eq = [0f32; 5];
        eq[0] = cubeless_equity(&out);
        for (k, e) in eq.iter_mut().enumerate().skip(1) {
            *e = hyper_equity(u24(4 + k));
        }
        Entry { out, eq }
    }
}

/// Positions per side: `C(25 + chequers, chequers)`.
pub fn side_positions(chequers: usize) -> usize {
    position_count(25, chequers)
}

/// Size of a complete Hypergammon file for `chequers` chequers.
pub fn file_len(chequers: usize) -> u64 {
    HEADER_LEN as u64 + (side_positions(chequers) as u64).pow(2) * RECORD_LEN as u64
}

/// Why bytes are not a complete Hypergammon file of the expected size.
#[derive(Debug, thiserror::Error)]
pub enum HyperFileError {
    /// The header is not a gnubg header.
    #[error(transparent)]
    Header(#[from] crate::header::HeaderError),
    /// A file of another kind.
    #[error("it is a {found} file, this run makes {expected}")]
    OtherKind {
        /// What the header says.
        found: Kind,
        /// What was expected.
        expected: Kind,
    },
    /// The size does not fit the header.
    #[error("it is {len} bytes, a complete {kind} file has {expected} (truncated?)")]
    Size {
        /// The file's size.
        len: u64,
        /// The expected kind.
        kind: Kind,
        /// The size a complete file has.
        expected: u64,
    },
}

/// Checks that `bytes` is a complete Hypergammon file for `chequers`
/// chequers (header and size); cheap, so a restart can run it first.
pub fn check_file(bytes: &[u8], chequers: usize) -> Result<(), HyperFileError> {
    let expected = Kind::Hyper {
        chequers: chequers as u8,
    };
    let found = Kind::parse(bytes)?;
    if found != expected {
        return Err(HyperFileError::OtherKind { found, expected });
    }
    let want = file_len(chequers);
    if bytes.len() as u64 != want {
        return Err(HyperFileError::Size {
            len: bytes.len() as u64,
            kind: expected,
            expected: want,
        });
    }
    Ok(())
}
