//! Differential tests against gnubg 1.07's makehyper (the reference), and
//! the checkpoint, kill and restart tests.
//!
//! gnubg's 1-chequer database is made live; its 2-chequer run (about 50 s
//! of one core) was made once and every 41st record is kept as a fixture
//! (`fixtures/README.md`); gnubg still runs live on our 2-chequer file
//! (one sweep: it must find it converged). The tests share one binary and
//! our uninterrupted 2-chequer database is made once and shared.
//!
//! Hypergammon files are not byte-reproducible (gnubg's own builds differ,
//! see the reference README), so databases are compared value by value:
//! all nine values of every record within 1e-4.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Largest difference allowed between two converged databases.
const TOLERANCE: f64 = 1e-4;

/// gnubg's and our default convergence threshold.
const THRESHOLD: f64 = 1e-5;

/// Our uninterrupted 2-chequer run with default options.
struct Reference {
    bytes: Vec<u8>,
    sweeps: Vec<Sweep>,
}

static OURS_TWO: OnceLock<Reference> = OnceLock::new();

fn ours_two() -> &'static Reference {
    OURS_TWO.get_or_init(|| {
        let dir = tempdir();
        let out = run_ours(dir.path(), &["-c", "2", "-f", "ref.bd"]);
        assert_success(&out, "makehyper -c 2 -f ref.bd");
        assert_eq!(
            names(dir.path()),
            ["ref.bd"],
            "a converged run must leave only its output (checkpoint removed)"
        );
        assert_consistent(&dir.path().join("ref.bd"));
        Reference {
            bytes: std::fs::read(dir.path().join("ref.bd")).expect("output written"),
            sweeps: reported_sweeps(&out),
        }
    })
}

/// Asserts every record passes the structural checks of `bearoff verify`
/// (illegal pairs hold gnubg's filler, finished games their exact values,
/// win >= win gammon >= win backgammon, ...).
fn assert_consistent(path: &Path) {
    let db = databases::Database::open(path)
        .unwrap_or_else(|e| panic!("{} does not open as a database: {e}", path.display()));
    if let Some(bad) = databases::verify::first_bad_record(&db, &|_| {}) {
        panic!(
            "{}: record {} breaks an invariant: {}",
            path.display(),
            bad.index,
            bad.problem
        );
    }
}

fn gnubg_in(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = gnubg();
    cmd.current_dir(dir).args(args);
    cmd
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
}

#[test]
fn one_chequer_matches_gnubg_and_each_reads_the_others_file() {
    let dir = tempdir();
    let d = dir.path();
    let g = run_with_timeout(gnubg_in(d, &["-c", "1", "-f", "g1.bd"]), GNUBG_TIMEOUT);
    assert_success(&g, "gnubg's makehyper -c 1");
    let o = run_ours(d, &["-c", "1", "-f", "o1.bd"]);
    assert_success(&o, "makehyper -c 1");
    assert_stopped_at_threshold(&reported_sweeps(&o), THRESHOLD, "makehyper -c 1");
    assert_eq!(names(d), ["g1.bd", "o1.bd"], "files left behind");
    assert_consistent(&d.join("g1.bd"));
    assert_consistent(&d.join("o1.bd"));
    let (gb, ob) = (read(d, "g1.bd"), read(d, "o1.bd"));
    assert_close(("bgkit", &ob), ("gnubg", &gb), 1, TOLERANCE);

    // gnubg restarts from our file and finds it converged: its first sweep
    // changes nothing by more than the tolerance (from the start guess it
    // would change values by more than 4).
    let gr = run_with_timeout(
        gnubg_in(d, &["-c", "1", "-r", "o1.bd", "-f", "gr1.bd"]),
        GNUBG_TIMEOUT,
    );
    assert_success(&gr, "gnubg's makehyper -c 1 -r o1.bd");
    let norms = gnubg_norms(&gr);
    assert!(
        !norms.is_empty() && norms[0] < TOLERANCE,
        "gnubg restarted from our file should start converged, norms {norms:?}\n{}",
        describe(&gr)
    );
    assert_close(
        ("gnubg -r bgkit", &read(d, "gr1.bd")),
        ("bgkit", &ob),
        1,
        TOLERANCE,
    );

    // And we restart from gnubg's file.
    let or = run_ours(d, &["-c", "1", "-r", "g1.bd", "-f", "or1.bd"]);
    assert_success(&or, "makehyper -c 1 -r g1.bd");
    let s = reported_sweeps(&or);
    assert!(
        s[0].norm < TOLERANCE,
        "restarted from gnubg's converged file, the first sweep should change little: {s:?}"
    );
    assert_close(
        ("bgkit -r gnubg", &read(d, "or1.bd")),
        ("gnubg", &gb),
        1,
        TOLERANCE,
    );
}

/// Every 41st record of gnubg 1.07's `makehyper -c 2` database (records
/// 0, 41, 82, ...) after its 40-byte header: `fixtures/README.md`.
const GNUBG_TWO_SAMPLE: &[u8] = include_bytes!("fixtures/gnubg-h2-every41.bd");

/// Records between two records of [`GNUBG_TWO_SAMPLE`].
const SAMPLE_STRIDE: usize = 41;

#[test]
fn two_chequers_match_gnubg() {
    let dir = tempdir();
    let d = dir.path();
    let reference = ours_two();
    assert_stopped_at_threshold(&reference.sweeps, THRESHOLD, "makehyper -c 2");
    let records = side_positions(2).pow(2);
    let sampled = records.div_ceil(SAMPLE_STRIDE);
    assert_eq!(
        GNUBG_TWO_SAMPLE.len(),
        HEADER_LEN + RECORD_LEN * sampled,
        "the fixture holds every {SAMPLE_STRIDE}th record"
    );
    assert_eq!(
        GNUBG_TWO_SAMPLE[..HEADER_LEN],
        reference.bytes[..HEADER_LEN],
        "headers"
    );
    let mut worst = [(0.0f64, 0usize); 9];
    for j in 0..sampled {
        let i = j * SAMPLE_STRIDE;
        let (ours, gnubg) = (
            record_values(&reference.bytes, i),
            record_values(GNUBG_TWO_SAMPLE, j),
        );
        for k in 0..9 {
            let diff = (ours[k] - gnubg[k]).abs();
            if diff > worst[k].0 {
                worst[k] = (diff, i);
            }
        }
    }
    let report: Vec<String> = worst
        .iter()
        .zip(FIELDS)
        .map(|((diff, i), field)| format!("  {field:<22} max |diff| {diff:.3e} at record {i}"))
        .collect();
    assert!(
        worst.iter().all(|(diff, _)| *diff <= TOLERANCE),
        "bgkit vs gnubg's sample: a value more than {TOLERANCE:e} apart\n{}",
        report.join("\n")
    );
    eprintln!(
        "bgkit vs gnubg: {sampled} of {records} records, all within {TOLERANCE:e}\n{}",
        report.join("\n")
    );

    // gnubg accepts our file as a restart and finds it converged.
    std::fs::write(d.join("o2.bd"), &reference.bytes).unwrap();
    let gr = run_with_timeout(
        gnubg_in(d, &["-c", "2", "-r", "o2.bd", "-f", "gr2.bd"]),
        GNUBG_TIMEOUT,
    );
    assert_success(&gr, "gnubg's makehyper -c 2 -r o2.bd");
    let norms = gnubg_norms(&gr);
    assert!(
        !norms.is_empty() && norms[0] < TOLERANCE,
        "gnubg restarted from our file should start converged, norms {norms:?}"
    );
    assert_close(
        ("gnubg -r bgkit", &read(d, "gr2.bd")),
        ("bgkit", &reference.bytes),
        2,
        TOLERANCE,
    );
}

/// Starts our 2-chequer run writing `name` in `dir` and waits until it has
/// reported `sweeps` sweeps and its checkpoint exists.
fn start_and_wait_for_sweeps(dir: &Path, name: &str, sweeps: usize) -> Running {
    let mut run = Running::start(ours_in(dir, &["-c", "2", "-f", name]));
    let ckpt = ckpt_path(&dir.join(name));
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        if let Some(status) = run.try_status() {
            let out = run.finish(Duration::ZERO);
            panic!(
                "makehyper -c 2 ended ({status}) before {sweeps} sweeps were reported\n{}",
                describe(&out)
            );
        }
        if common::sweeps(&run.stderr_so_far()).len() >= sweeps && ckpt.exists() {
            return run;
        }
        assert!(
            Instant::now() < deadline,
            "no checkpoint after {sweeps} sweeps within {RUN_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Asserts `path` is a complete 2-chequer database (an atomic checkpoint
/// is never partial).
fn assert_complete(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes.len(), file_size(2), "{}: size", path.display());
    assert_eq!(
        &bytes[..HEADER_LEN],
        format!("gnubg-H2{}\n", "x".repeat(31)).as_bytes(),
        "{}: header",
        path.display()
    );
}

#[test]
fn kill_9_then_restart_matches_uninterrupted_run() {
    let dir = tempdir();
    let d = dir.path();
    // Killed as soon as the third sweep is reported: the third checkpoint is
    // then usually being written, the hardest moment for atomicity.
    let mut run = start_and_wait_for_sweeps(d, "k.bd", 3);
    run.child.kill().expect("kill -9");
    let killed = run.finish(Duration::from_secs(10));
    let done = sweeps(&String::from_utf8_lossy(&killed.stderr)).len();
    assert!(
        !d.join("k.bd").exists(),
        "the killed run must not have written its output"
    );
    let ckpt = d.join("k.bd.tmp");
    assert_complete(&ckpt);
    assert_consistent(&ckpt);
    // Simulate the other possible leftover of a kill: the temporary of a
    // checkpoint being written. The restart must clean it up.
    std::fs::write(d.join(".k.bd.tmp.Ab12Cd.tmp"), b"partial checkpoint").unwrap();

    let out = run_ours(d, &["-c", "2", "-f", "k.bd", "-r", "k.bd.tmp"]);
    assert_success(&out, "makehyper -c 2 -f k.bd -r k.bd.tmp");
    let restarted = reported_sweeps(&out);
    assert_stopped_at_threshold(&restarted, THRESHOLD, "restarted run");
    assert_eq!(
        names(d),
        ["k.bd"],
        "after the restart converges only the output may remain (checkpoint and temporaries removed)"
    );
    let reference = ours_two();
    let fresh_first = reference.sweeps[0].norm;
    assert!(
        restarted[0].norm < 0.5 * fresh_first,
        "the restart's first sweep changed values by {} (a fresh start: {fresh_first}): \
         it does not continue from the checkpoint of sweep {} or {}",
        restarted[0].norm,
        done.saturating_sub(1),
        done
    );
    eprintln!(
        "killed after {done} sweeps; restart converged in {} more (uninterrupted: {})",
        restarted.len(),
        reference.sweeps.len()
    );
    assert_close(
        ("restarted", &read(d, "k.bd")),
        ("uninterrupted", &reference.bytes),
        2,
        TOLERANCE,
    );
}

#[cfg(unix)]
#[test]
fn interrupt_keeps_the_last_checkpoint() {
    let dir = tempdir();
    let d = dir.path();
    let run = start_and_wait_for_sweeps(d, "s.bd", 2);
    let before = std::fs::read(d.join("s.bd.tmp")).expect("checkpoint");
    let status = Command::new("kill")
        .args(["-INT", &run.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -INT failed");
    let out = run.finish(RUN_TIMEOUT);
    assert_eq!(
        out.status.code(),
        Some(130),
        "an interrupted run exits with 130\n{}",
        describe(&out)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("-r s.bd.tmp"),
        "the message should say how to restart\n{}",
        describe(&out)
    );
    assert_eq!(
        names(d),
        ["s.bd.tmp"],
        "an interrupted run keeps its checkpoint and writes no output"
    );
    assert_complete(&d.join("s.bd.tmp"));
    // The sweep under way when the signal came is finished and saved.
    let done = sweeps(&stderr).len();
    assert!(
        stderr.contains(&format!("s.bd.tmp holds sweep {done}:")),
        "the checkpoint should hold the last reported sweep {done}\n{}",
        describe(&out)
    );
    assert_ne!(
        std::fs::read(d.join("s.bd.tmp")).unwrap(),
        before,
        "the sweep finished after the signal was not saved"
    );
}

#[test]
fn one_thread_gives_the_same_bytes_as_all_cores() {
    // The sweep order is fixed and each group is computed from the state
    // before it, so the database must not depend on the thread count.
    let dir = tempdir();
    let out = run_ours(
        dir.path(),
        &["-c", "2", "--threads", "1", "-n", "-f", "one.bd"],
    );
    assert_success(&out, "makehyper -c 2 --threads 1 -n");
    let single = read(dir.path(), "one.bd");
    let reference = ours_two();
    assert!(
        single == reference.bytes,
        "--threads 1 and the default thread count give different bytes ({} sweeps vs {})",
        reported_sweeps(&out).len(),
        reference.sweeps.len()
    );
}
