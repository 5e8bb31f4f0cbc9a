//! gnubg database formats and generation kernels: one-sided and two-sided
//! bearoff databases (byte-identical to gnubg 1.07's makebearoff), readers
//! for every format including Hypergammon, structural verification,
//! comparison, checkpoints and the table of gnubg's published checksums.

pub mod checkpoint;
pub mod cli;
pub mod compare;
pub mod decode;
pub mod header;
pub mod hyper;
pub mod job;
pub mod lookup;
pub mod one_sided;
pub mod output;
pub mod prefetch;
pub mod progress;
pub mod published;
pub mod reader;
pub mod record;
pub mod regenerate;
pub mod resources;
pub mod two_sided;
pub mod verify;
pub mod waves;

pub use header::{Kind, HEADER_LEN};
pub use job::{Chain, Job};
pub use lookup::Pair;
pub use one_sided::{OneSidedJob, OneSidedOptions};
pub use reader::{Database, LookupError, ReadError};
pub use record::{Record, Values};
pub use two_sided::{TwoSidedJob, TwoSidedOptions};
