//! `calibrate` as a user runs it: gnubg's last line, JSON, threads,
//! iteration counting, and one-line errors for bad input.

use std::process::Command;
use test_support::{assert_one_line_failure, assert_success};

const BIN: &str = env!("CARGO_BIN_EXE_calibrate");

fn calibrate(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run calibrate")
}

#[test]
fn the_last_line_is_gnubgs_and_iterations_count_across_threads() {
    for threads in ["1", "2"] {
        let out = calibrate(&["--threads", threads, "--iterations", "4"]);
        assert_success(&out, "calibrate");
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.last().unwrap();
        let n = last
            .strip_prefix("Calibration result: ")
            .and_then(|r| r.strip_suffix(" static evaluations/second."))
            .unwrap_or_else(|| panic!("last line: {last:?}"));
        assert!(n.parse::<u64>().unwrap() > 0, "{last}");
        let per_thread: Vec<&&str> = lines.iter().filter(|l| l.starts_with("thread ")).collect();
        assert_eq!(
            per_thread.len(),
            threads.parse::<usize>().unwrap(),
            "{text}"
        );
        // Four batches in total, whatever the thread count.
        let evaluations: u64 = per_thread
            .iter()
            .map(|l| l.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(evaluations, 4 * 1024, "{text}");
    }
}

#[test]
fn json_result() {
    let out = calibrate(&["--iterations", "2", "--json", "--seed", "7"]);
    assert_success(&out, "calibrate --json");
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(v["evaluations"], 2048);
    assert_eq!(v["batches"], 2);
    assert!(v["evals_per_second"].as_f64().unwrap() > 0.0);
    assert_eq!(v["threads"].as_array().unwrap().len(), 1);
    assert_eq!(v["batched"], false);
    let out = calibrate(&["--iterations", "3", "--json", "--batched"]);
    assert_success(&out, "calibrate --json --batched");
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(v["evaluations"], 3 * 1024);
    assert_eq!(v["batched"], true);
}

#[test]
fn bad_input_is_one_line() {
    let dir = test_support::tempdir("bgkit-calibrate-test.");
    let corrupt = dir.path().join("corrupt.wd");
    std::fs::write(&corrupt, b"GNU Backgammon 1.00\n250 128 5 0 0.1\n").unwrap();
    let corrupt = corrupt.to_str().unwrap();
    for (args, needle) in [
        (&["--threads", "0"][..], "invalid value"),
        (&["--iterations", "0"], "invalid value"),
        (&["--iterations", "-3"], "unexpected argument"),
        (&["--seconds", "0"], "invalid value"),
        (&["--seconds", "nan"], "invalid value"),
        (&["--weights", "/nonexistent/w.wd"], "/nonexistent/w.wd"),
        (&["--weights", corrupt], "corrupt.wd"),
    ] {
        assert_one_line_failure(BIN, "calibrate", args, needle);
    }
}

/// `bench-chart` draws a CSV of side-by-side figures as a PNG of the
/// promised size, and refuses a malformed CSV with one line.
#[test]
fn bench_chart_writes_a_png() {
    let chart = env!("CARGO_BIN_EXE_bench-chart");
    let dir = test_support::tempdir("bgkit-chart-test.");
    let csv = dir.path().join("c.csv");
    std::fs::write(
        &csv,
        "threads,gnubg,bgkit\n1,166101,312188\n2,216668,540301\n",
    )
    .unwrap();
    let png = dir.path().join("c.png");
    let out = Command::new(chart)
        .arg(&csv)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    assert_success(&out, "bench-chart");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (800, 500), "IHDR width and height");
    std::fs::write(&csv, "threads,gnubg\n1,2\n").unwrap();
    let csv = csv.to_str().unwrap();
    assert_one_line_failure(
        chart,
        "bench-chart",
        &[csv, "-o", "x.png"],
        "threads,gnubg,bgkit",
    );
}
