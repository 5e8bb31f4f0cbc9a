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
            let _ = writeln!(out, "{v:.7}");
        }
    }
    out
}
