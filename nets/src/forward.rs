//! The forward pass (docs/formats.md#forward-pass) in each of the arithmetics of
//! [`Arithmetic`]. The hidden accumulation is element-wise, so the compiler's
//! SIMD code computes exactly what the scalar description says.

use crate::approx_reciprocal::{rcp4_native, rcp_reference};
use crate::arith::Arithmetic;
use crate::cpu;
use crate::net::Net;
use crate::sigmoid::{sigmoid, simd_denominator, simd_select, TABLE};

/// Which vector instructions the hidden layer runs on. Every level computes
/// the same bits (no fused multiply-add, element-wise accumulation); the
/// choice only changes the speed, and tests force each level in turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simd {
    /// The widest level this CPU has.
    #[default]
    Auto,
    /// AVX-512F (x86-64 CPUs that have it and AVX2): the hidden sums, of
    /// one position and of a roll's batched candidates
    /// ([`crate::forward_batch`]), in 16-float registers; everything else
    /// as [`Simd::Avx2`].
    Avx512,
    /// AVX2 (x86-64 CPUs that have it).
    Avx2,
    /// SSE2, the x86-64 baseline: the vector code the compiler generates
    /// for every x86-64 CPU.
    Sse2,
    /// Scalar code on any architecture, accumulating one hidden unit at a
    /// time (a different loop order, the same per-unit summation order).
    Portable,
}

impl Simd {
    /// Whether this CPU can run the level ([`crate::cpu::level`]).
    pub fn is_available(self) -> bool {
        self.level().is_none_or(|l| l <= cpu::level())
    }

    /// The levels this CPU can run, `Auto` excluded, widest first.
    pub fn available() -> Vec<Simd> {
        [Simd::Avx512, Simd::Avx2, Simd::Sse2, Simd::Portable]
            .into_iter()
            .filter(|s| s.is_available())
            .collect()
    }

    /// The levels this CPU cannot run (`Auto` excluded), for tests to name
    /// what they could not check.
    pub fn unavailable() -> Vec<Simd> {
        [Simd::Avx512, Simd::Avx2, Simd::Sse2, Simd::Portable]
            .into_iter()
            .filter(|s| !s.is_available())
            .collect()
    }

    /// The CPU level this names; `None` for `Auto`.
    fn level(self) -> Option<cpu::Level> {
        match self {
            Simd::Auto => None,
            Simd::Avx512 => Some(cpu::Level::Avx512),
            Simd::Avx2 => Some(cpu::Level::Avx2),
            Simd::Sse2 => Some(cpu::Level::Sse2),
            Simd::Portable => Some(cpu::Level::Portable),
        }
    }

    /// `Auto` made concrete: the widest level this CPU runs.
    #[inline]
    pub fn resolve(self) -> Simd {
        match self {
            Simd::Auto => match cpu::level() {
                cpu::Level::Avx512 => Simd::Avx512,
                cpu::Level::Avx2 => Simd::Avx2,
                cpu::Level::Sse2 => Simd::Sse2,
                cpu::Level::Portable => Simd::Portable,
            },
            s => s,
        }
    }

    /// Whether this level uses AVX2.
    #[inline]
    pub(crate) fn uses_avx2(self) -> bool {
        self.avx2()
    }

    /// Whether this level uses AVX-512F (for the batched hidden sums).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn uses_avx512(self) -> bool {
        self.resolve() == Simd::Avx512
    }

    #[inline]
    fn avx2(self) -> bool {
        matches!(self.resolve(), Simd::Avx2 | Simd::Avx512)
    }
}

/// Runs `net` on inputs `x`, writing its outputs to `out`. `hidden` is scratch
/// space of at least `net.hidden()` values. `x.len()` must be `net.inputs()`
/// and `out.len()` `net.outputs()`.
pub fn forward(
    net: &Net,
    x: &[f32],
    hidden: &mut [f32],
    out: &mut [f32],
    arith: Arithmetic,
    simd: Simd,
) {
    assert_eq!(
        out.len(),
        net.outputs(),
        "output vector has the wrong length"
    );
    let h = &mut hidden[..net.hidden()];
    hidden_layer(net, x, h, arith, simd);
    let beta = -net.beta_output();
    output_sums(net, h, out, arith);
    for o in out.iter_mut() {
        *o = sigmoid(beta * *o);
    }
}

/// The hidden activations of `net` for inputs `x`, into `h[..net.hidden()]`.
///
/// # Panics
/// If `simd` is a level this CPU cannot run (see [`Simd::is_available`]).
pub fn hidden_layer(net: &Net, x: &[f32], h: &mut [f32], arith: Arithmetic, simd: Simd) {
    assert_eq!(x.len(), net.inputs(), "input vector has the wrong length");
    assert!(simd.is_available(), "this CPU cannot run {simd:?}");
    let h = &mut h[..net.hidden()];
    accumulate_hidden(net, x, h, simd);
    if simd.avx2() {
        #[cfg(target_arch = "x86_64")]
        {
            avx2::activate(net, h, arith);
            return;
        }
    }
    activate(net, h, arith);
}

/// [`activate`] in AVX2 (gathers for the table reads; the same bits).
/// Only for CPUs that have AVX2.
#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::activate as activate_avx2;

/// The hidden sigmoid of the pre-activation sums `h`, in place.
#[inline(always)]
pub(crate) fn activate(net: &Net, h: &mut [f32], arith: Arithmetic) {
    let beta = net.beta_hidden();
    match arith {
        Arithmetic::Reference => {
            for v in h.iter_mut() {
                *v = sigmoid(-beta * *v);
            }
        }
        Arithmetic::Ieee => sigmoid_blocks(h, beta, |t| 1.0 / t),
        Arithmetic::GnubgFastMath => sigmoid_blocks(h, beta, rcp_reference),
        Arithmetic::GnubgFastMathNative => {
            let mut chunks = h.chunks_exact_mut(4);
            for c in &mut chunks {
                let x: [f32; 4] = std::array::from_fn(|k| c[k] * beta);
                let r = rcp4_native(x.map(simd_denominator));
                for k in 0..4 {
                    c[k] = simd_select(x[k], r[k]);
                }
            }
            for v in chunks.into_remainder() {
                let x = *v * beta;
                *v = simd_select(x, rcp4_native([simd_denominator(x); 4])[0]);
            }
        }
    }
}

/// gnubg's SIMD hidden sigmoid, eight units at a time, with `recip` for
/// `1/t`: the arithmetic is split into passes the compiler can vectorize,
/// around the table lookups.
#[inline(always)]
fn sigmoid_blocks(h: &mut [f32], beta: f32, recip: impl Fn(f32) -> f32) {
    const W: usize = 8;
    let mut chunks = h.chunks_exact_mut(W);
    for c in &mut chunks {
        let mut x = [0f32; W];
        let mut idx = [0usize; W];
        let mut frac = [0f32; W];
        for k in 0..W {
            x[k] = c[k] * beta;
            let x1 = x[k].abs().min(10.0) * 10.0;
            let i = x1 as i32;
            idx[k] = (i as usize).min(100);
            frac[k] = (x1 - i as f32) + 10.0;
        }
        let e: [f32; W] = std::array::from_fn(|k| TABLE[idx[k]]);
        for k in 0..W {
            let r = recip(frac[k] * e[k] + 1.0);
            c[k] = if x[k] < 0.0 { r } else { 1.0 - r };
        }
    }
    for v in chunks.into_remainder() {
        let x = *v * beta;
        *v = simd_select(x, recip(simd_denominator(x)));
    }
}

/// The output layer's pre-sigmoid sums (bias included) for hidden
/// activations `h`, in the summation order of `arith`.
#[inline]
pub fn output_sums(net: &Net, h: &[f32], out: &mut [f32], arith: Arithmetic) {
    let h = &h[..net.hidden()];
    match arith {
        Arithmetic::Reference => sums_sequential(net, h, out),
        _ => sums_four_lanes(net, h, out),
    }
}

/// Pre-sigmoid hidden sums: biases, then for each non-zero input in index
/// order `h += w·a` (multiply, then add; for an input of exactly 1 that is
/// `h += w`).
/// Element-wise, so every SIMD width computes the same bits.
///
/// # Panics
/// If `simd` is a level this CPU cannot run.
#[inline]
pub fn accumulate_hidden(net: &Net, x: &[f32], h: &mut [f32], simd: Simd) {
    assert!(simd.is_available(), "this CPU cannot run {simd:?}");
    if simd.avx2() {
        #[cfg(target_arch = "x86_64")]
        {
            if simd.uses_avx512() {
                avx2::accumulate_wide(net, x, h);
            } else {
                avx2::accumulate(net, x, h);
            }
            return;
        }
    }
    if simd.resolve() == Simd::Portable {
        accumulate_unit_by_unit(net, x, h);
    } else {
        accumulate_vector(net, x, h);
    }
}

/// The scalar accumulation: each hidden unit's sum over the non-zero
/// inputs in index order, one unit after another.
fn accumulate_unit_by_unit(net: &Net, x: &[f32], h: &mut [f32]) {
    let n = h.len();
    let weights = net.hidden_weights();
    for (j, (hj, &bias)) in h.iter_mut().zip(net.hidden_thresholds()).enumerate() {
        let mut s = bias;
        for (r, &a) in x.iter().enumerate() {
            if a != 0.0 {
                s += weights[r * n + j] * a;
            }
        }
        *hj = s;
    }
}

/// Row by row over the non-zero inputs, each row a whole-vector update of
/// the hidden sums. The sums are kept in registers a block of
/// [`REGISTER_BLOCK`] units at a time (one pass over the non-zero rows per
/// block) rather than loaded and stored for every row; each unit still adds
/// its terms in input order, so the bits are the same.
#[inline(always)]
fn accumulate_vector(net: &Net, x: &[f32], h: &mut [f32]) {
    accumulate_blocked::<REGISTER_BLOCK>(net, x, h)
}

/// Hidden units whose sums stay in registers together in
/// [`accumulate_vector`]: 64 floats are eight AVX2 registers.
const REGISTER_BLOCK: usize = 64;

/// For each 8-bit mask, the positions of its set bits, lowest first (the
/// rest 0): the indices of eight inputs' non-zero ones in one copy (here and
/// in [`crate::forward_batch`]).
pub(crate) static SET_BITS: [[u16; 8]; 256] = set_bits();

/// For each 8-bit mask, how many bits it has set: one load where
/// `count_ones` would be a dozen instructions (the x86-64 baseline has no
/// `popcnt`).
pub(crate) static BIT_COUNTS: [u8; 256] = bit_counts();

const fn bit_counts() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = (m as u8).count_ones() as u8;
        m += 1;
    }
    t
}

const fn set_bits() -> [[u16; 8]; 256] {
    let mut t = [[0u16; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut k, mut b) = (0, 0);
        while b < 8 {
            if m >> b & 1 == 1 {
                t[m][k] = b as u16;
                k += 1;
            }
            b += 1;
        }
        m += 1;
    }
    t
}

/// The indices of the non-zero values of `xs` (at most 256 of them), in
/// order, written to the front of `out`; eight at a time without a branch
/// per value (which inputs are zero is unpredictable), so `out` has room
/// for eight more than `xs`.
#[inline(always)]
fn nonzero_indices<'a>(xs: &[f32], out: &'a mut [u16]) -> &'a [u16] {
    debug_assert!(xs.len() <= 256 && out.len() >= xs.len() + 8);
    let mut count = 0;
    for (g, group) in xs.chunks(8).enumerate() {
        let mut mask = 0usize;
        for (i, &a) in group.iter().enumerate() {
            mask |= usize::from(a != 0.0) << i;
        }
        let base = (g * 8) as u16;
        for (o, &i) in out[count..count + 8].iter_mut().zip(&SET_BITS[mask]) {
            *o = base + i;
        }
        count += usize::from(BIT_COUNTS[mask]);
    }
    &out[..count]
}

/// Blocks of this many units or more prefetch their rows: the 512-unit
/// net's single evaluation (docs/performance.md); the 128-unit nets'
/// blocks gain nothing from it.
const WIDE_BLOCK: usize = 256;

/// How many rows ahead a wide block's row is prefetched.
const ROWS_AHEAD: usize = 2;

/// [`accumulate_vector`] with blocks of `B` units.
#[inline(always)]
fn accumulate_blocked<const B: usize>(net: &Net, x: &[f32], h: &mut [f32]) {
    const CHUNK: usize = 256;
    let n = h.len();
    h.copy_from_slice(net.hidden_thresholds());
    let weights = net.hidden_weights();
    let whole = n - n % B;
    for (c, xs) in x.chunks(CHUNK).enumerate() {
        let mut nonzero = [0u16; CHUNK + 8];
        let rows = nonzero_indices(xs, &mut nonzero);
        for start in (0..whole).step_by(B) {
            let sums: &mut [f32; B] = (&mut h[start..start + B])
                .try_into()
                .expect("a whole block");
            let mut acc = *sums;
            for (q, &k) in rows.iter().enumerate() {
                // A wide block's part of a row is 16 cache lines from L2,
                // more than the hardware prefetcher asks for ahead of the
                // loads: fetched two rows early.
                if B >= WIDE_BLOCK {
                    if let Some(&ahead) = rows.get(q + ROWS_AHEAD) {
                        let r = c * CHUNK + usize::from(ahead);
                        support::prefetch::prefetch_slice(
                            &weights[r * n + start..r * n + start + B],
                        );
                    }
                }
                let r = c * CHUNK + usize::from(k);
                let a = x[r];
                let w: &[f32; B] = weights[r * n + start..r * n + start + B]
                    .try_into()
                    .expect("a whole block");
                // `w · 1` is exactly `w`, so inputs of 1 need no branch either.
                for (s, &w) in acc.iter_mut().zip(w) {
                    *s += w * a;
                }
            }
            *sums = acc;
        }
        for &k in rows {
            let r = c * CHUNK + usize::from(k);
            let a = x[r];
            for (hj, &w) in h[whole..]
                .iter_mut()
                .zip(&weights[r * n + whole..(r + 1) * n])
            {
                *hj += w * a;
            }
        }
    }
}

/// The hidden layer compiled for AVX2 (wider vectors, same bits: no fused
/// multiply-add is enabled, so each `w·a` is rounded before the add).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Arithmetic, Net};

    #[allow(unsafe_code)]
    pub(super) fn accumulate(net: &Net, x: &[f32], h: &mut [f32]) {
        // SAFETY: the caller checked at run time that this CPU supports
        // AVX2 (`has_avx2`), the only requirement of the `target_feature`
        // function.
        unsafe { accumulate_avx2(net, x, h) }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate_avx2(net: &Net, x: &[f32], h: &mut [f32]) {
        super::accumulate_vector(net, x, h)
    }

    #[allow(unsafe_code)]
    pub(super) fn accumulate_wide(net: &Net, x: &[f32], h: &mut [f32]) {
        // SAFETY: the caller checked at run time that this CPU supports
        // AVX-512F (`Simd::uses_avx512`).
        unsafe { accumulate_avx512(net, x, h) }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2,avx512f")]
    unsafe fn accumulate_avx512(net: &Net, x: &[f32], h: &mut [f32]) {
        // 32 registers: a 256-unit block takes 16 of them.
        if h.len().is_multiple_of(256) {
            super::accumulate_blocked::<256>(net, x, h)
        } else {
            super::accumulate_blocked::<128>(net, x, h)
        }
    }

    #[allow(unsafe_code)]
    pub(crate) fn activate(net: &Net, h: &mut [f32], arith: Arithmetic) {
        // SAFETY: as above, the caller checked for AVX2.
        unsafe { activate_avx2(net, h, arith) }
    }

    /// How the AVX2 sigmoid takes `1/t`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Recip {
        /// The reference CPU's `rcpps`, emulated with its table.
        Table,
        /// This CPU's `rcpps`.
        Native,
        /// A true division.
        Divide,
    }

    /// [`super::activate`] eight units at a time: the same operations in
    /// the same order, so the same bits. The reference CPU's `rcpps` is this
    /// CPU's own instruction where that gives the same bits on every
    /// denominator the sigmoid can meet (checked once), else its table.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn activate_avx2(net: &Net, h: &mut [f32], arith: Arithmetic) {
        use crate::approx_reciprocal::native_rcp_is_reference_for_sigmoid;
        let recip = match arith {
            Arithmetic::GnubgFastMath if native_rcp_is_reference_for_sigmoid() => Recip::Native,
            Arithmetic::GnubgFastMath => Recip::Table,
            Arithmetic::GnubgFastMathNative => Recip::Native,
            Arithmetic::Ieee => Recip::Divide,
            Arithmetic::Reference => return super::activate(net, h, arith),
        };
        sigmoid_avx2(net, h, arith, recip)
    }

    /// The sigmoid of [`activate_avx2`] with `1/t` taken as `recip` says:
    /// sixteen units at a time where the CPU has AVX-512F
    /// ([`sigmoid16_avx512`]), the rest eight at a time ([`sigmoid8_avx2`]).
    #[allow(unsafe_code, unused_unsafe)]
    #[target_feature(enable = "avx2")]
    unsafe fn sigmoid_avx2(net: &Net, h: &mut [f32], arith: Arithmetic, recip: Recip) {
        let mut h = h;
        if crate::cpu::has_avx512() {
            // SAFETY: AVX-512F checked at run time just above.
            let done = unsafe { sigmoid16_avx512(net, h, recip) };
            h = &mut h[done..];
        }
        // SAFETY: this function runs only where AVX2 is available.
        unsafe { sigmoid8_avx2(net, h, arith, recip) }
    }

    /// [`sigmoid_avx2`] eight units at a time, the exponential table read
    /// by a gather.
    #[allow(unsafe_code, unused_unsafe)]
    #[target_feature(enable = "avx2")]
    unsafe fn sigmoid8_avx2(net: &Net, h: &mut [f32], arith: Arithmetic, recip: Recip) {
        use crate::approx_reciprocal::rcp8_reference_avx2;
        use crate::sigmoid::TABLE;
        use core::arch::x86_64::*;
        let beta = _mm256_set1_ps(net.beta_hidden());
        let (one, ten) = (_mm256_set1_ps(1.0), _mm256_set1_ps(10.0));
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
        let mut chunks = h.chunks_exact_mut(8);
        for c in &mut chunks {
            // SAFETY: `c` holds exactly 8 f32s.
            let v = unsafe { _mm256_loadu_ps(c.as_ptr()) };
            let x = _mm256_mul_ps(v, beta);
            // `min` returns its second operand for NaN, as `f32::min` does.
            let x1 = _mm256_mul_ps(_mm256_min_ps(_mm256_and_ps(x, abs), ten), ten);
            let i = _mm256_cvttps_epi32(x1);
            let idx = _mm256_min_epi32(i, _mm256_set1_epi32(100));
            let frac = _mm256_add_ps(_mm256_sub_ps(x1, _mm256_cvtepi32_ps(i)), ten);
            // SAFETY: 0 ≤ idx ≤ 100 and TABLE has 101 entries.
            let e = unsafe { _mm256_i32gather_ps::<4>(TABLE.as_ptr(), idx) };
            let t = _mm256_add_ps(_mm256_mul_ps(frac, e), one);
            let r = match recip {
                // SAFETY: this function runs only where AVX2 is available.
                Recip::Table => unsafe { rcp8_reference_avx2(t) },
                Recip::Native => _mm256_rcp_ps(t),
                Recip::Divide => _mm256_div_ps(one, t),
            };
            let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_setzero_ps());
            let a = _mm256_blendv_ps(_mm256_sub_ps(one, r), r, negative);
            // SAFETY: as the load.
            unsafe { _mm256_storeu_ps(c.as_mut_ptr(), a) };
        }
        // Element-wise, so the last units (fewer than 8) may go the scalar way.
        super::activate(net, chunks.into_remainder(), arith);
    }

    /// [`sigmoid_avx2`] sixteen units at a time with AVX-512F for the whole
    /// blocks of 16 in `h`: the table read from eight registers by
    /// permutes instead of a gather, the reference CPU's reciprocal's
    /// table with one 16-lane gather; every other operation as there
    /// (`rcpps` on the two 8-lane halves, so it is the same instruction).
    /// Returns how many units it did.
    #[allow(unsafe_code, unused_unsafe)]
    #[target_feature(enable = "avx2,avx512f")]
    unsafe fn sigmoid16_avx512(net: &Net, h: &mut [f32], recip: Recip) -> usize {
        use crate::approx_reciprocal::rcp16_reference_avx512;
        use crate::sigmoid::TABLE;
        use core::arch::x86_64::*;
        /// The table padded to eight registers.
        static PADDED: [f32; 128] = {
            let mut t = [0f32; 128];
            let mut k = 0;
            while k < TABLE.len() {
                t[k] = TABLE[k];
                k += 1;
            }
            t
        };
        // SAFETY: `PADDED` holds 128 floats, eight registers' worth.
        let t: [__m512; 8] =
            std::array::from_fn(|k| unsafe { _mm512_loadu_ps(PADDED[16 * k..].as_ptr()) });
        let beta = _mm512_set1_ps(net.beta_hidden());
        let (one, ten) = (_mm512_set1_ps(1.0), _mm512_set1_ps(10.0));
        let mut chunks = h.chunks_exact_mut(16);
        let mut done = 0;
        for c in &mut chunks {
            // SAFETY: `c` holds exactly 16 f32s.
            let v = unsafe { _mm512_loadu_ps(c.as_ptr()) };
            let x = _mm512_mul_ps(v, beta);
            let ax = _mm512_abs_ps(x);
            // `min(a, b)` returns b when either is NaN, as `_mm256_min_ps`.
            let x1 = _mm512_mul_ps(_mm512_min_ps(ax, ten), ten);
            let i = _mm512_cvttps_epi32(x1);
            let idx = _mm512_min_epi32(i, _mm512_set1_epi32(100));
            let frac = _mm512_add_ps(_mm512_sub_ps(x1, _mm512_cvtepi32_ps(i)), ten);
            let q0 = _mm512_permutex2var_ps(t[0], idx, t[1]);
            let q1 = _mm512_permutex2var_ps(t[2], idx, t[3]);
            let q2 = _mm512_permutex2var_ps(t[4], idx, t[5]);
            let q3 = _mm512_permutex2var_ps(t[6], idx, t[7]);
            let b5 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(32));
            let b6 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(64));
            let e = _mm512_mask_blend_ps(
                b6,
                _mm512_mask_blend_ps(b5, q0, q1),
                _mm512_mask_blend_ps(b5, q2, q3),
            );
            let den = _mm512_add_ps(_mm512_mul_ps(frac, e), one);
            let r = match recip {
                // SAFETY: AVX-512F is enabled in this function.
                Recip::Table => unsafe { rcp16_reference_avx512(den) },
                Recip::Divide => _mm512_div_ps(one, den),
                // `rcpps` on the two halves: AVX-512's own reciprocal has
                // other bits.
                Recip::Native => {
                    let halves = [
                        _mm512_castps512_ps256(den),
                        _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(den))),
                    ];
                    let r = halves.map(|d| _mm256_rcp_ps(d));
                    _mm512_castpd_ps(_mm512_insertf64x4::<1>(
                        _mm512_castpd256_pd512(_mm256_castps_pd(r[0])),
                        _mm256_castps_pd(r[1]),
                    ))
                }
            };
            let negative = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_setzero_ps());
            let a = _mm512_mask_blend_ps(negative, _mm512_sub_ps(one, r), r);
            // SAFETY: as the load.
            unsafe { _mm512_storeu_ps(c.as_mut_ptr(), a) };
            done += 16;
        }
        done
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::approx_reciprocal::native_rcp_is_reference_for_sigmoid;
        use crate::net::NetShape;

        /// Every way of taking `1/t` that claims the reference bits gives
        /// the scalar reference sigmoid's bits, on sums from −200 to 200.
        #[test]
        #[allow(unsafe_code)]
        fn vector_sigmoids_match_the_scalar_one() {
            if !crate::cpu::avx2_to_compare() {
                return;
            }
            let shape = NetShape {
                inputs: 1,
                hidden: 8,
                outputs: 5,
                beta_hidden: 0.1,
                beta_output: 1.0,
            };
            let net = Net::zeroed(shape).unwrap();
            let mut sums: Vec<f32> = (0..400_003).map(|k| k as f32 / 1000.0 - 200.0).collect();
            // The edges: both zeros, the saturation points, the infinities, NaN.
            let edges = [0.0, -0.0, 100.0, -100.0, 99.999_99, -99.999_99, 1e30, -1e30];
            sums.extend(edges);
            sums.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN]);
            let mut want = sums.clone();
            super::super::activate(&net, &mut want, Arithmetic::GnubgFastMath);
            let mut ways = vec![Recip::Table];
            if native_rcp_is_reference_for_sigmoid() {
                ways.push(Recip::Native);
            }
            for recip in ways {
                type Way = unsafe fn(&Net, &mut [f32], Arithmetic, Recip);
                let mut paths: Vec<(&str, Way)> = vec![("dispatch", sigmoid_avx2)];
                paths.push(("eight", sigmoid8_avx2));
                if crate::cpu::has_avx512() {
                    // SAFETY (for the call below): AVX-512F is detected here.
                    let sixteen: Way = |net, h, arith, recip| unsafe {
                        let done = sigmoid16_avx512(net, h, recip);
                        sigmoid8_avx2(net, &mut h[done..], arith, recip);
                    };
                    paths.push(("sixteen", sixteen));
                }
                for (name, path) in paths {
                    let mut got = sums.clone();
                    // SAFETY: AVX2 was detected above (AVX-512F where used).
                    unsafe { path(&net, &mut got, Arithmetic::GnubgFastMath, recip) };
                    let same = want
                        .iter()
                        .zip(&got)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{name} {recip:?} differs from the scalar sigmoid");
                }
            }
        }
    }
}

/// Output sums as gnubg's scalar code: `r = bias; r += h[j]·w[j]` in order.
fn sums_sequential(net: &Net, h: &[f32], out: &mut [f32]) {
    let n = h.len();
    for ((o, w), &bias) in out
        .iter_mut()
        .zip(net.output_weights().chunks_exact(n))
        .zip(net.output_thresholds())
    {
        let mut r = bias;
        for (&hj, &wj) in h.iter().zip(w) {
            r += hj * wj;
        }
        *o = r;
    }
}

/// Output sums as gnubg's SSE code: lane `l` sums the units `j ≡ l (mod 4)`,
/// the total is `((s0 + s1) + (s3 + s2)) + bias`.
fn sums_four_lanes(net: &Net, h: &[f32], out: &mut [f32]) {
    if let Ok(out) = <&mut [f32; 5]>::try_from(&mut *out) {
        return sums_four_lanes_five(net, h, out);
    }
    let n = h.len();
    for ((o, w), &bias) in out
        .iter_mut()
        .zip(net.output_weights().chunks_exact(n))
        .zip(net.output_thresholds())
    {
        let mut s = [0f32; 4];
        let mut hc = h.chunks_exact(4);
        let mut wc = w.chunks_exact(4);
        for (hq, wq) in (&mut hc).zip(&mut wc) {
            for l in 0..4 {
                s[l] += hq[l] * wq[l];
            }
        }
        for (l, (&hj, &wj)) in hc.remainder().iter().zip(wc.remainder()).enumerate() {
            s[l] += hj * wj;
        }
        *o = ((s[0] + s[1]) + (s[3] + s[2])) + bias;
    }
}

/// [`sums_four_lanes`] for the five outputs of gnubg's nets, all in one
/// pass over `h`: five independent 4-lane sums (SSE registers on x86-64)
/// instead of five outputs one after another, each a chain of dependent
/// additions. The same operations per lane, so the same bits.
#[inline]
fn sums_four_lanes_five(net: &Net, h: &[f32], out: &mut [f32; 5]) {
    let n = h.len();
    let w = &net.output_weights()[..5 * n];
    let full = n - n % 4;
    #[cfg(target_arch = "x86_64")]
    let s = sse::five_lane_sums(h, w, full);
    #[cfg(not(target_arch = "x86_64"))]
    let s = {
        let mut s = [[0f32; 4]; 5];
        for j in (0..full).step_by(4) {
            for (o, so) in s.iter_mut().enumerate() {
                for l in 0..4 {
                    so[l] += h[j + l] * w[o * n + j + l];
                }
            }
        }
        s
    };
    complete_five(net, h, s, out);
}

/// Ends [`sums_four_lanes_five`] from the lane sums `s` over the whole
/// groups of four units: the last units (fewer than four) go to lanes 0..,
/// then each output is `((s0 + s1) + (s3 + s2)) + bias`.
#[inline(always)]
fn complete_five(net: &Net, h: &[f32], mut s: [[f32; 4]; 5], out: &mut [f32; 5]) {
    let n = h.len();
    let w = &net.output_weights()[..5 * n];
    let full = n - n % 4;
    for j in full..n {
        for (o, so) in s.iter_mut().enumerate() {
            so[j - full] += h[j] * w[o * n + j];
        }
    }
    for ((o, so), &bias) in out.iter_mut().zip(&s).zip(net.output_thresholds()) {
        *o = ((so[0] + so[1]) + (so[3] + so[2])) + bias;
    }
}

/// [`output_sums`] of two hidden vectors `ha` and `hb` of a five-output net
/// in the four-lane arithmetics, in AVX2: each output's lane sums of both
/// vectors in one 8-float register (those of `ha` low, `hb` high), the same
/// operations per lane as [`sums_four_lanes_five`], so the same bits.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sums_five_pair_avx2(
    net: &Net,
    ha: &[f32],
    hb: &[f32],
    oa: &mut [f32; 5],
    ob: &mut [f32; 5],
) {
    use core::arch::x86_64::*;
    let n = net.hidden();
    let (ha, hb) = (&ha[..n], &hb[..n]);
    let w = &net.output_weights()[..5 * n];
    let full = n - n % 4;
    let mut acc = [_mm256_setzero_ps(); 5];
    let (pa, pb, pw) = (ha.as_ptr(), hb.as_ptr(), w.as_ptr());
    for j in (0..full).step_by(4) {
        // SAFETY: `j + 4 ≤ full ≤ n`, so the 4 floats at `j` lie inside
        // `ha`, `hb` (both `n` long) and row `o < 5` of `w` (`o·n + j + 4 ≤
        // 5n`); unaligned loads.
        let h = _mm256_set_m128(_mm_loadu_ps(pb.add(j)), _mm_loadu_ps(pa.add(j)));
        for (o, a) in acc.iter_mut().enumerate() {
            let wq = _mm_loadu_ps(pw.add(o * n + j));
            *a = _mm256_add_ps(*a, _mm256_mul_ps(h, _mm256_set_m128(wq, wq)));
        }
    }
    if full == n {
        // `complete_five` in the registers, as in `sums_five_quad_avx512`.
        let mut lanes = [[0f32; 8]; 5];
        for ((a, &bias), l) in acc.iter().zip(net.output_thresholds()).zip(&mut lanes) {
            let swapped = _mm256_permute_ps::<0xB1>(*a);
            let low = _mm256_add_ps(*a, swapped);
            let high = _mm256_add_ps(swapped, *a);
            let u = _mm256_add_ps(low, _mm256_permute_ps::<0x4E>(high));
            // SAFETY: `l` holds 8 floats; unaligned store.
            _mm256_storeu_ps(l.as_mut_ptr(), _mm256_add_ps(u, _mm256_set1_ps(bias)));
        }
        *oa = std::array::from_fn(|o| lanes[o][0]);
        *ob = std::array::from_fn(|o| lanes[o][4]);
        return;
    }
    let mut sa = [[0f32; 4]; 5];
    let mut sb = [[0f32; 4]; 5];
    for (o, a) in acc.iter().enumerate() {
        let mut lanes = [0f32; 8];
        // SAFETY: `lanes` holds 8 floats; unaligned store.
        _mm256_storeu_ps(lanes.as_mut_ptr(), *a);
        sa[o].copy_from_slice(&lanes[..4]);
        sb[o].copy_from_slice(&lanes[4..]);
    }
    complete_five(net, ha, sa, oa);
    complete_five(net, hb, sb, ob);
}

/// [`sums_five_pair_avx2`] of four hidden vectors at once with AVX-512F:
/// each output's lane sums of the four vectors in one 16-float register
/// (vector `c` in lanes `4c..4c + 4`), the same operations per lane, so
/// the same bits.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn sums_five_quad_avx512(net: &Net, h: [&[f32]; 4], out: [&mut [f32; 5]; 4]) {
    use core::arch::x86_64::*;
    let n = net.hidden();
    let h = h.map(|h| &h[..n]);
    let w = &net.output_weights()[..5 * n];
    let full = n - n % 4;
    let mut acc = [_mm512_setzero_ps(); 5];
    let pw = w.as_ptr();
    for j in (0..full).step_by(4) {
        // SAFETY: `j + 4 ≤ full ≤ n`, so the 4 floats at `j` lie inside
        // every `h[c]` (each `n` long) and row `o < 5` of `w` (`o·n + j + 4
        // ≤ 5n`); unaligned loads.
        let q = h.map(|h| _mm_loadu_ps(h.as_ptr().add(j)));
        let lo = _mm256_set_m128(q[1], q[0]);
        let hi = _mm256_set_m128(q[3], q[2]);
        let x = _mm512_insertf64x4::<1>(
            _mm512_castpd256_pd512(_mm256_castps_pd(lo)),
            _mm256_castps_pd(hi),
        );
        let x = _mm512_castpd_ps(x);
        for (o, a) in acc.iter_mut().enumerate() {
            let wq = _mm512_broadcast_f32x4(_mm_loadu_ps(pw.add(o * n + j)));
            *a = _mm512_add_ps(*a, _mm512_mul_ps(x, wq));
        }
    }
    if full == n {
        // `complete_five` in the registers, its operands in its order: lane
        // 4c of output o's register ends as ((s0 + s1) + (s3 + s2)) + bias.
        let mut lanes = [[0f32; 16]; 5];
        for ((a, &bias), l) in acc.iter().zip(net.output_thresholds()).zip(&mut lanes) {
            // Lanes swapped in pairs: s1 s0 s3 s2.
            let swapped = _mm512_permute_ps::<0xB1>(*a);
            let low = _mm512_add_ps(*a, swapped); // lane 0: s0 + s1
            let high = _mm512_add_ps(swapped, *a); // lane 2: s3 + s2
            let u = _mm512_add_ps(low, _mm512_permute_ps::<0x4E>(high));
            // SAFETY: `l` holds 16 floats; unaligned store.
            _mm512_storeu_ps(l.as_mut_ptr(), _mm512_add_ps(u, _mm512_set1_ps(bias)));
        }
        for (c, out) in out.into_iter().enumerate() {
            *out = std::array::from_fn(|o| lanes[o][4 * c]);
        }
        return;
    }
    let mut s = [[[0f32; 4]; 5]; 4];
    for (o, a) in acc.iter().enumerate() {
        let mut lanes = [0f32; 16];
        // SAFETY: `lanes` holds 16 floats; unaligned store.
        _mm512_storeu_ps(lanes.as_mut_ptr(), *a);
        for (c, s) in s.iter_mut().enumerate() {
            s[o].copy_from_slice(&lanes[4 * c..4 * c + 4]);
        }
    }
    for ((h, s), out) in h.into_iter().zip(s).zip(out) {
        complete_five(net, h, s, out);
    }
}

#[cfg(target_arch = "x86_64")]
mod sse {
    use core::arch::x86_64::{_mm_add_ps, _mm_loadu_ps, _mm_mul_ps, _mm_setzero_ps, _mm_storeu_ps};

    /// The lane sums `s[o][l] = Σ h[j]·w[o·n + j]` over `j < full`, `j ≡ l
    /// (mod 4)`, in order of `j`, for the five rows of `w` (`n = h.len()`).
    #[allow(unsafe_code)]
    pub(super) fn five_lane_sums(h: &[f32], w: &[f32], full: usize) -> [[f32; 4]; 5] {
        let n = h.len();
        assert!(full.is_multiple_of(4) && full <= n && w.len() >= 5 * n);
        let mut out = [[0f32; 4]; 5];
        // SAFETY: SSE is part of the x86-64 baseline. Every load reads 4
        // floats at `j < full ≤ n`, `j + 4 ≤ full` (a multiple of 4), from
        // `h` or from row `o < 5` of `w` (`o·n + j + 4 ≤ 5n ≤ w.len()`),
        // asserted above; loads and stores are the unaligned forms, and each
        // store writes the 4 floats of one `out[o]`.
        unsafe {
            let mut s = [_mm_setzero_ps(); 5];
            let (hp, wp) = (h.as_ptr(), w.as_ptr());
            for j in (0..full).step_by(4) {
                let hq = _mm_loadu_ps(hp.add(j));
                for (o, so) in s.iter_mut().enumerate() {
                    *so = _mm_add_ps(*so, _mm_mul_ps(hq, _mm_loadu_ps(wp.add(o * n + j))));
                }
            }
            for (o, so) in out.iter_mut().zip(s) {
                _mm_storeu_ps(o.as_mut_ptr(), so);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{random_net, xorshift};

    /// Every SIMD level's hidden sums equal the unit-by-unit scalar sums bit
    /// for bit, for hidden sizes that fill the register blocks, leave a
    /// remainder or are smaller than one block, and inputs that are mostly
    /// 0, sometimes exactly 1, or anything (more than one 256-input chunk
    /// included).
    #[test]
    fn every_level_accumulates_the_scalar_sums() {
        for (inputs, hidden) in [(250, 128), (250, 256), (214, 70), (40, 5), (300, 200)] {
            let net = random_net(inputs, hidden, 7 + hidden as u64);
            let mut next = xorshift(99 + inputs as u64);
            for _ in 0..20 {
                let x: Vec<f32> = (0..inputs)
                    .map(|_| match next() % 8 {
                        0 => 1.0,
                        1 | 2 => (next() >> 40) as f32 / (1u64 << 20) as f32,
                        _ => 0.0,
                    })
                    .collect();
                let mut want = vec![0f32; hidden];
                accumulate_unit_by_unit(&net, &x, &mut want);
                for simd in Simd::available() {
                    let mut got = vec![0f32; hidden];
                    accumulate_hidden(&net, &x, &mut got, simd);
                    let same = want
                        .iter()
                        .zip(&got)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{simd:?} differs for {inputs}×{hidden}");
                    let mut layer = vec![0f32; hidden];
                    hidden_layer(&net, &x, &mut layer, Arithmetic::Ieee, simd);
                    let mut scalar = want.clone();
                    activate(&net, &mut scalar, Arithmetic::Ieee);
                    let same = scalar
                        .iter()
                        .zip(&layer)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{simd:?} hidden layer differs for {inputs}×{hidden}");
                }
            }
        }
    }
}
