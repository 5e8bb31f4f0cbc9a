//! Invalid input and failing output: every case must end with a non-zero
//! exit, exactly one line on stderr (a message, not a panic), and leave the
//! directory exactly as it was (no output, no checkpoint, no temporary,
//! existing files untouched).

mod common;

use common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs our binary in `dir` with `args` (bounded by `timeout`), expecting a
/// clean refusal that leaves the directory as it was. Returns the error line.
fn assert_rejected_within(dir: &Path, args: &[&str], timeout: Duration) -> String {
    let before = snapshot(dir);
    let out = run_with_timeout(ours_in(dir, args), timeout);
    let what = format!("makehyper {}", args.join(" "));
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
    let after = snapshot(dir);
    if after != before {
        let added: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
        let removed: Vec<_> = before.keys().filter(|k| !after.contains_key(*k)).collect();
        let changed: Vec<_> = before
            .iter()
            .filter(|(k, v)| after.get(*k).is_some_and(|w| w != *v))
            .map(|(k, _)| k)
            .collect();
        problems.push(format!(
            "the directory changed: added {added:?}, removed {removed:?}, modified {changed:?}"
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

fn assert_rejected(dir: &Path, args: &[&str]) -> String {
    assert_rejected_within(dir, args, RUN_TIMEOUT)
}

/// Asserts the error line mentions `word` (case-insensitive).
fn assert_mentions(line: &str, word: &str) {
    assert!(
        line.to_lowercase().contains(&word.to_lowercase()),
        "the error should name {word:?}: {line}"
    );
}

/// A directory holding an existing output and checkpoint, which a refused
/// run must leave alone.
fn dir_with_existing_files() -> tempfile::TempDir {
    let dir = tempdir();
    std::fs::write(dir.path().join("X.bd"), b"an existing database").unwrap();
    std::fs::write(dir.path().join("X.bd.tmp"), b"an existing checkpoint").unwrap();
    dir
}

/// A complete 1-chequer database made by our binary, as bytes.
fn one_chequer_database() -> Vec<u8> {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["-c", "1", "-f", "one.bd"]);
    assert_success(&out, "makehyper -c 1");
    std::fs::read(dir.path().join("one.bd")).expect("written")
}

#[test]
fn chequers_out_of_range() {
    let dir = dir_with_existing_files();
    for c in ["0", "4", "-1", "x", ""] {
        let line = assert_rejected(dir.path(), &["-c", c, "-f", "X.bd"]);
        assert_mentions(&line, "chequers");
    }
    assert_rejected(dir.path(), &["-c", "0"]);
    assert_rejected(dir.path(), &["-f", "X.bd", "-c"]);
}

#[test]
fn threshold_negative() {
    let dir = dir_with_existing_files();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-t", "-0.1"]);
    assert_mentions(&line, "threshold");
    assert_mentions(&line, "-0.1");
}

#[test]
fn threshold_above_one() {
    let dir = dir_with_existing_files();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-t", "1.5"]);
    assert_mentions(&line, "threshold");
    assert_mentions(&line, "1.5");
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "--threshold=inf"]);
    assert_mentions(&line, "threshold");
}

#[test]
fn threshold_not_a_number() {
    let dir = dir_with_existing_files();
    for t in ["abc", "nan", "", "1e-5x"] {
        let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-t", t]);
        assert_mentions(&line, "threshold");
    }
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-t"]);
    assert_mentions(&line, "threshold");
}

#[test]
fn unknown_flag_and_bad_thread_count() {
    let dir = dir_with_existing_files();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "--bogus"]);
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "--threads", "0"]);
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "--threads", "x"]);
    assert_rejected(dir.path(), &["-c", "1", "-f"]);
}

#[test]
fn outfile_in_missing_directory() {
    let dir = dir_with_existing_files();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "nodir/X.bd"]);
    assert_mentions(&line, "nodir");
}

#[test]
fn outfile_under_a_regular_file() {
    // Fails for root too: a regular file cannot hold directory entries.
    let dir = dir_with_existing_files();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd/out.bd"]);
    assert_mentions(&line, "X.bd");
}

#[test]
fn outfile_is_an_existing_directory() {
    let dir = dir_with_existing_files();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/keep"), b"keep").unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "sub"]);
    assert_rejected(dir.path(), &["-c", "1", "-f", "sub/"]);
}

#[test]
fn checkpoint_name_is_an_existing_directory() {
    // With checkpoints on, FILE.tmp must be writable: refused before the work.
    let dir = tempdir();
    std::fs::create_dir(dir.path().join("X.bd.tmp")).unwrap();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd"]);
    assert_mentions(&line, "X.bd.tmp");
}

#[cfg(target_os = "linux")]
#[test]
fn outfile_in_unwritable_directory() {
    // /proc accepts no new files, not even from root.
    let dir = dir_with_existing_files();
    let target = format!("/proc/bgkit-test-{}.bd", std::process::id());
    assert_rejected(dir.path(), &["-c", "1", "-f", &target]);
    assert!(!Path::new(&target).exists());
}

#[test]
fn restart_file_missing() {
    let dir = dir_with_existing_files();
    let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "missing.bd"]);
    assert_mentions(&line, "missing.bd");
}

#[test]
fn restart_file_is_a_directory() {
    let dir = dir_with_existing_files();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "sub"]);
}

#[test]
fn restart_file_truncated() {
    let dir = dir_with_existing_files();
    let full = one_chequer_database();
    for len in [full.len() - 1, full.len() / 2, HEADER_LEN, 20, 0] {
        std::fs::write(dir.path().join("cut.bd"), &full[..len]).unwrap();
        let line = assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "cut.bd"]);
        assert_mentions(&line, "cut.bd");
    }
    // The checkpoint itself truncated (e.g. copied while being written).
    std::fs::write(dir.path().join("X.bd.tmp"), &full[..full.len() / 3]).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "X.bd.tmp"]);
}

#[test]
fn restart_file_too_long() {
    let dir = dir_with_existing_files();
    let mut long = one_chequer_database();
    long.extend_from_slice(&[0; RECORD_LEN]);
    std::fs::write(dir.path().join("long.bd"), &long).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "long.bd"]);
}

#[test]
fn restart_file_not_a_database() {
    let dir = dir_with_existing_files();
    let text = "not a database\n".repeat(2000);
    std::fs::write(dir.path().join("text.bd"), text).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "text.bd"]);
    // A bearoff database header of the right length.
    let mut bearoff = one_chequer_database();
    bearoff[..HEADER_LEN]
        .copy_from_slice(format!("gnubg-TS-06-06-1{}\n", "x".repeat(23)).as_bytes());
    std::fs::write(dir.path().join("ts.bd"), &bearoff).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "ts.bd"]);
}

#[test]
fn restart_file_of_another_chequer_count() {
    let dir = dir_with_existing_files();
    std::fs::write(dir.path().join("one.bd"), one_chequer_database()).unwrap();
    let line = assert_rejected(dir.path(), &["-c", "2", "-f", "X.bd", "-r", "one.bd"]);
    assert_mentions(&line, "one.bd");
    // A complete-looking 2-chequer file (header and size right) for a
    // 1-chequer run.
    let mut two = vec![0u8; file_size(2)];
    two[..HEADER_LEN].copy_from_slice(format!("gnubg-H2{}\n", "x".repeat(31)).as_bytes());
    std::fs::write(dir.path().join("two.bd"), &two).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "two.bd"]);
    // A 2-chequer file of the 1-chequer size: the header decides.
    let mut fake = one_chequer_database();
    fake[7] = b'2';
    std::fs::write(dir.path().join("fake.bd"), &fake).unwrap();
    assert_rejected(dir.path(), &["-c", "1", "-f", "X.bd", "-r", "fake.bd"]);
}

#[test]
fn wrong_restart_file_is_refused_before_the_three_chequer_tables_are_built() {
    // Building the 3-chequer successor tables takes minutes and ~7 GB: a
    // wrong restart file must be refused at once.
    let dir = dir_with_existing_files();
    std::fs::write(dir.path().join("one.bd"), one_chequer_database()).unwrap();
    let started = Instant::now();
    let line = assert_rejected_within(
        dir.path(),
        &["-c", "3", "-f", "X.bd", "-r", "one.bd"],
        Duration::from_secs(60),
    );
    assert_mentions(&line, "one.bd");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "refusing the restart file took {:?}: it was not checked first",
        started.elapsed()
    );
}
