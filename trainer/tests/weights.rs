//! `trainer weights` end to end: convert and splice (also into another
//! slot), and gnubg 1.07 loading our TD-trained nets.

mod common;

use common::play::{eval_outputs, gnubg_outputs, gnubg_weights};
use common::{net_md5, net_md5s, ok, s, BIN, GNUBG_WD, OS0, TS0};
use std::path::Path;
use test_support::{assert_one_line_failure, tempdir};

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

/// `weights splice --as`: a net put into another slot of as many inputs (a
/// trained contact net as the start of a crashed net) keeps its values; a
/// slot of another input count is refused in one line.
#[test]
fn splice_as_puts_a_net_into_another_slot_of_as_many_inputs() {
    let dir = tempdir("bgkit-splice-as.");
    let (new, out) = (dir.path().join("new.wd"), dir.path().join("out.wd"));
    ok(&["new", "-o", s(&new), "--seed", "2"]);
    let splice = |net: &'static str, slot: &'static str| -> Vec<&str> {
        vec![
            "weights",
            "splice",
            "--from",
            GNUBG_WD,
            "--net",
            net,
            "--as",
            slot,
            "--into",
            s(&new),
            "-o",
            s(&out),
        ]
    };
    ok(&splice("contact", "crashed"));
    let md5 = net_md5;
    let gnubg = Path::new(GNUBG_WD);
    assert_eq!(md5(&out, "crashed"), md5(gnubg, "contact"));
    assert_ne!(md5(&out, "crashed"), md5(gnubg, "crashed"));
    assert_eq!(md5(&out, "contact"), md5(&new, "contact"));
    std::fs::remove_file(&out).unwrap();
    assert_one_line_failure(
        BIN,
        "trainer",
        &splice("race", "crashed"),
        "--net race has 214 inputs, --as crashed needs 250",
    );
    assert!(!out.exists());
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
        let theirs = gnubg_outputs(&weights, &IDS);
        let ours = eval_outputs(&weights, &["--native-rcp"], &IDS);
        assert_eq!(ours, theirs, "hidden {hidden}: bgkit and gnubg disagree");
    }
}
