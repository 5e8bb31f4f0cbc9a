//! `bearoff compare`: identical files, layouts that differ, tolerances,
//! kinds that cannot be compared.

mod common;

use common::*;
use makebearoff::OneSidedOptions;

#[test]
fn gnubg_and_bgkit_files_are_identical() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    let ours = dir.path().join("ours.bd");
    std::fs::write(
        &ours,
        ours_one_sided(OneSidedOptions {
            points: 6,
            gammons: true,
            compressed: true,
            normal: false,
            header: true,
        }),
    )
    .unwrap();
    let text = bearoff_ok(&["compare", s(&os0), s(&ours)]);
    assert!(text.contains("identical values"), "{text}");
    // Same content, other layout: uncompressed, no header.
    let plain = gnubg_makebearoff(dir.path(), "plain.bd", &["-o", "6", "-c", "-H"]);
    let out = bearoff(&[
        "compare",
        "--no-header",
        "os:6:no-compress",
        s(&plain),
        s(&plain),
    ]);
    assert!(out.status.success());
    let json = bearoff_ok(&["compare", s(&os0), s(&ours), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["max_abs_diff"], 0.0);
    assert_eq!(v["fields"].as_array().unwrap().len(), 6);
}

#[test]
fn differences_are_measured_against_the_tolerance() {
    let dir = tempdir();
    let ts = gnubg_makebearoff(dir.path(), "ts.bd", &["-t", "6x3"]);
    let mut bytes = std::fs::read(&ts).unwrap();
    let record = 5000usize;
    // Lower the centred-cube value of one record by 4 units of 1/32767.5.
    let at = 40 + 8 * record + 4;
    let u = u16::from_le_bytes([bytes[at], bytes[at + 1]]) - 4;
    bytes[at..at + 2].copy_from_slice(&u.to_le_bytes());
    let changed = dir.path().join("changed.bd");
    std::fs::write(&changed, &bytes).unwrap();

    let out = bearoff(&["compare", s(&ts), s(&changed)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("EXCEEDS the tolerance"), "{text}");
    let json = bearoff_ok(&[
        "compare",
        s(&ts),
        s(&changed),
        "--json",
        "--tolerance",
        "0.001",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let fields = v["fields"].as_array().unwrap();
    let centred = fields
        .iter()
        .find(|f| f["field"] == "Centered cube")
        .unwrap();
    assert_eq!(centred["worst_record"], record);
    let dumped = bearoff_ok(&["dump", s(&ts), "--index", &record.to_string(), "--json"]);
    let d: serde_json::Value = serde_json::from_str(&dumped).unwrap();
    assert_eq!(centred["worst_position_id"], d["position_id"]);
    let expected = 4.0 / 32767.5;
    let max = centred["max_abs_diff"].as_f64().unwrap();
    assert!((max - expected).abs() < 1e-6, "{max}");
    for f in fields.iter().filter(|f| f["field"] != "Centered cube") {
        assert_eq!(f["max_abs_diff"], 0.0, "{f}");
    }
    assert_eq!(v["within_tolerance"], true);
}

#[test]
fn different_kinds_are_refused() {
    let os0 = gnubg_file(GNUBG_OS0);
    let ts0 = gnubg_file(GNUBG_TS0);
    let out = bearoff(&["compare", s(&os0), s(&ts0)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot compare a one-sided"), "{err}");
}
