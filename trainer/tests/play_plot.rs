//! `trainer play` and `plot` end to end: matches against pubeval, thread
//! counts, chart images.

mod common;

use common::play::{gnubg_weights, play};
use common::{ok, s, BIN};
use test_support::{assert_one_line_failure, tempdir};

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
