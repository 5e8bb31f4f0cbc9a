//! Hostile and careless use (docs/guarantees.md): damaged restart files are
//! refused, special and huge inputs are refused before reading, special
//! output files are never replaced, one run per output, a planted link at
//! the checkpoint name is never followed, a full disk leaves no spare.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use test_support::{assert_success, describe, error_line_problems};

/// Runs `args` in `dir` (within `timeout`), asserting exit status 2 and one
/// error line containing `needle`.
fn assert_refused_within(dir: &Path, args: &[&str], needle: &str, timeout: Duration) {
    let start = Instant::now();
    let out = test_support::run_with_timeout(ours_in(dir, args), timeout);
    let what = format!("makehyper {}", args.join(" "));
    assert_eq!(out.status.code(), Some(2), "{what}\n{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(
        problems.is_empty(),
        "{what}: {problems:?}\n{}",
        describe(&out)
    );
    assert!(line.contains(needle), "{what}: {line}");
    assert!(
        start.elapsed() < timeout,
        "{what}: took {:?}",
        start.elapsed()
    );
}

fn assert_refused(dir: &Path, args: &[&str], needle: &str) {
    assert_refused_within(dir, args, needle, RUN_TIMEOUT);
}

/// Our converged 2-chequer database.
fn two_chequer_database(dir: &Path) -> Vec<u8> {
    let out = run_ours(dir, &["-c", "2", "-f", "h2.bd", "-q"]);
    assert_success(&out, "makehyper -c 2");
    std::fs::read(dir.join("h2.bd")).unwrap()
}

/// Case 4: a damaged restart file is refused with the record it found, and
/// no output appears.
#[test]
fn damaged_restart_files_are_refused() {
    let dir = tempdir();
    let d = dir.path();
    let good = two_chequer_database(d);
    let n = side_positions(2);
    // Pair (us = 5, them = 300): the win gammon probability set above win.
    let mut wg = good.clone();
    let at = HEADER_LEN + (5 * n + 300) * RECORD_LEN + 3;
    wg[at..at + 3].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let bodies: [(&str, Vec<u8>); 3] = [
        ("one-record.bd", wg),
        ("zero.bd", {
            let mut b = good.clone();
            b[HEADER_LEN..].fill(0);
            b
        }),
        ("ones.bd", {
            let mut b = good.clone();
            b[HEADER_LEN..].fill(0xFF);
            b
        }),
    ];
    for (name, bytes) in bodies {
        std::fs::write(d.join(name), bytes).unwrap();
        assert_refused(d, &["-c", "2", "-r", name, "-f", "o.bd"], "damaged");
        assert!(!d.join("o.bd").exists());
    }
}

/// Cases 8 and 9: a FIFO is refused at once (no hang), and a huge (sparse)
/// restart file is refused from its size, before anything is read.
#[test]
fn special_and_huge_restart_files_are_refused_before_reading() {
    let dir = tempdir();
    let d = dir.path();
    assert!(Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap()
        .success());
    let quick = Duration::from_secs(20);
    assert_refused_within(
        d,
        &["-c", "1", "-r", "fifo", "-f", "o.bd"],
        "regular file",
        quick,
    );
    let huge = std::fs::File::create(d.join("huge.bd")).unwrap();
    std::fs::write(
        d.join("huge.bd"),
        databases::Kind::Hyper { chequers: 3 }.header(),
    )
    .unwrap();
    huge.set_len(4 << 30).unwrap();
    assert_refused_within(
        d,
        &["-c", "3", "-r", "huge.bd", "-f", "o.bd"],
        "bytes",
        quick,
    );
}

/// Case 3: a FIFO as the output (or as its checkpoint) is refused and stays.
#[test]
fn special_output_files_are_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempdir();
    let d = dir.path();
    for name in ["fifo.bd", "other.bd.tmp"] {
        assert!(Command::new("mkfifo")
            .arg(d.join(name))
            .status()
            .unwrap()
            .success());
    }
    assert_refused(d, &["-c", "1", "-f", "fifo.bd"], "not a regular file");
    assert_refused(d, &["-c", "1", "-f", "other.bd"], "not a regular file");
    for name in ["fifo.bd", "other.bd.tmp"] {
        let meta = std::fs::symlink_metadata(d.join(name)).unwrap();
        assert!(meta.file_type().is_fifo(), "{name} was replaced");
    }
}

/// Case 12: a link planted at the checkpoint name is refused; its target is
/// untouched.
#[test]
fn a_link_at_the_checkpoint_name_is_not_followed() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::write(d.join("precious"), b"precious").unwrap();
    std::os::unix::fs::symlink("precious", d.join("hh.bd.tmp")).unwrap();
    assert_refused(d, &["-c", "1", "-f", "hh.bd"], "symbolic link");
    assert_eq!(std::fs::read(d.join("precious")).unwrap(), b"precious");
    assert!(!d.join("hh.bd").exists());
}

/// Case 6: a fresh run does not replace an interrupted run's checkpoint
/// unless asked to (`--force`), or restarting from it.
#[test]
fn an_interrupted_runs_checkpoint_is_not_overwritten() {
    let dir = tempdir();
    let d = dir.path();
    let h1 = {
        let out = run_ours(d, &["-c", "1", "-f", "h1.bd", "-q"]);
        assert_success(&out, "makehyper -c 1");
        std::fs::read(d.join("h1.bd")).unwrap()
    };
    std::fs::write(d.join("x.bd.tmp"), &h1).unwrap();
    assert_refused(d, &["-c", "1", "-f", "x.bd"], "--force");
    assert_eq!(std::fs::read(d.join("x.bd.tmp")).unwrap(), h1);
    let restart = run_ours(d, &["-c", "1", "-f", "x.bd", "-r", "x.bd.tmp", "-q"]);
    assert_success(&restart, "restart from the checkpoint");
    std::fs::write(d.join("x.bd.tmp"), &h1).unwrap();
    let forced = run_ours(d, &["-c", "1", "-f", "x.bd", "--force", "-q"]);
    assert_success(&forced, "--force");
    assert!(!d.join("x.bd.tmp").exists());
}

/// Case 6: a second run on the same output is refused while the first runs.
#[test]
fn one_run_per_output() {
    let dir = tempdir();
    let d = dir.path();
    let first = test_support::Running::start(ours_in(d, &["-c", "2", "-f", "s.bd", "-q"]));
    let lock = d.join(".s.bd.lock");
    test_support::wait_until(
        Duration::from_secs(30),
        "the first run locks its output",
        || lock.exists(),
    );
    assert_refused(d, &["-c", "1", "-f", "s.bd"], "in use by another run");
    let first = first.finish(RUN_TIMEOUT);
    assert_success(&first, "the first run");
    assert_eq!(
        std::fs::metadata(d.join("s.bd")).unwrap().len() as usize,
        file_size(2)
    );
}

/// Case 14: a checkpoint that does not fit on the disk (here: a file size
/// limit) is a one-line error and leaves no partly written spare.
#[test]
fn a_full_disk_leaves_no_spare() {
    let dir = tempdir();
    let d = dir.path();
    let mut cmd = Command::new("sh");
    cmd.current_dir(d)
        .arg("-c")
        .arg(r#"trap "" XFSZ; ulimit -f 1024; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_makehyper"))
        .args(["-c", "2", "-f", "h.bd", "-q"]);
    let out = test_support::run_with_timeout(cmd, RUN_TIMEOUT);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}\n{}", describe(&out));
    assert!(line.contains("h.bd.tmp"), "{line}");
    assert_eq!(names(d), Vec::<String>::new(), "files left behind");
}
