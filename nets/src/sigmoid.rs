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
