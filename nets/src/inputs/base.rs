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

/// The point and the bar encodings flat, the bar's after the points':
/// input `k` of a point holding `n` is entry `4n + k`, of the bar holding
/// `n` entry `64 + 4n + k` ([`encoding_index`]).
pub(crate) static ENCODINGS: [f32; 128] = {
    let (point, bar) = (table(false), table(true));
    let mut t = [0f32; 128];
    let mut i = 0;
    while i < 64 {
        t[i] = point[i / 4][i % 4];
        t[64 + i] = bar[i / 4][i % 4];
        i += 1;
    }
    t
};

/// Where [`ENCODINGS`] holds input `r` (0–99) of a side whose point
/// `r / 4` holds `n` chequers.
#[inline(always)]
pub(crate) fn encoding_index(r: usize, n: u8) -> usize {
    let bar = if r >= 96 { 64 } else { 0 };
    bar + 4 * usize::from(n & 15) + (r & 3)
}

/// For each count `n` of at most 15, the bits of a point's four inputs
/// that are non-zero (bit `k` for input `k`); then the same for the bar.
pub(crate) const NONZERO_BITS: [[u8; 16]; 2] = {
    let (point, bar) = (table(false), table(true));
    let mut t = [[0u8; 16]; 2];
    let mut n = 0;
    while n < 16 {
        let mut k = 0;
        while k < 4 {
            if point[n][k] != 0.0 {
                t[0][n] |= 1 << k;
            }
            if bar[n][k] != 0.0 {
                t[1][n] |= 1 << k;
            }
            k += 1;
        }
        n += 1;
    }
    t
};

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
