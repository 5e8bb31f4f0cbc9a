//! `trainer train` interrupted (kill -9, SIGINT) and resumed to the
//! weights and curve of an uninterrupted run; Adam in batches on any
//! thread count.

mod common;

use common::db::{held_rms, import_fixture, split_fixture};
use common::{kill_9_when, ok, s, BIN, OS0, TS0};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use test_support::{assert_one_line_failure, describe, tempdir, wait_until, Running};

#[test]
fn supervised_training_resumes_after_kill_9_to_identical_weights() {
    let dir = tempdir("bgkit-train-resume.");
    let db = dir.path().join("all.db");
    import_fixture("gnubg_0ply_200.dat", &db);
    let start = dir.path().join("start.wd");
    ok(&["new", "-o", s(&start), "--seed", "6", "--hidden", "16"]);
    let settings = [
        "--class",
        "contact",
        "--epochs",
        "1500",
        "--alpha-start",
        "2",
        "--alpha-low",
        "0.01",
        "-q",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    let whole = dir.path().join("whole.wd");
    let mut args = vec![
        "train",
        "--db",
        s(&db),
        "--weights",
        s(&start),
        "-o",
        s(&whole),
    ];
    args.extend(settings);
    ok(&args);
    let cut = dir.path().join("cut.wd");
    let mut cmd = Command::new(BIN);
    cmd.args([
        "train",
        "--db",
        s(&db),
        "--weights",
        s(&start),
        "-o",
        s(&cut),
    ])
    .args(settings);
    let ckpt = dir.path().join("cut.wd.ckpt");
    kill_9_when(
        cmd,
        "a checkpoint",
        || ckpt.exists(),
        Duration::from_millis(200),
    );
    let mut again = vec![
        "train",
        "--db",
        s(&db),
        "--weights",
        s(&start),
        "-o",
        s(&cut),
        "--resume",
    ];
    again.extend(settings);
    ok(&again);
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
}

/// Adam in batches: lowers the held-out error, computes the same bits on
/// one thread as on two (each batch's gradient is summed in a fixed order),
/// and resumes after kill -9 (the moments are in the checkpoint) to the
/// same weights.
#[test]
fn adam_training_lowers_the_held_out_error_on_any_thread_count_and_resumes_after_kill_9() {
    let dir = tempdir("bgkit-train-adam.");
    let path = |name: &str| dir.path().join(name);
    let (train, held) = split_fixture(dir.path(), "gnubg_0ply_200.dat");
    let start = path("start.wd");
    ok(&["new", "-o", s(&start), "--seed", "5", "--hidden", "16"]);
    let train_to = |out: &Path, epochs: &str, extra: &[&str]| {
        let settings = [
            "--epochs",
            epochs,
            "--schedule",
            "cosine",
            "--optimizer",
            "adam",
            "--batch",
            "100",
            "--alpha-start",
            "0.01",
            "--alpha-low",
            "0.0001",
        ];
        train_contact(&train, &start, out, &[&settings[..], extra].concat())
    };
    let (one, two) = (path("one.wd"), path("two.wd"));
    run(&train_to(&one, "60", &["--threads", "1"]));
    run(&train_to(&two, "60", &["--threads", "2"]));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let (before, after) = (
        held_rms(&held, "contact", &start).0,
        held_rms(&held, "contact", &one).0,
    );
    assert!(after < before * 0.8, "held-out RMS {before} → {after}");
    let (whole, cut) = (path("whole.wd"), path("cut.wd"));
    run(&train_to(&whole, "1500", &[]));
    let mut cmd = Command::new(BIN);
    cmd.args(train_to(&cut, "1500", &[]));
    let ckpt = path("cut.wd.ckpt");
    kill_9_when(
        cmd,
        "a checkpoint",
        || ckpt.exists(),
        Duration::from_millis(200),
    );
    run(&train_to(&cut, "1500", &["--resume"]));
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
}

/// Supervised training stopped by SIGINT resumes to
/// the weights and curve of an uninterrupted run (it stops where a kill -9
/// would have, before the schedule's step), with `--epochs` and with
/// `--until-bottoms`; a checkpoint with a flipped bit is refused.
#[test]
fn supervised_training_resumes_after_sigint_to_identical_weights() {
    let dir = tempdir("bgkit-train-sigint.");
    let d = dir.path();
    let db = d.join("all.db");
    import_fixture("gnubg_0ply_200.dat", &db);
    let start = d.join("start.wd");
    ok(&["new", "-o", s(&start), "--seed", "6", "--hidden", "16"]);
    let common = [
        "train",
        "--db",
        s(&db),
        "--weights",
        s(&start),
        "--class",
        "contact",
        "--alpha-start",
        "2",
        "--alpha-low",
        "0.01",
        "-q",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    for (name, until) in [
        ("epochs", ["--epochs", "1500"]),
        ("bottoms", ["--until-bottoms", "3"]),
    ] {
        let (whole, cut) = (
            d.join(format!("{name}-whole.wd")),
            d.join(format!("{name}-cut.wd")),
        );
        let run = |out: &Path, extra: &[&str]| {
            let mut args = common.to_vec();
            args.extend(until);
            args.extend(["-o", s(out)]);
            args.extend(extra);
            args.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let run_ok = |args: Vec<String>| ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        run_ok(run(&whole, &[]));
        let ckpt = d.join(format!("{name}-cut.wd.ckpt"));
        let running = Running::start({
            let mut cmd = Command::new(BIN);
            cmd.args(run(&cut, &[]));
            cmd
        });
        wait_until(Duration::from_secs(120), "a checkpoint", || ckpt.exists());
        std::thread::sleep(Duration::from_millis(100));
        Command::new("kill")
            .args(["-INT", &running.pid().to_string()])
            .status()
            .unwrap();
        let out = running.finish(Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
        let good = std::fs::read(&ckpt).unwrap();
        let mut flipped = good.clone();
        flipped[good.len() - 500] ^= 0x04;
        std::fs::write(&ckpt, &flipped).unwrap();
        let resume = run(&cut, &["--resume"]);
        let resume: Vec<&str> = resume.iter().map(String::as_str).collect();
        assert_one_line_failure(BIN, "trainer", &resume, "checksum");
        std::fs::write(&ckpt, &good).unwrap();
        ok(&resume);
        for suffix in ["", ".train.csv"] {
            let read = |p: &Path| std::fs::read(format!("{}{suffix}", p.display())).unwrap();
            assert!(
                read(&whole) == read(&cut),
                "{name}: {suffix} differs after SIGINT and --resume"
            );
        }
    }
}

/// Adam with decoupled weight decay: the trained contact net's weights are
/// smaller (sum of squares) than without decay, its thresholds follow
/// their own course, one thread gives the bits of two, a plan's
/// `weight_decay` reaches `trainer train`, and decay with gnubg-nn's update
/// is refused in one line.
#[test]
fn weight_decay_shrinks_the_weights_the_same_on_any_thread_count() {
    let dir = tempdir("bgkit-train-decay.");
    let path = |name: &str| dir.path().join(name);
    let (train, _) = split_fixture(dir.path(), "gnubg_0ply_200.dat");
    let start = path("start.wd");
    ok(&["new", "-o", s(&start), "--seed", "5", "--hidden", "16"]);
    let args = |out: &Path, extra: &[&str]| {
        let settings = [
            "--epochs",
            "30",
            "--schedule",
            "cosine",
            "--alpha-start",
            "0.01",
            "--alpha-low",
            "0.0001",
        ];
        train_contact(&train, &start, out, &[&settings[..], extra].concat())
    };
    let adam = ["--optimizer", "adam", "--batch", "50"];
    let (plain, one, two) = (path("plain.wd"), path("one.wd"), path("two.wd"));
    run(&args(&plain, &adam));
    let decayed = |threads: &'static str| {
        let mut a = adam.to_vec();
        a.extend(["--weight-decay", "3", "--threads", threads]);
        a
    };
    run(&args(&one, &decayed("1")));
    run(&args(&two, &decayed("2")));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let squares = |w: &Path| {
        let nets = nets::weights::load(w).unwrap();
        let net = nets.get(nets::NetKind::Contact);
        let sum = |x: &[f32]| x.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>();
        (
            sum(net.hidden_weights()) + sum(net.output_weights()),
            net.hidden_thresholds().to_vec(),
        )
    };
    let (plain_sq, plain_thresholds) = squares(&plain);
    let (decayed_sq, decayed_thresholds) = squares(&one);
    assert!(
        decayed_sq < 0.9 * plain_sq,
        "sum of squared weights: {plain_sq} without decay, {decayed_sq} with it"
    );
    assert_ne!(plain_thresholds, decayed_thresholds);

    let refused = |extra: &[&str], needle: &str| {
        let a = args(&path("refused.wd"), extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        assert_one_line_failure(BIN, "trainer", &a, needle);
        assert!(!path("refused.wd").exists());
    };
    refused(
        &["--weight-decay", "0.1"],
        "--weight-decay 0.1: weight decay needs the Adam optimizer",
    );
    refused(
        &["--optimizer", "adam", "--weight-decay", "200"],
        "--weight-decay 200.0: must be from 0 to 100",
    );
}

/// An equity term in the loss (`--equity-weight μ`): other weights than
/// without it, the same bits on one thread and two, with Adam and with
/// gnubg-nn's update; μ 0 is the run without the flag, byte for byte; and a
/// μ out of range is refused in one line.
#[test]
fn equity_weight_changes_the_steps_the_same_on_any_thread_count() {
    let dir = tempdir("bgkit-train-equity.");
    let path = |name: &str| dir.path().join(name);
    let (train, _) = split_fixture(dir.path(), "gnubg_0ply_200.dat");
    let start = path("start.wd");
    ok(&["new", "-o", s(&start), "--seed", "6", "--hidden", "16"]);
    let args = |out: &Path, optimizer: &[&str], extra: &[&str]| {
        let settings = ["--epochs", "5", "--schedule", "cosine"];
        train_contact(
            &train,
            &start,
            out,
            &[&settings[..], optimizer, extra].concat(),
        )
    };
    let adam = [
        "--optimizer",
        "adam",
        "--batch",
        "50",
        "--alpha-start",
        "0.01",
        "--alpha-low",
        "0.0001",
    ];
    let sgd = ["--alpha-start", "1", "--alpha-low", "0.1"];
    for optimizer in [&adam[..], &sgd[..]] {
        let (plain, zero, one, two) = (
            path("plain.wd"),
            path("zero.wd"),
            path("one.wd"),
            path("two.wd"),
        );
        run(&args(&plain, optimizer, &[]));
        run(&args(&zero, optimizer, &["--equity-weight", "0"]));
        run(&args(
            &one,
            optimizer,
            &["--equity-weight", "2", "--threads", "1"],
        ));
        run(&args(
            &two,
            optimizer,
            &["--equity-weight", "2", "--threads", "2"],
        ));
        let read = |p: &Path| std::fs::read(p).unwrap();
        assert_eq!(
            read(&plain),
            read(&zero),
            "{optimizer:?}: μ 0 is the plain loss"
        );
        assert_eq!(read(&one), read(&two), "{optimizer:?}: thread count");
        assert_ne!(
            read(&plain),
            read(&one),
            "{optimizer:?}: the equity term changes the net"
        );
    }
    for (mu, needle) in [
        ("-1", "--equity-weight -1.0: must be from 0 to 100"),
        ("1000", "--equity-weight 1000.0: must be from 0 to 100"),
        ("NaN", "--equity-weight NaN: must be from 0 to 100"),
    ] {
        let out = path("refused.wd");
        let a = args(&out, &adam, &["--equity-weight", mu]);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        assert_one_line_failure(BIN, "trainer", &a, needle);
        assert!(!out.exists());
    }
}

/// The arguments of `trainer train` for the contact net of `start` on
/// `train`, written to `out`, quiet, with gnubg's bearoff files and then
/// `settings`.
fn train_contact(train: &Path, start: &Path, out: &Path, settings: &[&str]) -> Vec<String> {
    let mut a = vec![
        "train",
        "--db",
        s(train),
        "--class",
        "contact",
        "--weights",
        s(start),
        "-o",
        s(out),
        "-q",
        "--bearoff",
        OS0,
        "--bearoff",
        TS0,
    ];
    a.extend_from_slice(settings);
    a.into_iter().map(String::from).collect()
}

/// Runs `trainer` with `args`, which must succeed; its standard output.
fn run(args: &[String]) -> String {
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
}
