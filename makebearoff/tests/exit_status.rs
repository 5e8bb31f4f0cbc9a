//! The exit statuses and one-line errors every bgkit tool shares
//! (docs/architecture.md#errors-and-exit-statuses), for makebearoff.

use test_support::assert_one_line_failure;

const BIN: &str = env!("CARGO_BIN_EXE_makebearoff");

#[test]
fn bad_arguments_and_unusable_input_exit_2_with_one_line() {
    let dir = test_support::tempdir("bgkit-exit-status.");
    let out = dir.path().join("x.bd");
    let out = out.to_str().unwrap();
    let missing = dir.path().join("missing.bd");
    for (args, needle) in [
        (&["--frobnicate"][..], "unexpected argument"),
        (&["-o", "19", "-f", out], "invalid value"),
        (&["-t", "6x", "-f", out], "invalid value"),
        (&["-o", "6"], "-f FILE"),
        (
            &["-o", "2", "-O", missing.to_str().unwrap(), "-f", out],
            "missing.bd",
        ),
        (
            &["-o", "2", "-f", "/nonexistent-dir/x.bd"],
            "does not exist",
        ),
    ] {
        assert_one_line_failure(BIN, "makebearoff", args, needle);
    }
}
