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
        // A point's four inputs are the base inputs' (one table row each).
        for (v, &n) in block[..92].chunks_exact_mut(4).zip(&side[..23]) {
            men_off -= i32::from(n);
            v.copy_from_slice(&super::base::point_encoding(n));
        }
        let off = &mut block[92..106];
        off.fill(0.0);
        if let Some(v) = usize::try_from(men_off - 1)
            .ok()
            .and_then(|k| off.get_mut(k))
        {
            *v = 1.0;
        }
        let mut cross = 0u32;
        for q in 1..4usize {
            let men: u32 = side[6 * q..6 * q + 6].iter().map(|&n| u32::from(n)).sum();
            cross += q as u32 * men;
        }
        block[106] = div.div(cross as f32, 10.0);
    }
}
