//! gnubg's database file formats (docs/formats.md): the 40-byte header,
//! one-sided, two-sided, normal-distribution and Hypergammon records,
//! memory-mapped readers and lookups, the decoding of stored values into
//! probabilities and equities as gnubg reads them, structural verification,
//! comparison and the table of gnubg's published checksums.
//!
//! Generation lives elsewhere (`makebearoff`, `makehyper`); this crate only
//! reads and checks files, so the evaluator can use it without any
//! command-line dependency.
#![deny(missing_docs)]

pub mod compare;
pub mod decode;
pub mod distribution;
pub mod header;
pub mod hyper;
pub mod lookup;
pub mod problem;
pub mod published;
pub mod reader;
pub mod record;
pub mod verify;

pub use distribution::{Distribution, DONE};
pub use header::{Kind, HEADER_LEN};
pub use lookup::Pair;
pub use problem::Problem;
pub use reader::{Database, LookupError, ReadError};
pub use record::{Record, Values};
