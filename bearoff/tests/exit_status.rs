//! The exit statuses and one-line errors every bgkit tool shares
//! (docs/architecture.md#errors-and-exit-statuses), for bearoff.

use test_support::assert_one_line_failure;

const BIN: &str = env!("CARGO_BIN_EXE_bearoff");

#[test]
fn bad_arguments_and_unusable_input_exit_2_with_one_line() {
    let dir = test_support::tempdir("bgkit-exit-status.");
    let missing = dir.path().join("missing.bd");
    let missing = missing.to_str().unwrap();
    let empty = dir.path().join("empty.bd");
    std::fs::write(&empty, b"").unwrap();
    for (args, needle) in [
        (&["--frobnicate"][..], "unexpected argument"),
        (&["frobnicate"], "unrecognized subcommand"),
        (&["info", "--no-header", "os:99", missing], "invalid value"),
        (&["info", missing], "missing.bd"),
        (&["info", empty.to_str().unwrap()], "empty.bd"),
        (
            &["compare", missing, missing, "--tolerance", "x"],
            "invalid value",
        ),
    ] {
        assert_one_line_failure(BIN, "bearoff", args, needle);
    }
}
