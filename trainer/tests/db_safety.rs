//! The database commands never lose or misdescribe work
//! (docs/guarantees.md): an output named as another file's side file is
//! refused, shards labelled with other settings do not merge, a labelling
//! already done is not done again, every database written gets its own
//! provenance, and `db import` refuses what is not a `.dat` text.

mod common;

use common::{kill_9_when, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::side::SideKind;
use test_support::{
    assert_one_line_failure, describe, error_line_problems, gnubg_file, run_with_timeout, tempdir,
};

/// gnubg's bearoff databases as options (the weights are given apart).
const BEAROFF: [&str; 4] = ["--bearoff", OS0, "--bearoff", TS0];

/// `dir/name`, a database of the first `n` positions of the fixture
/// (gnubg's 0-ply evaluations of positions of every class), imported.
fn positions(dir: &Path, name: &str, n: usize) -> PathBuf {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gnubg_0ply_200.dat");
    let text: String = std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .take(n)
        .map(|l| format!("{l}\n"))
        .collect();
    let dat = dir.join(format!("{name}.dat"));
    std::fs::write(&dat, text).unwrap();
    let db = dir.join(name);
    ok(&["db", "import", s(&dat), "-o", s(&db)]);
    db
}

/// Runs `trainer args` in `dir` (300 s at most).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir);
    run_with_timeout(cmd, Duration::from_secs(300))
}

/// [`run_in`], which must succeed: its stdout and stderr.
fn ok_in(dir: &Path, args: &[&str]) -> (String, String) {
    let out = run_in(dir, args);
    assert!(out.status.success(), "trainer {args:?}\n{}", describe(&out));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr))
}

/// The regular files of `dir` and their bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Runs `trainer args` in `dir`: refused in one line holding every one of
/// `needles`, exit 2, every file of `dir` as it was.
fn refused_in(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let before = snapshot(dir);
    let out = run_in(dir, args);
    let what = format!("trainer {}", args.join(" "));
    assert_eq!(out.status.code(), Some(2), "{what}\n{}", describe(&out));
    assert!(out.stdout.is_empty(), "{what}\n{}", describe(&out));
    let (line, problems) = error_line_problems(&out);
    assert!(problems.is_empty(), "{what}: {problems:?}: {line}");
    assert!(line.starts_with("trainer: error: "), "{what}: {line}");
    for needle in needles {
        assert!(line.contains(needle), "{what}: {line:?} lacks {needle:?}");
    }
    assert!(
        snapshot(dir) == before,
        "{what} changed files in the directory"
    );
    line
}

/// The provenance record beside `file`.
fn provenance(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(trainer::provenance::path_for(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn md5(path: &Path) -> String {
    support::digest::md5_hex(std::fs::File::open(path).unwrap()).unwrap()
}

/// `db label eval DB --plies 2 --prune` with gnubg's weights, 2 positions
/// a journal block, one thread (slow enough to be killed while running).
const SLOW_LABEL: [&str; 14] = [
    "db",
    "label",
    "eval",
    "j.db",
    "--plies",
    "2",
    "--prune",
    "-q",
    "--chunk",
    "2",
    "--threads",
    "1",
    "--weights",
    GNUBG_WD,
];

/// The side files the support crate knows are the ones the trainer and
/// its tools write.
#[test]
fn side_files_are_the_ones_bgkit_writes() {
    let db = Path::new("dir/a.db");
    let kinds = [
        (SideKind::Journal, trainer::rollouts::job::journal_path(db)),
        (SideKind::Provenance, trainer::provenance::path_for(db)),
        (
            SideKind::Checkpoint,
            support::checkpoint::Checkpoint::path_for(db),
        ),
        (SideKind::Lock, support::lock::lock_path(db)),
        (SideKind::LabelMarker, trainer::pipeline::marker(db)),
    ];
    for (kind, path) in kinds {
        assert_eq!(kind.path_of(db), path, "{kind:?}");
    }
}

/// Fix 1: an output named as another file's journal, provenance,
/// checkpoint, lock or label marker is refused before any work, and the
/// interrupted labelling whose journal it would have replaced still
/// resumes.
#[test]
fn an_output_named_as_another_files_side_file_is_refused() {
    let dir = tempdir("bgkit-db-safety.");
    let d = dir.path();
    positions(d, "j.db", 40);
    positions(d, "a.db", 12);
    ok_in(d, &["new", "-o", "g.weights", "--hidden", "8"]);
    ok_in(d, &["new", "-o", "w.wd", "--hidden", "8"]);
    let mut cmd = Command::new(BIN);
    cmd.args(SLOW_LABEL).args(BEAROFF).current_dir(d);
    let journal = d.join("j.db.journal");
    let ready = || std::fs::metadata(&journal).is_ok_and(|m| m.len() > 600);
    kill_9_when(cmd, "the journal holds positions", ready, Duration::ZERO);
    let train = |out: &'static str| -> Vec<&'static str> {
        let mut a = vec!["train", "--db", "a.db", "--class", "race", "--epochs", "1"];
        a.extend(["--weights", "w.wd", "-o", out]);
        a
    };
    let cases: Vec<(Vec<&str>, [&str; 2])> = vec![
        (
            vec!["db", "merge", "a.db", "-o", "j.db.journal"],
            ["j.db.journal: is the journal of j.db", "--resume"],
        ),
        (
            vec!["weights", "convert", "g.weights", "-o", "g.weights.json"],
            ["g.weights.json: is the provenance of g.weights", "another"],
        ),
        (
            train("a.db.json"),
            ["a.db.json: is the provenance of a.db", "another"],
        ),
        (
            vec!["db", "export", "a.db", "-o", "w.wd.ckpt"],
            ["w.wd.ckpt: is the checkpoint of w.wd", "another"],
        ),
        (
            vec!["db", "candidates", "a.db", "-o", ".j.db.lock"],
            [".j.db.lock: is the lock file of j.db", "another"],
        ),
        (
            vec!["db", "split", "a.db", "-o", "j.db.labelled", "-o", "h.db"],
            ["j.db.labelled: is the label marker of j.db", "another"],
        ),
        // Of another output, not written yet.
        (
            vec!["db", "split", "a.db", "-o", "t.db", "-o", "t.db.journal"],
            ["t.db.journal: is the journal of t.db", "another"],
        ),
    ];
    for (args, needles) in &cases {
        refused_in(d, args, needles);
    }
    // The labelling resumes from its journal, which nothing replaced.
    let mut resume = SLOW_LABEL.to_vec();
    resume.push("--resume");
    resume.extend(BEAROFF);
    ok_in(d, &resume);
    assert!(!journal.exists());
    // Names that are nobody's side file are written.
    ok_in(d, &["db", "merge", "a.db", "-o", "k.db.journal"]);
}

/// Fix 2: shards labelled with other weights, plies or arithmetic are not
/// merged; shards of one labelling are, as the unsharded labelling; whole
/// labellings of different teachers (and race labels) still merge.
#[test]
fn shards_labelled_with_other_settings_are_not_merged() {
    let dir = tempdir("bgkit-db-safety.");
    let d = dir.path();
    positions(d, "u.db", 40);
    ok_in(
        d,
        &["new", "-o", "other.wd", "--hidden", "8", "--seed", "5"],
    );
    let label = |db: &str, extra: &[&str]| {
        std::fs::copy(d.join("u.db"), d.join(db)).unwrap();
        let mut a = vec!["db", "label", "eval", db, "-q", "--threads", "1"];
        a.extend(extra);
        if !extra.contains(&"--weights") {
            a.extend(["--weights", GNUBG_WD]);
        }
        a.extend(BEAROFF);
        ok_in(d, &a);
    };
    label("a1.db", &["--shard", "1/2", "--plies", "1"]);
    label("a2.db", &["--shard", "2/2", "--plies", "1"]);
    label("plies.db", &["--shard", "2/2", "--plies", "0"]);
    label(
        "ieee.db",
        &["--shard", "2/2", "--plies", "1", "--arithmetic", "ieee"],
    );
    let other = ["--shard", "2/2", "--plies", "1", "--weights", "other.wd"];
    label("weights.db", &other);
    for (db, why) in [
        ("plies.db", "at 0-ply"),
        ("ieee.db", "arithmetic ieee"),
        ("weights.db", "with other.wd"),
    ] {
        let merge = ["db", "merge", "a1.db", db, "-o", "m.db"];
        let needles = [
            "a1.db: shard 1/2 labelled at 1-ply",
            why,
            "different settings",
        ];
        refused_in(d, &merge, &needles);
    }
    // The shards of one labelling merge into the unsharded labelling.
    ok_in(d, &["db", "merge", "a1.db", "a2.db", "-o", "m.db"]);
    label("whole.db", &["--plies", "1"]);
    assert_eq!(
        std::fs::read(d.join("m.db")).unwrap(),
        std::fs::read(d.join("whole.db")).unwrap()
    );
    // Whole labellings with different teachers, and race labels, merge.
    label("zero.db", &["--plies", "0"]);
    std::fs::copy(d.join("u.db"), d.join("race.db")).unwrap();
    let race = ["db", "label", "race", "race.db", "--games", "12", "-q"];
    ok_in(d, &[&race[..], &BEAROFF].concat());
    ok_in(
        d,
        &[
            "db", "merge", "whole.db", "zero.db", "race.db", "-o", "t.db",
        ],
    );
    let stats = ok_in(d, &["db", "stats", "t.db"]).0;
    assert!(!stats.contains("labels:"), "no single stamp: {stats}");
    let stats = ok_in(d, &["db", "stats", "m.db"]).0;
    assert!(stats.contains("labels: all positions"), "{stats}");
}

/// Fix 3: labelling a database again with the settings it was labelled
/// with leaves it alone and says so; other settings label it again; the
/// merge of shards counts as labelled with their settings.
#[test]
fn labelling_again_with_the_same_settings_does_nothing() {
    let dir = tempdir("bgkit-db-safety.");
    let d = dir.path();
    positions(d, "x.db", 30);
    std::fs::copy(d.join("x.db"), d.join("c1.db")).unwrap();
    std::fs::copy(d.join("x.db"), d.join("c2.db")).unwrap();
    let label = |db: &str, extra: &[&str]| {
        let mut a = vec!["db", "label", "eval", db, "--weights", GNUBG_WD];
        a.extend(BEAROFF);
        a.extend(extra);
        ok_in(d, &a)
    };
    let (report, _) = label("x.db", &["--plies", "1", "-q"]);
    assert!(report.contains("30 positions labelled"), "{report}");
    let file = d.join("x.db");
    let (bytes, modified) = (
        std::fs::read(&file).unwrap(),
        std::fs::metadata(&file).unwrap().modified().unwrap(),
    );
    let record = std::fs::read(d.join("x.db.json")).unwrap();
    let (out, err) = label("x.db", &["--plies", "1"]);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("already labelled with these settings"),
        "{err}"
    );
    assert!(err.contains("nothing to do"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        modified
    );
    assert_eq!(std::fs::read(d.join("x.db.json")).unwrap(), record);
    let (_, quiet) = label("x.db", &["--plies", "1", "-q"]);
    assert!(quiet.is_empty(), "{quiet}");
    // Other settings label it again.
    let (report, _) = label("x.db", &["--plies", "0", "-q"]);
    assert!(report.contains("30 positions labelled"), "{report}");
    assert_ne!(std::fs::read(&file).unwrap(), bytes);
    // Shards labelled by hand, merged: labelled as one run labels.
    label("c1.db", &["--plies", "1", "--shard", "1/2", "-q"]);
    label("c2.db", &["--plies", "1", "--shard", "2/2", "-q"]);
    let (_, again) = label("c2.db", &["--plies", "1", "--shard", "2/2"]);
    assert!(
        again.contains("in shard 2/2 is already labelled"),
        "{again}"
    );
    ok_in(d, &["db", "merge", "c1.db", "c2.db", "-o", "m.db"]);
    assert_eq!(std::fs::read(d.join("m.db")).unwrap(), bytes);
    let merged = std::fs::read(d.join("m.db")).unwrap();
    let (out, err) = label("m.db", &["--plies", "1"]);
    assert!(
        out.is_empty() && err.contains("nothing to do"),
        "{out}{err}"
    );
    assert_eq!(std::fs::read(d.join("m.db")).unwrap(), merged);
}

/// Fix 4: `db merge` and `db split` record the databases they write; a
/// command writing a file without a record removes an older file's; a
/// resumed run records what an uninterrupted one does.
#[test]
fn every_database_written_gets_its_own_provenance() {
    let dir = tempdir("bgkit-db-safety.");
    let d = dir.path();
    positions(d, "st.db", 20);
    positions(d, "lab.db", 12);
    let st = d.join("st.db");
    assert!(provenance(&st)["settings"]["imported"].is_string());
    ok_in(d, &["db", "merge", "lab.db", "-o", "st.db"]);
    let record = provenance(&st);
    assert_eq!(record["md5"], md5(&st), "{record}");
    assert_eq!(record["settings"]["merged"], serde_json::json!(["lab.db"]));
    assert_eq!(record["settings"]["md5"][0], md5(&d.join("lab.db")));
    ok_in(d, &["db", "split", "st.db", "-o", "t.db", "-o", "h.db"]);
    for (part, name) in [("train", "t.db"), ("held", "h.db")] {
        let record = provenance(&d.join(name));
        assert_eq!(record["md5"], md5(&d.join(name)), "{record}");
        assert_eq!(record["settings"]["part"], part);
        assert_eq!(record["settings"]["md5"], md5(&st));
    }
    // An export has no record: an older file's goes, a user's stays.
    std::fs::copy(d.join("st.db.json"), d.join("e.dat.json")).unwrap();
    ok_in(d, &["db", "export", "st.db", "-o", "e.dat"]);
    assert!(!d.join("e.dat.json").exists(), "stale record removed");
    std::fs::write(d.join("u.npz.json"), "{\"mine\": true}\n").unwrap();
    ok_in(
        d,
        &["db", "export", "st.db", "-o", "u.npz", "--format", "npz"],
    );
    assert!(d.join("u.npz.json").exists(), "not bgkit's: kept");
    // A run killed then resumed records what an uninterrupted run does.
    let whole = tempdir("bgkit-db-safety.");
    for place in [d, whole.path()] {
        positions(place, "j.db", 40);
    }
    ok_in(whole.path(), &[&SLOW_LABEL[..], &BEAROFF].concat());
    let mut cmd = Command::new(BIN);
    cmd.args(SLOW_LABEL).args(BEAROFF).current_dir(d);
    let journal = d.join("j.db.journal");
    let ready = || std::fs::metadata(&journal).is_ok_and(|m| m.len() > 600);
    kill_9_when(cmd, "the journal holds positions", ready, Duration::ZERO);
    ok_in(d, &[&SLOW_LABEL[..], &["--resume"], &BEAROFF].concat());
    let read = |dir: &Path| std::fs::read(dir.join("j.db.json")).unwrap();
    assert_eq!(
        String::from_utf8(read(d)).unwrap(),
        String::from_utf8(read(whole.path())).unwrap()
    );
}

/// Fix 5: `db import` refuses a file that is not a `.dat` text at its
/// first bad line (at once, however large), and one without positions;
/// nothing is written.
#[test]
fn import_refuses_what_is_not_a_dat_file() {
    let dir = tempdir("bgkit-db-safety.");
    let d = dir.path();
    let start = "OAHDPAABDAOAHDPAABDA 0.52151 0.15391 0.00756 0.12985 0.00755\n";
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        (
            "hello.dat",
            b"hello\n".to_vec(),
            &["line 1", "\"hello\" is not a data line"],
        ),
        ("nul.dat", vec![0; 1 << 20], &["line 1", "NUL byte"]),
        (
            "late.dat",
            format!("{start}# fine\n{start}\x01binary\n").into_bytes(),
            &["line 4", "not a data line"],
        ),
        (
            "latin1.dat",
            [start.as_bytes(), b"# caf\xe9\n"].concat(),
            &["line 2", "not UTF-8"],
        ),
        (
            "comments.dat",
            b"# a comment\n\n   \n# another\n".to_vec(),
            &["no positions"],
        ),
        ("empty.dat", Vec::new(), &["no positions"]),
    ];
    let out = d.join("h.db");
    for (name, bytes, needles) in &cases {
        let dat = d.join(name);
        std::fs::write(&dat, bytes).unwrap();
        for needle in *needles {
            assert_one_line_failure(
                BIN,
                "trainer",
                &["db", "import", s(&dat), "-o", s(&out)],
                needle,
            );
        }
        assert!(!out.exists(), "{name}: nothing written");
        assert!(!d.join("h.db.json").exists());
    }
    // A gigabyte of NUL bytes (sparse) is refused at its first line.
    let huge = d.join("huge.dat");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let started = Instant::now();
    assert_one_line_failure(
        BIN,
        "trainer",
        &["db", "import", s(&huge), "-o", s(&out)],
        "line 1: a NUL byte",
    );
    assert!(started.elapsed() < Duration::from_secs(10), "read whole?");
    assert!(!out.exists());
}
