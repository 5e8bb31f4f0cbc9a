//! Weights files we write are accepted by Debian's gnubg 1.07 and its
//! `makeweights`, and gnubg evaluates with them exactly as we do (with this
//! CPU's approximate reciprocal, `--native-rcp`, as gnubg runs on it).

mod common;

use nets::weights::Format;
use nets::{weights_binary, weights_text, Arithmetic, BearoffDatabases, Evaluator, Nets};
use std::path::PathBuf;
use std::process::Command;

const MAKEWEIGHTS: &str = "/usr/games/makeweights";

/// gnubg's nets with every 37th value changed, as read back from our text
/// file (so gnubg and we use the same f32 values).
fn perturbed_nets() -> Nets {
    let mut nets = common::nets().clone();
    for k in nets::NetKind::ALL {
        nets.get_mut(k).update(|p| {
            for part in [
                p.hidden_weights,
                p.output_weights,
                p.hidden_thresholds,
                p.output_thresholds,
            ] {
                for (i, v) in part.iter_mut().enumerate() {
                    if i % 37 == 3 {
                        *v = *v * 0.97 + 0.011;
                    }
                }
            }
        });
    }
    weights_text::parse(&weights_text::write(&nets)).unwrap()
}

/// A package data directory holding our weights in one format and gnubg's
/// one-sided database.
fn data_dir(nets: &Nets, format: Format) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let name = match format {
        Format::Text => "gnubg.weights",
        Format::Binary => "gnubg.wd",
    };
    nets::weights::save(nets, &dir.path().join(name), format).unwrap();
    let os0 = common::bearoff_paths()[0].clone();
    std::fs::copy(os0, dir.path().join("gnubg_os0.bd")).unwrap();
    dir
}

#[test]
fn gnubg_evaluates_with_our_text_and_binary_weights() {
    let nets = perturbed_nets();
    let ids = common::sample_ids(8);
    let paths: Vec<PathBuf> = common::bearoff_paths();
    let db = BearoffDatabases::open(&paths).unwrap();
    let ours = Evaluator::new(nets.clone(), db, Arithmetic::GnubgFastMathNative).unwrap();
    let shipped = common::evaluator(Arithmetic::GnubgFastMathNative);
    let mut s = ours.scratch();
    let want: Vec<[u32; 5]> = ids
        .iter()
        .map(|id| {
            let b = board::Board::from_position_id(id).unwrap();
            ours.evaluate(&b, &mut s).outputs.map(f32::to_bits)
        })
        .collect();
    let changed = ids.iter().zip(&want).any(|(id, w)| {
        let b = board::Board::from_position_id(id).unwrap();
        shipped.evaluate(&b, &mut s).outputs.map(f32::to_bits) != *w
    });
    assert!(changed, "the perturbation must change some evaluation");
    let rows: Vec<(String, bool)> = ids.iter().map(|id| (id.clone(), false)).collect();
    for format in [Format::Text, Format::Binary] {
        let dir = data_dir(&nets, format);
        let got = common::gnubg_evaluate(dir.path(), &rows, 0);
        for ((id, g), w) in ids.iter().zip(&got).zip(&want) {
            assert_eq!(g, w, "{id} with our {format:?} weights");
        }
    }
}

#[test]
fn makeweights_converts_our_text_to_our_binary() {
    let nets = perturbed_nets();
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("in.weights");
    let bin = dir.path().join("out.wd");
    std::fs::write(&text, weights_text::write(&nets)).unwrap();
    let status = Command::new(common::gnubg_file(MAKEWEIGHTS))
        .arg(&bin)
        .arg(&text)
        .status()
        .unwrap();
    assert!(status.success(), "makeweights rejected our text file");
    assert!(std::fs::read(&bin).unwrap() == weights_binary::write(&nets));
}
