//! gnubg's table sigmoid (docs/formats.md#table-sigmoid): a piecewise first-order
//! approximation of `1/(1+e^x)` from a 101-entry table, in the scalar form
//! (outputs, reference arithmetic) and the SIMD form (hidden layer).

/// `E[k] = f32(exp(k/10)/10)` for k = 0..=99 (each the f32 nearest the
/// exact value), plus `E[100] = E[99]` (used only when the SIMD form
/// saturates).
#[allow(clippy::excessive_precision, clippy::approx_constant)]
pub static TABLE: [f32; 101] = [
    0.100000001,
    0.110517092,
    0.122140273,
    0.134985879,
    0.149182469,
    0.164872125,
    0.182211876,
    0.201375276,
    0.222554088,
    0.24596031,
    0.271828175,
    0.300416589,
    0.3320117,
    0.36692968,
    0.405519992,
    0.448168904,
    0.495303243,
    0.547394753,
    0.604964733,
    0.668589473,
    0.738905609,
    0.816617012,
    0.902501345,
    0.997418225,
    1.10231769,
    1.21824944,
    1.3463738,
    1.48797321,
    1.64446473,
    1.81741452,
    2.00855374,
    2.21979523,
    2.45325303,
    2.7112639,
    2.99640989,
    3.31154513,
    3.65982342,
    4.04473066,
    4.47011852,
    4.94024467,
    5.45981503,
    6.03402853,
    6.66863298,
    7.36997938,
    8.14508724,
    9.0017128,
    9.94843197,
    10.9947176,
    12.151042,
    13.428978,
    14.8413162,
    16.4021912,
    18.127224,
    20.0336819,
    22.1406422,
    24.4691925,
    27.0426407,
    29.8867397,
    33.0299568,
    36.503746,
    40.3428802,
    44.5857773,
    49.2749023,
    54.4571915,
    60.1845055,
    66.5141602,
    73.5095215,
    81.2405853,
    89.784729,
    99.2274704,
    109.663315,
    121.196709,
    133.943069,
    148.029999,
    163.59845,
    180.804245,
    199.819595,
    220.834793,
    244.060196,
    269.728241,
    298.095795,
    329.446808,
    364.095032,
    402.387238,
    444.706665,
    491.476898,
    543.165955,
    600.291199,
    663.424377,
    733.197327,
    810.308411,
    895.529297,
    989.712891,
    1093.80188,
    1208.83801,
    1335.97266,
    1476.47815,
    1631.76074,
    1803.37451,
    1993.03699,
    1993.03699,
];

/// `1 + 10·E[99]` as gnubg writes it (`e^10 + 1`, slightly rounded).
#[allow(clippy::excessive_precision)]
const SATURATED_DENOMINATOR: f32 = 19_931.370_438_230_298;
#[allow(clippy::excessive_precision)]
const SATURATED_NUMERATOR: f32 = 19_930.370_438_230_298;

/// The scalar sigmoid ≈ `1/(1+e^x)` of docs/formats.md#table-sigmoid (gnubg's output
/// layer, and the hidden layer of the reference arithmetic).
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    if !x.is_sign_negative() {
        if x < 10.0 {
            let x1 = 10.0f32 * x;
            let i = x1 as i32;
            1.0 / (1.0 + TABLE[i as usize] * ((10 - i) as f32 + x1))
        } else {
            1.0 / SATURATED_DENOMINATOR
        }
    } else if x > -10.0 {
        let x1 = -10.0f32 * x;
        let i = x1 as i32;
        1.0 - 1.0 / (1.0 + TABLE[i as usize] * ((10 - i) as f32 + x1))
    } else {
        SATURATED_NUMERATOR / SATURATED_DENOMINATOR
    }
}

/// [`sigmoid`] of `beta·v` for each value `v` of `values` eight at a time,
/// in place, for the whole groups of eight; returns how many it did. Both
/// branches are computed and the sign bit picks one: the same operations on
/// each lane as the scalar form (`−10·x` is exactly `10·|x|`), so the same
/// bits, NaN and ±0 included.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn scaled_sigmoids_avx2(values: &mut [f32], beta: f32) -> usize {
    use core::arch::x86_64::*;
    let beta = _mm256_set1_ps(beta);
    let (one, ten) = (_mm256_set1_ps(1.0), _mm256_set1_ps(10.0));
    let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
    let high = _mm256_set1_ps(1.0 / SATURATED_DENOMINATOR);
    let low = _mm256_set1_ps(SATURATED_NUMERATOR / SATURATED_DENOMINATOR);
    let mut chunks = values.chunks_exact_mut(8);
    let mut done = 0;
    for c in &mut chunks {
        // SAFETY: `c` holds exactly 8 f32s; unaligned load.
        let x = _mm256_mul_ps(unsafe { _mm256_loadu_ps(c.as_ptr()) }, beta);
        let ax = _mm256_and_ps(x, abs);
        // |x| < 10 (false for NaN): the table's range on either side.
        let inside = _mm256_cmp_ps::<_CMP_LT_OQ>(ax, ten);
        let x1 = _mm256_mul_ps(ax, ten);
        // Lanes outside the range take index 0 (their result is replaced).
        let i = _mm256_and_si256(_mm256_cvttps_epi32(x1), _mm256_castps_si256(inside));
        // SAFETY: 0 ≤ i < 100 where `inside` (x1 < 100), else 0; TABLE has
        // 101 entries.
        let e = unsafe { _mm256_i32gather_ps::<4>(TABLE.as_ptr(), i) };
        let n = _mm256_add_ps(
            _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_set1_epi32(10), i)),
            x1,
        );
        let r = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(e, n)));
        let positive = _mm256_blendv_ps(high, r, inside);
        let negative = _mm256_blendv_ps(low, _mm256_sub_ps(one, r), inside);
        // The sign bit picks the branch, as `is_sign_negative` does.
        let y = _mm256_blendv_ps(positive, negative, x);
        // SAFETY: as the load.
        unsafe { _mm256_storeu_ps(c.as_mut_ptr(), y) };
        done += 8;
    }
    done
}

/// The denominator `1 + E[i]·((x1 − i) + 10)` of the SIMD hidden-layer
/// sigmoid for `x = β·h` (docs/formats.md#forward-pass), with `x1 = min(|x|, 10)·10`.
#[inline(always)]
pub fn simd_denominator(x: f32) -> f32 {
    let x1 = x.abs().min(10.0) * 10.0;
    let i = x1 as i32;
    ((x1 - i as f32) + 10.0) * TABLE[i as usize] + 1.0
}

/// Completes the SIMD sigmoid from `c = 1/denominator`: the activation is `c`
/// for negative `x`, else `1 − c` (the logistic function of `x`).
#[inline(always)]
pub fn simd_select(x: f32, c: f32) -> f32 {
    if x < 0.0 {
        c
    } else {
        1.0 - c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn eight_scaled_sigmoids_are_the_scalar_ones() {
        if !crate::cpu::avx2_to_compare() {
            return;
        }
        let mut values: Vec<f32> = (0..300_000).map(|k| k as f32 / 1000.0 - 150.0).collect();
        values.extend([0.0, -0.0, 10.0, -10.0, 9.999_999, -9.999_999, 1e30, -1e30]);
        values.extend([
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            1e-40,
            -1e-40,
        ]);
        for beta in [-1.0f32, -0.7, 1.0] {
            let want: Vec<f32> = values.iter().map(|&v| sigmoid(beta * v)).collect();
            let mut got = values.clone();
            // SAFETY: AVX2 was detected above.
            #[allow(unsafe_code)]
            let done = unsafe { scaled_sigmoids_avx2(&mut got, beta) };
            assert!(done + 8 > values.len());
            for (k, (w, g)) in want.iter().zip(&got).enumerate().take(done) {
                assert_eq!(w.to_bits(), g.to_bits(), "value {} beta {beta}", values[k]);
            }
        }
    }

    #[test]
    fn table_matches_definition() {
        assert_eq!(TABLE[0], 0.1);
        assert_eq!(TABLE[10], 0.271_828_18);
        assert_eq!(TABLE[100], TABLE[99]);
        for (k, &e) in TABLE.iter().enumerate().take(100) {
            let exact = (k as f64 / 10.0).exp() / 10.0;
            assert!((f64::from(e) - exact).abs() <= exact * 1e-7, "E[{k}]");
        }
    }

    #[test]
    fn scalar_sigmoid_values() {
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(sigmoid(-0.0), 0.5);
        assert_eq!(sigmoid(10.0), 1.0 / SATURATED_DENOMINATOR);
        assert_eq!(sigmoid(-12.0), SATURATED_NUMERATOR / SATURATED_DENOMINATOR);
        // Approximates 1/(1+e^x) to about 0.5 % relative.
        for k in -99..100 {
            let x = k as f32 / 10.3;
            let exact = 1.0 / (1.0 + f64::from(x).exp());
            assert!((f64::from(sigmoid(x)) - exact).abs() < 2e-3, "x = {x}");
        }
    }

    #[test]
    fn simd_form_agrees_with_scalar_up_to_rounding() {
        for k in -1000..1000 {
            let x = k as f32 * 0.0123;
            let simd = simd_select(x, 1.0 / simd_denominator(x));
            let scalar = sigmoid(-x);
            assert!((simd - scalar).abs() < 1e-6, "x = {x}: {simd} vs {scalar}");
        }
        // Saturation uses E[100] = E[99]: 1 + 10·E[99] rounds one ulp below
        // the scalar branch's constant.
        let saturated = simd_denominator(25.0);
        assert_eq!(saturated, simd_denominator(10.0));
        assert_eq!(saturated.to_bits() + 1, SATURATED_DENOMINATOR.to_bits());
    }
}
