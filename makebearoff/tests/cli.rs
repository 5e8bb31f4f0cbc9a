//! `--help` and `-v`.

mod common;

use common::*;

#[test]
fn help_mentions_every_flag() {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["--help"]);
    assert_success(&out, "makebearoff --help");
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "-o",
        "-t",
        "-f",
        "-s",
        "-O",
        "-H",
        "-C",
        "-c",
        "-g",
        "-n",
        "-v",
        "--threads",
        "--checkpoint-every",
        "--resume",
        "--verify",
    ] {
        // A flag followed by a separator, so "-o" is not found inside "--one-sided".
        let found = text
            .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
            .any(|word| word == flag);
        assert!(found, "--help does not mention {flag}:\n{text}");
    }
    assert!(listing(dir.path()).is_empty(), "--help created files");
}

#[test]
fn short_help_succeeds() {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["-h"]);
    assert_success(&out, "makebearoff -h");
    assert!(!out.stdout.is_empty(), "-h printed nothing");
}

#[test]
fn version_prints_one_line_and_exits() {
    let dir = tempdir();
    // -v wins over a requested database, as in gnubg: nothing is generated.
    for args in [&["-v"][..], &["--version"], &["-v", "-o", "3", "-f", "X"]] {
        let out = run_ours(dir.path(), args);
        let what = format!("makebearoff {}", args.join(" "));
        assert_success(&out, &what);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "{what}: expected one line\n{}",
            describe(&out)
        );
        assert!(
            lines[0].contains("makebearoff") && lines[0].contains(env!("CARGO_PKG_VERSION")),
            "{what}: not a version line\n{}",
            describe(&out)
        );
        assert!(listing(dir.path()).is_empty(), "{what} created files");
    }
}
