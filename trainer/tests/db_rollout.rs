//! `trainer db rollout` end to end: rollouts against the exact two-sided
//! database and against gnubg's own rollouts, variance reduction, shards
//! merged into one run's bytes.

mod common;

use common::db::{db_of_ids, evaluator, fixture};
use common::{dump, ok, s};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use test_support::{describe, gnubg_file, run_with_timeout, tempdir};

#[test]
fn two_sided_bearoff_rollouts_agree_with_the_exact_database() {
    let dir = tempdir("bgkit-db.");
    let ids: Vec<String> = std::fs::read_to_string(fixture("bearoff2_ids.txt"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let db = db_of_ids(dir.path(), "bo", &ids);
    let mut args = vec![
        "db",
        "rollout",
        s(&db),
        "--trials",
        "1296",
        "--no-truncate",
        "-q",
    ];
    args.extend(evaluator());
    ok(&args);
    let rolled = dump(&db);
    let mut eval = vec!["eval", "--json"];
    eval.extend(evaluator());
    eval.extend(ids.iter().map(String::as_str));
    let exact: Vec<serde_json::Value> = ok(&eval)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (r, e) in rolled.iter().zip(&exact) {
        assert_eq!(r["id"], e["id"]);
        assert_eq!(r["trials"], 1296);
        let (eq, se) = (
            r["equity"].as_f64().unwrap(),
            r["equity_std_error"].as_f64().unwrap(),
        );
        let want = e["equity"].as_f64().unwrap();
        assert!(se > 0.0 || (eq - want).abs() < 1e-6, "{r}");
        assert!(
            (eq - want).abs() <= 3.0 * se + 1e-6,
            "rollout {r} vs database {e}"
        );
    }
}

#[test]
fn three_shards_merged_equal_one_run() {
    let dir = tempdir("bgkit-db.");
    let src = fixture("gnubg_0ply_200.dat");
    let whole = dir.path().join("whole.db");
    ok(&["db", "import", s(&src), "-o", s(&whole)]);
    let base = std::fs::read(&whole).unwrap();
    let settings = ["--trials", "36", "--seed", "7", "-q"];
    let small = dir.path().join("small.db");
    // 30 positions keep the test short.
    let text: String = std::fs::read_to_string(&src)
        .unwrap()
        .lines()
        .take(30)
        .map(|l| format!("{l}\n"))
        .collect();
    let small_dat = dir.path().join("small.dat");
    std::fs::write(&small_dat, text).unwrap();
    ok(&["db", "import", s(&small_dat), "-o", s(&small)]);
    let mut one = vec!["db", "rollout", s(&small)];
    one.extend(settings);
    one.extend(evaluator());
    ok(&one);
    let mut parts = Vec::new();
    for k in 1..=3 {
        let copy = dir.path().join(format!("part{k}.db"));
        ok(&["db", "import", s(&small_dat), "-o", s(&copy)]);
        let shard = format!("{k}/3");
        let mut args = vec![
            "db",
            "rollout",
            s(&copy),
            "--shard",
            &shard,
            "--threads",
            "1",
        ];
        args.extend(settings);
        args.extend(evaluator());
        ok(&args);
        parts.push(copy);
    }
    let merged = dir.path().join("merged.db");
    let mut args = vec!["db", "merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["-o", s(&merged)]);
    ok(&args);
    assert_eq!(
        std::fs::read(&small).unwrap(),
        std::fs::read(&merged).unwrap(),
        "sharded + merged differs from one run"
    );
    assert!(dump(&merged).iter().all(|r| r["trials"] == 36));
    assert_eq!(std::fs::read(&whole).unwrap(), base);
}

/// gnubg 1.07's cubeless 0-ply rollout of `id` (1,296 trials, no variance
/// reduction, quasi-random dice, truncated at exact bearoff positions), as
/// (win, win gammon, win bg, lose gammon, lose bg, equity) and their
/// standard errors. gnubg prints rollout results only to a terminal, so it
/// runs under `script`.
fn gnubg_rollout(id: &str, dir: &Path) -> ([f64; 6], [f64; 6]) {
    let gnubg = gnubg_file("/usr/games/gnubg");
    let commands = dir.join(format!("{}.txt", id.replace('/', "_")));
    std::fs::write(
        &commands,
        format!(
            "set rng mersenne\nset rollout rng mersenne\nset rollout trials 1296\n\
             set rollout cubeful off\nset rollout varredn off\nset rollout quasirandom on\n\
             set rollout seed 1\nset rollout truncation off\n\
             set rollout bearofftruncation exact on\nset rollout bearofftruncation onesided off\n\
             set rollout chequerplay plies 0\nset rollout chequerplay prune off\n\
             set rollout chequerplay cubeful off\nset rollout later enable off\n\
             set threads 2\nnew game\nset board {id}\nrollout\n"
        ),
    )
    .unwrap();
    let mut cmd = Command::new("script");
    cmd.args([
        "-qc",
        &format!("{} -t -q -r < {}", gnubg.display(), commands.display()),
        "/dev/null",
    ]);
    let out = run_with_timeout(cmd, Duration::from_secs(300));
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let after = text
        .split("Rollout done. Printing final results.")
        .nth(1)
        .unwrap_or_else(|| panic!("gnubg printed no rollout result\n{}", describe(&out)));
    let numbers = |line: &str| -> Vec<f64> {
        line.split(|c: char| c.is_whitespace() || c == '[' || c == ']')
            .filter_map(|t| t.parse::<f64>().ok())
            .collect()
    };
    let lines: Vec<&str> = after.lines().filter(|l| l.contains(" CL ")).collect();
    let (means, errors) = (numbers(lines[0]), numbers(lines[1]));
    // win wg wbg - lose lg lbg CL equity
    let pick = |v: &[f64]| [v[0], v[1], v[2], v[4], v[5], v[6]];
    (pick(&means), pick(&errors))
}

#[test]
fn rollouts_agree_with_gnubg() {
    let dir = tempdir("bgkit-db-gnubg.");
    let ids: Vec<String> = ["MU/wATDgc+EBYA", "rM7gAQyx3cDBAA", "bbdFAQBnuwUGAA"]
        .map(String::from)
        .to_vec();
    let db = db_of_ids(dir.path(), "g", &ids);
    let mut args = vec!["db", "rollout", s(&db), "--trials", "1296", "-q"];
    args.extend(evaluator());
    ok(&args);
    for (r, id) in dump(&db).iter().zip(&ids) {
        let (theirs, their_se) = gnubg_rollout(id, dir.path());
        let t: Vec<f64> = r["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let e: Vec<f64> = r["std_errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let ours = [t[0], t[1], t[2], t[3], t[4], r["equity"].as_f64().unwrap()];
        let our_se = [
            e[0],
            e[1],
            e[2],
            e[3],
            e[4],
            r["equity_std_error"].as_f64().unwrap(),
        ];
        for k in 0..6 {
            // gnubg prints three decimals: allow half a unit of rounding.
            let limit = 3.0 * (our_se[k].powi(2) + their_se[k].powi(2)).sqrt() + 0.0005;
            assert!(
                (ours[k] - theirs[k]).abs() <= limit,
                "{id} output {k}: bgkit {:.4} ± {:.4}, gnubg {:.3} ± {:.3}",
                ours[k],
                our_se[k],
                theirs[k],
                their_se[k]
            );
        }
    }
}

#[test]
fn variance_reduction_agrees_and_shrinks_the_standard_error() {
    let dir = tempdir("bgkit-db-vr.");
    let ids: Vec<String> = ["bbdFAQBnuwUGAA", "bbcHAICzu0MAAA"]
        .map(String::from)
        .to_vec();
    let plain = db_of_ids(dir.path(), "plain", &ids);
    let reduced = db_of_ids(dir.path(), "reduced", &ids);
    let mut a = vec!["db", "rollout", s(&plain), "--trials", "1296", "-q"];
    a.extend(evaluator());
    ok(&a);
    let mut b = vec![
        "db",
        "rollout",
        s(&reduced),
        "--trials",
        "72",
        "--variance-reduction",
        "-q",
    ];
    b.extend(evaluator());
    ok(&b);
    for (p, r) in dump(&plain).iter().zip(dump(&reduced)) {
        let (ep, sp) = (
            p["equity"].as_f64().unwrap(),
            p["equity_std_error"].as_f64().unwrap(),
        );
        let (er, sr) = (
            r["equity"].as_f64().unwrap(),
            r["equity_std_error"].as_f64().unwrap(),
        );
        assert!(
            sr > 0.0 && sr * 5.0 < sp,
            "standard errors: plain {sp}, reduced {sr}"
        );
        assert!(
            (ep - er).abs() <= 3.0 * (sp * sp + sr * sr).sqrt(),
            "{p} vs {r}"
        );
    }
}
