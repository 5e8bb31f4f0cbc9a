//! The 200 base inputs (docs/formats.md#base-inputs).

use board::Board;

/// Encodings of 0..=15 chequers on a point and on the bar.
static POINT: [[f32; 4]; 16] = table(false);
static BAR: [[f32; 4]; 16] = table(true);

const fn table(bar: bool) -> [[f32; 4]; 16] {
    let mut t = [[0f32; 4]; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = encode(n as u8, bar);
        n += 1;
    }
    t
}

/// Writes the base inputs of `board` into `out[..200]`: side 0 (opponent)
/// first, then side 1; per point one-hot blot/made/three plus overflow
/// `(n−3)/2`, the bar cumulative. Counts must be at most 15.
#[inline]
pub fn base_inputs(board: &Board, out: &mut [f32]) {
    let out = &mut out[..200];
    for (block, side) in out.chunks_exact_mut(100).zip(&board.sides) {
        for (v, &n) in block[..96].chunks_exact_mut(4).zip(&side[..24]) {
            v.copy_from_slice(&POINT[usize::from(n & 15)]);
        }
        block[96..].copy_from_slice(&BAR[usize::from(side[24] & 15)]);
    }
}

const fn flag(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

const fn encode(n: u8, bar: bool) -> [f32; 4] {
    // (n − 3)/2 is a multiple of 0.5 below 8: exact.
    let extra = if n > 3 { (n - 3) as f32 * 0.5 } else { 0.0 };
    if bar {
        [flag(n >= 1), flag(n >= 2), flag(n >= 3), extra]
    } else {
        [flag(n == 1), flag(n == 2), flag(n >= 3), extra]
    }
}
