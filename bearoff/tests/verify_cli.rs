//! `bearoff verify` passes good files and names the first bad record of
//! damaged ones.

mod common;

use common::*;
use databases::Database;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `bearoff verify ARGS`, asserting exit status 1 and one FAILED line.
fn verify_fails(args: &[&str]) -> String {
    let mut all = vec!["verify"];
    all.extend(args);
    let out = bearoff(&all);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(": FAILED: "), "{text}");
    text
}

/// A copy of `src` in `dir`, changed by `edit`.
fn damaged(dir: &Path, src: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(src).unwrap();
    edit(&mut bytes);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Position ID that `bearoff dump --index` shows for a record.
fn position_id(file: &Path, index: u64) -> String {
    let json = bearoff_ok(&["dump", s(file), "--index", &index.to_string(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["position_id"].as_str().unwrap().to_string()
}

#[test]
fn good_files_pass() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    let ts0 = gnubg_file(GNUBG_TS0);
    let out = bearoff(&["verify", s(&os0), s(&ts0)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(text.matches("OK (").count(), 2, "{text}");
    assert_eq!(
        text.matches("md5 matches gnubg's published checksum")
            .count(),
        2
    );

    let nd = gnubg_makebearoff(dir.path(), "nd.bd", &["-o", "4", "-n"]);
    let g = gnubg_makebearoff(dir.path(), "g.bd", &["-o", "4", "-g", "-c"]);
    let ts = gnubg_makebearoff(dir.path(), "ts.bd", &["-t", "4x3", "-C"]);
    let hyper = gnubg_makehyper(dir.path(), 1);
    let out = bearoff(&["verify", s(&nd), s(&g), s(&ts), s(&hyper)]);
    assert!(out.status.success(), "{}", stdout(&out));

    let headerless = gnubg_makebearoff(dir.path(), "h.bd", &["-o", "6", "-H"]);
    let out = bearoff(&["verify", "--no-header", "os:6", s(&headerless)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("md5 matches gnubg's published checksum"),
        "{text}"
    );

    let small = gnubg_makebearoff(dir.path(), "small.bd", &["-t", "6x3"]);
    let out = bearoff(&["verify", "--regenerate", s(&os0), s(&small)]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(
        text.matches("identical to the regenerated database")
            .count(),
        2
    );
}

#[test]
fn a_flipped_data_byte_names_the_record() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    let db = Database::open(&os0).unwrap();
    // The compressed data area starts after the header and 8-byte index
    // entries; flip a byte of some record's data in its middle.
    let data_start = 40 + 8 * db.side_positions();
    let at = data_start + (db.len() - data_start) / 2;
    let path = damaged(dir.path(), &os0, "os.bd", |b| b[at] ^= 0x10);
    // Which record holds that byte: the last whose data starts at or before it.
    let offset_units = (at - data_start) / 2;
    let bytes = std::fs::read(&os0).unwrap();
    let entry_off = |i: usize| {
        let e = &bytes[40 + 8 * i..];
        u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize
    };
    let record = (0..db.side_positions())
        .rfind(|&i| entry_off(i) <= offset_units)
        .unwrap();
    let text = verify_fails(&[s(&path)]);
    let id = position_id(&os0, record as u64);
    assert!(
        text.contains(&format!("FAILED: record {record} (Position ID {id}): ")),
        "{text}"
    );
    assert!(text.contains("distribution sums to"), "{text}");
    assert!(
        text.contains("DIFFERS from gnubg's published MD5"),
        "{text}"
    );

    // Uncompressed: records are 128 bytes after the header.
    let plain = gnubg_makebearoff(dir.path(), "plain.bd", &["-o", "3", "-c"]);
    let len = std::fs::metadata(&plain).unwrap().len() as usize;
    let at = 40 + (len - 40) / 3 + 7;
    let path = damaged(dir.path(), &plain, "plain-bad.bd", |b| b[at] ^= 0x01);
    let record = (at - 40) / 128;
    let text = verify_fails(&[s(&path)]);
    assert!(
        text.contains(&format!("FAILED: record {record} ")),
        "{text}"
    );

    // Two-sided: a one-unit change of a centred-cube value that keeps the
    // cube values ordered passes the structural checks; the checksum
    // catches it, and regenerating names the record.
    let ts = gnubg_makebearoff(dir.path(), "ts.bd", &["-t", "6x3"]);
    let bytes = std::fs::read(&ts).unwrap();
    let value = |record: usize, k: usize| {
        let at = 40 + 8 * record + 2 * k;
        u16::from_le_bytes([bytes[at], bytes[at + 1]])
    };
    let records = (bytes.len() - 40) / 8;
    let record = (records / 2..records)
        .find(|&r| value(r, 1) > value(r, 2) + 1 && value(r, 2) > value(r, 3) + 1)
        .expect("a record with distinct cube values");
    let at = 40 + 8 * record + 4;
    let path = damaged(dir.path(), &ts, "ts-bad.bd", |b| b[at] ^= 0x01);
    let text = verify_fails(&[s(&path)]);
    assert!(
        text.contains("DIFFERS from gnubg's published MD5"),
        "{text}"
    );
    assert!(!text.contains("record"), "{text}");
    let id = position_id(&ts, record as u64);
    let text = verify_fails(&["--regenerate", s(&path)]);
    assert!(
        text.contains(&format!(
            "record {record} (Position ID {id}) differs from the regenerated"
        )),
        "{text}"
    );
}

#[test]
fn a_truncated_tail_fails() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    let db = Database::open(&os0).unwrap();
    let path = damaged(dir.path(), &os0, "os.bd", |b| b.truncate(b.len() - 1));
    let last = db.side_positions() - 1;
    let text = verify_fails(&[s(&path)]);
    assert!(
        text.contains(&format!("truncated, record {last} is incomplete")),
        "{text}"
    );

    let ts0 = gnubg_file(GNUBG_TS0);
    let path = damaged(dir.path(), &ts0, "ts.bd", |b| b.truncate(b.len() - 100));
    let text = verify_fails(&[s(&path)]);
    let record = (std::fs::metadata(&path).unwrap().len() - 40) / 8;
    assert!(
        text.contains(&format!("truncated, record {record} is incomplete")),
        "{text}"
    );
}

#[test]
fn a_wrong_header_fails() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    type Edit = fn(&mut Vec<u8>);
    let cases: [(&str, Edit, &str); 4] = [
        ("points.bd", |b| b[10] = b'5', "its index needs"),
        ("type.bd", |b| b[6] = b'X', "unknown database type"),
        ("magic.bd", |b| b[0] = b'G', "not a gnubg database"),
        (
            "flag.bd",
            |b| b[17] = b'0',
            "a one-sided, 6 points, 15 chequers, gammons yes, compressed no file needs",
        ),
    ];
    for (name, edit, message) in cases {
        let path = damaged(dir.path(), &os0, name, edit);
        let text = verify_fails(&[s(&path)]);
        assert!(text.contains(message), "{name}: {text}");
    }
}

#[test]
fn every_file_is_reported() {
    let dir = tempdir();
    let os0 = gnubg_file(GNUBG_OS0);
    let missing = dir.path().join("missing.bd");
    let out = bearoff(&["verify", s(&missing), s(&os0)]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("missing.bd: FAILED: cannot read"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("md5 matches gnubg's published checksum)"),
        "{text}"
    );
}
