//! `trainer new`, `weights`, `td`, `play` and `plot` end to end:
//! determinism, resuming after kill -9, learning, matches, gnubg loading
//! our nets, bad input.

mod common;

use common::{net_md5s, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;
use test_support::{
    assert_one_line_failure, assert_success, describe, gnubg_file, run_with_timeout, tempdir,
    wait_until, Running,
};

fn trainer(args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    run_with_timeout(cmd, Duration::from_secs(600))
}

fn gnubg_weights() -> &'static str {
    gnubg_file(GNUBG_WD);
    gnubg_file(OS0);
    gnubg_file(TS0);
    GNUBG_WD
}

/// The JSON object on the last line of stdout.
fn last_json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.lines().last().expect("output")).expect("JSON last line")
}

/// (ppg, ci95) of `trainer play … --json`.
fn play(args: &[&str]) -> (f64, f64, serde_json::Value) {
    let mut all = vec!["play", "--json"];
    all.extend_from_slice(args);
    let v = last_json(&ok(&all));
    (
        v["ppg"].as_f64().unwrap(),
        v["ppg_ci95"].as_f64().unwrap(),
        v,
    )
}

/// TD from gnubg's weights: short games, so runs take seconds.
fn td_from_gnubg(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["td", "-q", "--weights", gnubg_weights(), "-o", s(out)];
    args.extend_from_slice(extra);
    trainer(&args)
}

#[test]
fn same_seed_and_batch_give_the_same_bytes_whatever_the_threads() {
    let dir = tempdir("bgkit-td.");
    let a = dir.path().join("a.wd");
    let b = dir.path().join("b.wd");
    let c = dir.path().join("c.wd");
    let common = ["--games", "96", "--batch-games", "8", "--seed", "5"];
    for (out, threads) in [(&a, "1"), (&b, "2")] {
        let mut args = common.to_vec();
        args.extend(["--threads", threads]);
        assert_success(&td_from_gnubg(out, &args), "td");
    }
    let wa = std::fs::read(&a).unwrap();
    assert_eq!(
        wa,
        std::fs::read(&b).unwrap(),
        "threads changed the weights"
    );
    assert_ne!(wa, std::fs::read(GNUBG_WD).unwrap(), "nothing was trained");
    let mut args = common.to_vec();
    args[5] = "6";
    assert_success(&td_from_gnubg(&c, &args), "td, another seed");
    assert_ne!(wa, std::fs::read(&c).unwrap(), "the seed changed nothing");
    // Provenance beside the weights.
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("a.wd.json")).unwrap())
            .unwrap();
    assert_eq!(p["games"], 96);
    assert_eq!(p["seed"], 5);
    assert!(p["n_trained"]["contact"].as_u64().unwrap() > 96 * 10);
    assert_eq!(p["parent"]["md5"].as_str().unwrap().len(), 32);
    assert!(
        !dir.path().join("a.wd.ckpt").exists(),
        "checkpoint removed at the end"
    );
}

#[test]
fn sequential_td_is_deterministic() {
    let dir = tempdir("bgkit-td.");
    let a = dir.path().join("a.weights");
    let b = dir.path().join("b.weights");
    for out in [&a, &b] {
        assert_success(&td_from_gnubg(out, &["--games", "30", "--seed", "2"]), "td");
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn td_lambda_is_deterministic_and_differs_from_td0() {
    let dir = tempdir("bgkit-td.");
    let runs: Vec<Vec<u8>> = [("l1", "0.7"), ("l2", "0.7"), ("l0", "0")]
        .iter()
        .map(|(name, lambda)| {
            let out = dir.path().join(format!("{name}.wd"));
            let args = ["--games", "48", "--batch-games", "8", "--lambda", lambda];
            assert_success(&td_from_gnubg(&out, &args), "td lambda");
            std::fs::read(&out).unwrap()
        })
        .collect();
    assert_eq!(runs[0], runs[1], "TD(λ) is not deterministic");
    assert_ne!(runs[0], runs[2], "λ = 0.7 trained the same as λ = 0");
}

#[test]
fn kill_9_then_resume_gives_identical_weights() {
    let dir = tempdir("bgkit-td.");
    let whole = dir.path().join("whole.wd");
    let cut = dir.path().join("cut.wd");
    let settings = [
        "--games",
        "3000",
        "--batch-games",
        "8",
        "--checkpoint-every",
        "16",
        "--eval-every",
        "1000",
        "--eval-games",
        "20",
        "--seed",
        "9",
    ];
    assert_success(&td_from_gnubg(&whole, &settings), "uninterrupted td");
    let mut cmd = Command::new(BIN);
    cmd.args(["td", "-q", "--weights", gnubg_weights(), "-o", s(&cut)])
        .args(settings);
    let mut run = Running::start(cmd);
    let ckpt = dir.path().join("cut.wd.ckpt");
    wait_until(Duration::from_secs(300), "a checkpoint exists", || {
        ckpt.exists() || run.try_status().is_some()
    });
    // Let it write a few more checkpoints.
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = run.finish(Duration::from_secs(30));
    assert!(
        !out.status.success(),
        "the run ended before it was killed; make it longer\n{}",
        describe(&out)
    );
    assert!(!cut.exists(), "no output before the end");
    let mut resume = settings.to_vec();
    resume.push("--resume");
    assert_success(&td_from_gnubg(&cut, &resume), "resumed td");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&cut).unwrap(),
        "resumed weights differ from an uninterrupted run"
    );
    let curve = |p: &str| {
        let text = std::fs::read_to_string(dir.path().join(p)).unwrap();
        // games, alpha, win rate, ppg, ci: all but the wall-clock speed.
        text.lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(curve("whole.wd.curve.csv"), curve("cut.wd.curve.csv"));
    assert_eq!(
        curve("whole.wd.curve.csv").len(),
        1 + 4,
        "points at 0, 1000, 2000, 3000"
    );
}

#[test]
fn gnubg_weights_beat_pubeval_and_pubeval_ties_itself() {
    let (ppg, ci, v) = play(&[
        "--weights",
        gnubg_weights(),
        "--games",
        "2000",
        "--seed",
        "3",
    ]);
    assert!(ppg - ci > 0.4, "gnubg 0-ply vs pubeval: {v}");
    assert_eq!(v["games"], 2000);
    let wins = v["wins"].as_u64().unwrap();
    assert!((v["win_rate"].as_f64().unwrap() - wins as f64 / 2000.0).abs() < 1e-12);
    let (ppg, ci, v) = play(&["--pubeval", "--games", "2000", "--dice", "independent"]);
    assert!(
        (ppg - ci..=ppg + ci).contains(&0.0),
        "pubeval vs itself: {v}"
    );
    assert!(ci > 0.0);
    // The threads do not change a match.
    let one = play(&[
        "--pubeval",
        "--games",
        "200",
        "--dice",
        "independent",
        "--threads",
        "1",
    ]);
    let two = play(&[
        "--pubeval",
        "--games",
        "200",
        "--dice",
        "independent",
        "--threads",
        "2",
    ]);
    assert_eq!(one.2, two.2);
}

#[test]
fn td_from_new_weights_beats_its_random_start() {
    let dir = tempdir("bgkit-td.");
    let start = dir.path().join("start.wd");
    let trained = dir.path().join("trained.wd");
    ok(&["new", "-o", s(&start), "--seed", "11"]);
    let info = ok(&["weights", "info", s(&start)]);
    assert!(info.contains("contact             250    128"), "{info}");
    // From random weights: α 1 and TD(0.7) (docs/trainer.md explains why).
    let td = [
        "td",
        "-q",
        "--weights",
        s(&start),
        "-o",
        s(&trained),
        "--games",
        "3000",
        "--batch-games",
        "20",
        "--alpha",
        "1",
        "--lambda",
        "0.7",
        "--seed",
        "4",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    ok(&td);
    let (ppg, ci, v) = play(&[
        "--weights",
        s(&trained),
        "--vs",
        s(&start),
        "--games",
        "500",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ]);
    assert!(ppg - ci > 0.5, "3,000 TD games vs the random start: {v}");
}

/// A position of each net class from the reference data.
const IDS: [&str; 4] = [
    "4HPwATDgc/ABMA",
    "MU/wATDgc+EBYA",
    "bbdFAQBnuwUGAA",
    "2jrgAQyxu4HBAA",
];

/// gnubg 1.07 loads our TD-trained nets (text, 128 and 32 hidden units)
/// and evaluates exactly as `trainer eval --native-rcp`.
#[test]
fn gnubg_loads_td_trained_nets_and_agrees_bit_for_bit() {
    let gnubg = gnubg_file("/usr/games/gnubg");
    for hidden in ["128", "32"] {
        let dir = tempdir("bgkit-gnubg-nets.");
        let start = dir.path().join("start.wd");
        let weights = dir.path().join("gnubg.weights");
        ok(&["new", "-o", s(&start), "--hidden", hidden, "--seed", "3"]);
        ok(&[
            "td",
            "-q",
            "--weights",
            s(&start),
            "-o",
            s(&weights),
            "--games",
            "8",
            "--batch-games",
            "8",
            "--bearoff",
            OS0,
            "--bearoff",
            TS0,
        ]);
        std::os::unix::fs::symlink(OS0, dir.path().join("gnubg_os0.bd")).unwrap();
        std::os::unix::fs::symlink(TS0, dir.path().join("gnubg_ts0.bd")).unwrap();
        let script = dir.path().join("eval.py");
        std::fs::write(
            &script,
            format!(
                "import gnubg\n\
                 ec = {{'cubeful':0,'plies':0,'deterministic':1,'prune':0,'noise':0.0}}\n\
                 ci = gnubg.cubeinfo(1, -1, 0, 0, (0,0), 0, 1)\n\
                 for pid in {IDS:?}:\n    \
                     print('EVAL', pid, ' '.join(repr(x) for x in gnubg.evaluate(gnubg.positionfromid(pid), ci, ec)[:5]))\n"
            ),
        )
        .unwrap();
        let mut cmd = Command::new(&gnubg);
        cmd.args(["-t", "-q", "-r", "-P", s(dir.path()), "-p", s(&script)]);
        let out = run_with_timeout(cmd, Duration::from_secs(120));
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
            IDS.len(),
            "gnubg did not evaluate\n{}",
            describe(&out)
        );
        let mut args = vec![
            "eval",
            "--json",
            "--native-rcp",
            "--weights",
            s(&weights),
            "--bearoff",
            OS0,
            "--bearoff",
            TS0,
        ];
        args.extend(IDS);
        let ours: Vec<Vec<f32>> = ok(&args)
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
            .collect();
        assert_eq!(ours, theirs, "hidden {hidden}: bgkit and gnubg disagree");
    }
}

#[test]
fn weights_convert_and_splice() {
    let dir = tempdir("bgkit-weights.");
    let text = dir.path().join("g.weights");
    let back = dir.path().join("g.wd");
    let new = dir.path().join("new.wd");
    let spliced = dir.path().join("spliced.wd");
    ok(&["weights", "convert", gnubg_weights(), "-o", s(&text)]);
    ok(&["weights", "convert", s(&text), "-o", s(&back)]);
    ok(&["new", "-o", s(&new), "--hidden", "64"]);
    ok(&[
        "weights",
        "splice",
        "--from",
        s(&new),
        "--net",
        "race",
        "--into",
        s(&back),
        "-o",
        s(&spliced),
    ]);
    let info = |p: &Path| ok(&["weights", "info", s(p)]);
    let md5s = |p: &Path| -> Vec<String> { net_md5s(p).into_iter().map(|(_, m)| m).collect() };
    let (g, n, sp) = (md5s(&back), md5s(&new), md5s(&spliced));
    assert_eq!(g.len(), 6);
    assert_eq!(sp[1], n[1], "the race net comes from --from");
    for k in [0, 2, 3, 4, 5] {
        assert_eq!(sp[k], g[k], "net {k} comes from --into");
    }
    assert!(info(&spliced).contains("race                214     64"));
}

#[test]
fn plot_writes_images_of_the_requested_size() {
    let dir = tempdir("bgkit-plot.");
    let csv = dir.path().join("c.csv");
    std::fs::write(
        &csv,
        "games,alpha,win_rate,ppg,ppg_ci95,games_per_second\n\
         0,0.1,0.01,-2.4,0.05,0\n1000,0.02,0.2,-1.1,0.05,150\n2000,0.015,0.4,-0.3,0.05,180\n",
    )
    .unwrap();
    let png = dir.path().join("c.png");
    ok(&[
        "plot",
        s(&csv),
        "-o",
        s(&png),
        "--width",
        "640",
        "--height",
        "400",
    ]);
    let img = image::open(&png).expect("a PNG");
    assert_eq!((img.width(), img.height()), (640, 400));
    let svg = dir.path().join("c.svg");
    ok(&["plot", s(&csv), "-o", s(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("points per game"));
    // A rounds table: ppg by training round.
    let rounds = dir.path().join("rounds.csv");
    std::fs::write(
        &rounds,
        "round,ppg,ppg_ci95\n0,-0.17,0.018\n1,-0.053,0.017\n2,-0.023,0.017\n",
    )
    .unwrap();
    let chart = dir.path().join("rounds.svg");
    ok(&["plot", s(&rounds), "-o", s(&chart)]);
    let text = std::fs::read_to_string(&chart).unwrap();
    assert!(text.contains("round") && text.contains("points per game vs the opponent"));
    std::fs::write(&rounds, "round,ppg,ppg_ci95\n1,-0.05\n").unwrap();
    assert_one_line_failure(
        BIN,
        "trainer",
        &["plot", s(&rounds), "-o", s(&chart)],
        "line 2: expected 3 numbers",
    );
}

#[test]
fn bad_input_is_one_line_and_leaves_files_alone() {
    let dir = tempdir("bgkit-td-bad.");
    let out = dir.path().join("out.wd");
    let o = s(&out);
    let corrupt = dir.path().join("corrupt.wd");
    std::fs::write(&corrupt, b"GNU Backgammon 1.00\n250 128 5 0 0.1 1\n0.5\n").unwrap();
    let w = gnubg_weights();
    let td = |extra: &[&str], needle: &str| {
        let mut args = vec!["td", "-o", o];
        args.extend_from_slice(extra);
        assert_one_line_failure(BIN, "trainer", &args, needle);
    };
    td(
        &["--weights", "/nonexistent.wd", "--games", "5"],
        "/nonexistent.wd",
    );
    td(&["--weights", s(&corrupt), "--games", "5"], "corrupt.wd");
    td(
        &["--weights", w, "--games", "0"],
        "games must be at least 1",
    );
    td(&["--weights", w, "--games", "5", "--alpha", "0"], "α 0:");
    td(
        &["--weights", w, "--games", "5", "--alpha", "1.5"],
        "α 1.5:",
    );
    td(&["--weights", w, "--games", "5", "--lambda", "2"], "λ 2:");
    td(
        &["--weights", w, "--games", "5", "--lambda", "-0.5"],
        "λ -0.5:",
    );
    td(&["--weights", w, "--games", "5", "--resume"], "checkpoint");
    assert_one_line_failure(
        BIN,
        "trainer",
        &[
            "td",
            "--weights",
            w,
            "--games",
            "5",
            "-o",
            "/nonexistent/dir/out.wd",
        ],
        "/nonexistent/dir",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["new", "-o", o, "--hidden", "30"],
        "multiple of 4",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["play", "--weights", w, "--games", "7"],
        "even",
    );
    assert!(!out.exists(), "a failed run wrote its output");
    // A checkpoint from other settings is refused and kept.
    let ckpt = dir.path().join("out.wd.ckpt");
    kill_9_after_a_checkpoint(w, o, &ckpt);
    let before = std::fs::read(&ckpt).unwrap();
    td(
        &[
            "--weights",
            w,
            "--games",
            "4000",
            "--batch-games",
            "4",
            "--alpha",
            "0.2",
            "--resume",
        ],
        "learning rate α 0.1, now 0.2",
    );
    td(
        &["--weights", w, "--games", "4000", "--batch-games", "4"],
        "--resume",
    );
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        before,
        "the checkpoint was changed"
    );
    assert!(!out.exists());
}

/// The settings of the TD runs [`kill_9_after_a_checkpoint`] kills.
const KILLED_TD: [&str; 4] = ["--games", "4000", "--batch-games", "4"];

/// Starts `td --weights w -o out` with [`KILLED_TD`], checkpointing every 4
/// games, and kills it with -9 once `ckpt` exists.
fn kill_9_after_a_checkpoint(w: &str, out: &str, ckpt: &Path) {
    let mut cmd = Command::new(BIN);
    cmd.args(["td", "-q", "--weights", w, "-o", out])
        .args(["--checkpoint-every", "4"])
        .args(KILLED_TD);
    let run = Running::start(cmd);
    wait_until(Duration::from_secs(120), "a checkpoint", || ckpt.exists());
    Command::new("kill")
        .args(["-9", &run.pid().to_string()])
        .status()
        .unwrap();
    let _ = run.finish(Duration::from_secs(30));
}

/// Issue items 4 and 5: a TD checkpoint carries a checksum and the
/// evaluator's arithmetic and bearoff databases. A flipped bit in the
/// weights, an edited game count, a checkpoint of an older format, another
/// arithmetic or other bearoff databases are refused (the checkpoint
/// kept), never resumed from.
#[test]
fn damaged_checkpoints_and_other_evaluators_are_refused() {
    let dir = tempdir("bgkit-td-ckpt.");
    let out = dir.path().join("out.wd");
    let ckpt = dir.path().join("out.wd.ckpt");
    let w = gnubg_weights();
    let settings = KILLED_TD;
    kill_9_after_a_checkpoint(w, s(&out), &ckpt);
    let good = std::fs::read(&ckpt).unwrap();
    let resume = |extra: &[&str], needle: &str| {
        let mut args = vec!["td", "-q", "--weights", w, "-o", s(&out), "--resume"];
        args.extend(settings);
        args.extend(extra);
        assert_one_line_failure(BIN, "trainer", &args, needle);
    };
    resume(&["--ieee"], "arithmetic gnubg-fastmath, now ieee");
    resume(&["--bearoff", OS0], "bearoff");
    assert_eq!(
        std::fs::read(&ckpt).unwrap(),
        good,
        "the checkpoint changed"
    );
    let mut flipped = good.clone();
    flipped[good.len() - 1000] ^= 0x10;
    let games = br#""games":"#;
    let at = games.len() + good.windows(games.len()).position(|w| w == games).unwrap();
    let mut edited = good.clone();
    edited[at] = if good[at] == b'1' { b'2' } else { b'1' };
    // What the trainer wrote before checkpoints were support checkpoints.
    let old = [&b"bgkit td checkpoint 2\n"[..], &good].concat();
    assert!(good.starts_with(b"bgkit-ckpt-v1\n"));
    for (bytes, needle) in [
        (flipped, "checksum"),
        (edited, "checksum"),
        (old, "another version of the trainer"),
    ] {
        std::fs::write(&ckpt, &bytes).unwrap();
        resume(&[], needle);
        assert_eq!(std::fs::read(&ckpt).unwrap(), bytes);
    }
    assert!(!out.exists());
}
