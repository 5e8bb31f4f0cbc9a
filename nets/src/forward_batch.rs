//! The forward pass of one net for a batch of input vectors (the candidate
//! moves of one roll), computing exactly the bits of [`forward`] for each.
//!
//! A single evaluation streams every used row of hidden weights from L2
//! (a contact net's 128 KB do not fit L1). The batch instead walks the
//! weights one block of 16 hidden units at a time ([`Net::blocked_hidden_weights`],
//! 16 KB for 250 inputs, which stays in L1) and updates four vectors per
//! weight row loaded: the accumulators of four candidates live in registers
//! (AVX2: two 8-float registers per candidate; with `Simd::Avx512`, one
//! 16-float register). The output layer then takes two candidates per AVX2
//! register.
//!
//! Exactness: each unit's sum is its threshold plus `w·x` over the inputs in
//! index order, as in [`forward`]. The four candidates share one list of
//! rows (the union of their non-zero inputs), so a candidate also adds
//! `w·0 = ±0` for rows where its input is 0. Adding ±0 leaves every sum
//! unchanged except −0 (−0 + +0 = +0); a sum can only be −0 if it starts
//! at −0 (a sum of non-zero-signed terms rounds an exact zero to +0), so
//! the batch is used only for nets without a −0 hidden threshold
//! ([`batch_exact`]); the others take the single path.
//!
//! [`forward`]: crate::forward::forward

use crate::arith::Arithmetic;
#[cfg(not(target_arch = "x86_64"))]
use crate::forward::activate;
use crate::forward::{output_sums, Simd};
use crate::net::Net;
use crate::sigmoid::sigmoid;

/// Candidates whose accumulators share the registers.
#[cfg(target_arch = "x86_64")]
const GROUP: usize = 4;

/// True if the batch computes the same bits as the single path for `net`
/// (no hidden threshold is −0).
pub fn batch_exact(net: &Net) -> bool {
    !net.hidden_thresholds()
        .iter()
        .any(|t| t.to_bits() == (-0.0f32).to_bits())
}

/// Runs `net` on `count` input vectors stored one after another in `xs`
/// (`net.inputs()` each), writing each vector's outputs to `out`.
/// `hidden` is scratch space, grown as needed.
pub fn forward_batch(
    net: &Net,
    xs: &[f32],
    count: usize,
    hidden: &mut Vec<f32>,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    simd: Simd,
) {
    let n_in = net.inputs();
    let padded = net.padded_hidden();
    assert!(xs.len() >= count * n_in && out.len() >= count);
    let hidden = grown(hidden, count * padded);
    accumulate_batch(net, &xs[..count * n_in], count, hidden, simd);
    #[cfg(target_arch = "x86_64")]
    avx2::finish(net, hidden, count, out, arith);
    #[cfg(not(target_arch = "x86_64"))]
    finish(net, hidden, count, out, arith, activate, sums_one_by_one);
}

/// [`forward_batch`] of the base inputs ([`crate::inputs::base_inputs`],
/// the pruning nets' only inputs) of the boards `which` picks out of
/// `boards`, with the same bits, without writing the dense vectors: each
/// board's non-zero inputs are listed straight from its counts
/// ([`crate::inputs::base_nonzero`]) and four boards at a time go through
/// their own lists side by side, a list shorter than the longest padded
/// with inputs of value 0 at its end (each adds `w·0 = ±0`, which changes
/// no sum under [`batch_exact`]). Needs AVX2 ([`batch_available`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_base_boards(
    net: &Net,
    boards: &[board::Board],
    which: &[usize],
    hidden: &mut Vec<f32>,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    simd: Simd,
) {
    assert!(batch_available(simd), "the batch needs AVX2");
    assert_eq!(net.inputs(), crate::inputs::BASE_INPUTS);
    let count = which.len();
    assert!(out.len() >= count);
    let padded = net.padded_hidden();
    let hidden = grown(hidden, count * padded);
    #[cfg(target_arch = "x86_64")]
    {
        avx2::accumulate_base_boards(net, boards, which, hidden);
        avx2::finish(net, hidden, count, out, arith);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (boards, hidden, arith);
}

/// The first `len` values of `buffer`, grown (never shrunk) to hold them:
/// a batch's buffers are written whole before they are read, so what a
/// larger batch left in them is never seen, and a smaller batch after a
/// larger one costs no zeroing when the next larger one comes.
pub(crate) fn grown(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// The hidden sigmoid, the output sums and the output sigmoid of every
/// vector, from the hidden sums: `activate` one vector's hidden layer,
/// `output_layer` writes every vector's pre-sigmoid output sums.
#[inline(always)]
fn finish(
    net: &Net,
    hidden: &mut [f32],
    count: usize,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    activate: impl Fn(&Net, &mut [f32], Arithmetic),
    output_layer: impl Fn(&Net, &[f32], usize, &mut [[f32; 5]], Arithmetic),
) {
    let padded = net.padded_hidden();
    for c in 0..count {
        activate(
            net,
            &mut hidden[c * padded..c * padded + net.hidden()],
            arith,
        );
    }
    output_layer(net, hidden, count, out, arith);
    output_sigmoid(&mut out[..count], -net.beta_output());
}

/// The output sigmoid `sigmoid(beta·v)` of every value of `out`, in place:
/// eight values at a time with AVX2 ([`crate::sigmoid::scaled_sigmoids_avx2`],
/// the same bits), the rest one by one.
#[inline(always)]
fn output_sigmoid(out: &mut [[f32; 5]], beta: f32) {
    let flat = out.as_flattened_mut();
    #[cfg(target_arch = "x86_64")]
    let flat = if crate::cpu::has_avx2() {
        // SAFETY: AVX2 was detected at run time.
        #[allow(unsafe_code)]
        let done = unsafe { crate::sigmoid::scaled_sigmoids_avx2(flat, beta) };
        &mut flat[done..]
    } else {
        flat
    };
    for v in flat {
        *v = sigmoid(beta * *v);
    }
}

/// The output sums of `count` activated vectors (padded rows of `hidden`),
/// one vector at a time.
#[inline(always)]
fn sums_one_by_one(
    net: &Net,
    hidden: &[f32],
    count: usize,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
) {
    let padded = net.padded_hidden();
    for (c, o) in out.iter_mut().enumerate().take(count) {
        let h = &hidden[c * padded..c * padded + net.hidden()];
        output_sums(net, h, &mut o[..net.outputs()], arith);
    }
}

/// True if this evaluator's SIMD level runs the batch (AVX2 only: without
/// it the single path is as fast).
pub fn batch_available(simd: Simd) -> bool {
    simd.uses_avx2()
}

/// Pre-activation hidden sums of `count` vectors into `hs` (`count` rows
/// of `net.padded_hidden()`).
///
/// # Panics
/// If [`batch_available`] is false.
fn accumulate_batch(net: &Net, xs: &[f32], count: usize, hs: &mut [f32], simd: Simd) {
    assert!(batch_available(simd), "the batch needs AVX2");
    #[cfg(target_arch = "x86_64")]
    avx2::accumulate_batch(net, xs, count, hs, simd.uses_avx512());
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (net, xs, count, hs);
}

/// The batch with AVX2 intrinsics: per block of 16 units, the accumulators
/// of up to four vectors stay in eight registers while the rows of the
/// union go by. Multiply, then add (no fused multiply-add), so each unit
/// sees exactly the single path's operations.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Net, GROUP};
    use crate::forward::{BIT_COUNTS, SET_BITS};
    use crate::net::BLOCK_UNITS;
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_cmp_ps, _mm256_loadu_ps,
        _mm256_movemask_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps, _mm_add_epi16,
        _mm_loadu_si128, _mm_set1_epi16, _mm_storeu_si128, _CMP_NEQ_UQ,
    };

    #[allow(unsafe_code)]
    pub(super) fn accumulate_batch(
        net: &Net,
        xs: &[f32],
        count: usize,
        hs: &mut [f32],
        wide: bool,
    ) {
        // SAFETY: `accumulate_batch` asserted `batch_available`, i.e. that
        // this CPU has AVX2 (checked at run time), the only requirement of
        // the `target_feature` function; `wide` only where it has AVX-512F.
        unsafe { accumulate_batch_avx2(net, xs, count, hs, wide) }
    }

    #[allow(unsafe_code)]
    pub(super) fn finish(
        net: &Net,
        hidden: &mut [f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
    ) {
        // SAFETY: reached only after `accumulate_batch` asserted that this
        // CPU has AVX2.
        unsafe { finish_avx2(net, hidden, count, out, arith) }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn finish_avx2(
        net: &Net,
        hidden: &mut [f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
    ) {
        use crate::arith::Arithmetic;
        // Two vectors at a time through the output layer where its sums
        // are the four-lane ones of a five-output net.
        let pairs = arith != Arithmetic::Reference && net.outputs() == 5;
        let activate = crate::forward::activate_avx2;
        if pairs {
            // SAFETY: `finish_avx2` is reached only after `accumulate_batch`
            // asserted that this CPU has AVX2.
            let in_pairs = |net: &Net, h: &[f32], count, out: &mut _, arith| unsafe {
                sums_in_pairs(net, h, count, out, arith)
            };
            super::finish(net, hidden, count, out, arith, activate, in_pairs);
        } else {
            super::finish(
                net,
                hidden,
                count,
                out,
                arith,
                activate,
                super::sums_one_by_one,
            );
        }
    }

    /// [`super::sums_one_by_one`] two vectors at a time
    /// ([`crate::forward::sums_five_pair_avx2`]) for a five-output net in a
    /// four-lane arithmetic: the same bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[allow(unsafe_code)]
    #[inline(always)]
    unsafe fn sums_in_pairs(
        net: &Net,
        hidden: &[f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
    ) {
        let padded = net.padded_hidden();
        let mut c = 0;
        while c + 1 < count {
            let (a, b) = out[c..c + 2].split_at_mut(1);
            let (ha, hb) = hidden[c * padded..].split_at(padded);
            // SAFETY: the caller guarantees AVX2.
            unsafe { crate::forward::sums_five_pair_avx2(net, ha, hb, &mut a[0], &mut b[0]) };
            c += 2;
        }
        if c < count {
            super::sums_one_by_one(net, &hidden[c * padded..], 1, &mut out[c..], arith);
        }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate_batch_avx2(
        net: &Net,
        xs: &[f32],
        count: usize,
        hs: &mut [f32],
        wide: bool,
    ) {
        let n_in = net.inputs();
        let padded = net.padded_hidden();
        let mut union_rows = [0u16; crate::inputs::MAX_INPUTS + 8];
        assert!(
            n_in <= union_rows.len(),
            "gnubg's nets have at most 250 inputs"
        );
        // Scratch for `group_sums`, which writes what it reads.
        let mut xt = [std::mem::MaybeUninit::<f32>::uninit(); GROUP * crate::inputs::MAX_INPUTS];
        let mut start = 0;
        while start < count {
            let g = (count - start).min(GROUP);
            let group = &xs[start * n_in..(start + g) * n_in];
            let len = union_of_nonzero(group, n_in, g, &mut union_rows);
            let union = &union_rows[..len];
            let out = &mut hs[start * padded..(start + g) * padded];
            if wide {
                // SAFETY: `wide` is `simd.uses_avx512()`, true only where
                // the CPU has AVX-512F (checked at run time).
                match g {
                    4 => group_sums_512::<4>(net, group, union, &mut xt, out),
                    3 => group_sums_512::<3>(net, group, union, &mut xt, out),
                    2 => group_sums_512::<2>(net, group, union, &mut xt, out),
                    _ => group_sums_512::<1>(net, group, union, &mut xt, out),
                }
                start += g;
                continue;
            }
            match g {
                4 => group_sums::<4>(net, group, union, &mut xt, out),
                3 => group_sums::<3>(net, group, union, &mut xt, out),
                2 => group_sums::<2>(net, group, union, &mut xt, out),
                _ => group_sums::<1>(net, group, union, &mut xt, out),
            }
            start += g;
        }
    }

    /// The hidden sums of [`super::forward_base_boards`]: up to four
    /// boards' lists of non-zero base inputs side by side.
    #[allow(unsafe_code)]
    pub(super) fn accumulate_base_boards(
        net: &Net,
        boards: &[board::Board],
        which: &[usize],
        hs: &mut [f32],
    ) {
        use crate::inputs::{base_nonzero, MAX_BASE_NONZERO};
        const ROOM: usize = MAX_BASE_NONZERO + 4;
        let padded = net.padded_hidden();
        let mut rows = [[0u16; ROOM]; GROUP];
        let mut xs = [[0f32; ROOM]; GROUP];
        for (start, group) in (0..).step_by(GROUP).zip(which.chunks(GROUP)) {
            let mut longest = 0;
            let mut lens = [0usize; GROUP];
            for (c, &i) in group.iter().enumerate() {
                lens[c] = base_nonzero(&boards[i], &mut rows[c], &mut xs[c]);
                longest = longest.max(lens[c]);
            }
            for c in 0..group.len() {
                rows[c][lens[c]..longest].fill(0);
                xs[c][lens[c]..longest].fill(0.0);
            }
            let out = &mut hs[start * padded..(start + group.len()) * padded];
            // SAFETY: `forward_base_boards` asserted `batch_available`, i.e.
            // that this CPU has AVX2 (checked at run time), the only
            // requirement of the `target_feature` function.
            unsafe {
                match group.len() {
                    4 => list_sums::<4>(net, &rows, &xs, longest, out),
                    3 => list_sums::<3>(net, &rows, &xs, longest, out),
                    2 => list_sums::<2>(net, &rows, &xs, longest, out),
                    _ => list_sums::<1>(net, &rows, &xs, longest, out),
                }
            }
        }
    }

    /// The sums of `G` vectors given as lists of (input, value), the first
    /// `len` entries of `rows[c]` and `xs[c]`, block by block; each unit
    /// adds the entries of a list in its order, as [`group_sums`] adds its
    /// rows.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn list_sums<const G: usize>(
        net: &Net,
        rows: &[[u16; crate::inputs::MAX_BASE_NONZERO + 4]; GROUP],
        xs: &[[f32; crate::inputs::MAX_BASE_NONZERO + 4]; GROUP],
        len: usize,
        out: &mut [f32],
    ) {
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        let blocked = net.blocked_hidden_weights();
        assert!(G <= GROUP && out.len() == G * padded && len <= rows[0].len());
        assert!(blocked.len() == padded / BLOCK_UNITS * n_in * BLOCK_UNITS);
        assert!(rows[..G]
            .iter()
            .all(|r| r[..len].iter().all(|&i| usize::from(i) < n_in)));
        for b in 0..padded / BLOCK_UNITS {
            let bias = block_bias(net, b);
            // SAFETY (every load and store below): `bias` and `dst` are 16
            // floats; block b holds `n_in` rows of 16 weights (asserted
            // length) and every listed row is below `n_in` (asserted), so
            // `block + 16r` is followed by 16 floats. Unaligned forms.
            let lo = _mm256_loadu_ps(bias.as_ptr());
            let hi = _mm256_loadu_ps(bias[8..].as_ptr());
            let mut acc: [[__m256; 2]; G] = [[lo, hi]; G];
            let block = blocked.as_ptr().add(b * n_in * BLOCK_UNITS);
            for k in 0..len {
                for (c, a) in acc.iter_mut().enumerate() {
                    let row = block.add(usize::from(rows[c][k]) * BLOCK_UNITS);
                    let xc = _mm256_broadcast_ss(&xs[c][k]);
                    a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(_mm256_loadu_ps(row), xc));
                    a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(_mm256_loadu_ps(row.add(8)), xc));
                }
            }
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + b * BLOCK_UNITS;
                let dst = &mut out[at..at + BLOCK_UNITS];
                _mm256_storeu_ps(dst.as_mut_ptr(), a[0]);
                _mm256_storeu_ps(dst[8..].as_mut_ptr(), a[1]);
            }
        }
    }

    /// Writes to `rows` the indices, in order, of the inputs that are not
    /// zero in at least one of the `g` vectors of `n_in` inputs in `group`,
    /// and returns how many there are. Eight inputs at a time: a compare and
    /// a move-mask per vector, then the indices of the mask's set bits from
    /// [`SET_BITS`] in one 16-byte store (no branch per index). `rows` needs
    /// room for 8 entries past the last index written.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn union_of_nonzero(group: &[f32], n_in: usize, g: usize, rows: &mut [u16]) -> usize {
        assert!(group.len() >= g * n_in && rows.len() >= n_in + 8);
        let zero = _mm256_setzero_ps();
        let mut len = 0;
        let mut r = 0;
        let base = group.as_ptr();
        while r + 8 <= n_in {
            let mut bits = 0u32;
            for c in 0..g {
                // SAFETY: the 8 floats at `c·n_in + r` lie inside `group`
                // (`r + 8 ≤ n_in`, `c < g`, asserted length); unaligned load.
                let v = _mm256_loadu_ps(base.add(c * n_in + r));
                // Unordered not-equal: NaN counts as non-zero, as `!= 0.0`.
                bits |= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NEQ_UQ>(v, zero)) as u32;
            }
            let at = _mm_add_epi16(
                // SAFETY: an entry of SET_BITS is 16 readable bytes.
                _mm_loadu_si128(SET_BITS[bits as usize].as_ptr().cast()),
                _mm_set1_epi16(r as i16),
            );
            // SAFETY: `len ≤ r` (at most one index per input so far) and
            // `r + 8 ≤ n_in`, so the 8 entries at `len` lie inside `rows`
            // (asserted `n_in + 8` long); unaligned store.
            _mm_storeu_si128(rows.as_mut_ptr().add(len).cast(), at);
            len += usize::from(BIT_COUNTS[bits as usize]);
            r += 8;
        }
        for r in r..n_in {
            rows[len] = r as u16;
            len += usize::from((0..g).any(|c| group[c * n_in + r] != 0.0));
        }
        len
    }

    /// Checks the shapes [`group_sums`] relies on (`G` vectors of
    /// `net.inputs()` in `group`, `G` padded rows in `out`, the blocked
    /// weights' length, union rows below `net.inputs()`) and copies the
    /// union rows' inputs side by side into `xt` (`xt[k·G + c]` is vector
    /// `c`'s input at row `union[k]`), so the inner loop reads each row's `G`
    /// inputs from one place for every block. Returns where they start: the
    /// `union.len()·G` floats from there are initialized.
    #[inline(always)]
    fn side_by_side<const G: usize>(
        net: &Net,
        group: &[f32],
        union: &[u16],
        xt: &mut [std::mem::MaybeUninit<f32>],
        out: &[f32],
    ) -> *const f32 {
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        assert!(group.len() == G * n_in && out.len() == G * padded);
        assert!(net.blocked_hidden_weights().len() == padded / BLOCK_UNITS * n_in * BLOCK_UNITS);
        assert!(union.iter().all(|&r| usize::from(r) < n_in));
        let xt = &mut xt[..union.len() * G];
        for (k, &r) in union.iter().enumerate() {
            for c in 0..G {
                xt[k * G + c].write(group[c * n_in + usize::from(r)]);
            }
        }
        xt.as_ptr().cast()
    }

    /// The hidden thresholds of block `b`'s units (0 past the last unit).
    #[inline(always)]
    fn block_bias(net: &Net, b: usize) -> [f32; BLOCK_UNITS] {
        std::array::from_fn(|u| {
            net.hidden_thresholds()
                .get(b * BLOCK_UNITS + u)
                .copied()
                .unwrap_or(0.0)
        })
    }

    /// The sums of `G` vectors, block by block, over the rows in `union`
    /// (their inputs side by side, [`side_by_side`]).
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn group_sums<const G: usize>(
        net: &Net,
        group: &[f32],
        union: &[u16],
        xt: &mut [std::mem::MaybeUninit<f32>],
        out: &mut [f32],
    ) {
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        let blocked = net.blocked_hidden_weights();
        let inputs = side_by_side::<G>(net, group, union, xt, out);
        for b in 0..padded / BLOCK_UNITS {
            let bias = block_bias(net, b);
            // SAFETY (every load and store below): `bias` and `dst` are
            // 16 floats; `rows` holds block b's `n_in` rows of 16 weights
            // (the length `side_by_side` asserted) and every `r` in `union`
            // is below `n_in` (asserted there), so `rows + 16r` is followed
            // by 16 floats; `inputs` starts `G` initialized floats per union
            // row. Unaligned loads and stores throughout.
            let lo = _mm256_loadu_ps(bias.as_ptr());
            let hi = _mm256_loadu_ps(bias[8..].as_ptr());
            let mut acc: [[__m256; 2]; G] = [[lo, hi]; G];
            let rows = blocked.as_ptr().add(b * n_in * BLOCK_UNITS);
            let mut x = inputs;
            for &r in union {
                let row = rows.add(usize::from(r) * BLOCK_UNITS);
                let w0 = _mm256_loadu_ps(row);
                let w1 = _mm256_loadu_ps(row.add(8));
                for (c, a) in acc.iter_mut().enumerate() {
                    let xc = _mm256_broadcast_ss(&*x.add(c));
                    a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(w0, xc));
                    a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(w1, xc));
                }
                x = x.add(G);
            }
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + b * BLOCK_UNITS;
                let dst = &mut out[at..at + BLOCK_UNITS];
                _mm256_storeu_ps(dst.as_mut_ptr(), a[0]);
                _mm256_storeu_ps(dst[8..].as_mut_ptr(), a[1]);
            }
        }
    }

    /// [`group_sums`] with AVX-512F: a block's 16 sums of a vector in one
    /// register, the same multiply and add per unit (the same bits).
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f")]
    unsafe fn group_sums_512<const G: usize>(
        net: &Net,
        group: &[f32],
        union: &[u16],
        xt: &mut [std::mem::MaybeUninit<f32>],
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        let blocked = net.blocked_hidden_weights();
        let inputs = side_by_side::<G>(net, group, union, xt, out);
        for b in 0..padded / BLOCK_UNITS {
            let bias = block_bias(net, b);
            // SAFETY (every load and store below): as in `group_sums`:
            // `bias` and each `out` slice hold 16 floats, every union row's
            // 16 weights lie inside `blocked` (lengths and rows asserted by
            // `side_by_side`), `inputs` starts `G` initialized floats per
            // union row; unaligned forms.
            let init = _mm512_loadu_ps(bias.as_ptr());
            let mut acc: [__m512; G] = [init; G];
            let rows = blocked.as_ptr().add(b * n_in * BLOCK_UNITS);
            let mut x = inputs;
            for &r in union {
                let w = _mm512_loadu_ps(rows.add(usize::from(r) * BLOCK_UNITS));
                for (c, a) in acc.iter_mut().enumerate() {
                    let xc = _mm512_set1_ps(*x.add(c));
                    *a = _mm512_add_ps(*a, _mm512_mul_ps(w, xc));
                }
                x = x.add(G);
            }
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + b * BLOCK_UNITS;
                _mm512_storeu_ps(out[at..at + BLOCK_UNITS].as_mut_ptr(), *a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetShape;
    use crate::test_rng::xorshift;

    /// The pruning nets' path from the boards gives every board the bits
    /// of the single forward pass on its dense base inputs, for hidden
    /// layers of one block, less than one and more, batches that leave
    /// groups of one to three, and counts 0 to 15 on every point.
    #[test]
    fn the_boards_path_gives_the_single_pass_bits() {
        for (hidden, seed) in [(16, 3), (8, 4), (5, 5), (40, 6)] {
            let net = crate::test_rng::random_net(crate::inputs::BASE_INPUTS, hidden, seed);
            let mut next = xorshift(seed + 100);
            assert!(batch_exact(&net));
            let boards: Vec<board::Board> = (0..23)
                .map(|_| {
                    let mut b = board::Board::default();
                    for side in &mut b.sides {
                        for n in side.iter_mut() {
                            *n = if next().is_multiple_of(3) {
                                (next() % 16) as u8
                            } else {
                                0
                            };
                        }
                    }
                    b
                })
                .collect();
            for simd in Simd::available()
                .into_iter()
                .filter(|s| batch_available(*s))
            {
                for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
                    for count in [1, 2, 3, 4, 7, 23] {
                        let which: Vec<usize> =
                            (0..count).map(|i| (i * 5) % boards.len()).collect();
                        let mut got = vec![[0f32; 5]; count];
                        let mut scratch = Vec::new();
                        forward_base_boards(
                            &net,
                            &boards,
                            &which,
                            &mut scratch,
                            &mut got,
                            arith,
                            simd,
                        );
                        for (&i, g) in which.iter().zip(&got) {
                            let mut x = [0f32; 200];
                            crate::inputs::base_inputs(&boards[i], &mut x);
                            let (mut h, mut want) = (vec![0f32; hidden], [0f32; 5]);
                            crate::forward::forward(&net, &x, &mut h, &mut want, arith, simd);
                            assert_eq!(
                                g.map(f32::to_bits),
                                want.map(f32::to_bits),
                                "{hidden} {simd:?} {arith:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_minus_zero_threshold_sends_a_net_to_the_single_path() {
        let shape = NetShape {
            inputs: 4,
            hidden: 8,
            outputs: 5,
            beta_hidden: 0.1,
            beta_output: 1.0,
        };
        let mut net = Net::zeroed(shape).unwrap();
        assert!(batch_exact(&net));
        net.update(|p| p.hidden_thresholds[3] = -0.0);
        assert!(!batch_exact(&net));
        assert_eq!(net.padded_hidden(), 16);
        assert_eq!(net.blocked_hidden_weights().len(), 16 * 4);
    }
}
