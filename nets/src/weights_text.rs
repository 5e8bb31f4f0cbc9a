//! gnubg's text weights file, `gnubg.weights` (docs/formats.md#text-weights-file).

use crate::error::WeightsError;
use crate::net::{Net, NetKind, NetShape, Nets};
use std::fmt::Write as _;

/// The only version gnubg accepts.
pub const WEIGHTS_VERSION: &str = "1.00";

/// Parses a text weights file: the `GNU Backgammon 1.00` line, then six nets.
/// Anything but whitespace after the sixth net is an error.
pub fn parse(text: &str) -> Result<Nets, WeightsError> {
    parse_counted(text).map(|(nets, _)| nets)
}

/// [`parse`], also returning each net's training counter (the fourth word
/// of its header, which gnubg reads and ignores), in file order: `None` for
/// a word that is not an `i32`.
pub fn parse_counted(text: &str) -> Result<(Nets, [Option<i32>; 6]), WeightsError> {
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    check_header(first)?;
    let mut tokens = body.split_ascii_whitespace();
    let mut nets = Vec::with_capacity(6);
    let mut counters = [None; 6];
    for (kind, counter) in NetKind::ALL.into_iter().zip(&mut counters) {
        let (net, word) = parse_net(&mut tokens, kind)?;
        nets.push(net);
        *counter = word.parse().ok();
    }
    if let Some(extra) = tokens.next() {
        return Err(WeightsError::TrailingData(extra.chars().take(40).collect()));
    }
    let nets: [Net; 6] = nets.try_into().expect("six nets were parsed");
    Ok((Nets::new(nets)?, counters))
}

/// Fails unless `first` is a weights file's first line,
/// `GNU Backgammon 1.00`.
pub(crate) fn check_header(first: &str) -> Result<(), WeightsError> {
    let version = first
        .strip_prefix("GNU Backgammon")
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_whitespace()))
        .map(str::trim)
        .ok_or(WeightsError::NotWeights)?;
    if version != WEIGHTS_VERSION {
        return Err(WeightsError::Version(version.to_string()));
    }
    Ok(())
}

/// One net and the word of its training counter.
fn parse_net<'a>(
    tokens: &mut impl Iterator<Item = &'a str>,
    kind: NetKind,
) -> Result<(Net, &'a str), WeightsError> {
    let name = kind.name();
    let mut next = |what: &str| {
        tokens
            .next()
            .ok_or_else(|| WeightsError::Truncated(format!("{name} net ends before its {what}")))
    };
    let size = |token: &str, what: &str| {
        token.parse::<usize>().map_err(|_| WeightsError::Parse {
            what: format!("{name} net header ({what})"),
            token: token.to_string(),
        })
    };
    let inputs = size(next("header")?, "inputs")?;
    let hidden = size(next("header")?, "hidden units")?;
    let outputs = size(next("header")?, "outputs")?;
    // The training counter: read as a string and ignored, as gnubg does.
    let counter = next("header")?;
    let beta_hidden = float(next("header")?, || {
        format!("{name} net header (beta_hidden)")
    })?;
    let beta_output = float(next("header")?, || {
        format!("{name} net header (beta_output)")
    })?;
    let shape = NetShape {
        inputs,
        hidden,
        outputs,
        beta_hidden,
        beta_output,
    };
    shape.validate().map_err(|e| e.in_net(name))?;
    let n = shape.values();
    let mut values = Vec::with_capacity(n);
    for k in 0..n {
        let token = tokens.next().ok_or_else(|| {
            WeightsError::Truncated(format!("{name} net has {k} of its {n} values"))
        })?;
        values.push(float(token, || format!("{name} net value #{k}"))?);
    }
    let net = Net::from_values(shape, values).map_err(|e| e.in_net(name))?;
    Ok((net, counter))
}

/// Parses one value straight to f32 (correctly rounded); rejects NaN and
/// infinities.
fn float(token: &str, what: impl Fn() -> String) -> Result<f32, WeightsError> {
    match token.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(WeightsError::Parse {
            what: what(),
            token: token.to_string(),
        }),
    }
}

/// The training counter gnubg (and bgkit) write in every net's header.
pub const COUNTER: i32 = 0;

/// Writes the nets exactly as gnubg writes them (`%.7f` values, training
/// counter [`COUNTER`]). Loading gnubg's shipped file and writing it back
/// reproduces it byte for byte.
pub fn write(nets: &Nets) -> String {
    write_counted(nets, &[COUNTER; 6])
}

/// [`write()`] with `counters` as the nets' training counters (file order).
pub fn write_counted(nets: &Nets, counters: &[i32; 6]) -> String {
    let mut out = String::with_capacity(1 << 20);
    out.push_str("GNU Backgammon ");
    out.push_str(WEIGHTS_VERSION);
    out.push('\n');
    for (net, counter) in nets.all().iter().zip(counters) {
        let s = net.shape();
        let _ = writeln!(
            out,
            "{} {} {} {counter} {:.7} {:.7}",
            s.inputs, s.hidden, s.outputs, s.beta_hidden, s.beta_output
        );
        for v in net.values() {
            push_fixed7(&mut out, v);
            out.push('\n');
        }
    }
    out
}

/// Appends `v` as `format!("{v:.7}")` (C's `%.7f`) does: the exact binary
/// value rounded to seven decimals, ties to even, a minus sign on every
/// negative value (−0 too). Integer arithmetic for |v| < 2^31, about a tenth
/// of the standard formatter's time; the standard formatter otherwise.
fn push_fixed7(out: &mut String, v: f32) {
    const SCALE: u64 = 10_000_000;
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32;
    if exponent >= 127 + 31 {
        // Large, infinite or NaN: rare enough for the general formatter.
        let _ = write!(out, "{v:.7}");
        return;
    }
    // |v| = mantissa · 2^-shift exactly, with shift > -8.
    let (mantissa, shift) = match exponent {
        0 => (u64::from(bits & 0x7f_ffff), 149),
        e => (u64::from(bits & 0x7f_ffff | 0x80_0000), 150 - e),
    };
    // mantissa · 10^7 < 2^48: no overflow, even shifted left by up to 7.
    // Round it · 2^-shift to an integer.
    let scaled = mantissa * SCALE;
    let units = if shift <= 0 {
        scaled << -shift
    } else if shift >= 64 {
        // Below 2^48 · 2^-64 < 1/2: rounds to 0.
        0
    } else {
        let (whole, rest) = (scaled >> shift, scaled & ((1u64 << shift) - 1));
        let half = 1u64 << (shift - 1);
        whole + u64::from(rest > half || (rest == half && whole & 1 == 1))
    };
    if bits >> 31 == 1 {
        out.push('-');
    }
    let (int, frac) = (units / SCALE, units % SCALE);
    let mut digits = [0u8; 19];
    let mut n = 0;
    let mut rest = int;
    loop {
        digits[n] = b'0' + (rest % 10) as u8;
        n += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend(digits[..n].iter().rev().map(|&d| d as char));
    out.push('.');
    let mut frac_digits = [b'0'; 7];
    let mut rest = frac;
    for d in frac_digits.iter_mut().rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend(frac_digits.iter().map(|&d| d as char));
}

#[cfg(test)]
mod tests {
    use super::push_fixed7;

    fn check(v: f32) {
        let mut out = String::new();
        push_fixed7(&mut out, v);
        assert_eq!(out, format!("{v:.7}"), "bits {:#010x}", v.to_bits());
    }

    /// The fast formatter writes what `{:.7}` writes: random bit patterns
    /// of every exponent, the exact ties (odd multiples of 2^-8 lie halfway
    /// between two 7-decimal numbers), zeros, subnormals, the largest
    /// values and non-finite ones.
    #[test]
    fn fixed7_is_the_standard_formatting() {
        let mut next = crate::test_rng::xorshift(11);
        for _ in 0..400_000 {
            check(f32::from_bits(next() as u32));
        }
        for exponent in 0..=255u32 {
            for _ in 0..2_000 {
                let bits = (next() as u32 & 0x807f_ffff) | exponent << 23;
                check(f32::from_bits(bits));
            }
        }
        for k in -100_000..=100_000 {
            for denominator in [256.0f32, 512.0, 1024.0, 1.0e7] {
                let v = k as f32 / denominator;
                check(v);
                check(f32::from_bits(v.to_bits() + 1));
                check(f32::from_bits(v.to_bits().wrapping_sub(1)));
            }
        }
        for v in [
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            f32::MIN,
            2_147_483_520.0,
            2_147_483_648.0,
            f32::from_bits(0x3f7f_ffff), // the largest value below 1
            f32::from_bits(0x411f_ffff), // the largest below 10
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ] {
            check(v);
        }
    }
}
