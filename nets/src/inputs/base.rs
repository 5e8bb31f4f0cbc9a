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

/// The four base inputs of a point holding `n` chequers (not the bar):
/// one-hot blot/made/three, then the overflow `(n−3)/2`.
#[inline]
pub(crate) fn point_encoding(n: u8) -> [f32; 4] {
    match POINT.get(usize::from(n)) {
        Some(&e) => e,
        None => encode(n, false),
    }
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

/// Most non-zero base inputs a board can have: two per point (one-hot and
/// overflow), four on the bar, both sides.
pub const MAX_BASE_NONZERO: usize = 2 * (24 * 2 + 4);

/// One count's non-zero inputs among its four: how many, their offsets in
/// the point's block (four `u16`s packed little-endian in a `u64`, unused
/// ones 0) and their values (unused ones 0).
#[derive(Clone, Copy)]
pub(crate) struct Nonzero {
    pub(crate) count: u8,
    pub(crate) offsets: u64,
    pub(crate) values: [f32; 4],
}

/// The non-zero entries of a point's four base inputs for a count of at
/// most 15 (the race inputs encode their points alike).
#[inline]
pub(crate) fn point_nonzero(n: u8) -> &'static Nonzero {
    &POINT_NONZERO[usize::from(n & 15)]
}

static POINT_NONZERO: [Nonzero; 16] = nonzero_table(&POINT);
static BAR_NONZERO: [Nonzero; 16] = nonzero_table(&BAR);

const fn nonzero_table(dense: &[[f32; 4]; 16]) -> [Nonzero; 16] {
    let mut t = [Nonzero {
        count: 0,
        offsets: 0,
        values: [0.0; 4],
    }; 16];
    let mut n = 0;
    while n < 16 {
        let mut k = 0;
        while k < 4 {
            if dense[n][k] != 0.0 {
                let c = t[n].count as usize;
                t[n].offsets |= (k as u64) << (16 * c);
                t[n].values[c] = dense[n][k];
                t[n].count += 1;
            }
            k += 1;
        }
        n += 1;
    }
    t
}

/// Most non-zero base inputs one side can have: two per point, four on
/// the bar.
pub const MAX_SIDE_NONZERO: usize = 24 * 2 + 4;

/// The non-zero entries of [`base_inputs`]`(board)`, in index order:
/// writes their indices to `rows` and their values to `xs` and returns how
/// many there are (at most [`MAX_BASE_NONZERO`]). Only occupied points are
/// visited; each writes its four entries whole and the next point
/// overwrites the unused ones, so both slices need room for 4 entries past
/// the last.
#[inline]
pub fn base_nonzero(board: &Board, rows: &mut [u16], xs: &mut [f32]) -> usize {
    let (rows, xs) = (
        &mut rows[..MAX_BASE_NONZERO + 4],
        &mut xs[..MAX_BASE_NONZERO + 4],
    );
    let len = side_nonzero(&board.sides[0], 0, rows, xs);
    len + side_nonzero(&board.sides[1], 1, &mut rows[len..], &mut xs[len..])
}

/// The non-zero entries of side `s`'s 100 base inputs (inputs `100·s` to
/// `100·s + 99` of [`base_inputs`]), as [`base_nonzero`] lists them: at
/// most [`MAX_SIDE_NONZERO`], and both slices need room for 4 entries past
/// the last.
#[inline]
pub fn side_nonzero(side: &[u8; 25], s: usize, rows: &mut [u16], xs: &mut [f32]) -> usize {
    let (rows, xs) = (
        &mut rows[..MAX_SIDE_NONZERO + 4],
        &mut xs[..MAX_SIDE_NONZERO + 4],
    );
    let mut len = 0;
    let mut occupied = super::masks::occupied_mod16(side);
    while occupied != 0 {
        let p = occupied.trailing_zeros() as usize;
        occupied &= occupied - 1;
        let table = if p == 24 {
            &BAR_NONZERO
        } else {
            &POINT_NONZERO
        };
        len = list_point(
            &table[usize::from(side[p] & 15)],
            100 * s + 4 * p,
            rows,
            xs,
            len,
        );
    }
    len
}

/// Lists after the first `len` entries of `rows` and `xs` a point's
/// non-zero inputs `e`, its four inputs being rows `first` to `first + 3`;
/// returns the new length. Writes four entries whole (the next point
/// overwrites the unused ones), so both slices need room for 4 past `len`.
#[inline(always)]
pub(crate) fn list_point(
    e: &Nonzero,
    first: usize,
    rows: &mut [u16],
    xs: &mut [f32],
    len: usize,
) -> usize {
    // Four u16 lanes of `first` plus the offsets: no lane carries (every
    // row is below 2^16).
    let packed = first as u64 * 0x0001_0001_0001_0001 + e.offsets;
    // `len` never exceeds the lists' maximum; the `min` lets the compiler
    // see that the four entries lie inside the slices.
    let at = len.min(rows.len().min(xs.len()) - 4);
    for (k, r) in rows[at..at + 4].iter_mut().enumerate() {
        *r = (packed >> (16 * k)) as u16;
    }
    xs[at..at + 4].copy_from_slice(&e.values);
    len + usize::from(e.count)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift;

    /// The sparse entries are exactly the non-zero dense inputs, in order,
    /// for every count on every point and on the bar.
    #[test]
    fn the_nonzero_entries_are_the_dense_inputs() {
        let mut next = xorshift(17);
        for _ in 0..2_000 {
            let mut board = Board::default();
            for side in &mut board.sides {
                for n in side.iter_mut() {
                    *n = match next() % 4 {
                        0 | 1 => 0,
                        _ => (next() % 16) as u8,
                    };
                }
            }
            let mut dense = [0f32; 200];
            base_inputs(&board, &mut dense);
            let want: Vec<(u16, u32)> = (0..200u16)
                .filter(|&r| dense[usize::from(r)] != 0.0)
                .map(|r| (r, dense[usize::from(r)].to_bits()))
                .collect();
            let (mut rows, mut xs) = ([0u16; MAX_BASE_NONZERO + 4], [0f32; MAX_BASE_NONZERO + 4]);
            let len = base_nonzero(&board, &mut rows, &mut xs);
            let got: Vec<(u16, u32)> = rows[..len]
                .iter()
                .zip(&xs[..len])
                .map(|(&r, x)| (r, x.to_bits()))
                .collect();
            assert_eq!(got, want);
        }
    }
}
