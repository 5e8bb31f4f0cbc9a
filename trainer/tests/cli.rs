//! `trainer eval` end to end: output formats, defaults, bad input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DEBIAN_WEIGHTS: &str = "/usr/lib/gnubg/gnubg.wd";

fn weights() -> PathBuf {
    assert!(
        Path::new(DEBIAN_WEIGHTS).exists(),
        "gnubg's weights are needed: `apt-get install -y gnubg` ({DEBIAN_WEIGHTS})"
    );
    DEBIAN_WEIGHTS.into()
}

fn bearoff() -> Vec<String> {
    let files = [
        "/usr/share/gnubg/gnubg_os0.bd",
        "/var/lib/gnubg/gnubg_ts0.bd",
    ];
    for f in files {
        assert!(
            Path::new(f).exists(),
            "{f} is needed: `apt-get install -y gnubg`"
        );
    }
    files
        .iter()
        .flat_map(|f| ["--bearoff".to_string(), f.to_string()])
        .collect()
}

fn trainer(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trainer"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // Feed stdin from another thread: a large input would otherwise deadlock
    // against the child's full stdout pipe.
    let text = stdin.unwrap_or_default().to_string();
    let feeder = std::thread::spawn(move || pipe.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    out
}

fn eval(extra: &[&str], stdin: Option<&str>) -> Output {
    let w = weights();
    let mut args = vec![
        "eval".to_string(),
        "--weights".into(),
        w.display().to_string(),
    ];
    args.extend(bearoff());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    trainer(&args, stdin)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn text_output_has_id_class_outputs_equity() {
    let o = eval(&["4HPwATDgc/ABMA"], None);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let f: Vec<&str> = out.trim_end().split('\t').collect();
    assert_eq!(f[..2], ["4HPwATDgc/ABMA", "CONTACT"]);
    assert_eq!(f.len(), 8);
    // gnubg 1.07 (fast-math build) prints 0.52151380 for the start.
    assert_eq!(f[2], "0.521514");
    assert!(f[2..]
        .iter()
        .all(|v| v.split('.').nth(1).unwrap().len() == 6));
}

#[test]
fn json_lines_from_stdin_at_0_and_1_ply() {
    let ids = "4HPwATDgc/ABMA\n\n  ewAAACoAAAAAAA  \n";
    for plies in ["0", "1"] {
        let o = eval(&["--json", "--plies", plies], Some(ids));
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["id"], "4HPwATDgc/ABMA");
        assert_eq!(lines[0]["class"], "CONTACT");
        assert_eq!(lines[1]["class"], "BEAROFF2");
        assert_eq!(lines[0]["outputs"].as_array().unwrap().len(), 5);
        if plies == "0" {
            // Full f32 precision: gnubg 1.07's bits.
            assert_eq!(
                lines[0]["outputs"][0].as_f64().unwrap() as f32,
                0.5215138f32
            );
            assert_eq!(lines[0]["equity"].as_f64().unwrap() as f32, 0.06711921f32);
        }
    }
}

#[test]
fn bad_position_ids_are_reported_and_fail() {
    let o = eval(&["4HPwATDgc/ABMA", "not-an-id", "////////////AA"], None);
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert_eq!(out.lines().count(), 1, "the good ID is still evaluated");
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains("not-an-id") && err.contains("14 characters"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_weights_and_databases_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(PathBuf, &[u8])> = vec![
        (
            dir.path().join("trunc.weights"),
            b"GNU Backgammon 1.00\n250 128 5 0 0.1 1.0\n1.0\n",
        ),
        (dir.path().join("version.weights"), b"GNU Backgammon 0.99\n"),
        (
            dir.path().join("sizes.weights"),
            b"GNU Backgammon 1.00\n250 0 5 0 0.1 1.0\n",
        ),
        (
            dir.path().join("nan.weights"),
            b"GNU Backgammon 1.00\n1 1 5 0 0.1 1.0\nnan\n",
        ),
        (
            dir.path().join("binary.wd"),
            &[0x69, 0x30, 0xec, 0x43, 0, 0],
        ),
    ];
    for (path, bytes) in &cases {
        std::fs::write(path, bytes).unwrap();
        let p = path.display().to_string();
        let mut args = vec!["eval", "--weights", p.as_str()];
        let b = bearoff();
        args.extend(b.iter().map(String::as_str));
        args.push("4HPwATDgc/ABMA");
        let o = trainer(&args, None);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{p}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{p}: {err}");
        assert!(
            err.starts_with("trainer: error:") && !err.contains("panicked"),
            "{err}"
        );
    }
    let w = weights().display().to_string();
    let missing = dir.path().join("missing.bd").display().to_string();
    let o = trainer(
        &[
            "eval",
            "--weights",
            &w,
            "--bearoff",
            &missing,
            "4HPwATDgc/ABMA",
        ],
        None,
    );
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.lines().count() == 1 && err.contains("missing.bd"),
        "{err}"
    );
    // A two-sided database alone cannot evaluate races.
    let o = trainer(
        &[
            "eval",
            "--weights",
            &w,
            "--bearoff",
            "/var/lib/gnubg/gnubg_ts0.bd",
            "4HPwATDgc/ABMA",
        ],
        None,
    );
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("one-sided"), "{err}");
}

#[test]
fn weights_default_to_the_environment_variable() {
    let o = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["eval", "4HPwATDgc/ABMA"])
        .env("BGKIT_WEIGHTS", "/nonexistent/bgkit.wd")
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("/nonexistent/bgkit.wd"), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["eval", "4HPwATDgc/ABMA"])
        .env("BGKIT_WEIGHTS", weights())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o).1);
}

/// Every 0-ply reference position through the CLI: the default arithmetic is
/// gnubg 1.07's (the reference prints 8 decimals), `--ieee` is not.
#[test]
fn default_mode_reproduces_gnubg_on_every_reference_position() {
    let table = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/tests/fixtures/evals_public.tsv"),
    )
    .unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let ids: String = rows.iter().map(|r| format!("{}\n", r[0])).collect();
    let worst = |extra: &[&str]| -> f64 {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let o = eval(&args, Some(&ids));
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let got: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), rows.len());
        let mut worst = 0f64;
        for (g, r) in got.iter().zip(&rows) {
            assert_eq!(g["id"], r[0]);
            assert_eq!(g["class"], r[1], "{}", r[0]);
            for k in 0..5 {
                let want: f64 = r[2 + k].parse().unwrap();
                let d = (g["outputs"][k].as_f64().unwrap() - want).abs();
                worst = worst.max(d);
            }
        }
        worst
    };
    let default = worst(&[]);
    assert!(default < 1e-7, "default mode max error {default}");
    let ieee = worst(&["--ieee"]);
    assert!(
        ieee > 1e-4,
        "--ieee should be IEEE arithmetic, max error {ieee}"
    );
}
