//! Contact and crashed inputs: 200 base inputs plus two 25-value blocks
//! (docs/formats.md#contact-and-crashed-inputs), including the contact net's crossed men-off values.

use super::back;
use super::base::base_inputs;
use super::half::{half_against, half_inputs, Side};
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
    write_inputs(board, None, out, arith, false);
}

/// Writes the 250 crashed-net inputs (men off not crossed).
pub fn crashed_inputs(board: &Board, out: &mut [f32], arith: Arithmetic) {
    write_inputs(board, None, out, arith, true);
}

/// [`contact_inputs`] of `board`, given (if any) the contact inputs
/// `previous.1` of another board `previous.0` (the candidate moves of one
/// roll come one after another): the same values, with the features of
/// side 1 that only depend on its own chequers and on side 0's rearmost one
/// copied from `previous` when those are the same in both boards.
pub fn contact_inputs_after(
    previous: Option<(&Board, &[f32])>,
    board: &Board,
    out: &mut [f32],
    arith: Arithmetic,
) {
    write_inputs(board, previous, out, arith, false);
}

/// [`crashed_inputs`] of `board`, given (if any) the crashed inputs of
/// another board, as [`contact_inputs_after`].
pub fn crashed_inputs_after(
    previous: Option<(&Board, &[f32])>,
    board: &Board,
    out: &mut [f32],
    arith: Arithmetic,
) {
    write_inputs(board, previous, out, arith, true);
}

fn write_inputs(
    board: &Board,
    previous: Option<(&Board, &[f32])>,
    out: &mut [f32],
    arith: Arithmetic,
    crashed: bool,
) {
    let div = arith.division();
    let [s0, s1] = &board.sides;
    base_inputs(board, out);
    if crashed {
        off_all(s1, &mut out[200..203], div);
        off_all(s0, &mut out[225..228], div);
    } else {
        off_non_crashed(s0, &mut out[200..203], div);
        off_non_crashed(s1, &mut out[225..228], div);
    }
    let same_side_1 = |p: &Board| p.sides[1] == *s1 && back(&p.sides[0]) == back(s0);
    let (side0, side1) = (Side::new(s0), Side::new(s1));
    match previous {
        Some((p, inputs)) if same_side_1(p) => {
            out[203..225].copy_from_slice(&inputs[203..225]);
            half_against(side1, side0, &mut out[200..225], div);
        }
        _ => half_inputs(side1, side0, &mut out[200..225], div),
    }
    half_inputs(side0, side1, &mut out[225..250], div);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boards that share side 1 and differ in side 0, some with the same
    /// rearmost chequer, some not, some with chequers on the bar.
    fn neighbours() -> Vec<Board> {
        let mut random = crate::test_rng::xorshift(0x2545_F491_4F6C_DD1D);
        let mut next = move |n: u64| (random() % n) as usize;
        let mut boards = Vec::new();
        for _ in 0..300 {
            let mut side1 = [0u8; 25];
            for _ in 0..15 {
                side1[if next(10) == 0 { 24 } else { next(24) }] += 1;
            }
            for _ in 0..8 {
                let mut side0 = [0u8; 25];
                for _ in 0..15 - next(3) {
                    side0[if next(12) == 0 { 24 } else { next(24) }] += 1;
                }
                boards.push(Board {
                    sides: [side0, side1],
                });
            }
        }
        boards
    }

    #[test]
    fn inputs_after_a_previous_board_are_the_inputs() {
        for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
            for crashed in [false, true] {
                let boards = neighbours();
                let fresh = |b: &Board| {
                    let mut v = vec![0f32; 250];
                    if crashed {
                        crashed_inputs(b, &mut v, arith);
                    } else {
                        contact_inputs(b, &mut v, arith);
                    }
                    v
                };
                let mut reused = 0;
                for pair in boards.windows(2) {
                    let before = fresh(&pair[0]);
                    let mut got = vec![0f32; 250];
                    if crashed {
                        crashed_inputs_after(Some((&pair[0], &before)), &pair[1], &mut got, arith);
                    } else {
                        contact_inputs_after(Some((&pair[0], &before)), &pair[1], &mut got, arith);
                    }
                    let want = fresh(&pair[1]);
                    assert!(
                        want.iter()
                            .zip(&got)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{:?}",
                        pair[1]
                    );
                    reused += usize::from(
                        pair[0].sides[1] == pair[1].sides[1]
                            && back(&pair[0].sides[0]) == back(&pair[1].sides[0]),
                    );
                }
                assert!(reused > 300, "only {reused} pairs took the copying path");
            }
        }
    }
}
