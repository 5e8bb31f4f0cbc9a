//! Differential tests: our `makebearoff` against gnubg 1.07's
//! `/usr/games/makebearoff` on small databases, byte for byte.
//!
//! Sizes are chosen so that each gnubg run takes well under a second.
//! Known gnubg quirks that are deliberately not compared: `-C` together with
//! `-O` (gnubg reads garbage), and `-H` one-sided beyond what gnubg's cache
//! holds (fine at these sizes).

mod common;

use common::*;
use std::path::Path;

/// Runs gnubg's and our makebearoff with the same `args` (plus `-f`) in
/// `dir`, asserts both succeed, gnubg really wrote something, and the two
/// files are identical. Returns the bytes.
fn compare_with_gnubg(dir: &Path, args: &[&str]) -> Vec<u8> {
    let tag: String = args
        .join("_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let theirs_name = format!("gnubg{tag}.bd");
    let ours_name = format!("ours{tag}.bd");
    let what = format!("makebearoff {}", args.join(" "));

    let mut cmd = gnubg();
    cmd.current_dir(dir).args(args).args(["-f", &theirs_name]);
    let out = run(cmd);
    assert!(
        out.status.success(),
        "gnubg's {what} failed (the reference must work for this case)\n{}",
        describe(&out)
    );
    let theirs = std::fs::read(dir.join(&theirs_name))
        .unwrap_or_else(|e| panic!("gnubg's {what} wrote no file: {e}\n{}", describe(&out)));
    assert!(
        !theirs.is_empty(),
        "gnubg's {what} wrote an empty file, nothing to compare"
    );

    let out = run_ours(dir, &[args, &["-f", &ours_name]].concat());
    assert_success(&out, &format!("our {what}"));
    let mine = std::fs::read(dir.join(&ours_name))
        .unwrap_or_else(|e| panic!("our {what} wrote no file: {e}"));
    assert_same_bytes(("gnubg", &theirs), ("ours", &mine), &what);
    mine
}

/// Makes `name` in `dir` with gnubg (used as an `-O` input).
fn gnubg_file(dir: &Path, args: &[&str], name: &str) {
    let mut cmd = gnubg();
    cmd.current_dir(dir).args(args).args(["-f", name]);
    let out = run(cmd);
    assert_success(&out, &format!("gnubg's makebearoff {}", args.join(" ")));
    assert!(
        file_len(&dir.join(name)).unwrap_or(0) > 0,
        "gnubg wrote no {name}"
    );
}

#[test]
fn one_sided_default_matches_gnubg_and_published_md5() {
    let dir = tempdir();
    for points in 1..=5u8 {
        let p = points.to_string();
        let bytes = compare_with_gnubg(dir.path(), &["-o", &p]);
        let md5 = support::digest::md5_hex(&bytes[..]).unwrap();
        assert_eq!(md5, published_one_sided(points), "-o {points}");
    }
}

#[test]
fn one_sided_uncompressed_matches_gnubg() {
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "3", "-c"]);
    compare_with_gnubg(dir.path(), &["-o", "5", "-c"]);
}

#[test]
fn one_sided_without_gammons_matches_gnubg() {
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "2", "-g"]);
    compare_with_gnubg(dir.path(), &["-o", "5", "-g"]);
}

#[test]
fn one_sided_uncompressed_without_gammons_matches_gnubg() {
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "4", "-c", "-g"]);
    compare_with_gnubg(dir.path(), &["-o", "5", "-c", "-g"]);
}

#[test]
fn one_sided_normal_dist_matches_gnubg() {
    let dir = tempdir();
    for points in ["1", "2", "3", "5"] {
        compare_with_gnubg(dir.path(), &["-o", points, "-n"]);
    }
    // -c and -g are ignored by the normal-distribution variant.
    compare_with_gnubg(dir.path(), &["-o", "4", "-n", "-c", "-g"]);
}

#[test]
fn one_sided_without_header_matches_gnubg() {
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "5", "-H"]);
    compare_with_gnubg(dir.path(), &["-o", "4", "-H", "-c", "-g"]);
}

#[test]
fn two_sided_without_header_matches_gnubg() {
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-t", "5x4", "-H"]);
    compare_with_gnubg(dir.path(), &["-t", "4x3", "-H", "-C"]);
}

#[test]
fn two_sided_cubeful_matches_gnubg() {
    let dir = tempdir();
    let bytes = compare_with_gnubg(dir.path(), &["-t", "6x3"]);
    assert_eq!(
        support::digest::md5_hex(&bytes[..]).unwrap(),
        published_two_sided(6, 3)
    );
    for size in ["3x3", "4x5", "5x4", "3x6", "1x4", "8x2"] {
        compare_with_gnubg(dir.path(), &["-t", size]);
    }
}

#[test]
fn two_sided_cubeless_matches_gnubg() {
    let dir = tempdir();
    for size in ["3x3", "4x5", "5x4"] {
        compare_with_gnubg(dir.path(), &["-t", size, "-C"]);
    }
}

#[test]
fn cache_size_does_not_change_output() {
    // Small caches make gnubg miss and re-read; the output must not change.
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "4", "-s", "20000"]);
    compare_with_gnubg(dir.path(), &["-o", "4", "-c", "-s", "10000"]);
    compare_with_gnubg(dir.path(), &["-t", "5x4", "-s", "20000"]);
    compare_with_gnubg(dir.path(), &["-t", "4x3", "-C", "-s", "1000"]);
}

#[test]
fn one_and_two_sided_in_one_run_matches_gnubg() {
    // gnubg appends the two-sided database to the one-sided file.
    let dir = tempdir();
    compare_with_gnubg(dir.path(), &["-o", "3", "-t", "3x3"]);
    compare_with_gnubg(dir.path(), &["-o", "4", "-c", "-g", "-t", "4x3", "-C"]);
}

#[test]
fn one_sided_reusing_old_database_matches_gnubg() {
    let dir = tempdir();
    let d = dir.path();
    gnubg_file(d, &["-o", "3"], "old3.bd");
    gnubg_file(d, &["-o", "6"], "old6.bd");
    gnubg_file(d, &["-o", "3", "-g"], "old3g.bd");

    // Smaller old database.
    let reused = compare_with_gnubg(d, &["-o", "5", "-O", "old3.bd"]);
    let fresh = compare_with_gnubg(d, &["-o", "5"]);
    assert_same_bytes(("without -O", &fresh), ("with -O", &reused), "our -o 5");
    // Larger old database.
    compare_with_gnubg(d, &["-o", "4", "-O", "old6.bd"]);
    // Old without gammons feeding a run without gammons, other layout.
    compare_with_gnubg(d, &["-o", "5", "-g", "-c", "-O", "old3g.bd"]);
}

#[test]
fn one_sided_normal_dist_reusing_old_database_matches_gnubg() {
    let dir = tempdir();
    let d = dir.path();
    // Reusing our own smaller database must not change our output...
    let old = run_ours(d, &["-o", "3", "-n", "-f", "ours3n.bd"]);
    assert_success(&old, "our -o 3 -n");
    let fresh = run_ours(d, &["-o", "5", "-n", "-f", "fresh.bd"]);
    assert_success(&fresh, "our -o 5 -n");
    let reused = run_ours(d, &["-o", "5", "-n", "-O", "ours3n.bd", "-f", "reused.bd"]);
    assert_success(&reused, "our -o 5 -n -O ours3n.bd");
    assert_same_bytes(
        ("without -O", &std::fs::read(d.join("fresh.bd")).unwrap()),
        ("with -O", &std::fs::read(d.join("reused.bd")).unwrap()),
        "our -o 5 -n",
    );
    // ... and gnubg's output from gnubg's old file must match ours from the same file.
    gnubg_file(d, &["-o", "3", "-n"], "old3n.bd");
    compare_with_gnubg(d, &["-o", "5", "-n", "-O", "old3n.bd"]);
}

#[test]
fn two_sided_reusing_old_database_matches_gnubg() {
    let dir = tempdir();
    let d = dir.path();
    gnubg_file(d, &["-t", "4x3"], "old4x3.bd");
    let reused = compare_with_gnubg(d, &["-t", "5x4", "-O", "old4x3.bd"]);
    let fresh = compare_with_gnubg(d, &["-t", "5x4"]);
    assert_same_bytes(("without -O", &fresh), ("with -O", &reused), "our -t 5x4");
    // A larger old database (more points and chequers than needed).
    gnubg_file(d, &["-t", "6x4"], "old6x4.bd");
    compare_with_gnubg(d, &["-t", "4x3", "-O", "old6x4.bd"]);
    // Old file with a header feeding a header-less run.
    compare_with_gnubg(d, &["-t", "5x4", "-H", "-O", "old4x3.bd"]);
}
