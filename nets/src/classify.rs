//! Position classes (docs/formats.md#position-classes; gnubg's `ClassifyPosition`).

use crate::bearoff_eval::BearoffDatabases;
use crate::occupancy::Occupancy;
use board::Board;
use std::fmt;

/// gnubg's position classes for standard backgammon, with gnubg's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A side has borne off all its chequers.
    Over = 0,
    /// Covered by the two-sided database.
    Bearoff2 = 4,
    /// Covered by a large two-sided database (not used by bgkit yet).
    BearoffTs = 5,
    /// Covered by the one-sided database.
    Bearoff1 = 6,
    /// Covered by a large one-sided database (not used by bgkit yet).
    BearoffOs = 7,
    /// No contact, not covered by a database.
    Race = 8,
    /// Contact, one side has crashed its board.
    Crashed = 9,
    /// Contact.
    Contact = 10,
}

impl Class {
    /// gnubg's enum name, as in the reference files (`CONTACT`, `BEAROFF1`…).
    pub fn name(self) -> &'static str {
        match self {
            Class::Over => "OVER",
            Class::Bearoff2 => "BEAROFF2",
            Class::BearoffTs => "BEAROFF_TS",
            Class::Bearoff1 => "BEAROFF1",
            Class::BearoffOs => "BEAROFF_OS",
            Class::Race => "RACE",
            Class::Crashed => "CRASHED",
            Class::Contact => "CONTACT",
        }
    }

    /// True for the classes a neural net evaluates (race, crashed, contact).
    pub fn uses_net(self) -> bool {
        self >= Class::Race
    }

    /// True for exact database classes (gnubg's "perfect" classes), which
    /// 1-ply evaluation does not search.
    pub fn is_exact(self) -> bool {
        matches!(self, Class::Over | Class::Bearoff2 | Class::BearoffTs)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True if a side with `tot` chequers on the board, `side[0]` and `side[1]`
/// of them on its 1- and 2-points, has crashed: at most 6 chequers that are
/// not piled on those points (docs/formats.md#position-classes).
fn crashed(side: &[u8; 25], tot: u32) -> bool {
    const N: i32 = 6;
    let tot = tot as i32;
    let (b0, b1) = (i32::from(side[0]), i32::from(side[1]));
    if tot <= N {
        return true;
    }
    if b0 > 1 {
        tot <= N + b0 || (b1 > 1 && 1 + tot - (b0 + b1) <= N)
    } else {
        tot <= N + (b1 - 1)
    }
}

/// True if the sides are in contact (their rearmost chequers have not passed
/// each other). Both sides must have chequers.
#[inline]
pub fn is_contact(board: &Board) -> bool {
    let b0 = crate::inputs::back(&board.sides[0]);
    let b1 = crate::inputs::back(&board.sides[1]);
    b0 + b1 > 22
}

/// The class of `board` given the databases loaded (the database classes
/// exist only when a database covers the position).
pub fn classify(board: &Board, bearoff: &BearoffDatabases) -> Class {
    let sides = board.sides.each_ref().map(Occupancy::of);
    let (b0, b1) = (sides[0].back(), sides[1].back());
    if b0 < 0 || b1 < 0 {
        return Class::Over;
    }
    if b0 + b1 > 22 {
        if crashed(&board.sides[0], sides[0].men) || crashed(&board.sides[1], sides[1].men) {
            Class::Crashed
        } else {
            Class::Contact
        }
    } else if bearoff.two_sided_covers(&sides) {
        Class::Bearoff2
    } else if bearoff.one_sided_covers(&sides) {
        Class::Bearoff1
    } else {
        Class::Race
    }
}
