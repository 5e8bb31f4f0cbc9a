//! The 214 race inputs (docs/formats.md#race-inputs).

use crate::arith::{Arithmetic, Division};
use board::Board;

/// Writes the race inputs of `board` into `out[..214]`, 107 per side
/// (side 0 first): points 0..23 one-hot with overflow, men off 1..14 one-hot,
/// crossovers / 10.
pub fn race_inputs(board: &Board, out: &mut [f32], arith: Arithmetic) {
    let div = arith.division();
    for (s, side) in board.sides.iter().enumerate() {
        let block = &mut out[107 * s..107 * s + 107];
        // A point's four inputs are the base inputs' (one table row each).
        for (v, &n) in block[..92].chunks_exact_mut(4).zip(&side[..23]) {
            v.copy_from_slice(&super::base::point_encoding(n));
        }
        let off = &mut block[92..106];
        off.fill(0.0);
        if let Some(v) = usize::try_from(men_off(side) - 1)
            .ok()
            .and_then(|k| off.get_mut(k))
        {
            *v = 1.0;
        }
        block[106] = div.div(crossovers(side) as f32, 10.0);
    }
}

/// The men a side has off for the race inputs: 15 less its chequers on
/// points 0 to 22.
fn men_off(side: &[u8; 25]) -> i32 {
    15 - side[..23].iter().map(|&n| i32::from(n)).sum::<i32>()
}

/// The race inputs' crossovers of a side: the chequers of each quarter
/// (points 6–11, 12–17, 18–23) times its number.
fn crossovers(side: &[u8; 25]) -> u32 {
    (1..4usize)
        .map(|q| {
            q as u32
                * side[6 * q..6 * q + 6]
                    .iter()
                    .map(|&n| u32::from(n))
                    .sum::<u32>()
        })
        .sum()
}

/// Most non-zero race inputs of one side: two a point, men off, crossovers.
pub(crate) const MAX_RACE_SIDE_NONZERO: usize = 23 * 2 + 2;

/// The non-zero entries of side `s`'s 107 race inputs (inputs `107·s` to
/// `107·s + 106` of [`race_inputs`] with the division `div`), in index
/// order: writes their indices to `rows` and their values to `xs` and
/// returns how many (at most [`MAX_RACE_SIDE_NONZERO`]); both slices need
/// room for 4 entries past the last. Counts must be at most 15 (as
/// [`race_inputs`] encodes them through the base inputs' table).
#[inline]
pub(crate) fn race_side_nonzero(
    side: &[u8; 25],
    s: usize,
    rows: &mut [u16],
    xs: &mut [f32],
    div: Division,
) -> usize {
    let (rows, xs) = (
        &mut rows[..MAX_RACE_SIDE_NONZERO + 4],
        &mut xs[..MAX_RACE_SIDE_NONZERO + 4],
    );
    let block = 107 * s;
    let mut len = 0;
    let mut occupied = super::masks::occupied_mod16(side) & ((1 << 23) - 1);
    while occupied != 0 {
        let p = occupied.trailing_zeros() as usize;
        occupied &= occupied - 1;
        let e = super::base::point_nonzero(side[p]);
        len = super::base::list_point(e, block + 4 * p, rows, xs, len);
    }
    let men_off = men_off(side);
    if (1..=14).contains(&men_off) {
        rows[len] = (block + 92 + men_off as usize - 1) as u16;
        xs[len] = 1.0;
        len += 1;
    }
    let cross = crossovers(side);
    if cross != 0 {
        rows[len] = (block + 106) as u16;
        xs[len] = div.div(cross as f32, 10.0);
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each side's list holds exactly the non-zero race inputs, in order,
    /// with their bits, on random sides (counts 0 to 15) in both divisions.
    #[test]
    fn race_lists_are_the_non_zero_race_inputs() {
        let mut next = crate::test_rng::xorshift(77);
        for round in 0..4000 {
            let mut board = Board::default();
            for side in &mut board.sides {
                for n in side.iter_mut().take(24) {
                    *n = if next().is_multiple_of(3) {
                        (next() % 16) as u8
                    } else {
                        0
                    };
                }
            }
            let arith = if round % 2 == 0 {
                Arithmetic::GnubgFastMath
            } else {
                Arithmetic::Ieee
            };
            let mut dense = [0f32; 214];
            race_inputs(&board, &mut dense, arith);
            for s in 0..2 {
                let (mut rows, mut xs) = (
                    [0u16; MAX_RACE_SIDE_NONZERO + 4],
                    [0f32; MAX_RACE_SIDE_NONZERO + 4],
                );
                let len =
                    race_side_nonzero(&board.sides[s], s, &mut rows, &mut xs, arith.division());
                let want: Vec<(u16, u32)> = (107 * s..107 * s + 107)
                    .filter(|&i| dense[i] != 0.0)
                    .map(|i| (i as u16, dense[i].to_bits()))
                    .collect();
                let got: Vec<(u16, u32)> = (0..len).map(|k| (rows[k], xs[k].to_bits())).collect();
                assert_eq!(got, want, "side {s} of {:?}", board.sides[s]);
            }
        }
    }
}
