//! gnubg database formats and generation kernels: one-sided and two-sided
//! bearoff databases (byte-identical to gnubg 1.07's makebearoff), readers,
//! checkpoints and the table of gnubg's published checksums.

pub mod checkpoint;
pub mod decode;
pub mod header;
pub mod job;
pub mod one_sided;
pub mod published;
pub mod reader;
pub mod two_sided;
pub mod waves;

pub use header::{Kind, HEADER_LEN};
pub use job::{Chain, Job};
pub use one_sided::{OneSidedJob, OneSidedOptions};
pub use reader::Database;
pub use two_sided::{TwoSidedJob, TwoSidedOptions};
