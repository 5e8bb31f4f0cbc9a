//! `trainer play --journal`: a long match killed with -9 continues with
//! `--resume` to the result of an uninterrupted one, and a journal is
//! never continued by another match or overwritten.

mod common;

use common::play::{gnubg_weights, play};
use common::{kill_9_when, s, BIN};
use std::cell::Cell;
use std::process::Command;
use std::time::Duration;
use test_support::assert_one_line_failure;

#[test]
fn a_killed_match_resumes_to_the_uninterrupted_result() {
    let w = gnubg_weights();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("match.journal");
    let j = s(&journal);
    let games = ["--weights", w, "--games", "6000", "--seed", "41"];
    let (_, _, whole) = play(&games);

    // Killed once the journal holds a block of totals.
    let mut cmd = Command::new(BIN);
    cmd.args(["play", "-q", "--journal", j]).args(games);
    let head = Cell::new(None);
    kill_9_when(
        cmd,
        "a block of totals in the journal",
        || {
            let Ok(meta) = std::fs::metadata(&journal) else {
                return false;
            };
            // The first size seen is the head's (the file is created with
            // its head alone, then blocks are appended).
            let first = head.get().unwrap_or(meta.len());
            head.set(Some(first));
            meta.len() > first
        },
        Duration::from_millis(50),
    );
    assert!(journal.exists(), "the journal outlives the kill");

    // Neither started again over it nor continued by another match.
    assert_one_line_failure(
        BIN,
        "trainer",
        &[
            "play",
            "--journal",
            j,
            "--weights",
            w,
            "--games",
            "6000",
            "--seed",
            "41",
        ],
        "--resume",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &[
            "play",
            "--journal",
            j,
            "--resume",
            "--weights",
            w,
            "--games",
            "6000",
            "--seed",
            "42",
        ],
        "another match",
    );
    assert!(journal.exists(), "a refused run keeps the journal");

    let mut resumed_args = vec!["--journal", j, "--resume"];
    resumed_args.extend_from_slice(&games);
    let (_, _, resumed) = play(&resumed_args);
    for key in ["games", "wins", "ppg", "ppg_ci95"] {
        assert_eq!(resumed[key], whole[key], "{key} after resuming");
    }
    assert!(!journal.exists(), "the journal is removed at the end");
}
