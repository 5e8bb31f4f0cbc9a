//! `trainer weights export|import` with NumPy and gnubg: the documented
//! NumPy forward pass computes what bgkit computes; archives NumPy writes
//! are read; gnubg 1.07 loads an imported file.

mod common;

use common::db::evaluator;
use common::npz::{entries, export, floats, import, npy, read, write_npz};
use common::play::{eval_outputs, gnubg_outputs, gnubg_weights};
use common::{ok, s, BIN, OS0, TS0};
use ndarray::{Array1, Array2};
use ndarray_npy::NpzReader;
use nets::{Arithmetic, BearoffDatabases, NetKind, Simd};
use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::{assert_one_line_failure, describe, tempdir};

/// A python3 that has NumPy: `$BGKIT_PYTHON`, else `python3` on the PATH,
/// else Debian's `/usr/bin/python3`. None is a test failure, never a skip.
fn python() -> String {
    let candidates: Vec<String> = std::env::var("BGKIT_PYTHON")
        .into_iter()
        .chain(["python3".to_string(), "/usr/bin/python3".to_string()])
        .collect();
    candidates
        .iter()
        .find(|p| {
            Command::new(p)
                .args(["-c", "import numpy"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "no python3 with NumPy among {candidates:?}: this test runs the NumPy \
                 forward pass of docs/trainer.md; install it with \
                 `apt-get install -y python3-numpy` (scripts/test.sh does)"
            )
        })
}

/// The NumPy code of docs/trainer.md's "Weights interchange" section (its
/// first python block), so that the documented code is the tested code.
fn documented_forward_pass() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/trainer.md"))
            .unwrap();
    let section = doc
        .split("\n## Weights interchange (NumPy, PyTorch)")
        .nth(1)
        .expect("docs/trainer.md has the section");
    let code = section
        .split("```python\n")
        .nth(1)
        .and_then(|c| c.split("```").next())
        .expect("the section has a python block");
    assert!(code.contains("def forward("), "{code}");
    code.to_string()
}

/// Runs `script` (after the documented code) with NumPy.
fn run_numpy(dir: &Path, script: &str) {
    let path = dir.join("forward.py");
    std::fs::write(&path, format!("{}\n{script}", documented_forward_pass())).unwrap();
    let out = Command::new(python())
        .arg(&path)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "python failed\n{}", describe(&out));
}

/// The documented NumPy forward pass, on the inputs `db export --format
/// npz` writes for a generated database: the very bits of bgkit's
/// reference arithmetic on the same inputs (every net, the pruning nets
/// too), and within 1e-6 of `trainer eval --arithmetic reference` (which
/// computes the inputs itself, and applies gnubg's sanity check and race
/// backgammon override to the net's outputs, applied here too).
#[test]
fn numpy_forward_pass_matches_trainer_eval() {
    let dir = tempdir("bgkit-npz-numpy.");
    let d = dir.path();
    let db = d.join("g.db");
    let mut args = vec![
        "db",
        "generate",
        "--games",
        "3",
        "--threshold",
        "0",
        "--classes",
        "contact,crashed,race",
        "--seed",
        "11",
        "-q",
        "-o",
        s(&db),
    ];
    args.extend(evaluator());
    ok(&args);
    let mut label = vec!["db", "label", "eval", s(&db), "-q"];
    label.extend(evaluator());
    ok(&label);
    let inputs = d.join("inputs.npz");
    ok(&["db", "export", s(&db), "--format", "npz", "-o", s(&inputs)]);
    let random = d.join("random.wd");
    ok(&["new", "--hidden", "12", "--seed", "9", "-o", s(&random)]);
    let weights = [PathBuf::from(gnubg_weights()), random];
    for (k, w) in weights.iter().enumerate() {
        export(w, &d.join(format!("w{k}.npz")));
    }
    let classes: Vec<String> = NpzReader::new(std::fs::File::open(&inputs).unwrap())
        .unwrap()
        .names()
        .unwrap()
        .into_iter()
        .filter_map(|n| n.strip_suffix("_inputs").map(String::from))
        .collect();
    assert!(classes == ["contact", "crashed", "race"], "{classes:?}");
    run_numpy(
        d,
        &format!(
            "x = np.load({inputs:?})\n\
             out = {{'E': E}}\n\
             for k in range({n}):\n\
             \x20   z = np.load(f'w{{k}}.npz')\n\
             \x20   for c in {classes:?}:\n\
             \x20       out[f'{{k}}.{{c}}'] = forward(z, c, x[c + '_inputs'])\n\
             \x20       out[f'{{k}}.prune_{{c}}'] = forward(z, 'prune_' + c, x[c + '_inputs'][:, :200])\n\
             np.savez('outputs.npz', **out)\n",
            inputs = s(&inputs),
            n = weights.len(),
        ),
    );
    let outputs = d.join("outputs.npz");
    let table = floats(&outputs, "E");
    let ours: Vec<u32> = nets::sigmoid::TABLE.iter().map(|v| v.to_bits()).collect();
    let theirs: Vec<u32> = table.iter().map(|v| v.to_bits()).collect();
    assert_eq!(theirs, ours, "gnubg's sigmoid table");
    let bearoff = BearoffDatabases::open(&[OS0, TS0]).unwrap();
    let mut compared = 0;
    let mut post_processed = 0;
    for (k, w) in weights.iter().enumerate() {
        let nets = nets::weights::load(w).unwrap();
        for class in &classes {
            let x = floats(&inputs, &format!("{class}_inputs"));
            let keys = {
                let mut r = NpzReader::new(std::fs::File::open(&inputs).unwrap()).unwrap();
                let k: Array2<u8> = r.by_name(&format!("{class}_keys")).unwrap();
                k
            };
            let (kind, prune) = match class.as_str() {
                "contact" => (NetKind::Contact, NetKind::PruneContact),
                "crashed" => (NetKind::Crashed, NetKind::PruneCrashed),
                _ => (NetKind::Race, NetKind::PruneRace),
            };
            // Bit for bit: bgkit's reference arithmetic on the same inputs.
            for (kind, name, width) in [
                (kind, format!("{k}.{class}"), kind.inputs()),
                (prune, format!("{k}.prune_{class}"), 200),
            ] {
                let numpy = floats(&outputs, &name);
                let net = nets.get(kind);
                let mut hidden = vec![0f32; net.hidden()];
                for (row, got) in x.outer_iter().zip(numpy.outer_iter()) {
                    let row: Vec<f32> = row.iter().copied().take(width).collect();
                    let mut want = [0f32; 5];
                    nets::forward::forward(
                        net,
                        &row,
                        &mut hidden,
                        &mut want,
                        Arithmetic::Reference,
                        Simd::Auto,
                    );
                    let got: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(
                        got,
                        want.map(f32::to_bits),
                        "{name}: NumPy and bgkit's bits"
                    );
                }
            }
            // Within 1e-6 of `trainer eval`, the net's outputs post-processed
            // as the evaluator does.
            let numpy = floats(&outputs, &format!("{k}.{class}"));
            let ids: Vec<String> = keys
                .outer_iter()
                .map(|key| {
                    let key: [u8; 10] = key.to_vec().try_into().unwrap();
                    board::Board::from_id_bytes(&key).unwrap().position_id()
                })
                .collect();
            let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            let eval = eval_outputs(w, &["--arithmetic", "reference"], &id_refs);
            for ((id, got), want) in ids.iter().zip(numpy.outer_iter()).zip(&eval) {
                let board = board::Board::from_position_id(id).unwrap();
                let raw: [f32; 5] = std::array::from_fn(|i| got[i]);
                let mut out = raw;
                if kind == NetKind::Race {
                    nets::race_backgammon::race_backgammon_override(
                        &board,
                        &mut out,
                        &bearoff,
                        Arithmetic::Reference,
                    );
                }
                nets::sanity::sanity_check(&board, &mut out, &bearoff);
                if out != raw {
                    post_processed += 1;
                }
                for (o, (a, b)) in out.iter().zip(want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-6,
                        "{} {class} {id} output {o}: NumPy {a}, trainer eval {b}",
                        w.display()
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared} positions compared");
    eprintln!("{compared} evaluations compared, {post_processed} changed by the sanity check or race override");
}

/// A compressed archive (numpy.savez_compressed) is refused in one line;
/// one written back by numpy.savez imports to the original bytes.
#[test]
fn archives_written_by_numpy() {
    let dir = tempdir("bgkit-npz-savez.");
    let d = dir.path();
    let npz = d.join("g.npz");
    export(Path::new(gnubg_weights()), &npz);
    run_numpy(
        d,
        "z = dict(np.load('g.npz'))\n\
         np.savez('plain.npz', **z)\n\
         np.savez_compressed('compressed.npz', **z)\n\
         z['race.hidden.weight'] = np.asfortranarray(z['race.hidden.weight'])\n\
         np.savez('fortran.npz', **z)\n",
    );
    for name in ["plain", "fortran"] {
        let out = d.join(format!("{name}.wd"));
        import(&d.join(format!("{name}.npz")), &out);
        assert!(read(&out) == read(Path::new(gnubg_weights())), "{name}");
    }
    let out = d.join("compressed.wd");
    assert_one_line_failure(
        BIN,
        "trainer",
        &[
            "weights",
            "import",
            s(&d.join("compressed.npz")),
            "-o",
            s(&out),
        ],
        "write the archive with numpy.savez, not numpy.savez_compressed",
    );
    assert!(!out.exists());
}

/// gnubg 1.07 loads imported files (random nets of 12 hidden units, the
/// output biases changed in the archive) in both formats and evaluates
/// with them exactly as `trainer eval --native-rcp` does.
#[test]
fn gnubg_loads_an_imported_file() {
    let dir = tempdir("bgkit-npz-gnubg.");
    let d = dir.path();
    let w = d.join("w.wd");
    ok(&["new", "--hidden", "12", "--seed", "4", "-o", s(&w)]);
    let npz = d.join("w.npz");
    export(&w, &npz);
    let mut e = entries(&npz);
    for net in ["contact", "race", "crashed"] {
        let bias = Array1::from(vec![0.5f32, -1.0, -2.0, -1.5, -3.0]);
        e.insert(format!("{net}.output.bias"), npy(&bias));
    }
    let changed = d.join("changed.npz");
    write_npz(&changed, &e);
    const IDS: [&str; 4] = [
        "4HPwATDgc/ABMA",
        "MU/wATDgc+EBYA",
        "bbdFAQBnuwUGAA",
        "2jrgAQyxu4HBAA",
    ];
    let before = eval_outputs(&w, &["--native-rcp"], &IDS);
    for out in ["n.wd", "n.weights"] {
        let out = d.join(out);
        import(&changed, &out);
        let ours = eval_outputs(&out, &["--native-rcp"], &IDS);
        assert_ne!(ours, before, "the changed biases change the evaluations");
        assert_eq!(gnubg_outputs(&out, &IDS), ours, "{}", out.display());
    }
}
