//! The exit statuses and one-line errors every bgkit tool shares
//! (docs/architecture.md#errors-and-exit-statuses), for makehyper.

use test_support::assert_one_line_failure;

const BIN: &str = env!("CARGO_BIN_EXE_makehyper");

#[test]
fn bad_arguments_and_unusable_input_exit_2_with_one_line() {
    let dir = test_support::tempdir("bgkit-exit-status.");
    let out = dir.path().join("h.bd");
    let out = out.to_str().unwrap();
    let missing = dir.path().join("missing.bd");
    for (args, needle) in [
        (&["--frobnicate"][..], "unexpected argument"),
        (&["-c", "4", "-f", out], "invalid value"),
        (&["-c", "1", "-t", "nan", "-f", out], "invalid value"),
        (
            &["-c", "1", "-r", missing.to_str().unwrap(), "-f", out],
            "missing.bd",
        ),
        (
            &["-c", "1", "-f", "/nonexistent-dir/h.bd"],
            "does not exist",
        ),
    ] {
        assert_one_line_failure(BIN, "makehyper", args, needle);
    }
}
