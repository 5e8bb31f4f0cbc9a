//! gnubg's database file formats (docs/formats.md): the 40-byte header,
//! one-sided, two-sided, normal-distribution and Hypergammon records,
//! memory-mapped readers and lookups, the decoding of stored values into
//! probabilities and equities as gnubg reads them, structural verification,
//! comparison and the table of gnubg's published checksums.
//!
//! Generation lives elsewhere (`makebearoff`, `makehyper`); this crate only
//! reads and checks files, so the evaluator can use it without any
//! command-line dependency.
//!
//! # Example
//!
//! The smallest two-sided database, byte for byte what gnubg 1.07's
//! `makebearoff -t 1x1 -C` writes: up to one chequer a side on the ace
//! point, cubeless. Each side has two layouts (0: borne off, 1: one chequer
//! on the ace point), so the file holds four records, the pair (side on
//! roll `us`, opponent `them`) at `us · 2 + them`.
//!
//! ```
//! use board::Board;
//! use databases::decode::two_sided_equity;
//! use support::digest::md5_hex;
//! use databases::{Database, Kind, Record};
//!
//! let kind = Kind::TwoSided { points: 1, chequers: 1, cubeful: false };
//! let mut bytes = kind.header().to_vec();
//! // us borne off: +1 (FFFF); them borne off: −1 (0000); one chequer each:
//! // the side on roll bears off first, +1.
//! for u in [0xFFFF_u16, 0xFFFF, 0x0000, 0xFFFF] {
//!     bytes.extend_from_slice(&u.to_le_bytes());
//! }
//! let db = Database::from_bytes("ts1x1.bd", bytes, None)?;
//! assert_eq!((db.kind(), db.side_positions(), db.records()), (kind, 2, 4));
//! assert_eq!(md5_hex(db.bytes())?, "16b72dfd74349d78b429d494894432fd");
//!
//! // Look a board up: one chequer each on the ace point.
//! let mut board = Board::EMPTY;
//! board.sides[0][0] = 1;
//! board.sides[1][0] = 1;
//! let pair = db.pair_of(&board)?;
//! let index = db.pair_record(&pair).expect("a two-sided file has pairs");
//! assert_eq!(index, 3);
//! let Record::TwoSided { values, cubeful } = db.record(index)? else {
//!     unreachable!("a two-sided file holds two-sided records")
//! };
//! assert!(!cubeful);
//! assert_eq!(two_sided_equity(values[0]), 1.0);
//!
//! // A chequer on the 2-point is outside the database.
//! board.sides[1][1] = 1;
//! board.sides[1][0] = 0;
//! assert!(db.pair_of(&board).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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
