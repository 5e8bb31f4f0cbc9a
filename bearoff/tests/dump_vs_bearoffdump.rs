//! `bearoff dump` against gnubg 1.07's bearoffdump run live on files made by
//! gnubg's makebearoff and makehyper: every kind, by index and by Position
//! ID.

mod common;

use common::*;
use std::path::Path;

/// The non-empty lines from the "Player / Opponent" heading on.
fn body(text: &str) -> Vec<String> {
    let at = text.find("             Player").expect("heading");
    text[at..]
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// Our text dump reduced to what bearoffdump prints: bearoffdump overwrites
/// the last table row's gammon columns with the next heading, and prints
/// nothing after its own blocks.
fn as_bearoffdump_prints(ours: &str, theirs_len: usize) -> Vec<String> {
    let mut lines = body(ours);
    if let Some(k) = lines.iter().position(|l| l == "Average rolls") {
        let last = &lines[k - 1];
        let cut = last.find("\t\t").expect("table row") + 2;
        lines[k - 1] = last[..cut].to_string();
    }
    lines.truncate(theirs_len);
    lines
}

/// How closely printed numbers must agree.
#[derive(Clone, Copy)]
enum Match {
    /// Character for character.
    Exact,
    /// Numbers may differ by one unit in the last printed decimal
    /// (normal-distribution probabilities: gnubg's fast-math `expf` differs
    /// from ours by an ulp, which shows in about 1 of 10 000 printed values).
    LastDigit,
}

fn lines_match(ours: &str, theirs: &str, how: Match) -> bool {
    if ours == theirs {
        return true;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.split('\t').collect(), theirs.split('\t').collect());
    matches!(how, Match::LastDigit)
        && a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y
                || match (x.trim().parse::<f64>(), y.trim().parse::<f64>()) {
                    (Ok(x), Ok(y)) => (x - y).abs() <= 0.0011,
                    _ => false,
                }
        })
}

fn compare_dumps(file: &Path, gnubg_args: &[&str], our_args: &[&str], how: Match) {
    let mut args = vec![s(file)];
    args.extend(gnubg_args);
    let theirs = body(&run_gnubg(GNUBG_BEAROFFDUMP, &args));
    let mut args = vec!["dump", s(file)];
    args.extend(our_args);
    let ours = as_bearoffdump_prints(&bearoff_ok(&args), theirs.len());
    let same = ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| lines_match(a, b, how));
    assert!(
        same,
        "{} {our_args:?}\nours:   {ours:?}\ngnubg:  {theirs:?}",
        file.display()
    );
}

/// Dumps a spread of records by index and by Position ID.
fn check_file(file: &Path, records: u64, samples: u64, how: Match) {
    let step = (records / samples).max(1);
    for index in (1..records).step_by(step as usize) {
        let i = index.to_string();
        compare_dumps(file, &["-n", &i], &["--index", &i], how);
    }
    for index in (step / 2 + 1..records).step_by(4 * step as usize) {
        let json = bearoff_ok(&["dump", s(file), "--index", &index.to_string(), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let id = v["position_id"].as_str().unwrap();
        // Hypergammon files also hold illegal pairs (both sides on one
        // point), whose IDs we refuse as invalid.
        if board::Board::from_position_id(id).is_ok() {
            compare_dumps(file, &["-p", id], &["--id", id], how);
        }
    }
}

#[test]
fn one_sided_kinds_dump_like_bearoffdump() {
    let dir = tempdir();
    for (args, how) in [
        (&["-o", "4", "-g"][..], Match::Exact),
        (&["-o", "4", "-c"], Match::Exact),
        (&["-o", "4", "-n"], Match::LastDigit),
    ] {
        let name = args.join("").replace('-', "");
        let file = gnubg_makebearoff(dir.path(), &format!("{name}.bd"), args);
        check_file(&file, 3876, 40, how);
    }
}

#[test]
fn two_sided_kinds_dump_like_bearoffdump() {
    let dir = tempdir();
    let file = gnubg_makebearoff(dir.path(), "ts.bd", &["-t", "4x4"]);
    check_file(&file, 4900, 40, Match::Exact);
    check_file(&gnubg_file(GNUBG_TS0), 853_776, 20, Match::Exact);
}

#[test]
fn hypergammon_dumps_like_bearoffdump() {
    let dir = tempdir();
    let file = gnubg_makehyper(dir.path(), 1);
    check_file(&file, 676, 80, Match::Exact);
}

/// A one-sided file dumped by a two-sided Position ID shows both sides, as
/// bearoffdump does, and adds the race probabilities.
#[test]
fn one_sided_pairs_dump_like_bearoffdump() {
    let os = gnubg_file(GNUBG_OS0);
    for id in ["RgAAgAYAAAAAAA", "sQAAQAkAAAAAAA", "AgAAMAEAAAAAAA"] {
        compare_dumps(&os, &["-p", id], &["--id", id], Match::Exact);
        let text = bearoff_ok(&["dump", s(&os), "--id", id]);
        assert!(text.contains("Race with Player on roll:"), "{text}");
    }
}
