//! The pruning nets' hidden sums read straight from the boards' counts.
//!
//! A point's four base inputs ([`crate::inputs::base_inputs`]) are
//! non-zero for a set of rows its count alone decides, so a side's
//! non-zero rows are a 100-bit mask built from its 25 counts with a few
//! vector instructions ([`side_rows`]). Four boards go through the union
//! of their masks in row order, each reading its own input of a row from
//! the encodings by its count: no list is written. A board without a row
//! of the union adds `w·0 = ±0`, which changes no sum under
//! [`super::batch_exact`] (as the race net's padded lists,
//! [`super::InputLists`], do). Side 1, the side on roll, which did not
//! move, is usually every candidate's: its products are then taken once
//! and added to each board.

use super::{BaseRows, GROUP};
use crate::inputs::base::{encoding_index, ENCODINGS, NONZERO_BITS};
use crate::net::{Net, BLOCK_UNITS};
use board::Board;
use std::arch::x86_64::{
    __m128i, _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_storeu_ps,
    _mm512_add_ps, _mm512_loadu_ps, _mm512_mul_ps, _mm512_set1_ps, _mm512_storeu_ps, _mm_and_si128,
    _mm_blendv_epi8, _mm_cvtsi128_si64, _mm_extract_epi64, _mm_loadu_si128, _mm_maddubs_epi16,
    _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi8, _mm_setr_epi8, _mm_shuffle_epi8,
};

/// Inputs of a side.
const SIDE: usize = crate::inputs::BASE_INPUTS / 2;

/// The rows of `side`'s non-zero base inputs (0–99, bit `r` for input
/// `r`): each point's count (modulo 16, as the encodings read it) looked
/// up in [`NONZERO_BITS`] sixteen points at once, the bar in its own
/// table, two points' four bits packed to a byte.
///
/// # Safety
/// The CPU must support AVX2 (SSSE3 and SSE4.1 are what it uses).
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
unsafe fn side_rows(side: &[u8; 25]) -> u128 {
    let [lo, hi] = crate::occupancy::halves(side);
    let table = |t: &[u8; 16]| {
        // SAFETY: `t` is 16 readable bytes.
        unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
    };
    let (points, bar) = (table(&NONZERO_BITS[0]), table(&NONZERO_BITS[1]));
    let fifteen = _mm_set1_epi8(15);
    let (lo, hi) = (_mm_and_si128(lo, fifteen), _mm_and_si128(hi, fifteen));
    // The bar is byte 8 of the upper half (point 24).
    let bar_byte = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0);
    let lo = _mm_shuffle_epi8(points, lo);
    let hi = _mm_blendv_epi8(
        _mm_shuffle_epi8(points, hi),
        _mm_shuffle_epi8(bar, hi),
        bar_byte,
    );
    // Byte pairs (b0, b1) to b0 + 16·b1: the two points' rows in one byte.
    let pair = _mm_set1_epi16(0x1001);
    let packed: __m128i =
        _mm_packus_epi16(_mm_maddubs_epi16(lo, pair), _mm_maddubs_epi16(hi, pair));
    let low = _mm_cvtsi128_si64(packed) as u64;
    let high = _mm_extract_epi64::<1>(packed) as u64;
    u128::from(low) | u128::from(high) << 64
}

/// The set bits of a row mask, lowest first.
struct Rows(u128);

impl Iterator for Rows {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let (low, high) = (self.0 as u64, (self.0 >> 64) as u64);
        let r = if low != 0 {
            low.trailing_zeros() as usize
        } else if high != 0 {
            64 + high.trailing_zeros() as usize
        } else {
            return None;
        };
        self.0 &= self.0 - 1;
        Some(r)
    }
}

/// A group's masks: each board's side 0, and side 1 shared or each
/// board's own.
struct GroupRows {
    own: [u128; GROUP],
    shared: Option<u128>,
    others: [u128; GROUP],
}

impl BaseRows {
    /// The masks of the boards `group` picks out of `boards`.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    fn of(&mut self, boards: &[Board], group: &[usize]) -> GroupRows {
        let mut rows = GroupRows {
            own: [0; GROUP],
            shared: None,
            others: [0; GROUP],
        };
        let first = &boards[group[0]].sides[1];
        let same = group.iter().all(|&i| &boards[i].sides[1] == first);
        for (c, &i) in group.iter().enumerate() {
            // SAFETY: AVX2 is enabled in this function.
            rows.own[c] = unsafe { side_rows(&boards[i].sides[0]) };
            if !same {
                // SAFETY: as above.
                rows.others[c] = unsafe { side_rows(&boards[i].sides[1]) };
            }
        }
        if same {
            rows.shared = Some(match self.side1 {
                Some((side, mask)) if &side == first => mask,
                _ => {
                    // SAFETY: as above.
                    let mask = unsafe { side_rows(first) };
                    self.side1 = Some((*first, mask));
                    mask
                }
            });
        }
        rows
    }
}

/// The hidden sums of the pruning net `net` for the boards `which` picks
/// out of `boards`, into `hs` (a padded vector each), four at a time,
/// with AVX-512F if `wide`.
///
/// # Safety
/// The CPU must support AVX2, and AVX-512F if `wide`.
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn base_sums(
    net: &Net,
    boards: &[Board],
    which: &[usize],
    hs: &mut [f32],
    kept: &mut BaseRows,
    wide: bool,
) {
    let padded = net.padded_hidden();
    assert!(net.inputs() == 2 * SIDE && hs.len() >= which.len() * padded);
    assert!(net.blocked_hidden_weights().len() == padded * net.inputs());
    for (start, group) in (0..).step_by(GROUP).zip(which.chunks(GROUP)) {
        let rows = kept.of(boards, group);
        let out = &mut hs[start * padded..(start + group.len()) * padded];
        let pick = |c: usize| &boards[group[c.min(group.len() - 1)]];
        // SAFETY: the caller's guarantee (AVX2, and AVX-512F where
        // `wide`); the net's inputs and weights were asserted above.
        unsafe {
            match (wide, group.len()) {
                (true, 4) => sums_512::<4>(net, std::array::from_fn(pick), &rows, out),
                (true, 3) => sums_512::<3>(net, std::array::from_fn(pick), &rows, out),
                (true, 2) => sums_512::<2>(net, std::array::from_fn(pick), &rows, out),
                (true, _) => sums_512::<1>(net, std::array::from_fn(pick), &rows, out),
                (false, 4) => sums_256::<4>(net, std::array::from_fn(pick), &rows, out),
                (false, 3) => sums_256::<3>(net, std::array::from_fn(pick), &rows, out),
                (false, 2) => sums_256::<2>(net, std::array::from_fn(pick), &rows, out),
                (false, _) => sums_256::<1>(net, std::array::from_fn(pick), &rows, out),
            }
        }
    }
}

/// The union of the first `G` masks.
#[inline(always)]
fn union<const G: usize>(masks: &[u128; GROUP]) -> u128 {
    masks[..G].iter().fold(0, |u, &m| u | m)
}

/// [`base_sums`] of one group of `G` boards with AVX-512F: a block's 16
/// units of a board in one register.
///
/// # Safety
/// The CPU must support AVX-512F; `net` has 200 inputs, its blocked
/// weights their full length and `out` room for `G` padded vectors.
#[allow(unsafe_code)]
#[target_feature(enable = "avx2,avx512f")]
unsafe fn sums_512<const G: usize>(
    net: &Net,
    group: [&Board; G],
    rows: &GroupRows,
    out: &mut [f32],
) {
    let padded = net.padded_hidden();
    let blocked = net.blocked_hidden_weights();
    assert!(out.len() == G * padded);
    let own = union::<G>(&rows.own);
    for b in 0..padded / BLOCK_UNITS {
        let bias = super::avx2::block_bias(net, b);
        // SAFETY (every load and store below): `bias` and each vector's
        // block of `out` are 16 floats; block b of the weights holds 200
        // rows of 16 (the caller's guarantee) and every row is below 200
        // (a side's mask has bits below 100 only).
        let mut acc = [_mm512_loadu_ps(bias.as_ptr()); G];
        let block = blocked.as_ptr().add(b * 2 * SIDE * BLOCK_UNITS);
        for r in Rows(own) {
            let w = _mm512_loadu_ps(block.add(r * BLOCK_UNITS));
            for (a, board) in acc.iter_mut().zip(group) {
                let x = ENCODINGS[encoding_index(r, board.sides[0][r / 4])];
                *a = _mm512_add_ps(*a, _mm512_mul_ps(w, _mm512_set1_ps(x)));
            }
        }
        let block = block.add(SIDE * BLOCK_UNITS);
        match rows.shared {
            Some(mask) => {
                for r in Rows(mask) {
                    let x = ENCODINGS[encoding_index(r, group[0].sides[1][r / 4])];
                    let p = _mm512_mul_ps(
                        _mm512_loadu_ps(block.add(r * BLOCK_UNITS)),
                        _mm512_set1_ps(x),
                    );
                    for a in acc.iter_mut() {
                        *a = _mm512_add_ps(*a, p);
                    }
                }
            }
            None => {
                for r in Rows(union::<G>(&rows.others)) {
                    let w = _mm512_loadu_ps(block.add(r * BLOCK_UNITS));
                    for (a, board) in acc.iter_mut().zip(group) {
                        let x = ENCODINGS[encoding_index(r, board.sides[1][r / 4])];
                        *a = _mm512_add_ps(*a, _mm512_mul_ps(w, _mm512_set1_ps(x)));
                    }
                }
            }
        }
        for (c, a) in acc.iter().enumerate() {
            let at = c * padded + b * BLOCK_UNITS;
            _mm512_storeu_ps(out[at..at + BLOCK_UNITS].as_mut_ptr(), *a);
        }
    }
}

/// [`sums_512`] with AVX2: a block's 16 units of a board in two registers.
///
/// # Safety
/// The CPU must support AVX2; as [`sums_512`] otherwise.
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
unsafe fn sums_256<const G: usize>(
    net: &Net,
    group: [&Board; G],
    rows: &GroupRows,
    out: &mut [f32],
) {
    let padded = net.padded_hidden();
    let blocked = net.blocked_hidden_weights();
    assert!(out.len() == G * padded);
    let own = union::<G>(&rows.own);
    for b in 0..padded / BLOCK_UNITS {
        let bias = super::avx2::block_bias(net, b);
        // SAFETY: as in `sums_512`, each 16 floats read as two halves.
        let halves = [
            _mm256_loadu_ps(bias.as_ptr()),
            _mm256_loadu_ps(bias[8..].as_ptr()),
        ];
        let mut acc = [halves; G];
        let block = blocked.as_ptr().add(b * 2 * SIDE * BLOCK_UNITS);
        for r in Rows(own) {
            let row = block.add(r * BLOCK_UNITS);
            let w = [_mm256_loadu_ps(row), _mm256_loadu_ps(row.add(8))];
            for (a, board) in acc.iter_mut().zip(group) {
                let x = _mm256_set1_ps(ENCODINGS[encoding_index(r, board.sides[0][r / 4])]);
                a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(w[0], x));
                a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(w[1], x));
            }
        }
        let block = block.add(SIDE * BLOCK_UNITS);
        match rows.shared {
            Some(mask) => {
                for r in Rows(mask) {
                    let row = block.add(r * BLOCK_UNITS);
                    let x = _mm256_set1_ps(ENCODINGS[encoding_index(r, group[0].sides[1][r / 4])]);
                    let p = [
                        _mm256_mul_ps(_mm256_loadu_ps(row), x),
                        _mm256_mul_ps(_mm256_loadu_ps(row.add(8)), x),
                    ];
                    for a in acc.iter_mut() {
                        a[0] = _mm256_add_ps(a[0], p[0]);
                        a[1] = _mm256_add_ps(a[1], p[1]);
                    }
                }
            }
            None => {
                for r in Rows(union::<G>(&rows.others)) {
                    let row = block.add(r * BLOCK_UNITS);
                    let w = [_mm256_loadu_ps(row), _mm256_loadu_ps(row.add(8))];
                    for (a, board) in acc.iter_mut().zip(group) {
                        let x = _mm256_set1_ps(ENCODINGS[encoding_index(r, board.sides[1][r / 4])]);
                        a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(w[0], x));
                        a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(w[1], x));
                    }
                }
            }
        }
        for (c, a) in acc.iter().enumerate() {
            let at = c * padded + b * BLOCK_UNITS;
            _mm256_storeu_ps(out[at..at + 8].as_mut_ptr(), a[0]);
            _mm256_storeu_ps(out[at + 8..at + BLOCK_UNITS].as_mut_ptr(), a[1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift;

    /// A side's mask is the set of its non-zero base inputs, for random
    /// counts up to 15 on every point and the bar.
    #[test]
    #[allow(unsafe_code)]
    fn a_sides_rows_are_its_non_zero_base_inputs() {
        if !crate::cpu::has_avx2() {
            return;
        }
        let mut next = xorshift(0x005E_ED0F_BA5E);
        for _ in 0..4_000 {
            let mut board = Board::default();
            for n in board.sides.iter_mut().flatten() {
                *n = match next() % 3 {
                    0 => 0,
                    _ => (next() % 16) as u8,
                };
            }
            let mut dense = [0f32; 200];
            crate::inputs::base_inputs(&board, &mut dense);
            for (s, side) in board.sides.iter().enumerate() {
                let want = (0..SIDE)
                    .filter(|&r| dense[SIDE * s + r] != 0.0)
                    .fold(0u128, |m, r| m | 1 << r);
                // SAFETY: AVX2 was checked above.
                assert_eq!(unsafe { side_rows(side) }, want, "{side:?}");
                for r in 0..SIDE {
                    let x = ENCODINGS[encoding_index(r, side[r / 4])];
                    assert_eq!(x.to_bits(), dense[SIDE * s + r].to_bits());
                }
            }
        }
    }
}
