//! Command-line behaviour: help, version, default output name, progress
//! report and convergence threshold, checkpoints on and off, threads.

mod common;

use common::*;

#[test]
fn help_lists_every_option() {
    let dir = tempdir();
    for flag in ["--help", "-h"] {
        let out = run_ours(dir.path(), &[flag]);
        assert_success(&out, &format!("makehyper {flag}"));
        let text = String::from_utf8_lossy(&out.stdout);
        for option in [
            "-c, --chequers",
            "-f, --outfile",
            "-r, --restart",
            "-t, --threshold",
            "-n, --no-checkpoint",
            "-v, --version",
            "--threads",
        ] {
            assert!(
                text.contains(option),
                "makehyper {flag} does not list {option}:\n{text}"
            );
        }
    }
    assert!(names(dir.path()).is_empty(), "--help wrote files");
}

#[test]
fn version_prints_one_line() {
    let dir = tempdir();
    for flag in ["-v", "--version"] {
        let out = run_ours(dir.path(), &[flag]);
        assert_success(&out, &format!("makehyper {flag}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().count(), 1, "one line expected: {text:?}");
        assert!(
            text.contains("makehyper") && text.contains(env!("CARGO_PKG_VERSION")),
            "makehyper {flag} printed {text:?}"
        );
        assert!(out.stderr.is_empty(), "nothing on stderr expected");
    }
    assert!(names(dir.path()).is_empty(), "--version wrote files");
}

#[test]
fn default_output_is_hyper_c_bd() {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["-c", "1"]);
    assert_success(&out, "makehyper -c 1");
    assert_eq!(names(dir.path()), ["hyper1.bd"]);
    let bytes = std::fs::read(dir.path().join("hyper1.bd")).unwrap();
    assert_eq!(bytes.len(), file_size(1));
    assert_eq!(
        &bytes[..HEADER_LEN],
        format!("gnubg-H1{}\n", "x".repeat(31)).as_bytes()
    );
}

#[test]
fn sweeps_are_reported_and_the_threshold_decides_when_to_stop() {
    let dir = tempdir();
    let mut counts = Vec::new();
    for t in ["0.5", "0.001", "1e-5"] {
        let name = format!("t{t}.bd");
        let out = run_ours(dir.path(), &["-c", "1", "-t", t, "-f", &name]);
        assert_success(&out, &format!("makehyper -c 1 -t {t}"));
        let threshold: f64 = t.parse().unwrap();
        let s = reported_sweeps(&out);
        assert_stopped_at_threshold(&s, threshold, &format!("-t {t}"));
        assert!(s.iter().all(|x| x.seconds >= 0.0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("after {} sweeps", s.len())),
            "the summary should give the number of sweeps\n{stderr}"
        );
        assert!(stderr.contains("peak memory"), "peak memory not reported");
        counts.push(s.len());
    }
    assert!(
        counts[0] < counts[1] && counts[1] < counts[2],
        "a smaller threshold should need more sweeps: {counts:?}"
    );
}

#[test]
fn quiet_prints_nothing() {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["-c", "1", "-q", "-f", "q.bd"]);
    assert_success(&out, "makehyper -c 1 -q");
    assert!(out.stderr.is_empty() && out.stdout.is_empty());
    assert_eq!(names(dir.path()), ["q.bd"]);
}

#[test]
fn checkpoint_is_replaced_and_removed_on_convergence() {
    let dir = tempdir();
    std::fs::write(dir.path().join("X.bd.tmp"), b"stale checkpoint").unwrap();
    // A temporary a killed run left while writing the checkpoint.
    std::fs::write(dir.path().join(".X.bd.tmp.Zz9Yy8.tmp"), b"partial").unwrap();
    // An interrupted run's checkpoint is only replaced when asked to.
    let refused = run_ours(dir.path(), &["-c", "1", "-f", "X.bd"]);
    assert_eq!(refused.status.code(), Some(2), "{}", describe(&refused));
    let out = run_ours(dir.path(), &["-c", "1", "-f", "X.bd", "--force"]);
    assert_success(&out, "makehyper -c 1 -f X.bd --force");
    assert_eq!(names(dir.path()), ["X.bd"]);
}

#[test]
fn no_checkpoint_leaves_file_tmp_alone() {
    let dir = tempdir();
    std::fs::write(dir.path().join("X.bd.tmp"), b"someone's checkpoint").unwrap();
    std::fs::create_dir(dir.path().join("Y.bd.tmp")).unwrap();
    for (flag, name) in [("-n", "X.bd"), ("--no-checkpoint", "Y.bd")] {
        let out = run_ours(dir.path(), &["-c", "1", flag, "-f", name]);
        assert_success(&out, &format!("makehyper -c 1 {flag} -f {name}"));
    }
    assert_eq!(names(dir.path()), ["X.bd", "X.bd.tmp", "Y.bd", "Y.bd.tmp"]);
    assert_eq!(
        std::fs::read(dir.path().join("X.bd.tmp")).unwrap(),
        b"someone's checkpoint"
    );
    assert_eq!(
        std::fs::read(dir.path().join("X.bd")).unwrap(),
        std::fs::read(dir.path().join("Y.bd")).unwrap(),
        "-n and --no-checkpoint should give the same database"
    );
}

#[test]
fn restart_from_a_converged_database_stops_after_one_sweep() {
    let dir = tempdir();
    let out = run_ours(dir.path(), &["-c", "1", "-f", "a.bd"]);
    assert_success(&out, "makehyper -c 1 -f a.bd");
    let fresh = reported_sweeps(&out);
    let out = run_ours(dir.path(), &["-c", "1", "-r", "a.bd", "-f", "b.bd"]);
    assert_success(&out, "makehyper -c 1 -r a.bd -f b.bd");
    let s = reported_sweeps(&out);
    assert_eq!(s.len(), 1, "restarted from a converged file: {s:?}");
    assert!(
        s[0].norm <= 1e-5 && fresh[0].norm > 1.0,
        "{s:?} vs {fresh:?}"
    );
    let (a, b) = (
        std::fs::read(dir.path().join("a.bd")).unwrap(),
        std::fs::read(dir.path().join("b.bd")).unwrap(),
    );
    assert_close(("first", &a), ("restarted", &b), 1, 1e-5);
    // Restarting in place: the restart file may be the output.
    let out = run_ours(dir.path(), &["-c", "1", "-r", "b.bd", "-f", "b.bd"]);
    assert_success(&out, "makehyper -c 1 -r b.bd -f b.bd");
    let c = std::fs::read(dir.path().join("b.bd")).unwrap();
    assert_close(("restarted", &b), ("in place", &c), 1, 1e-5);
    assert_eq!(names(dir.path()), ["a.bd", "b.bd"]);
}

#[test]
fn thread_count_does_not_change_the_database() {
    let dir = tempdir();
    let mut files = Vec::new();
    for threads in ["1", "2", "3"] {
        let name = format!("t{threads}.bd");
        let out = run_ours(dir.path(), &["-c", "1", "--threads", threads, "-f", &name]);
        assert_success(&out, &format!("makehyper -c 1 --threads {threads}"));
        files.push(std::fs::read(dir.path().join(&name)).unwrap());
    }
    assert!(
        files.windows(2).all(|w| w[0] == w[1]),
        "the sweep order is fixed, so every thread count must give the same bytes"
    );
}
