//! Invalid input and failing output: every case must end with a non-zero
//! exit, exactly one line on stderr (a message, not a panic), and no output
//! or stray temporary file left behind.

mod common;

use common::*;
use std::path::Path;

/// Runs our binary in `dir` with `args`, expecting a clean refusal that
/// leaves the directory as it was. Returns the error line.
fn assert_rejected(dir: &Path, args: &[&str]) -> String {
    let before = listing(dir);
    let out = run_ours(dir, args);
    let what = format!("makebearoff {}", args.join(" "));
    let mut problems = Vec::new();
    if out.status.success() {
        problems.push("exit status 0 (should fail)".to_owned());
    }
    match out.status.code() {
        None => problems.push("killed by a signal instead of exiting with an error".into()),
        Some(130) => problems.push("exit status 130 means interrupted".into()),
        Some(_) => {}
    }
    let (line, more) = error_line_problems(&out);
    problems.extend(more);
    let after = listing(dir);
    if after != before {
        let added: Vec<_> = after.difference(&before).collect();
        let removed: Vec<_> = before.difference(&after).collect();
        problems.push(format!(
            "the directory changed: added {added:?}, removed {removed:?}"
        ));
    }
    assert!(
        problems.is_empty(),
        "{what}:\n  - {}\n{}",
        problems.join("\n  - "),
        describe(&out)
    );
    line
}

/// A valid database made by our binary in `dir`.
fn make(dir: &Path, args: &[&str], name: &str) -> Vec<u8> {
    let out = run_ours(dir, &[args, &["-q", "-f", name]].concat());
    assert_success(&out, &format!("makebearoff {} -f {name}", args.join(" ")));
    std::fs::read(dir.join(name)).expect("database written")
}

#[test]
fn one_sided_too_many_points() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "19", "-f", "X"]);
}

#[test]
fn nothing_to_generate() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "0", "-f", "X"]);
    assert_rejected(dir.path(), &["-o", "0"]);
    assert_rejected(dir.path(), &["-f", "X"]);
}

#[test]
fn two_sided_missing_chequers() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-t", "6x", "-f", "X"]);
}

#[test]
fn two_sided_points_not_a_number() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-t", "ax6", "-f", "X"]);
}

#[test]
fn two_sided_zero_chequers() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-t", "6x0", "-f", "X"]);
}

#[test]
fn unknown_flag_and_bad_values() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "3", "-f", "X", "--bogus"]);
    assert_rejected(dir.path(), &["-o", "x", "-f", "X"]);
    assert_rejected(dir.path(), &["-o", "3", "-f", "X", "--threads", "0"]);
    assert_rejected(
        dir.path(),
        &["-o", "3", "-f", "X", "--checkpoint-every", "-1"],
    );
    assert_rejected(dir.path(), &["-o", "3", "-f"]);
}

#[test]
fn missing_outfile() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "3"]);
    assert_rejected(dir.path(), &["-t", "3x3"]);
}

#[test]
fn outfile_in_missing_directory() {
    let dir = tempdir();
    let line = assert_rejected(dir.path(), &["-o", "3", "-f", "nodir/X"]);
    assert!(
        line.contains("nodir"),
        "the error does not name the directory: {line}"
    );
}

#[test]
fn outfile_under_a_regular_file() {
    // Fails for root too: a regular file cannot hold directory entries.
    let dir = tempdir();
    std::fs::write(dir.path().join("somefile"), b"not a directory\n").unwrap();
    assert_rejected(dir.path(), &["-o", "3", "-f", "somefile/out.bd"]);
    assert_eq!(
        std::fs::read(dir.path().join("somefile")).unwrap(),
        b"not a directory\n",
        "somefile was modified"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn outfile_in_unwritable_directory() {
    // /proc accepts no new files, not even from root.
    let dir = tempdir();
    let target = format!("/proc/bgkit-test-{}.bd", std::process::id());
    assert_rejected(dir.path(), &["-o", "3", "-f", &target]);
    assert!(!Path::new(&target).exists());
}

#[test]
fn outfile_is_an_existing_directory() {
    // Must be refused without leaving anything behind (neither next to the
    // directory nor inside it), ideally before computing the database.
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_rejected(dir.path(), &["-o", "3", "-f", "sub"]);
    assert_rejected(dir.path(), &["-o", "3", "-f", "sub/"]);
}

#[test]
fn old_database_missing() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "5", "-O", "missing.bd", "-f", "X"]);
}

#[test]
fn old_database_truncated() {
    let dir = tempdir();
    let d = dir.path();
    let one = make(d, &["-o", "4"], "os4.bd");
    std::fs::write(d.join("os4-half.bd"), &one[..one.len() / 2]).unwrap();
    assert_rejected(d, &["-o", "5", "-O", "os4-half.bd", "-f", "X"]);
    let one_c = make(d, &["-o", "4", "-c"], "os4c.bd");
    std::fs::write(d.join("os4c-half.bd"), &one_c[..one_c.len() / 2]).unwrap();
    assert_rejected(d, &["-o", "5", "-c", "-O", "os4c-half.bd", "-f", "X"]);
    let two = make(d, &["-t", "4x3"], "ts.bd");
    std::fs::write(d.join("ts-half.bd"), &two[..two.len() / 2]).unwrap();
    assert_rejected(d, &["-t", "5x4", "-O", "ts-half.bd", "-f", "X"]);
    // Header only.
    std::fs::write(d.join("ts-head.bd"), &two[..40]).unwrap();
    assert_rejected(d, &["-t", "5x4", "-O", "ts-head.bd", "-f", "X"]);
}

#[test]
fn old_database_of_the_wrong_kind() {
    let dir = tempdir();
    let d = dir.path();
    make(d, &["-t", "4x3"], "ts.bd");
    make(d, &["-t", "4x3", "-C"], "tsC.bd");
    make(d, &["-o", "4"], "os.bd");
    make(d, &["-o", "4", "-g"], "osg.bd");
    make(d, &["-o", "4", "-n"], "osn.bd");
    assert_rejected(d, &["-o", "5", "-O", "ts.bd", "-f", "X"]);
    assert_rejected(d, &["-t", "5x4", "-O", "os.bd", "-f", "X"]);
    // Gammons requested, old file has none.
    assert_rejected(d, &["-o", "5", "-O", "osg.bd", "-f", "X"]);
    // Exact requested, old file is normal-dist, and the reverse.
    assert_rejected(d, &["-o", "5", "-O", "osn.bd", "-f", "X"]);
    assert_rejected(d, &["-o", "5", "-n", "-O", "os.bd", "-f", "X"]);
    // Cubeful requested, old file is cubeless, and the reverse.
    assert_rejected(d, &["-t", "5x4", "-O", "tsC.bd", "-f", "X"]);
    assert_rejected(d, &["-t", "5x4", "-C", "-O", "ts.bd", "-f", "X"]);
}

#[test]
fn old_database_garbage() {
    let dir = tempdir();
    let d = dir.path();
    // Deterministic pseudo-random bytes.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(d.join("noise.bd"), &noise).unwrap();
    std::fs::write(d.join("text.bd"), "hello, this is a text file\n".repeat(20)).unwrap();
    std::fs::write(d.join("short.bd"), "hello\n").unwrap();
    std::fs::write(d.join("empty.bd"), "").unwrap();
    let mut fake = b"gnubg-XX-06-15-1-1-0xxxxxxxxxxxxxxxxxxx\n".to_vec();
    fake.extend_from_slice(&noise[..1000]);
    std::fs::write(d.join("fake.bd"), &fake).unwrap();
    for old in ["noise.bd", "text.bd", "short.bd", "empty.bd", "fake.bd"] {
        assert_rejected(d, &["-o", "5", "-O", old, "-f", "X"]);
        assert_rejected(d, &["-t", "5x4", "-O", old, "-f", "X"]);
    }
    // A directory is not a database either.
    std::fs::create_dir(d.join("adir")).unwrap();
    assert_rejected(d, &["-o", "5", "-O", "adir", "-f", "X"]);
}

#[test]
fn resume_without_checkpoint() {
    let dir = tempdir();
    assert_rejected(dir.path(), &["-o", "3", "-f", "X", "--resume"]);
}

/// Runs `makebearoff args` under a 32 KiB file-size limit with SIGXFSZ
/// ignored, so writes fail with EFBIG as on a full disk.
fn run_with_small_file_limit(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new("sh");
    cmd.current_dir(dir)
        .arg("-c")
        .arg(r#"trap "" XFSZ; ulimit -f 64; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_makebearoff"))
        .args(args);
    run(cmd)
}

/// After a failed write: the error is one line, nothing but (possibly) a
/// checkpoint is left, and such a checkpoint must resume to the right file.
fn assert_write_failure_is_clean(args: &[&str], published: &str) {
    let dir = tempdir();
    let d = dir.path();
    let out = run_with_small_file_limit(d, &[args, &["-f", "X"]].concat());
    let what = format!("makebearoff {} -f X (file size limit)", args.join(" "));
    assert!(
        !out.status.success() && out.status.code().is_some(),
        "{what} should fail with an error exit\n{}",
        describe(&out)
    );
    let line = assert_one_line_error(&out, &what);
    assert!(
        line.contains('X') || line.contains("checkpoint"),
        "{what}: the error does not say what could not be written: {line}"
    );
    let left = listing(d);
    assert!(!left.contains("X"), "{what}: X exists after a failed write");
    let stray: Vec<_> = left.iter().filter(|f| *f != "X.ckpt").collect();
    assert!(
        stray.is_empty(),
        "{what}: stray files left behind: {stray:?}"
    );
    if left.contains("X.ckpt") {
        // A checkpoint that is left must be usable.
        let out = run_ours(d, &[args, &["-f", "X", "--resume"]].concat());
        assert_success(&out, &format!("{what}, then --resume without the limit"));
        assert_eq!(md5_file(&d.join("X")), published, "{what}: resumed output");
        assert_eq!(listing(d).into_iter().collect::<Vec<_>>(), ["X"]);
    }
}

#[test]
fn disk_full_while_writing_output() {
    assert_write_failure_is_clean(&["-o", "6"], published_one_sided(6));
    assert_write_failure_is_clean(
        &["-o", "6", "--checkpoint-every", "0"],
        published_one_sided(6),
    );
}

#[test]
fn disk_full_while_writing_checkpoint() {
    assert_write_failure_is_clean(
        &["-t", "6x6", "--checkpoint-every", "0.01"],
        published_two_sided(6, 6),
    );
}
