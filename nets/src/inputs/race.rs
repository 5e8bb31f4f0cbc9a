//! The 214 race inputs (docs/formats.md#race-inputs).

use crate::arith::Arithmetic;
use board::Board;

/// Writes the race inputs of `board` into `out[..214]`, 107 per side
/// (side 0 first): points 0..23 one-hot with overflow, men off 1..14 one-hot,
/// crossovers / 10.
pub fn race_inputs(board: &Board, out: &mut [f32], arith: Arithmetic) {
    let div = arith.division();
    for (s, side) in board.sides.iter().enumerate() {
        let block = &mut out[107 * s..107 * s + 107];
        let mut men_off = 15i32;
        for (v, &n) in block[..92].chunks_exact_mut(4).zip(&side[..23]) {
            men_off -= i32::from(n);
            v[0] = f32::from(u8::from(n == 1));
            v[1] = f32::from(u8::from(n == 2));
            v[2] = f32::from(u8::from(n >= 3));
            v[3] = if n > 3 { f32::from(n - 3) / 2.0 } else { 0.0 };
        }
        for (k, v) in block[92..106].iter_mut().enumerate() {
            *v = f32::from(u8::from(men_off == k as i32 + 1));
        }
        let mut cross = 0u32;
        for q in 1..4usize {
            let men: u32 = side[6 * q..6 * q + 6].iter().map(|&n| u32::from(n)).sum();
            cross += q as u32 * men;
        }
        block[106] = div.div(cross as f32, 10.0);
    }
}
