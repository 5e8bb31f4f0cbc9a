//! What the trainer's commands read and write (docs/guarantees.md): an
//! output that is an input (by any name) or another output is refused,
//! every writer takes its output's lock, only regular files are read (at
//! once: a FIFO never blocks), a weights file's provenance is its own, and
//! the messages about files name them.

mod common;

use common::{ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use test_support::{
    describe, error_line_problems, gnubg_file, run_with_timeout, tempdir, wait_until, Running,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A directory with `a.dat` (20 positions), `a.db` (imported from it),
/// `w.wd` (small random nets), `c.csv` (a learning curve), `link.db` (a
/// symbolic link to `a.db`) and `hard.db` (a hard link to it).
fn setup() -> tempfile::TempDir {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    let dir = tempdir("bgkit-files.");
    let d = dir.path();
    let text: String = std::fs::read_to_string(fixture("gnubg_0ply_200.dat"))
        .unwrap()
        .lines()
        .take(20)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("a.dat"), text).unwrap();
    let (dat, db, w) = (d.join("a.dat"), d.join("a.db"), d.join("w.wd"));
    ok(&["db", "import", s(&dat), "-o", s(&db)]);
    ok(&["new", "-o", s(&w), "--hidden", "8"]);
    std::fs::write(
        d.join("c.csv"),
        format!(
            "{}\n0,1.00000,0.858299,2.433932\n",
            trainer::supervised::curve::TRAIN_HEADER
        ),
    )
    .unwrap();
    std::os::unix::fs::symlink("a.db", d.join("link.db")).unwrap();
    std::fs::hard_link(&db, d.join("hard.db")).unwrap();
    dir
}

/// Every entry of `dir` and what it holds (a file's bytes, a link's
/// target), without reading anything but regular files.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let content = if meta.is_file() {
                std::fs::read(e.path()).unwrap()
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(e.path()).unwrap();
                format!("-> {}", target.display()).into_bytes()
            } else {
                b"(special)".to_vec()
            };
            (e.file_name().to_string_lossy().into_owned(), content)
        })
        .collect()
}

/// Runs `trainer args` in `dir` (60 s at most).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir);
    run_with_timeout(cmd, Duration::from_secs(60))
}

/// Runs `trainer args` in `dir` and asserts it is refused with one line
/// holding `needle`, exit 2, and that nothing in `dir` changed.
fn refused_in(dir: &Path, args: &[&str], needle: &str) -> String {
    let before = snapshot(dir);
    let out = run_in(dir, args);
    let what = format!("trainer {}", args.join(" "));
    assert_eq!(out.status.code(), Some(2), "{what}\n{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{what}: {problems:?}: {line}");
    assert!(line.starts_with("trainer: error: "), "{what}: {line}");
    assert!(line.contains(needle), "{what}: {line:?} lacks {needle:?}");
    assert!(
        snapshot(dir) == before,
        "{what} changed files in the directory"
    );
    line
}

/// Item 2: a command never writes over one of its inputs, however the
/// output names it (`./`, a symbolic or hard link), nor two outputs over
/// one another.
#[test]
fn an_output_that_is_an_input_or_another_output_is_refused() {
    let dir = setup();
    let d = dir.path();
    std::fs::copy(d.join("w.wd"), d.join("v.wd")).unwrap();
    std::fs::copy(d.join("w.wd"), d.join("x.json")).unwrap();
    std::fs::write(d.join("c.svg"), std::fs::read(d.join("c.csv")).unwrap()).unwrap();
    let input = "refusing to overwrite an input";
    let cases: &[(&[&str], &str)] = &[
        (&["db", "export", "a.db", "-o", "a.db"], input),
        (
            &["db", "export", "a.db", "-o", "./a.db", "--format", "npz"],
            input,
        ),
        (&["db", "candidates", "a.db", "-o", "link.db"], input),
        (&["db", "import", "a.dat", "-o", "a.dat"], input),
        (&["db", "merge", "a.db", "-o", "hard.db"], input),
        (
            &[
                "db",
                "generate",
                "--weights",
                "w.wd",
                "--games",
                "1",
                "-o",
                "w.wd",
            ],
            input,
        ),
        (&["db", "split", "a.db", "-o", "a.db", "-o", "a.db"], input),
        (
            &["db", "split", "a.db", "-o", "h.db", "-o", "./h.db"],
            "are the same file",
        ),
        // TRAIN writing over its database.
        (&[&TRAIN[..10], &["a.db"]].concat(), input),
        (&["weights", "convert", "w.wd", "-o", "./w.wd"], input),
        (
            &[
                "weights", "splice", "--from", "w.wd", "--net", "race", "--into", "v.wd", "-o",
                "v.wd",
            ],
            input,
        ),
        (
            &[
                "td",
                "--weights",
                "w.wd",
                "--games",
                "1",
                "-o",
                "sub/../w.wd",
            ],
            input,
        ),
        (&["plot", "c.svg", "-o", "c.svg"], input),
        // The provenance written beside an output is checked too.
        (
            &["weights", "convert", "x.json", "-o", "x"],
            "written beside",
        ),
    ];
    std::fs::create_dir(d.join("sub")).unwrap();
    for (args, needle) in cases {
        refused_in(d, args, needle);
    }
}

/// A short TD run from `w.wd` to `o.wd`.
const TD: [&str; 7] = ["td", "--weights", "w.wd", "--games", "1", "-o", "o.wd"];

/// A short supervised run on the races of `a.db` from `w.wd` to `o.wd`.
const TRAIN: [&str; 11] = [
    "train",
    "--db",
    "a.db",
    "--class",
    "race",
    "--epochs",
    "1",
    "--weights",
    "w.wd",
    "-o",
    "o.wd",
];

/// Item 8: while a run holds an output (its lock), every command writing
/// that output is refused at once, by the output's name or a link's.
#[test]
fn every_writer_takes_the_outputs_lock() {
    let dir = setup();
    let d = dir.path();
    std::fs::write(d.join("o.db"), b"kept").unwrap();
    std::os::unix::fs::symlink("o.db", d.join("to-o.db")).unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("o.wd", &["new", "-o", "o.wd"]),
        ("o.wd", &["weights", "convert", "w.wd", "-o", "o.wd"]),
        (
            "o.wd",
            &[
                "weights", "splice", "--from", "w.wd", "--net", "race", "--into", "w.wd", "-o",
                "o.wd",
            ],
        ),
        ("o.wd", &TD),
        ("o.wd", &TRAIN),
        ("o.png", &["plot", "c.csv", "-o", "o.png"]),
        ("o.db", &["db", "import", "a.dat", "-o", "o.db"]),
        ("o.db", &["db", "export", "a.db", "-o", "o.db"]),
        (
            "o.db",
            &["db", "export", "a.db", "-o", "o.db", "--format", "npz"],
        ),
        ("o.db", &["db", "merge", "a.db", "-o", "to-o.db"]),
        ("o.db", &["db", "split", "a.db", "-o", "t.db", "-o", "o.db"]),
        (
            "o.db",
            &[
                "db",
                "generate",
                "--weights",
                "w.wd",
                "--games",
                "1",
                "-o",
                "o.db",
            ],
        ),
        ("o.db", &["db", "candidates", "a.db", "-o", "o.db"]),
        ("a.db", &["db", "rollout", "a.db", "--trials", "1", "-q"]),
        ("a.db", &["db", "label", "race", "a.db", "-q"]),
    ];
    for (held, args) in cases {
        let lock = support::lock::OutputLock::acquire(&d.join(held)).unwrap();
        refused_in(d, args, "in use by another run");
        drop(lock);
    }
}

/// Items 10 and 11: FIFOs, devices and directories given as inputs are
/// refused at once, never read (no memory filled, no open blocking the
/// tool and its signals).
#[test]
fn special_files_as_inputs_are_refused_at_once() {
    let dir = setup();
    let d = dir.path();
    let made = Command::new("mkfifo").arg(d.join("f")).status().unwrap();
    assert!(made.success(), "mkfifo");
    std::fs::create_dir(d.join("dir")).unwrap();
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for special in ["f", "/dev/zero", "dir"] {
        cases.extend([
            vec!["plot", special, "-o", "x.png"],
            vec!["plot", "c.csv", "--font", special, "-o", "x.png"],
            vec!["bench", "--db", special],
            vec!["bench", "--moves", special],
            vec!["db", "import", special, "-o", "x.db"],
            vec!["db", "stats", special],
            vec!["db", "dump", special],
            vec!["db", "export", special, "-o", "x.dat"],
            vec!["db", "merge", special, "-o", "x.db"],
            vec!["db", "split", special, "-o", "x.db", "-o", "y.db"],
            vec!["db", "candidates", special, "-o", "x.db"],
            vec![
                "train", "--db", special, "--class", "race", "--epochs", "1", "-o", "x.wd",
            ],
            vec!["weights", "info", special],
            vec!["td", "--weights", special, "--games", "1", "-o", "x.wd"],
        ]);
    }
    for args in &cases {
        let start = Instant::now();
        refused_in(d, args, "not a regular file");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{args:?} took {:?}",
            start.elapsed()
        );
    }
}

/// The provenance record beside `weights`.
fn provenance(weights: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(trainer::provenance::path_for(weights)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn md5(path: &Path) -> String {
    support::digest::md5_hex(std::fs::File::open(path).unwrap()).unwrap()
}

/// Item 6: every command writing weights writes their provenance, and a
/// provenance file left by an older file of the same name is not believed.
#[test]
fn every_weights_file_gets_its_own_provenance() {
    let dir = setup();
    let d = dir.path();
    let (w, t, x) = (d.join("w.wd"), d.join("t.wd"), d.join("x.wd"));
    let td = |from: &Path, to: &Path| {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "td",
            "-q",
            "--games",
            "2",
            "--weights",
            s(from),
            "-o",
            s(to),
        ]);
        run_with_timeout(cmd, Duration::from_secs(300))
    };
    let trained = td(&w, &t);
    assert!(trained.status.success(), "{}", describe(&trained));
    let counts = provenance(&t)["n_trained"].clone();
    assert!(counts["contact"].as_u64().unwrap() > 0, "{counts}");
    assert_eq!(provenance(&t)["md5"], md5(&t));
    // x.wd and its record come from a training run; then x.wd is replaced.
    std::fs::copy(&t, &x).unwrap();
    std::fs::copy(
        trainer::provenance::path_for(&t),
        trainer::provenance::path_for(&x),
    )
    .unwrap();
    ok(&["weights", "convert", s(&w), "-o", s(&x)]);
    let record = provenance(&x);
    assert_eq!(record["md5"], md5(&x), "convert rewrote the record");
    assert_eq!(
        record["n_trained"]["contact"], 0,
        "w.wd's counts, not t.wd's"
    );
    assert_eq!(record["parent"]["md5"], md5(&w));
    // Converting keeps the nets, so their counts go on; splicing takes each
    // net's count from the file it comes from.
    let text = d.join("t.weights");
    ok(&["weights", "convert", s(&t), "-o", s(&text)]);
    assert_eq!(provenance(&text)["n_trained"], counts);
    let spliced = d.join("s.wd");
    ok(&[
        "weights",
        "splice",
        "--from",
        s(&t),
        "--net",
        "race",
        "--into",
        s(&w),
        "-o",
        s(&spliced),
    ]);
    let record = provenance(&spliced);
    assert_eq!(record["md5"], md5(&spliced));
    assert_eq!(record["n_trained"]["race"], counts["race"]);
    assert_eq!(record["n_trained"]["contact"], 0);
    // A file replaced by another program keeps a record of the old one:
    // readers check its MD5 and ignore it.
    std::fs::copy(
        trainer::provenance::path_for(&t),
        trainer::provenance::path_for(&x),
    )
    .unwrap();
    let info = ok(&["weights", "info", s(&x)]);
    assert!(info.contains("records another file"), "{info}");
    // x.wd holds w.wd's nets: training it counts from 0 as t.wd's run did
    // (continuing t.wd's counts would double them).
    assert_eq!(std::fs::read(&x).unwrap(), std::fs::read(&w).unwrap());
    let again = td(&x, &d.join("y.wd"));
    assert!(again.status.success(), "{}", describe(&again));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("training counts start at 0"), "{stderr}");
    assert_eq!(provenance(&d.join("y.wd"))["n_trained"], counts);
}

/// Item 15: messages about files name the file and the problem, once.
#[test]
fn messages_name_the_file_and_the_problem() {
    let dir = setup();
    let d = dir.path();
    // A bad byte on line 3 of a text weights file is on line 3.
    ok(&[
        "weights",
        "convert",
        s(&d.join("w.wd")),
        "-o",
        s(&d.join("w.weights")),
    ]);
    let mut text = std::fs::read(d.join("w.weights")).unwrap();
    let third = 1 + text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .unwrap()
        .0;
    text.insert(third, 0xff);
    std::fs::write(d.join("bad.weights"), text).unwrap();
    refused_in(d, &["weights", "info", "bad.weights"], "line 3 is not text");
    // A symbolic link at the lock's name is named, not taken for a run.
    std::os::unix::fs::symlink("elsewhere", d.join(".o.wd.lock")).unwrap();
    let line = refused_in(d, &["new", "-o", "o.wd"], ".o.wd.lock");
    assert!(line.contains("symbolic link"), "{line}");
    assert!(!d.join("elsewhere").exists());
    std::fs::remove_file(d.join(".o.wd.lock")).unwrap();
    // A symbolic link at the checkpoint's spare name is named.
    std::os::unix::fs::symlink("precious", d.join(".o.wd.ckpt.spare0.tmp")).unwrap();
    std::fs::write(d.join("precious"), b"precious").unwrap();
    let out = run_in(
        d,
        &[
            "td",
            "-q",
            "--weights",
            "w.wd",
            "--games",
            "2",
            "--checkpoint-every",
            "1",
            "-o",
            "o.wd",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}: {line}");
    assert!(line.contains(".o.wd.ckpt.spare0.tmp"), "{line}");
    assert!(line.contains("symbolic link"), "{line}");
    assert_eq!(std::fs::read(d.join("precious")).unwrap(), b"precious");
    // A full disk (here: the file size limit) while saving a checkpoint
    // names the checkpoint.
    let td = format!(
        "trap '' XFSZ; ulimit -f 16; exec {BIN} td -q --weights w.wd --games 2 \
         --checkpoint-every 1 -o full.wd"
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &td]).current_dir(d);
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{problems:?}: {line}");
    assert!(line.contains("full.wd.ckpt: "), "{line}");
    assert!(!d.join(".full.wd.ckpt.spare0.tmp").exists(), "spare left");
    // A file that is neither a position database nor a .dat file.
    std::fs::write(d.join("junk.db"), [0xffu8, 0, 1, 2, 0xfe]).unwrap();
    refused_in(d, &["bench", "--db", "junk.db"], "not a position database");
}

/// Item 15: a damaged journal block and all after it are dropped (and
/// their positions computed again), and the run says so.
#[test]
fn dropping_journal_blocks_after_a_damaged_one_is_reported() {
    use support::checkpoint::BLOCK_OVERHEAD;
    use trainer::rollouts::job::{ENTRY_LEN, HEAD_LEN};
    let dir = setup();
    let d = dir.path();
    let evaluator = ["--weights", GNUBG_WD, "--bearoff", OS0, "--bearoff", TS0];
    let mut cmd = Command::new(BIN);
    // Enough trials that the run is still going when it is killed.
    let trials = ["--trials", "432"];
    cmd.args(["db", "rollout", "a.db", "--chunk", "1", "-q"])
        .args(trials)
        .args(evaluator)
        .current_dir(d);
    let journal = d.join("a.db.journal");
    // Chunks of one position: a block each.
    let block = BLOCK_OVERHEAD + ENTRY_LEN;
    let run = Running::start(cmd);
    wait_until(Duration::from_secs(120), "four journal blocks", || {
        std::fs::metadata(&journal).is_ok_and(|m| m.len() as usize >= HEAD_LEN + 4 * block)
    });
    Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status()
        .unwrap();
    let out = run.finish(Duration::from_secs(30));
    assert!(!out.status.success(), "finished before the kill");
    let mut bytes = std::fs::read(&journal).unwrap();
    // A byte of the second block's record.
    bytes[HEAD_LEN + block + 16 + 20] ^= 0x55;
    let dropped = bytes.len() - HEAD_LEN - block;
    std::fs::write(&journal, bytes).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.args(["db", "rollout", "a.db", "--resume", "-q"])
        .args(trials)
        .args(evaluator)
        .current_dir(d);
    let out = run_with_timeout(cmd, Duration::from_secs(300));
    assert!(out.status.success(), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!("block 1 is damaged; it and all after it ({dropped} bytes) are dropped");
    assert!(stderr.contains(&expected), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(", 1 from the journal"), "{stdout}");
}

/// A journal or checkpoint written before they became support
/// checkpoints is refused by name (one line, exit 2), and nothing is
/// written.
#[test]
fn journals_and_checkpoints_of_older_formats_are_refused() {
    let dir = setup();
    let d = dir.path();
    // A rollout journal of format 2: header lines, then one entry (index,
    // record, CRC-32).
    let mut journal = format!(
        "bgkit rollout journal 2\n{}\n{}\n",
        "0".repeat(32),
        "1".repeat(32)
    )
    .into_bytes();
    journal.extend([0u8; 76]);
    std::fs::write(d.join("a.db.journal"), &journal).unwrap();
    let evaluator = ["--weights", GNUBG_WD, "--bearoff", OS0, "--bearoff", TS0];
    let mut rollout = vec!["db", "rollout", "a.db", "--resume", "-q"];
    rollout.extend(evaluator);
    let older = "a.db.journal: it was written by an older bgkit (bgkit rollout journal 2)";
    refused_in(d, &rollout, older);
    let label = ["db", "label", "race", "a.db", "--resume", "-q"];
    refused_in(d, &[&label[..], &evaluator[2..]].concat(), older);
    // TD and supervised checkpoints of format 2: a line, then JSON.
    for (args, kind) in [(&TD[..], "td"), (&TRAIN[..], "train")] {
        let magic = format!("bgkit {kind} checkpoint 2");
        std::fs::write(d.join("o.wd.ckpt"), format!("{magic}\n{{}}\n")).unwrap();
        let args = [args, &["--resume", "-q"]].concat();
        let needle = format!(
            "o.wd.ckpt: it was written by another version of the trainer ({magic}); remove it"
        );
        refused_in(d, &args, &needle);
    }
}
