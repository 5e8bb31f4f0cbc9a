//! `trainer db` refusing bad input: clap's typed options, malformed
//! `.dat` lines, bad shards, merges of conflicting rollouts, corrupt or
//! truncated databases; one line each, nothing changed.

mod common;

use common::db::{db_of_ids, evaluator, fixture, import_fixture};
use common::{ok, s, BIN};
use std::path::Path;
use test_support::{assert_one_line_failure, tempdir};

/// Typed options: a wrong class, a malformed shard or an unknown label
/// mode is clap's one-line error (exit 2) before anything runs; the
/// options of one label mode are not accepted by the other.
#[test]
fn wrong_option_values_are_clap_errors() {
    let dir = tempdir("bgkit-db-typed.");
    let db = dir.path().join("a.db");
    import_fixture("gnubg_0ply_200.dat", &db);
    let before = std::fs::read(&db).unwrap();
    let out = dir.path().join("out.db");
    let (db, out) = (s(&db), s(&out));
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "db",
                "generate",
                "--games",
                "1",
                "-o",
                out,
                "--classes",
                "race,bogus",
            ],
            "invalid value 'bogus' for '--classes",
        ),
        (
            &["db", "candidates", db, "-o", out, "--classes", "Contact"],
            "invalid value 'Contact' for '--classes",
        ),
        (
            &["db", "rollout", db, "--shard", "1-2"],
            "invalid value '1-2' for '--shard",
        ),
        (
            &["db", "rollout", db, "--shard", "3/2"],
            "3/2: expected K/N with 1 ≤ K ≤ N",
        ),
        (
            &["db", "label", "bogus", db],
            "unrecognized subcommand 'bogus'",
        ),
        (
            &["db", "label", "eval", db, "--exact-only"],
            "'--exact-only'",
        ),
        (&["db", "label", "race", db, "--plies", "1"], "'--plies'"),
    ];
    for (args, needle) in cases {
        assert_one_line_failure(BIN, "trainer", args, needle);
    }
    assert_eq!(std::fs::read(db).unwrap(), before);
    assert!(!Path::new(out).exists());
}

#[test]
fn bad_input_is_one_line_and_changes_nothing() {
    let dir = tempdir("bgkit-db-bad.");
    let bad_dat = dir.path().join("bad.dat");
    std::fs::write(
        &bad_dat,
        "# ok\nOAHDPAABDAOAHDPAABDA 0.5 0.1 0 0 0\nOAHDPAABDAOAHDPAABDA 0.5 oops 0 0 0\n",
    )
    .unwrap();
    let out = dir.path().join("out.db");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["db", "import", s(&bad_dat), "-o", s(&out)],
        "line 3",
    );
    assert!(!out.exists());
    let db = dir.path().join("a.db");
    import_fixture("gnubg_0ply_200.dat", &db);
    let before = std::fs::read(&db).unwrap();
    for shard in ["0/2", "3/2", "2/0"] {
        let mut args = vec!["db", "rollout", s(&db), "--shard", shard];
        args.extend(evaluator());
        assert_one_line_failure(BIN, "trainer", &args, "--shard");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // Conflicting rollouts and different settings cannot be merged.
    let ids: Vec<String> = std::fs::read_to_string(fixture("bearoff2_ids.txt"))
        .unwrap()
        .lines()
        .take(2)
        .map(String::from)
        .collect();
    let a = db_of_ids(dir.path(), "x", &ids);
    let b = db_of_ids(dir.path(), "y", &ids);
    for (db, seed) in [(&a, "1"), (&b, "2")] {
        let mut args = vec![
            "db",
            "rollout",
            s(db),
            "--trials",
            "36",
            "--seed",
            seed,
            "-q",
        ];
        args.extend(evaluator());
        ok(&args);
    }
    let merged = dir.path().join("m.db");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["db", "merge", s(&a), s(&b), "-o", s(&merged)],
        "different settings",
    );
    assert!(!merged.exists());
    // A corrupt or truncated database is named and left alone.
    let mut bytes = std::fs::read(&db).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    let corrupt = dir.path().join("corrupt.db");
    std::fs::write(&corrupt, &bytes).unwrap();
    let truncated = dir.path().join("truncated.db");
    std::fs::write(&truncated, &before[..n - 100]).unwrap();
    for f in [&corrupt, &truncated] {
        let original = std::fs::read(f).unwrap();
        assert_one_line_failure(BIN, "trainer", &["db", "stats", s(f)], s(f));
        let mut args = vec!["db", "rollout", s(f)];
        args.extend(evaluator());
        assert_one_line_failure(BIN, "trainer", &args, s(f));
        assert_eq!(std::fs::read(f).unwrap(), original);
    }
    // --resume without a journal.
    let mut args = vec!["db", "rollout", s(&db), "--resume"];
    args.extend(evaluator());
    assert_one_line_failure(BIN, "trainer", &args, "journal");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}
