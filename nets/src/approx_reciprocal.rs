//! The approximate reciprocal (`rcpps`) that Debian's fast-math gnubg 1.07
//! uses in the hidden-layer sigmoid (docs/formats.md#arithmetic-variants). Its low bits are
//! CPU-model dependent, so two versions exist: [`rcp_reference`], a portable
//! table emulation of the CPU that produced the reference evaluations (AMD
//! EPYC, Zen 4), and [`rcp_native`], this CPU's own instruction (x86-64).

use crate::rcp_table::TABLE;

/// The reference CPU's `rcpps` of a normal, finite `x` with `|x|` in
/// [2^-125, 2^125] (the sigmoid's denominators lie in [1, 2·10^4]). Exact
/// for every such input on the reference CPU: the result has 12 significant
/// bits, chosen by the top 12 bits of `x`'s mantissa, and scales with the
/// exponent.
#[inline(always)]
pub fn rcp_reference(x: f32) -> f32 {
    let bits = x.to_bits();
    let exp = (bits >> 23) & 0xff;
    debug_assert!(
        (2..=252).contains(&exp),
        "rcp_reference outside its range: {x}"
    );
    let mantissa = u32::from(TABLE[((bits >> 11) & 0xfff) as usize]) << 11;
    f32::from_bits((bits & 0x8000_0000) | ((253 - exp) << 23) | mantissa)
}

/// Eight lanes of [`rcp_reference`] in AVX2: the same bits, the table read
/// with one gather.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn rcp8_reference_avx2(
    x: core::arch::x86_64::__m256,
) -> core::arch::x86_64::__m256 {
    use core::arch::x86_64::*;
    let bits = _mm256_castps_si256(x);
    let exp = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(0xff));
    let key = _mm256_and_si256(_mm256_srli_epi32::<11>(bits), _mm256_set1_epi32(0xfff));
    // SAFETY: each lane reads the 4 bytes at entry `key` ≤ 4095 of a table
    // of 4097 u16s, so every read is inside it; the upper half (the next
    // entry) is masked off.
    let entry = unsafe { _mm256_i32gather_epi32::<2>(TABLE.as_ptr().cast(), key) };
    let mantissa = _mm256_slli_epi32::<11>(_mm256_and_si256(entry, _mm256_set1_epi32(0xffff)));
    let sign = _mm256_and_si256(bits, _mm256_set1_epi32(i32::MIN));
    let exponent = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(253), exp));
    _mm256_castsi256_ps(_mm256_or_si256(_mm256_or_si256(sign, exponent), mantissa))
}

/// Sixteen lanes of [`rcp_reference`] in AVX-512F: the same bits, the
/// table read with one gather.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
#[target_feature(enable = "avx2,avx512f")]
#[inline]
pub(crate) unsafe fn rcp16_reference_avx512(
    x: core::arch::x86_64::__m512,
) -> core::arch::x86_64::__m512 {
    use core::arch::x86_64::*;
    let bits = _mm512_castps_si512(x);
    let exp = _mm512_and_si512(_mm512_srli_epi32::<23>(bits), _mm512_set1_epi32(0xff));
    let key = _mm512_and_si512(_mm512_srli_epi32::<11>(bits), _mm512_set1_epi32(0xfff));
    // SAFETY: as in `rcp8_reference_avx2`: each lane reads the 4 bytes at
    // entry `key` ≤ 4095 of a table of 4097 u16s; the upper half is masked
    // off.
    let entry = unsafe { _mm512_i32gather_epi32::<2>(key, TABLE.as_ptr().cast()) };
    let mantissa = _mm512_slli_epi32::<11>(_mm512_and_si512(entry, _mm512_set1_epi32(0xffff)));
    let sign = _mm512_and_si512(bits, _mm512_set1_epi32(i32::MIN));
    let exponent = _mm512_slli_epi32::<23>(_mm512_sub_epi32(_mm512_set1_epi32(253), exp));
    _mm512_castsi512_ps(_mm512_or_si512(_mm512_or_si512(sign, exponent), mantissa))
}

/// True if this CPU's `rcpps` gives [`rcp_reference`]'s bits for every f32
/// in [1, 32768), a range that holds every denominator of the hidden-layer
/// sigmoid (they lie in [2, 21937)), so the sigmoid may use the instruction
/// instead of the table and still compute the reference bits. Checked once
/// per process, exhaustively (15·2^23 inputs, a few milliseconds a core,
/// shared by the rayon pool's number of threads); false without AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub fn native_rcp_is_reference_for_sigmoid() -> bool {
    static SAME: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SAME.get_or_init(|| {
        // Exponent fields 127..=141: [1, 32768), split over as many
        // threads as the rayon pool has (plain scoped threads: a rayon
        // task could steal work that waits on this same initialisation).
        const EXPONENTS: std::ops::RangeInclusive<u32> = 127..=141;
        if !crate::cpu::has_avx2() {
            return false;
        }
        let threads = rayon::current_num_threads().clamp(1, 15) as u32;
        let part = |t: u32| {
            EXPONENTS
                .filter(|e| e % threads == t)
                // SAFETY: AVX2 was checked at run time just above, the
                // requirement of the `target_feature` function.
                .all(|exp| unsafe { native_is_reference_avx2(exp) })
        };
        std::thread::scope(|s| {
            let others: Vec<_> = (1..threads).map(|t| s.spawn(move || part(t))).collect();
            let mine = part(0);
            others
                .into_iter()
                .fold(mine, |all, h| h.join().unwrap_or(false) && all)
        })
    })
}

/// The exhaustive comparison of [`native_rcp_is_reference_for_sigmoid`]
/// for the inputs of exponent field `exp`: for each top-12-bit mantissa,
/// the reference result is one value, compared with `rcpps` of all 2^11
/// inputs that share it, eight at a time.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
unsafe fn native_is_reference_avx2(exp: u32) -> bool {
    use core::arch::x86_64::*;
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for key in 0u32..4096 {
        let first = exp << 23 | key << 11;
        let want = _mm256_set1_epi32(rcp_reference(f32::from_bits(first)).to_bits() as i32);
        let mut same = _mm256_set1_epi32(-1);
        for low in (0u32..1 << 11).step_by(8) {
            let x = _mm256_add_epi32(_mm256_set1_epi32((first | low) as i32), lanes);
            let got = _mm256_castps_si256(_mm256_rcp_ps(_mm256_castsi256_ps(x)));
            same = _mm256_and_si256(same, _mm256_cmpeq_epi32(want, got));
        }
        if _mm256_movemask_epi8(same) != -1 {
            return false;
        }
    }
    true
}

/// Four lanes of [`rcp_reference`].
#[inline(always)]
pub fn rcp4_reference(t: [f32; 4]) -> [f32; 4] {
    t.map(rcp_reference)
}

/// This CPU's `rcpps` on four values, lane by lane.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
#[inline(always)]
pub fn rcp4_native(t: [f32; 4]) -> [f32; 4] {
    use core::arch::x86_64::{__m128, _mm_rcp_ps, _mm_setr_ps};
    // SAFETY: SSE is part of the x86-64 baseline, so `_mm_setr_ps` and
    // `_mm_rcp_ps` exist on every x86-64 CPU (older compilers still mark
    // them unsafe). `__m128` and `[f32; 4]` are both 16 bytes of plain f32
    // data, and every bit pattern is valid for both, so the transmute is
    // sound.
    unsafe {
        let r: __m128 = _mm_rcp_ps(_mm_setr_ps(t[0], t[1], t[2], t[3]));
        core::mem::transmute::<__m128, [f32; 4]>(r)
    }
}

/// Without x86-64 there is no `rcpps`; the native arithmetic is refused on
/// such targets (see `Arithmetic::is_supported`), this is never called.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn rcp4_native(t: [f32; 4]) -> [f32; 4] {
    rcp4_reference(t)
}

/// This CPU's `rcpps` of one value (x86-64), for comparisons.
pub fn rcp_native(x: f32) -> f32 {
    rcp4_native([x; 4])[0]
}

/// Inputs in [1, 2) (every `step`-th mantissa) where this CPU's `rcpps`
/// differs from the reference CPU's, as (input, reference, native) bits.
/// Always empty off x86-64 (the native version is the emulation there).
pub fn native_mismatches(step: usize) -> Vec<(u32, u32, u32)> {
    let mut bad = Vec::new();
    for m in (0..1u32 << 23).step_by(step.max(1)) {
        let x = f32::from_bits(0x3f80_0000 | m);
        let (want, got) = (rcp_reference(x), rcp_native(x));
        if want.to_bits() != got.to_bits() {
            bad.push((x.to_bits(), want.to_bits(), got.to_bits()));
        }
    }
    bad
}

/// True if this CPU's `rcpps` agrees with the reference CPU's on a sample of
/// inputs (then the native fast-math arithmetic reproduces the reference
/// data too).
pub fn native_matches_reference() -> bool {
    cfg!(target_arch = "x86_64") && native_mismatches(997).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulation_examples() {
        // Measured on the reference CPU.
        for (x, r) in [
            (0x3f80_0000u32, 0x3f7f_f000u32), // 1.0
            (0x4040_0000, 0x3eaa_a800),       // 3.0
            (0x4120_0000, 0x3dcc_c000),       // 10.0
            (0x469b_b6be, 0x3852_7000),       // 19931.371
            (0x3fff_ffff, 0x3f00_0000),       // 1.9999999
        ] {
            assert_eq!(rcp_reference(f32::from_bits(x)).to_bits(), r, "{x:08x}");
        }
        assert_eq!(rcp_reference(-3.0), -rcp_reference(3.0));
        // About 12 bits of precision.
        for k in 1..1000 {
            let x = 1.0 + k as f32 * 0.987;
            assert!((rcp_reference(x) * x - 1.0).abs() < 1.0 / 2048.0, "{x}");
        }
    }
}
