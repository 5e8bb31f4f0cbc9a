//! Contact and crashed inputs: 200 base inputs plus two 25-value blocks
//! (docs/formats.md#contact-and-crashed-inputs), including the contact net's crossed men-off values.

use super::base::base_inputs;
use super::half::half_inputs;
use crate::arith::{Arithmetic, Division};
use board::Board;

fn men_off(side: &[u8; 25]) -> i32 {
    15 - side.iter().map(|&c| i32::from(c)).sum::<i32>()
}

/// Men-off encoding of the contact net (thirds).
fn off_non_crashed(side: &[u8; 25], out: &mut [f32], div: Division) {
    let m = men_off(side);
    let v = if m > 5 {
        [1.0, 1.0, div.div((m - 6) as f32, 3.0)]
    } else if m > 2 {
        [1.0, div.div((m - 3) as f32, 3.0), 0.0]
    } else {
        [div.div(m as f32, 3.0), 0.0, 0.0]
    };
    out[..3].copy_from_slice(&v);
}

/// Men-off encoding of the crashed net (fifths).
fn off_all(side: &[u8; 25], out: &mut [f32], div: Division) {
    let m = men_off(side);
    let v = if m > 10 {
        [1.0, 1.0, div.div((m - 10) as f32, 5.0)]
    } else if m > 5 {
        [1.0, div.div((m - 5) as f32, 5.0), 0.0]
    } else {
        [div.div(m as f32, 5.0), 0.0, 0.0]
    };
    out[..3].copy_from_slice(&v);
}

/// Writes the 250 contact-net inputs. Block A holds side 0's men off (gnubg
/// trained the net with the sides crossed) with side 1's features; block B
/// side 1's men off with side 0's features.
pub fn contact_inputs(board: &Board, out: &mut [f32], arith: Arithmetic) {
    let div = arith.division();
    let [s0, s1] = &board.sides;
    base_inputs(board, out);
    off_non_crashed(s0, &mut out[200..203], div);
    half_inputs(s1, s0, &mut out[200..225], div);
    off_non_crashed(s1, &mut out[225..228], div);
    half_inputs(s0, s1, &mut out[225..250], div);
}

/// Writes the 250 crashed-net inputs (men off not crossed).
pub fn crashed_inputs(board: &Board, out: &mut [f32], arith: Arithmetic) {
    let div = arith.division();
    let [s0, s1] = &board.sides;
    base_inputs(board, out);
    off_all(s1, &mut out[200..203], div);
    half_inputs(s1, s0, &mut out[200..225], div);
    off_all(s0, &mut out[225..228], div);
    half_inputs(s0, s1, &mut out[225..250], div);
}
