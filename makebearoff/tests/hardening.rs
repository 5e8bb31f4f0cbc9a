//! Hostile and careless use (docs/guarantees.md): special files are never
//! replaced, damaged inputs are never copied into an output, one run per
//! output, stderr that cannot be written never aborts a run.

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `args` in `dir`, asserting exit status 2 and one error line.
fn assert_refused(dir: &Path, args: &[&str], needle: &str) {
    let out = run_ours(dir, args);
    let what = format!("makebearoff {}", args.join(" "));
    assert_eq!(out.status.code(), Some(2), "{what}\n{}", describe(&out));
    let line = assert_one_line_error(&out, &what);
    assert!(line.contains(needle), "{what}: {line}");
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(ok.success(), "mkfifo {}", path.display());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Case 3: a FIFO (or a device) as the output is refused before any work and
/// stays what it was.
#[test]
fn special_files_are_never_replaced() {
    let dir = tempdir();
    let fifo = dir.path().join("fifo.bd");
    mkfifo(&fifo);
    assert_refused(
        dir.path(),
        &["-o", "2", "-f", "fifo.bd"],
        "not a regular file",
    );
    assert!(is_fifo(&fifo), "the FIFO was replaced");
    std::os::unix::fs::symlink(&fifo, dir.path().join("link.bd")).unwrap();
    assert_refused(
        dir.path(),
        &["-o", "2", "-f", "link.bd"],
        "not a regular file",
    );
    assert!(is_fifo(&fifo));
    assert_eq!(listing(dir.path()).len(), 2, "{:?}", listing(dir.path()));
}

/// A symbolic link to a regular file is written through, like gnubg's
/// fopen: the link stays a link.
#[test]
fn a_link_to_a_regular_file_is_written_through() {
    let dir = tempdir();
    std::fs::write(dir.path().join("real.bd"), b"old").unwrap();
    std::os::unix::fs::symlink("real.bd", dir.path().join("link.bd")).unwrap();
    let out = run_ours(dir.path(), &["-o", "2", "-f", "link.bd", "-q"]);
    assert_success(&out, "makebearoff -o 2 -f link.bd");
    assert!(std::fs::symlink_metadata(dir.path().join("link.bd"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        md5_file(&dir.path().join("real.bd")),
        published_one_sided(2)
    );
}

/// Case 12: a symbolic link planted at the checkpoint name is refused, and
/// the file it points to is untouched.
#[test]
fn a_link_at_the_checkpoint_name_is_not_followed() {
    let dir = tempdir();
    std::fs::write(dir.path().join("precious"), b"precious").unwrap();
    std::os::unix::fs::symlink("precious", dir.path().join("x.bd.ckpt")).unwrap();
    assert_refused(dir.path(), &["-o", "2", "-f", "x.bd"], "symbolic link");
    std::os::unix::fs::symlink("missing", dir.path().join("y.bd.ckpt")).unwrap();
    assert_refused(dir.path(), &["-o", "2", "-f", "y.bd"], "symbolic link");
    assert_eq!(
        std::fs::read(dir.path().join("precious")).unwrap(),
        b"precious"
    );
    assert!(!dir.path().join("missing").exists());
}

/// The one-sided 6-point database with one value moved by one unit inside
/// a distribution of record `id`: every structural check still passes.
fn subtly_damaged_os6(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("os6.bd");
    let out = run_ours(dir, &["-o", "6", "-f", "os6.bd", "-q"]);
    assert_success(&out, "makebearoff -o 6");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = 54264;
    let id = 1000;
    let entry = 40 + 8 * id;
    let offset = u32::from_le_bytes(bytes[entry..entry + 4].try_into().unwrap()) as usize;
    let nz = usize::from(bytes[entry + 4]);
    assert!(nz >= 2);
    let at = 40 + 8 * n + 2 * offset;
    let v0 = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let v1 = u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]);
    assert!(v0 > 0 && v1 < u16::MAX);
    bytes[at..at + 2].copy_from_slice(&(v0 - 1).to_le_bytes());
    bytes[at + 2..at + 4].copy_from_slice(&(v1 + 1).to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Case 5: a damaged old database is refused; a database that fails
/// `--verify` is never left under the final name.
#[test]
fn damaged_old_databases_are_not_reused() {
    let dir = tempdir();
    let good = run_ours(dir.path(), &["-o", "5", "-f", "os5.bd", "-q"]);
    assert_success(&good, "makebearoff -o 5");
    let mut bytes = std::fs::read(dir.path().join("os5.bd")).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x5A;
    std::fs::write(dir.path().join("flipped.bd"), &bytes).unwrap();
    assert_refused(
        dir.path(),
        &["-o", "6", "-O", "flipped.bd", "-f", "o.bd"],
        "damaged",
    );
    let ts = run_ours(dir.path(), &["-t", "6x4", "-f", "ts.bd", "-q"]);
    assert_success(&ts, "makebearoff -t 6x4");
    let mut bytes = std::fs::read(dir.path().join("ts.bd")).unwrap();
    for b in &mut bytes[40..] {
        *b = 0;
    }
    std::fs::write(dir.path().join("zero.bd"), &bytes).unwrap();
    assert_refused(
        dir.path(),
        &["-t", "6x5", "-O", "zero.bd", "-f", "o.bd"],
        "damaged",
    );
    assert!(!dir.path().join("o.bd").exists());

    // A change no structural check can see: --verify catches it, exit 1,
    // and the file does not appear.
    subtly_damaged_os6(dir.path());
    let out = run_ours(
        dir.path(),
        &["-o", "7", "-O", "os6.bd", "-f", "o7.bd", "--verify", "-q"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does NOT match"));
    assert!(
        !dir.path().join("o7.bd").exists(),
        "a failed --verify left its file"
    );
}

/// Case 6: a second run on the same output is refused while the first runs;
/// the first one's result is intact.
#[test]
fn one_run_per_output() {
    let dir = tempdir();
    let first = Running::start({
        let mut cmd = ours();
        cmd.current_dir(dir.path())
            .args(["-t", "6x9", "-f", "s.bd", "-q"]);
        cmd
    });
    let lock = dir.path().join(".s.bd.lock");
    test_support::wait_until(
        Duration::from_secs(30),
        "the first run locks its output",
        || lock.exists(),
    );
    let second = run_ours(dir.path(), &["-t", "6x7", "-f", "s.bd"]);
    let first = first.finish(RUN_TIMEOUT);
    assert_success(&first, "the first run");
    assert_eq!(second.status.code(), Some(2), "{}", describe(&second));
    let line = assert_one_line_error(&second, "the second run");
    assert!(line.contains("in use by another run"), "{line}");
    let kind = databases::Database::open(&dir.path().join("s.bd"))
        .unwrap()
        .kind();
    let expected = databases::Kind::TwoSided {
        points: 6,
        chequers: 9,
        cubeful: true,
    };
    assert_eq!(
        kind, expected,
        "the second run changed the first one's output"
    );
    assert!(!lock.exists(), "the lock file is removed at the end");
}

/// Case 2: a stderr nobody reads (closed pipe) never aborts the run.
#[test]
fn an_unwritable_stderr_does_not_abort() {
    let dir = tempdir();
    let status = ours()
        .current_dir(dir.path())
        .args(["-o", "4", "-f", "x.bd"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(test_support::pipe_without_reader())
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(md5_file(&dir.path().join("x.bd")), published_one_sided(4));
}

/// Case 11: an existing output that cannot be replaced (immutable) is found
/// before the work, and nothing is left behind.
#[test]
fn an_immutable_output_is_found_before_the_work() {
    let dir = tempdir();
    let out = dir.path().join("x.bd");
    std::fs::write(&out, b"keep").unwrap();
    let chattr = |flag: &str| Command::new("chattr").arg(flag).arg(&out).output();
    match chattr("+i") {
        Ok(o) if o.status.success() => {}
        other => {
            eprintln!("SKIPPED: chattr +i is not available here ({other:?})");
            return;
        }
    }
    let result = run_ours(dir.path(), &["-o", "4", "-f", "x.bd"]);
    chattr("-i").unwrap();
    assert_eq!(result.status.code(), Some(2), "{}", describe(&result));
    assert_one_line_error(&result, "immutable output");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    assert_eq!(listing(dir.path()).len(), 1, "{:?}", listing(dir.path()));
}
