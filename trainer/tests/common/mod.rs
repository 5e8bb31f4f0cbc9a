//! What the `trainer` CLI tests share: running the binary, paths, small
//! position databases and their dumps.

#![allow(dead_code)]

pub mod db;
pub mod npz;
pub mod play;

use board::Board;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use test_support::{describe, path_str, run_ok, wait_until, Running, GNUBG_OS0, GNUBG_TS0};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_trainer");
/// gnubg's installed weights.
pub const GNUBG_WD: &str = "/usr/lib/gnubg/gnubg.wd";
/// gnubg's installed one-sided database.
pub const OS0: &str = GNUBG_OS0;
/// gnubg's installed two-sided database.
pub const TS0: &str = GNUBG_TS0;

/// Runs `trainer args`, which must succeed, and returns its stdout.
pub fn ok(args: &[&str]) -> String {
    run_ok(BIN, "trainer", args)
}

/// A path as the `&str` of an argument.
pub fn s(p: &Path) -> &str {
    path_str(p)
}

/// A database `dir/name.db` of `boards` (targets 0), imported through a
/// `.dat` file with gnubg's bearoff databases.
pub fn db_of(dir: &Path, name: &str, boards: &[Board]) -> PathBuf {
    let dat = dir.join(format!("{name}.dat"));
    let text: String = boards
        .iter()
        .map(|b| {
            format!(
                "{} 0 0 0 0 0\n",
                trainer::positions::dat::key_to_letters(&b.id_bytes())
            )
        })
        .collect();
    std::fs::write(&dat, text).unwrap();
    let db = dir.join(format!("{name}.db"));
    ok(&[
        "db",
        "import",
        s(&dat),
        "-o",
        s(&db),
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ]);
    db
}

/// `db dump --json` as JSON values.
pub fn dump(db: &Path) -> Vec<serde_json::Value> {
    ok(&["db", "dump", "--json", s(db)])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The equities `trainer eval --json` prints for `ids`, with the options
/// `args` (plies, pruning, evaluator).
pub fn eval_equities(args: &[&str], ids: &[&str]) -> Vec<f64> {
    let mut a = vec!["eval", "--json"];
    a.extend(args);
    a.extend(ids);
    ok(&a)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["equity"]
                .as_f64()
                .unwrap()
        })
        .collect()
}

/// Each net of a weights file with the MD5 of its values, in file order,
/// from `weights info` (`("pruning race", "3957…")`).
pub fn net_md5s(weights: &Path) -> Vec<(String, String)> {
    ok(&["weights", "info", path_str(weights)])
        .lines()
        .skip_while(|l| !l.starts_with("net "))
        .skip(1)
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let name: Vec<&str> = fields
                .iter()
                .take_while(|f| f.parse::<f64>().is_err())
                .copied()
                .collect();
            (name.join(" "), fields.last().unwrap().to_string())
        })
        .collect()
}

/// The MD5 of the values of the net named `net` in a weights file.
pub fn net_md5(weights: &Path, net: &str) -> String {
    net_md5s(weights)
        .into_iter()
        .find(|(name, _)| name == net)
        .unwrap_or_else(|| panic!("{} has no {net} net", weights.display()))
        .1
}

/// Runs `cmd` in a process group of its own, kills the group (the command
/// and any command it runs) with SIGKILL once `ready()` holds (`what` names
/// that moment) and `settle` more has passed, and checks that it had not
/// finished.
pub fn kill_9_when(mut cmd: Command, what: &str, ready: impl Fn() -> bool, settle: Duration) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let run_ = Running::start(cmd);
    wait_until(Duration::from_secs(300), what, ready);
    std::thread::sleep(settle);
    Command::new("kill")
        .args(["-9", "--", &format!("-{}", run_.pid())])
        .status()
        .unwrap();
    let out = run_.finish(Duration::from_secs(30));
    assert!(
        !out.status.success(),
        "finished before the kill\n{}",
        describe(&out)
    );
}
