//! `--verify` against gnubg's published MD5s (small sizes; the library's own
//! tests cover more).

mod common;

use common::*;

/// Runs `args -f out.bd --verify` and checks both the reported verdict and
/// the file's actual MD5.
fn assert_verified(args: &[&str], expected_md5: &str) {
    let dir = tempdir();
    let out = run_ours(dir.path(), &[args, &["-f", "out.bd", "--verify"]].concat());
    let what = format!("makebearoff {} --verify", args.join(" "));
    assert_success(&out, &what);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("matches gnubg's published checksum"),
        "{what}: no match reported\n{}",
        describe(&out)
    );
    assert!(
        stdout.contains(expected_md5),
        "{what}: the reported MD5 is not {expected_md5}\n{}",
        describe(&out)
    );
    assert_eq!(md5_file(&dir.path().join("out.bd")), expected_md5, "{what}");
}

#[test]
fn one_sided_1_to_6_points_verify() {
    for points in 1..=6u8 {
        assert_verified(&["-o", &points.to_string()], published_one_sided(points));
    }
}

#[test]
fn two_sided_6x1_to_6x5_verify() {
    for chequers in 1..=5u8 {
        assert_verified(
            &["-t", &format!("6x{chequers}")],
            published_two_sided(6, chequers),
        );
    }
}

#[test]
fn verify_claims_no_match_for_unpublished_kinds() {
    // gnubg publishes checksums only for default options: other kinds must
    // be written and succeed without a claim to match anything.
    for args in [
        &["-o", "3", "-c"][..],
        &["-o", "3", "-g"],
        &["-o", "3", "-n"],
        &["-t", "6x3", "-C"],
        &["-t", "5x3"],
    ] {
        let dir = tempdir();
        let out = run_ours(dir.path(), &[args, &["-f", "out.bd", "--verify"]].concat());
        let what = format!("makebearoff {} --verify", args.join(" "));
        assert_success(&out, &what);
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("matches"),
            "{what}: claims a match although gnubg publishes no checksum\n{}",
            describe(&out)
        );
        assert!(
            file_len(&dir.path().join("out.bd")).unwrap_or(0) > 0,
            "{what}"
        );
    }
}
