//! Hostile and careless use of `bearoff` (docs/guarantees.md): a closed
//! stdout ends quietly, a full one is a one-line error, bad numbers and huge
//! inputs are refused with short messages.

mod common;

use common::*;
use std::process::{Command, Stdio};
use test_support::{describe, error_line_problems};

/// Case 1: a reader that goes away (`bearoff … | head`) ends the run
/// quietly, with no panic (status 141, as if killed by SIGPIPE).
#[test]
fn a_closed_stdout_ends_quietly() {
    let os0 = gnubg_file(GNUBG_OS0);
    let cases: [&[&str]; 3] = [
        &["info", s(&os0), s(&os0), s(&os0)],
        &["dump", "--json", s(&os0), "--index", "5"],
        &["verify", s(&os0)],
    ];
    for args in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_bearoff"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(test_support::pipe_without_reader())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// Case 1: a full device as stdout is a one-line error (a `mknod` copy of
/// /dev/full inside a temporary directory; needs root).
#[test]
fn a_full_stdout_is_a_one_line_error() {
    let dir = tempdir();
    let full = dir.path().join("full");
    let made = Command::new("mknod")
        .arg(&full)
        .args(["c", "1", "7"])
        .output();
    if !made.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: cannot mknod a full device here (not root?): {made:?}");
        return;
    }
    let os0 = gnubg_file(GNUBG_OS0);
    let out = Command::new(env!("CARGO_BIN_EXE_bearoff"))
        .args(["info", s(&os0)])
        .stdout(std::fs::OpenOptions::new().write(true).open(&full).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(line.contains("standard output"), "{line}");
}

/// Case 16: a tolerance that is not a number of at least 0 is refused; a
/// huge bad Position ID is not echoed whole.
#[test]
fn bad_numbers_and_huge_ids_are_refused_briefly() {
    let os0 = gnubg_file(GNUBG_OS0);
    for tolerance in ["nan", "-1", "inf"] {
        let out = bearoff(&["compare", s(&os0), s(&os0), "--tolerance", tolerance]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{tolerance}: {}",
            describe(&out)
        );
    }
    let id = "A".repeat(100_000);
    let out = bearoff(&["dump", s(&os0), "--id", &id]);
    assert_eq!(out.status.code(), Some(2));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(line.len() < 300, "{} bytes echoed", line.len());
}

/// Case 16: the file `makebearoff -o P -t PxC` writes (a two-sided
/// database after a one-sided one) is read, checked and described whole.
#[test]
fn a_combined_file_is_verified_whole() {
    let dir = tempdir();
    let file = gnubg_makebearoff(dir.path(), "c.bd", &["-o", "3", "-t", "3x3"]);
    let text = bearoff_ok(&["verify", s(&file)]);
    assert!(
        text.contains("OK") && text.contains("then database at byte"),
        "{text}"
    );
    let info = bearoff_ok(&["info", "--json", s(&file)]);
    let parts: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(parts.as_array().unwrap().len(), 2, "{info}");
    assert_eq!(parts[1]["kind"], "two-sided");
    // A damaged second database is found.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = parts[1]["offset"].as_u64().unwrap() as usize + 40;
    bytes[at..at + 2].copy_from_slice(&[0, 0]);
    std::fs::write(&file, bytes).unwrap();
    let out = bearoff(&["verify", s(&file)]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("database at byte"));
}
