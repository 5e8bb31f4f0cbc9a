//! Net inputs exactly as gnubg 1.07 computes them (docs/formats.md#net-inputs).

pub(crate) mod base;
mod contact;
mod escapes;
mod half;
mod masks;
mod point_sums;
pub(crate) mod race;
mod shots;

pub use base::base_inputs;
pub use contact::{contact_inputs, contact_inputs_after, crashed_inputs, crashed_inputs_after};
pub use escapes::{escapes, escapes1};
pub use race::race_inputs;

/// Base inputs: 4 per point and bar, both sides (pruning nets).
pub const BASE_INPUTS: usize = 200;
/// Contact and crashed nets: base inputs plus two blocks of 25.
pub const CONTACT_INPUTS: usize = 250;
/// Race net: 107 per side.
pub const RACE_INPUTS: usize = 214;
/// The largest input vector.
pub const MAX_INPUTS: usize = CONTACT_INPUTS;

/// Offsets of the contact features inside each 25-value block
/// (the first three values are the men-off encoding).
pub mod offsets {
    /// Pips needed to break contact.
    pub const BREAK_CONTACT: usize = 3;
    /// Rearmost chequer.
    pub const BACK_CHEQUER: usize = 4;
    /// Rearmost anchor.
    pub const BACK_ANCHOR: usize = 5;
    /// Most forward anchor in the opponent's home or outfield.
    pub const FORWARD_ANCHOR: usize = 6;
    /// Pips the opponent loses from hits.
    pub const PIPLOSS: usize = 7;
    /// Rolls that hit at least one blot.
    pub const P1: usize = 8;
    /// Rolls that hit two or more.
    pub const P2: usize = 9;
    /// Escapes of the rearmost chequer.
    pub const BACKESCAPES: usize = 10;
    /// Containment in front of the opponent's rearmost chequer.
    pub const ACONTAIN: usize = 11;
    /// ACONTAIN squared.
    pub const ACONTAIN2: usize = 12;
    /// Containment up to the 24-point.
    pub const CONTAIN: usize = 13;
    /// CONTAIN squared.
    pub const CONTAIN2: usize = 14;
    /// Mobility of chequers outside home.
    pub const MOBILITY: usize = 15;
    /// One-sided second moment.
    pub const MOMENT2: usize = 16;
    /// Pips lost entering from the bar.
    pub const ENTER: usize = 17;
    /// Chance of failing to enter.
    pub const ENTER2: usize = 18;
    /// Timing.
    pub const TIMING: usize = 19;
    /// Backbone connectivity.
    pub const BACKBONE: usize = 20;
    /// Back game (two or more anchors).
    pub const BACKG: usize = 21;
    /// Back game (one anchor).
    pub const BACKG1: usize = 22;
    /// Free pips.
    pub const FREEPIP: usize = 23;
    /// Escapes of the rearmost chequer, refined table.
    pub const BACKRESCAPES: usize = 24;
}

/// Highest occupied index of a side (24 = bar), or −1 if none.
#[inline]
pub(crate) fn back(side: &[u8; 25]) -> i32 {
    side.iter().rposition(|&c| c > 0).map_or(-1, |i| i as i32)
}
