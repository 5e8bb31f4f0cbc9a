//! What the TD, weights and match tests share: gnubg's weights and
//! `trainer play`.

use super::{ok, GNUBG_WD, OS0, TS0};
use test_support::gnubg_file;

/// gnubg's weights (checked to be installed, with its bearoff databases).
pub fn gnubg_weights() -> &'static str {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    GNUBG_WD
}

/// The JSON object on the last line of stdout.
pub fn last_json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.lines().last().expect("output")).expect("JSON last line")
}

/// (ppg, ci95) of `trainer play … --json`.
pub fn play(args: &[&str]) -> (f64, f64, serde_json::Value) {
    let mut all = vec!["play", "--json"];
    all.extend_from_slice(args);
    let v = last_json(&ok(&all));
    (
        v["ppg"].as_f64().unwrap(),
        v["ppg_ci95"].as_f64().unwrap(),
        v,
    )
}

/// The 0-ply outputs gnubg 1.07 computes for `ids` with the weights file
/// `weights` (text, or binary if it ends in `.wd`), loaded from a data
/// directory (`gnubg -P`) holding it and gnubg's bearoff databases: gnubg
/// must load the file, or the test fails.
pub fn gnubg_outputs(weights: &std::path::Path, ids: &[&str]) -> Vec<Vec<f32>> {
    use std::process::Command;
    use test_support::{describe, path_str, run_with_timeout, tempdir};
    let gnubg = gnubg_file("/usr/games/gnubg");
    let dir = tempdir("bgkit-gnubg-data.");
    let binary = weights.extension().is_some_and(|e| e == "wd");
    let name = if binary { "gnubg.wd" } else { "gnubg.weights" };
    std::fs::copy(weights, dir.path().join(name)).unwrap();
    std::os::unix::fs::symlink(gnubg_file(OS0), dir.path().join("gnubg_os0.bd")).unwrap();
    std::os::unix::fs::symlink(gnubg_file(TS0), dir.path().join("gnubg_ts0.bd")).unwrap();
    let script = dir.path().join("eval.py");
    std::fs::write(
        &script,
        format!(
            "import gnubg\n\
             ec = {{'cubeful':0,'plies':0,'deterministic':1,'prune':0,'noise':0.0}}\n\
             ci = gnubg.cubeinfo(1, -1, 0, 0, (0,0), 0, 1)\n\
             for pid in {ids:?}:\n    \
                 print('EVAL', pid, ' '.join(repr(x) for x in gnubg.evaluate(gnubg.positionfromid(pid), ci, ec)[:5]))\n"
        ),
    )
    .unwrap();
    let mut cmd = Command::new(&gnubg);
    cmd.args([
        "-t",
        "-q",
        "-r",
        "-P",
        path_str(dir.path()),
        "-p",
        path_str(&script),
    ]);
    let out = run_with_timeout(cmd, std::time::Duration::from_secs(120));
    let text = String::from_utf8_lossy(&out.stdout);
    let theirs: Vec<Vec<f32>> = text
        .lines()
        .filter_map(|l| l.strip_prefix("EVAL "))
        .map(|l| {
            l.split(' ')
                .skip(1)
                .map(|v| v.parse::<f64>().unwrap() as f32)
                .collect()
        })
        .collect();
    assert_eq!(
        theirs.len(),
        ids.len(),
        "gnubg did not evaluate with {}\n{}",
        weights.display(),
        describe(&out)
    );
    theirs
}

/// The outputs `trainer eval --json` prints for `ids` with `weights`,
/// gnubg's bearoff databases and the options `args` (an arithmetic).
pub fn eval_outputs(weights: &std::path::Path, args: &[&str], ids: &[&str]) -> Vec<Vec<f32>> {
    let mut all = vec![
        "eval",
        "--json",
        "--weights",
        test_support::path_str(weights),
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    all.extend(args);
    all.extend(ids);
    ok(&all)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}
