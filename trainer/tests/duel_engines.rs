//! Duels against the real engines through the adapters in `engines/`:
//! GNU Backgammon 1.07 itself at 0 ply with gnubg.wd plays exactly the
//! games bgkit plays against itself with gnubg.wd, move for move; short
//! duels against gnubg and Open Sage are legal throughout and give the
//! same games on 1 and 2 threads.

mod common;

use common::{s, BIN, GNUBG_WD};
use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::{describe, gnubg_file, tempdir};

/// An adapter of `engines/` by name. The tests run each through its
/// interpreter (`sh` or Python), so that a checkout mounted noexec runs it too.
fn adapter(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engines")
        .join(name)
}

/// gnubg 1.07 itself at 0 ply, as an engine command line.
fn gnubg_engine() -> String {
    format!("sh {} --plies 0", s(&adapter("gnubg-engine")))
}

/// The Python with `bgsage` (scripts/test.sh installs it and names it in
/// BGKIT_OPENSAGE_PYTHON).
fn opensage_python() -> String {
    let python = std::env::var("BGKIT_OPENSAGE_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import bgsage"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{python} cannot import bgsage: run scripts/test.sh, which installs it, or set \
         BGKIT_OPENSAGE_PYTHON to a Python that has it (pip install bgsage)"
    );
    python
}

/// Runs `trainer play ARGS --record FILE --json` and returns the record
/// and the JSON result.
fn play(dir: &Path, name: &str, args: &[&str]) -> (Vec<u8>, serde_json::Value) {
    let record = dir.join(format!("{name}.jsonl"));
    let mut a = vec!["play", "--json", "--record", s(&record)];
    a.extend(args);
    let out = Command::new(BIN).args(&a).output().unwrap();
    assert!(out.status.success(), "{a:?}: {}", describe(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    (std::fs::read(&record).unwrap(), result)
}

/// The first move where two records differ, for the message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    for (x, y) in a.lines().zip(b.lines()) {
        if x != y {
            let x: serde_json::Value = serde_json::from_str(x).unwrap();
            let y: serde_json::Value = serde_json::from_str(y).unwrap();
            let moves = |v: &serde_json::Value| v["moves"].as_array().unwrap().clone();
            for (m, n) in moves(&x).iter().zip(moves(&y).iter()) {
                if m != n {
                    return format!("game {}: {m} against {n}", x["game"]);
                }
            }
        }
    }
    "the records differ in length".into()
}

#[test]
fn gnubg_itself_plays_bgkits_games_move_for_move() {
    gnubg_file(GNUBG_WD);
    let dir = tempdir("bgkit-duel.");
    let engine = gnubg_engine();
    let games = ["--games", "200", "--seed", "31", "--threads", "8"];
    // gnubg's binary uses this CPU's reciprocal instruction: so does bgkit
    // with --native-rcp.
    let mut with_gnubg = vec!["--engine", &engine, "--vs", GNUBG_WD, "--native-rcp"];
    with_gnubg.extend(games);
    let mut bgkit = vec!["--weights", GNUBG_WD, "--vs", GNUBG_WD, "--native-rcp"];
    bgkit.extend(games);
    let (theirs, result) = play(dir.path(), "gnubg", &with_gnubg);
    let (ours, _) = play(dir.path(), "bgkit", &bgkit);
    assert!(
        theirs == ours,
        "gnubg's games differ from bgkit's: {}",
        first_difference(&theirs, &ours)
    );
    assert_eq!(result["games"], 200);
    assert!(
        result["a"].as_str().unwrap().contains("gnubg 1.07"),
        "{result}"
    );
}

#[test]
fn short_duels_are_legal_and_the_same_on_any_thread_count() {
    gnubg_file(GNUBG_WD);
    let dir = tempdir("bgkit-duel.");
    let bgkit_wd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/weights/bgkit.wd");
    let gnubg = gnubg_engine();
    let opensage = format!("{} {}", opensage_python(), s(&adapter("opensage-engine")));
    for (name, engine) in [("gnubg", gnubg), ("opensage", opensage)] {
        let mut runs = Vec::new();
        for threads in ["1", "2"] {
            let args = [
                "--weights",
                s(&bgkit_wd),
                "--vs-engine",
                &engine,
                "--games",
                "24",
                "--seed",
                "7",
                "--threads",
                threads,
            ];
            runs.push(play(dir.path(), &format!("{name}-{threads}"), &args));
        }
        let (one, result) = &runs[0];
        let (two, _) = &runs[1];
        assert!(
            one == two,
            "{name}: 1 and 2 threads differ: {}",
            first_difference(one, two)
        );
        assert_eq!(result["games"], 24, "{name}: {result}");
        let b = result["b"].as_str().unwrap();
        assert!(b.starts_with("engine "), "{name}: {result}");
        // Every game ended with a winner: points 1 to 3 either way.
        for line in String::from_utf8_lossy(one).lines() {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            let points = game["points"].as_i64().unwrap();
            assert!((1..=3).contains(&points.abs()), "{name}: {game}");
        }
    }
}
