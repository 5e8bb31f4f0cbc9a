//! Bad input gives one line on stderr, `bearoff: error: …` (or clap's first
//! line for usage errors), and a non-zero exit status.

mod common;

use common::*;

/// Runs bearoff and checks: exit status 2, nothing on stdout, exactly one
/// stderr line starting with `bearoff: ` and containing `needle`.
fn fails_with(args: &[&str], needle: &str) {
    let out = bearoff(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: stdout {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("bearoff: error: "), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
}

#[test]
fn unusable_files() {
    let dir = tempdir();
    let missing = dir.path().join("missing.bd");
    let empty = dir.path().join("empty.bd");
    std::fs::write(&empty, b"").unwrap();
    let unknown = dir.path().join("unknown.bd");
    std::fs::write(&unknown, b"gnubg-ZZ-06-15-1-1-0xxxxxxxxxxxxxxxxxxx\n0000").unwrap();
    let foreign = dir.path().join("foreign.bd");
    std::fs::write(&foreign, [7u8; 100]).unwrap();
    let short = dir.path().join("short.bd");
    std::fs::write(&short, b"gnubg-OS-06").unwrap();
    for cmd in [&["info"][..], &["dump", "--index", "1"]] {
        let run = |file: &str, needle: &str| {
            let mut args = vec![cmd[0], file];
            args.extend(&cmd[1..]);
            fails_with(&args, needle);
        };
        run(s(&missing), "No such file");
        run(s(dir.path()), "is a directory");
        run(s(&empty), "too short for a 40-byte database header");
        run(s(&unknown), "unknown database type");
        run(s(&foreign), "not a gnubg database");
        run(s(&short), "too short");
    }
    fails_with(&["compare", s(&missing), s(&empty)], "No such file");
}

#[test]
fn bad_lookups() {
    let os0 = gnubg_file(GNUBG_OS0);
    let ts0 = gnubg_file(GNUBG_TS0);
    fails_with(
        &["dump", s(&os0), "--index", "54264"],
        "index 54264 is out of range",
    );
    fails_with(&["dump", s(&ts0), "--index", "853776"], "853776 records");
    fails_with(&["dump", s(&os0), "--id", "4HPwATDgc/AB"], "14 characters");
    fails_with(
        &["dump", s(&os0), "--id", "4HPwATDgc/AB!A"],
        "invalid character",
    );
    fails_with(
        &["dump", s(&os0), "--id", "//////////////"],
        "invalid Position ID",
    );
    // The starting position is not a bearoff position.
    fails_with(
        &["dump", s(&os0), "--id", "4HPwATDgc/ABMA"],
        "not in this database",
    );
    fails_with(
        &["dump", s(&ts0), "--id", "4P8PAAAAAAAAAA"],
        "the opponent has 15 chequers",
    );
    fails_with(
        &["dump", s(&os0), "--board", "1 2 x"],
        "invalid chequer count",
    );
    fails_with(&["dump", s(&ts0), "--board", "1 2"], "needs both sides");
    fails_with(
        &["dump", s(&ts0), "--board", "0 0 0 0 0 0 1 / 1"],
        "chequers on point 7",
    );
}

#[test]
fn usage_errors_print_clap_first_line() {
    let os0 = gnubg_file(GNUBG_OS0);
    for (args, needle) in [
        (&["dump", s(&os0)][..], "required"),
        (
            &["dump", s(&os0), "--index", "1", "--id", "AAAAAAAAAAAAAA"],
            "cannot be used with",
        ),
        (&["frobnicate"], "unrecognized subcommand"),
        (&["dump", s(&os0), "--index", "-3"], "unexpected argument"),
        (&["info", "--no-header", "os:99", s(&os0)], "invalid value"),
    ] {
        let out = bearoff(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("bearoff: error: "), "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let help = bearoff(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for sub in ["info", "dump", "verify", "compare"] {
        assert!(text.contains(sub), "{text}");
    }
}
