//! `trainer db import`, `export` (`.dat` and `.npz`) and `merge` end to
//! end: round trips, NumPy inputs, a merge that leaves out a held-out set.

mod common;

use common::db::{fixture, import_fixture};
use common::{dump, ok, s};
use std::path::Path;
use test_support::tempdir;

#[test]
fn canonical_dat_round_trips_byte_for_byte() {
    let dir = tempdir("bgkit-db.");
    let db = dir.path().join("a.db");
    let back = dir.path().join("back.dat");
    let src = fixture("gnubg_0ply_200.dat");
    ok(&["db", "import", s(&src), "-o", s(&db)]);
    ok(&["db", "export", s(&db), "-o", s(&back)]);
    assert_eq!(std::fs::read(&src).unwrap(), std::fs::read(&back).unwrap());
    let stats = ok(&["db", "stats", s(&db)]);
    assert!(stats.contains("200 positions"), "{stats}");
    assert!(dir.path().join("a.db.json").exists(), "provenance");
}

#[test]
fn any_valid_dat_round_trips_within_5e_6() {
    let dir = tempdir("bgkit-db.");
    let src = dir.path().join("odd.dat");
    let text = std::fs::read_to_string(fixture("gnubg_0ply_200.dat")).unwrap();
    let mut odd = String::from("# a comment\n\n");
    let mut expected = Vec::new();
    for (k, line) in text.lines().take(50).enumerate() {
        let key = &line[..20];
        // Probabilities (gammons within wins and losses), oddly written.
        let vals = [0.123456789f64, 1e-3, 0.0000049, 0.5, 0.49999]
            .map(|v| v * (1.0 + k as f64 / 100.0) / 1.6);
        odd.push_str(&format!(
            "{key}\t{} {:e}  {} {} {} trailing fields\n# between\n",
            vals[0], vals[1], vals[2], vals[3], vals[4]
        ));
        expected.push((key.to_string(), vals));
    }
    std::fs::write(&src, odd).unwrap();
    let db = dir.path().join("odd.db");
    let back = dir.path().join("back.dat");
    ok(&["db", "import", s(&src), "-o", s(&db)]);
    ok(&["db", "export", s(&db), "-o", s(&back)]);
    let out = std::fs::read_to_string(&back).unwrap();
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got.len(), expected.len());
    for (line, (key, vals)) in got.iter().zip(&expected) {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f[0], key);
        for (v, want) in f[1..].iter().zip(vals) {
            let v: f64 = v.parse().unwrap();
            // %.5f rounds by at most 5e-6; 1e-9 covers the f32 storage.
            assert!((v - want).abs() <= 5e-6 + 1e-9, "{line}: {v} vs {want}");
        }
    }
}

#[test]
fn merge_can_leave_out_a_held_out_set() {
    let dir = tempdir("bgkit-db-exclude.");
    let all = dir.path().join("all.db");
    import_fixture("gnubg_0ply_200.dat", &all);
    let (train, held) = (dir.path().join("train.db"), dir.path().join("held.db"));
    ok(&[
        "db",
        "split",
        s(&all),
        "--holdout",
        "0.3",
        "--seed",
        "4",
        "-o",
        s(&train),
        "-o",
        s(&held),
    ]);
    let merged = dir.path().join("merged.db");
    let out = ok(&[
        "db",
        "merge",
        s(&all),
        s(&train),
        "--exclude",
        s(&held),
        "-o",
        s(&merged),
    ]);
    let ids = |db: &Path| -> Vec<String> {
        dump(db)
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let held_ids: std::collections::HashSet<String> = ids(&held).into_iter().collect();
    let kept = ids(&merged);
    assert_eq!(kept.len() + held_ids.len(), 200, "{out}");
    assert!(kept.iter().all(|id| !held_ids.contains(id)));
    assert!(
        out.contains(&format!("({} excluded)", held_ids.len())),
        "{out}"
    );
}

#[test]
fn npz_holds_the_inputs_nets_computes() {
    use ndarray::Array2;
    use ndarray_npy::NpzReader;
    let dir = tempdir("bgkit-db.");
    let db = dir.path().join("a.db");
    let npz = dir.path().join("a.npz");
    import_fixture("gnubg_0ply_200.dat", &db);
    let report = ok(&["db", "export", s(&db), "--format", "npz", "-o", s(&npz)]);
    let rows = dump(&db);
    let mut reader = NpzReader::new(std::fs::File::open(&npz).unwrap()).unwrap();
    let mut checked = 0;
    for (class, width) in [("contact", 250), ("crashed", 250), ("race", 214)] {
        let inputs: Array2<f32> = reader.by_name(&format!("{class}_inputs")).unwrap();
        let targets: Array2<f32> = reader.by_name(&format!("{class}_targets")).unwrap();
        let keys: Array2<u8> = reader.by_name(&format!("{class}_keys")).unwrap();
        let of_class: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|r| r["class"].as_str().unwrap().eq_ignore_ascii_case(class))
            .collect();
        assert_eq!(inputs.dim(), (of_class.len(), width), "{class}: {report}");
        assert_eq!(targets.dim(), (of_class.len(), 5));
        for i in (0..of_class.len()).step_by(7) {
            let key: [u8; 10] = std::array::from_fn(|k| keys[[i, k]]);
            let board = board::Board::from_id_bytes(&key).unwrap();
            assert_eq!(board.position_id(), of_class[i]["id"].as_str().unwrap());
            let mut want = vec![0f32; width];
            let arith = nets::Arithmetic::default();
            match class {
                "contact" => nets::inputs::contact_inputs(&board, &mut want, arith),
                "crashed" => nets::inputs::crashed_inputs(&board, &mut want, arith),
                _ => nets::inputs::race_inputs(&board, &mut want, arith),
            }
            let got: Vec<f32> = inputs.row(i).to_vec();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            let t: Vec<f64> = of_class[i]["targets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            for (a, b) in targets.row(i).iter().zip(t) {
                assert_eq!(*a, b as f32);
            }
            checked += 1;
        }
    }
    assert!(checked >= 20);
}
