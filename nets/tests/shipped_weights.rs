//! The weights bgkit ships (`nets/weights/bgkit.wd`, trained by bgkit from
//! random weights, a contact net of 512 hidden units beside nets of 256):
//! gnubg 1.07 loads the file and evaluates with it exactly as bgkit's
//! `--native-rcp` arithmetic does, at 0 ply and at 2 plies with its
//! pruning nets; and its provenance record names the file's MD5.

mod common;

use md5::{Digest, Md5};
use nets::{Arithmetic, BearoffDatabases, Evaluator};
use std::path::PathBuf;

fn shipped() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("weights/bgkit.wd")
}

#[test]
fn gnubg_evaluates_with_the_shipped_bgkit_weights_as_native_rcp_does() {
    let nets = nets::weights::load(&shipped()).expect("the shipped weights load");
    let hidden: Vec<usize> = nets::NetKind::ALL
        .iter()
        .map(|&k| nets.get(k).hidden())
        .collect();
    // A wider contact net than gnubg's format has ever held: gnubg reads
    // each net's own size.
    assert_eq!(&hidden[..3], &[512, 256, 256], "contact, race, crashed");
    gnubg_evaluates_as_native_rcp_does(&shipped());
}

fn gnubg_evaluates_as_native_rcp_does(weights: &std::path::Path) {
    let nets = nets::weights::load(weights).expect("the weights load");
    let db = BearoffDatabases::open(&common::bearoff_paths()).unwrap();
    let ours = Evaluator::new(nets, db, Arithmetic::GnubgFastMathNative).unwrap();
    let gnubg = common::evaluator(Arithmetic::GnubgFastMathNative);
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(weights, dir.path().join("gnubg.wd")).unwrap();
    for (path, name) in common::bearoff_paths()
        .iter()
        .zip(["gnubg_os0.bd", "gnubg_ts0.bd"])
    {
        std::fs::copy(path, dir.path().join(name)).unwrap();
    }
    let ids = common::sample_ids(10);
    assert!(ids.len() >= 40, "{} positions", ids.len());
    let (mut s, mut t) = (ours.scratch(), gnubg.scratch());
    for plies in [0, 2] {
        let rows: Vec<(String, bool)> = ids.iter().map(|id| (id.clone(), plies > 0)).collect();
        let got = common::gnubg_evaluate_parallel(dir.path(), &rows, plies);
        let mut differs_from_gnubg_weights = 0;
        for ((id, prune), g) in rows.iter().zip(&got) {
            let b = board::Board::from_position_id(id).unwrap();
            let want = ours.evaluate_plied(&b, plies, *prune, &mut s).outputs;
            assert_eq!(
                *g,
                want.map(f32::to_bits),
                "{id} at {plies} plies: gnubg with {}, against --native-rcp",
                weights.display()
            );
            if gnubg.evaluate_plied(&b, plies, *prune, &mut t).outputs != want {
                differs_from_gnubg_weights += 1;
            }
        }
        // gnubg really read the file, not its own weights (the bearoff
        // positions evaluate alike with any weights).
        assert!(
            differs_from_gnubg_weights > ids.len() / 3,
            "{plies} plies: {differs_from_gnubg_weights} of {}",
            ids.len()
        );
    }
}

#[test]
fn the_provenance_record_names_the_shipped_file() {
    let bytes = std::fs::read(shipped()).unwrap();
    let md5 = format!("{:x}", Md5::digest(&bytes));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shipped().with_extension("wd.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["md5"].as_str(), Some(md5.as_str()), "{json}");
    for key in ["commit", "commands", "data", "compute", "result"] {
        assert!(!json[key].is_null(), "bgkit.wd.json lacks {key:?}");
    }
}

/// `nets/weights/plans/reproduce.sh` checks every step against the MD5s
/// the provenance record gives (its "outputs"), all of them, and ends at
/// the shipped file's own.
#[test]
fn the_reproduction_script_checks_the_records_md5s() {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shipped().with_extension("wd.json")).unwrap(),
    )
    .unwrap();
    let is_md5 = |w: &str| w.len() == 32 && w.bytes().all(|b| b.is_ascii_hexdigit());
    let mut recorded: Vec<String> = json["outputs"]
        .as_object()
        .expect("the record lists its outputs")
        .values()
        .flat_map(|v| {
            v.as_str()
                .unwrap()
                .split(|c: char| !c.is_ascii_hexdigit())
                .filter(|w| is_md5(w))
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    let script = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("weights/plans/reproduce.sh"),
    )
    .unwrap();
    // The script's table: lines `echo "PATH MD5"`.
    let checked: Vec<(String, String)> = script
        .lines()
        .filter_map(|l| {
            let quoted = l.split('"').nth(1)?;
            let (path, md5) = quoted.split_once(' ')?;
            is_md5(md5).then(|| (path.to_string(), md5.to_string()))
        })
        .collect();
    let mut in_script: Vec<String> = checked.iter().map(|(_, m)| m.clone()).collect();
    recorded.sort();
    in_script.sort();
    assert_eq!(in_script, recorded, "the script and the record disagree");
    let last = checked.last().expect("the script checks something");
    assert!(last.0.ends_with("rivals1.wd"), "{last:?}");
    assert_eq!(Some(last.1.as_str()), json["md5"].as_str());
}
