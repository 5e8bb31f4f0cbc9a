//! Weights files: round trips, byte identity with gnubg's files, and
//! rejection of bad files.

mod common;

use nets::weights::{parse, Format};
use nets::{weights_binary, weights_text, Net, NetKind, NetShape, Nets, WeightsError};

#[test]
fn text_round_trip_is_identical() {
    let text = common::shipped_text();
    let md5 = support::digest::md5_hex(text.as_bytes()).unwrap();
    assert_eq!(
        (text.len(), md5.as_str()),
        (1_097_781, common::GNUBG_WEIGHTS_TEXT_MD5),
        "the text written from gnubg.wd is not gnubg's gnubg.weights"
    );
    let nets = weights_text::parse(text).unwrap();
    assert_eq!(weights_text::write(&nets), text);
    let shapes: Vec<(usize, usize, usize)> = nets
        .all()
        .iter()
        .map(|n| (n.inputs(), n.hidden(), n.outputs()))
        .collect();
    assert_eq!(
        shapes,
        [
            (250, 128, 5),
            (214, 128, 5),
            (250, 128, 5),
            (200, 16, 5),
            (200, 16, 5),
            (200, 8, 5)
        ]
    );
    assert_eq!(nets.get(NetKind::Contact).hidden_weights()[0], -3.2585607);
}

#[test]
fn binary_is_debians_gnubg_wd_and_keeps_every_bit() {
    let nets = weights_text::parse(common::shipped_text()).unwrap();
    let bin = weights_binary::write(&nets);
    assert_eq!(bin.len(), 408_016);
    // f32 nearest 472.3782 (gnubg.wd has 0x43EC3069, not 0x43EC3062).
    assert_eq!(&bin[..4], &[0x69, 0x30, 0xec, 0x43]);
    let debian = common::weights_path();
    assert!(
        std::fs::read(&debian).unwrap() == bin,
        "differs from {debian:?}"
    );
    // text → binary → nets: every f32 bit kept; and → text again: identical.
    let (back, format) = parse(&bin).unwrap();
    assert_eq!(format, Format::Binary);
    for (a, b) in back.all().iter().zip(nets.all()) {
        assert!(a
            .values()
            .zip(b.values())
            .all(|(x, y)| x.to_bits() == y.to_bits()));
    }
    assert_eq!(weights_text::write(&back), common::shipped_text());
}

#[test]
fn binary_round_trip_of_arbitrary_values_keeps_every_bit() {
    // Values that `%.7f` cannot represent survive the binary format.
    let mut nets = small_nets();
    nets.get_mut(NetKind::Race).update(|p| {
        p.hidden_weights[0] = 1234.5677;
        p.output_weights[1] = -f32::MIN_POSITIVE;
        p.hidden_thresholds[2] = 1.0e-30;
        p.output_thresholds[3] = f32::from_bits(0x3f80_0001);
    });
    let back = weights_binary::parse(&weights_binary::write(&nets)).unwrap();
    assert_eq!(back, nets);
}

/// Six nets of the gnubg sizes with few hidden units and distinct values.
fn small_nets() -> Nets {
    let net = |kind: NetKind, hidden: usize| {
        let shape = NetShape {
            inputs: kind.inputs(),
            hidden,
            outputs: 5,
            beta_hidden: 0.1,
            beta_output: 1.0,
        };
        let values = (0..shape.values())
            .map(|k| ((k * 7919 % 2001) as f32 - 1000.0) / 4000.0)
            .collect();
        Net::from_values(shape, values).unwrap()
    };
    Nets::new(NetKind::ALL.map(|k| net(k, 4))).unwrap()
}

/// A text file like [`small_nets`]' whose contact net has `inputs` inputs.
fn text_with_contact_inputs(inputs: usize) -> String {
    let nets = small_nets();
    let mut out = String::from("GNU Backgammon 1.00\n");
    for (k, net) in nets.all().iter().enumerate() {
        let i = if k == 0 { inputs } else { net.inputs() };
        let n = i * 4 + 4 * 5 + 4 + 5;
        out += &format!("{i} 4 5 0 0.1000000 1.0000000\n");
        for v in 0..n {
            out += &format!("{:.7}\n", v as f32 / 1000.0);
        }
    }
    out
}

fn text_error(text: &str) -> String {
    let err = weights_text::parse(text).unwrap_err();
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "one-line message: {msg:?}");
    msg
}

#[test]
fn bad_text_files_are_rejected_with_one_line_errors() {
    let good = weights_text::write(&small_nets());
    // Truncated in the middle of a net.
    let cut = &good[..good.len() / 2];
    assert!(text_error(cut).contains("truncated"), "{}", text_error(cut));
    // Wrong version line, and no version line.
    let v = good.replacen("GNU Backgammon 1.00", "GNU Backgammon 0.99", 1);
    assert!(text_error(&v).contains("0.99"));
    assert!(text_error("hello\n1 2 3").contains("not a gnubg weights file"));
    assert!(text_error("").contains("not a gnubg weights file"));
    // Wrong sizes for a slot: a well-formed contact net with 249 inputs.
    let msg = text_error(&text_with_contact_inputs(249));
    assert!(msg.contains("contact net has 249 inputs"), "{msg}");
    let mut bad_nets = small_nets();
    *bad_nets.get_mut(NetKind::Race) = Net::zeroed(NetShape {
        inputs: 250,
        hidden: 4,
        outputs: 5,
        beta_hidden: 0.1,
        beta_output: 1.0,
    })
    .unwrap();
    let nets: [Net; 6] = bad_nets.all().clone();
    let err = Nets::new(nets).unwrap_err();
    assert!(
        matches!(err, WeightsError::WrongSize { net: "race", .. }),
        "{err}"
    );
    // NaN, infinity and garbage values.
    let lines: Vec<&str> = good.lines().collect();
    for bad in ["nan", "NaN", "inf", "-inf", "1.0x", "--1"] {
        let mut l = lines.clone();
        l[5] = bad;
        let msg = text_error(&(l.join("\n") + "\n"));
        assert!(msg.contains(bad), "{bad}: {msg}");
    }
    // Zero sizes and non-positive slopes.
    assert!(text_error(&good.replacen("250 4 5 0", "250 0 5 0", 1)).contains("zero size"));
    assert!(text_error(&good.replacen("0.1000000", "-0.1000000", 1)).contains("slope"));
    // Garbage after the sixth net.
    assert!(text_error(&(good.clone() + "1.0\n")).contains("after the sixth net"));
    // Trailing blank lines are fine.
    assert!(weights_text::parse(&(good + "\n\n")).is_ok());
}

#[test]
fn bad_binary_files_are_rejected_with_one_line_errors() {
    let good = weights_binary::write(&small_nets());
    let err = |b: &[u8]| {
        let e = weights_binary::parse(b).unwrap_err().to_string();
        assert!(!e.contains('\n'));
        e
    };
    assert!(err(&good[..good.len() - 4]).contains("truncated"));
    assert!(err(&good[..30]).contains("truncated"));
    assert!(err(&good[..2]).contains("magic") || err(&good[..2]).contains("truncated"));
    let mut v = good.clone();
    v[4..8].copy_from_slice(&2.0f32.to_le_bytes());
    assert!(err(&v).contains("version"));
    let mut v = good.clone();
    v[0] ^= 1;
    assert!(err(&v).contains("magic"));
    let wrong = weights_text::parse(&text_with_contact_inputs(251)).unwrap_err();
    assert!(wrong.to_string().contains("251"));
    let mut v = good.clone();
    v[8..12].copy_from_slice(&251u32.to_le_bytes());
    assert!(weights_binary::parse(&v).is_err());
    let mut v = good.clone();
    let at = 8 + 24 + 4 * 7;
    v[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(err(&v).contains("NaN"));
    let mut v = good.clone();
    v.push(0);
    assert!(err(&v).contains("after the sixth net"));
    // Not UTF-8 and not binary.
    assert!(matches!(
        parse(&[0xff, 0xfe, 0, 0, 1]),
        Err(WeightsError::NotWeights)
    ));
}

#[test]
fn a_bad_byte_after_the_first_line_is_reported_on_its_line() {
    let mut text = weights_text::write(&small_nets()).into_bytes();
    let third = text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .map(|(i, _)| i + 1)
        .unwrap();
    text.insert(third, 0xff);
    let e = parse(&text).unwrap_err();
    assert!(matches!(e, WeightsError::NotText { line: 3 }), "{e}");
    assert_eq!(e.to_string(), "line 3 is not text (not UTF-8)");
}

#[test]
fn files_load_and_save_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let nets = small_nets();
    for (format, name) in [(Format::Text, "w.weights"), (Format::Binary, "w.wd")] {
        let path = dir.path().join(name);
        nets::weights::save(&nets, &path, format).unwrap();
        let back = nets::weights::load(&path).unwrap();
        assert_eq!(weights_text::write(&back), weights_text::write(&nets));
    }
    let missing = nets::weights::load(&dir.path().join("nope")).unwrap_err();
    assert!(missing.to_string().contains("nope"));
}

/// A net whose training diverged (an infinity or a NaN among its values)
/// is never written: the save is refused, naming the net and the value, and
/// the file already there stays as it was.
#[test]
fn a_net_with_a_value_that_is_not_finite_is_never_saved() {
    let dir = tempfile::tempdir().unwrap();
    for (bad, name) in [(f32::INFINITY, "w.wd"), (f32::NAN, "w.weights")] {
        let mut nets = small_nets();
        nets.get_mut(NetKind::Race)
            .update(|p| p.output_thresholds[2] = bad);
        let path = dir.path().join(name);
        std::fs::write(&path, b"previous weights").unwrap();
        let e = nets::weights::save(&nets, &path, Format::for_path(&path)).unwrap_err();
        assert!(
            matches!(e, WeightsError::NotFinite { net: "race", .. }),
            "{e}"
        );
        assert!(e.to_string().contains(&bad.to_string()), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"previous weights");
        assert!(nets::weights::to_bytes(&nets, Format::Binary).is_err());
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporaries"
    );
}
