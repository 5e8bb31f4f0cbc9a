//! The exit statuses and one-line errors every bgkit tool shares
//! (docs/architecture.md#errors-and-exit-statuses), for trainer.

use std::process::{Command, Stdio};
use test_support::assert_one_line_failure;

const BIN: &str = env!("CARGO_BIN_EXE_trainer");

#[test]
fn bad_arguments_and_unusable_input_exit_2_with_one_line() {
    let dir = test_support::tempdir("bgkit-exit-status.");
    let missing = dir.path().join("missing.wd");
    let missing = missing.to_str().unwrap();
    for (args, needle) in [
        (&["--frobnicate"][..], "unexpected argument"),
        (&["frobnicate"], "unrecognized subcommand"),
        (&["eval", "--plies", "4", "4HPwATDgc/ABMA"], "invalid value"),
        (
            &["eval", "--ieee", "--reference", "4HPwATDgc/ABMA"],
            "cannot be used with",
        ),
        (
            &["eval", "--weights", missing, "4HPwATDgc/ABMA"],
            "missing.wd",
        ),
    ] {
        assert_one_line_failure(BIN, "trainer", args, needle);
    }
}

#[test]
fn rejected_inputs_exit_1_and_the_others_are_evaluated() {
    let out = Command::new(BIN)
        .args(["eval", "4HPwATDgc/ABMA", "not-an-id", "4HPwATDgc/ABMA"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("trainer: error: bad Position ID"), "{err}");
}

#[test]
fn typed_options_refuse_a_wrong_value_with_clap_s_one_line() {
    for (args, needle) in [
        (
            &["eval", "--arithmetic", "fast", "4HPwATDgc/ABMA"][..],
            "invalid value 'fast' for '--arithmetic",
        ),
        (
            &[
                "eval",
                "--arithmetic",
                "ieee",
                "--reference",
                "4HPwATDgc/ABMA",
            ],
            "cannot be used with",
        ),
        (
            &["train", "--db", "x.db", "--class", "bearoff", "-o", "x.wd"],
            "invalid value 'bearoff' for '--class",
        ),
        (&["play", "--vs", ""], "invalid value '' for '--vs"),
        (
            &["bench", "--db", "x.db", "--class", "race,hyper"],
            "invalid value 'hyper' for '--class",
        ),
        (
            &["td", "--games", "5", "--threads", "0", "-o", "x.wd"],
            "invalid value '0' for '--threads",
        ),
    ] {
        assert_one_line_failure(BIN, "trainer", args, needle);
    }
}
