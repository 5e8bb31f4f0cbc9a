//! `trainer weights export|import`: weights as NumPy arrays. An import of
//! an export writes the original file back byte for byte (binary and text,
//! gnubg's and random nets); bad archives are refused in one line naming
//! the array, writing nothing. The NumPy and gnubg checks are in
//! weights_npz_numpy.rs.

mod common;

use common::npz::{entries, export, floats, import, json, md5, npy, read, write_npz};
use common::play::gnubg_weights;
use common::{ok, s, BIN};
use ndarray::{Array1, Array2, ArrayD};
use ndarray_npy::NpzReader;
use nets::NetKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::{assert_one_line_failure, describe, tempdir};

/// Export, then import into each format: the original's bytes in its own
/// format, what `weights convert` writes in the other; gnubg's weights and
/// random nets, binary and text, with other training counters in the
/// headers, and a text file laid out otherwise than bgkit writes it.
#[test]
fn import_of_an_export_gives_the_original_bytes() {
    let dir = tempdir("bgkit-npz-round.");
    let d = dir.path();
    let random = d.join("random.wd");
    ok(&["new", "--hidden", "8", "--seed", "5", "-o", s(&random)]);
    let mut originals = vec![PathBuf::from(gnubg_weights()), random.clone()];
    for (k, w) in originals.clone().iter().enumerate() {
        let text = d.join(format!("t{k}.weights"));
        ok(&["weights", "convert", s(w), "-o", s(&text)]);
        originals.push(text);
    }
    // Training counters other than the 1 (binary) and 0 (text) that gnubg
    // and bgkit write: gnubg ignores them, and they come back.
    let mut bytes = read(&random);
    bytes[20..24].copy_from_slice(&7i32.to_le_bytes());
    let counted = d.join("counted.wd");
    std::fs::write(&counted, &bytes).unwrap();
    let text = String::from_utf8(read(&d.join("t1.weights"))).unwrap();
    let counted_text = d.join("counted.weights");
    std::fs::write(&counted_text, text.replacen("250 8 5 0 ", "250 8 5 12 ", 1)).unwrap();
    originals.extend([counted, counted_text]);
    for (k, original) in originals.iter().enumerate() {
        let npz = d.join(format!("{k}.npz"));
        export(original, &npz);
        assert!(
            !d.join(format!("{k}.npz.json")).exists(),
            "an archive has no record"
        );
        let ext = original.extension().unwrap().to_str().unwrap();
        let back = d.join(format!("{k}.back.{ext}"));
        let said = import(&npz, &back);
        assert!(
            read(&back) == read(original),
            "{}: import of its export differs",
            original.display()
        );
        assert!(said.contains("the bytes of the exported file"), "{said}");
        let record = json(&d.join(format!("{k}.back.{ext}.json")));
        assert_eq!(record["md5"], md5(&back));
        assert_eq!(record["parent"]["md5"], md5(&npz));
        assert_eq!(record["settings"]["exported_md5"], md5(original));
        // The other format: as `weights convert` writes it.
        let other = if ext == "wd" { "weights" } else { "wd" };
        let imported = d.join(format!("{k}.imported.{other}"));
        let converted = d.join(format!("{k}.converted.{other}"));
        import(&npz, &imported);
        ok(&["weights", "convert", s(original), "-o", s(&converted)]);
        assert!(
            read(&imported) == read(&converted),
            "{}: import into .{other} differs from convert",
            original.display()
        );
    }
    // Float32 values bit for bit, transposed to (hidden, inputs).
    let nets = nets::weights::load(&random).unwrap();
    let w = floats(&d.join("1.npz"), "contact.hidden.weight");
    assert_eq!(w.shape(), [8, 250]);
    let net = nets.get(NetKind::Contact);
    for ((j, i), want) in [((0, 0), 0), ((3, 17), 17 * 8 + 3), ((7, 249), 249 * 8 + 7)] {
        assert_eq!(
            w[[j, i]].to_bits(),
            net.hidden_weights()[want].to_bits(),
            "[{j}, {i}]"
        );
    }
    // A file laid out otherwise (CRLF lines): exported with a note; the
    // import has its nets in bgkit's layout.
    let crlf = d.join("crlf.weights");
    std::fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
    let npz = d.join("crlf.npz");
    let out = Command::new(BIN)
        .args(["weights", "export", s(&crlf), "-o", s(&npz)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not laid out as gnubg and bgkit write"),
        "{}",
        describe(&out)
    );
    let back = d.join("crlf.back.weights");
    let said = import(&npz, &back);
    assert!(read(&back) == text.as_bytes(), "the canonical layout");
    assert!(said.contains("the exported file's was"), "{said}");
}

/// The training counts recorded beside a file (its `FILE.json`) go into
/// the archive and from there into the imported file's record.
#[test]
fn recorded_training_counts_travel_with_the_arrays() {
    let dir = tempdir("bgkit-npz-counts.");
    let d = dir.path();
    let w = d.join("w.wd");
    ok(&["new", "--hidden", "8", "-o", s(&w)]);
    let record_path = d.join("w.wd.json");
    let mut record = json(&record_path);
    record["n_trained"] = serde_json::json!({ "contact": 5, "race": 6, "crashed": 7 });
    std::fs::write(&record_path, record.to_string()).unwrap();
    let npz = d.join("w.npz");
    export(&w, &npz);
    let mut r = NpzReader::new(std::fs::File::open(&npz).unwrap()).unwrap();
    let names = r.names().unwrap();
    assert!(!names.iter().any(|n| n.starts_with("prune_race.n_trained")));
    let n: ndarray::Array0<u64> = r.by_name("race.n_trained").unwrap();
    assert_eq!(n.into_scalar(), 6);
    let back = d.join("back.weights");
    import(&npz, &back);
    assert_eq!(
        json(&d.join("back.weights.json"))["n_trained"],
        serde_json::json!({ "contact": 5, "race": 6, "crashed": 7 })
    );
    // gnubg's file has no record: no counts in its archive.
    let g = d.join("g.npz");
    export(Path::new(gnubg_weights()), &g);
    let mut r = NpzReader::new(std::fs::File::open(&g).unwrap()).unwrap();
    assert!(!r.names().unwrap().iter().any(|n| n.contains("n_trained")));
}

/// The `.npy` bytes of float32 zeros of `shape`.
fn zeros(shape: &[usize]) -> Vec<u8> {
    npy(&ArrayD::<f32>::zeros(shape))
}

/// A forged `.npy` entry: a header claiming `shape` float32 values, and
/// no data.
fn forged(shape: &str) -> Vec<u8> {
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    while (dict.len() + 11) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((dict.len() as u16).to_le_bytes());
    bytes.extend(dict.as_bytes());
    bytes
}

/// Every bad archive is refused in one line naming the array (or what is
/// wrong), and nothing is written: the output keeps its old bytes, no
/// record, no temporary file.
#[test]
fn bad_archives_are_refused_in_one_line_and_nothing_is_written() {
    let dir = tempdir("bgkit-npz-bad.");
    let d = dir.path();
    let w = d.join("w.wd");
    ok(&["new", "--hidden", "8", "-o", s(&w)]);
    let good = d.join("good.npz");
    export(&w, &good);
    let base = entries(&good);
    type Change = Box<dyn Fn(&mut BTreeMap<String, Vec<u8>>)>;
    let with = |name: &str, bytes: Vec<u8>| -> Change {
        let name = name.to_string();
        Box::new(move |e| {
            e.insert(name.clone(), bytes.clone());
        })
    };
    let mut nan = Array1::<f32>::zeros(8);
    nan[3] = f32::NAN;
    let mut inf = Array2::<f32>::zeros((5, 8));
    inf[[2, 5]] = f32::INFINITY;
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "missing",
            Box::new(|e| {
                e.remove("race.output.bias");
            }),
            "missing array `race.output.bias`",
        ),
        (
            "inputs",
            with("contact.hidden.weight", zeros(&[8, 249])),
            "array `contact.hidden.weight` has shape (8, 249), must be (H, 250)",
        ),
        (
            "race inputs",
            with("race.hidden.weight", zeros(&[8, 250])),
            "array `race.hidden.weight` has shape (8, 250), must be (H, 214)",
        ),
        (
            "outputs",
            with("race.output.weight", zeros(&[4, 8])),
            "array `race.output.weight` has shape (4, 8), must be (5, 8)",
        ),
        (
            "output biases",
            with("race.output.bias", zeros(&[4])),
            "array `race.output.bias` has shape (4,), must be (5,)",
        ),
        (
            "hidden biases",
            with("contact.hidden.bias", zeros(&[9])),
            "array `contact.hidden.bias` has shape (9,), must be (8,)",
        ),
        (
            "1-d weights",
            with("contact.hidden.weight", zeros(&[2000])),
            "array `contact.hidden.weight` has shape (2000,), must be (H, 250)",
        ),
        (
            "nan",
            with("crashed.hidden.bias", npy(&nan)),
            "array `crashed.hidden.bias` holds NaN at [3]: weights must be finite",
        ),
        (
            "inf",
            with("prune_race.output.weight", npy(&inf)),
            "array `prune_race.output.weight` holds inf at [2, 5]",
        ),
        (
            "infinite slope",
            with("contact.beta_hidden", npy(&ndarray::arr0(f32::INFINITY))),
            "array `contact.beta_hidden` holds inf: weights must be finite",
        ),
        (
            "zero slope",
            with("contact.beta_output", npy(&ndarray::arr0(0f32))),
            "array `contact.beta_output`: 0: a slope must be positive",
        ),
        (
            "slope not a scalar",
            with("race.beta_hidden", zeros(&[1])),
            "array `race.beta_hidden` has shape (1,), must be ()",
        ),
        (
            "hidden 30",
            Box::new(|e| {
                e.insert("crashed.hidden.weight".into(), zeros(&[30, 250]));
                e.insert("crashed.hidden.bias".into(), zeros(&[30]));
                e.insert("crashed.output.weight".into(), zeros(&[5, 30]));
            }),
            "array `crashed.hidden.weight`: hidden size 30: must be a multiple of 4",
        ),
        (
            "hidden 0",
            with("contact.hidden.weight", zeros(&[0, 250])),
            "array `contact.hidden.weight`: hidden size 0",
        ),
        (
            "float64",
            with("contact.hidden.weight", npy(&ArrayD::<f64>::zeros(&[8, 250][..]))),
            "array `contact.hidden.weight` has dtype <f8, must be float32",
        ),
        (
            "int32",
            with("race.beta_hidden", npy(&ndarray::arr0(1i32))),
            "array `race.beta_hidden` has dtype <i4, must be float32",
        ),
        (
            "unknown",
            with("contact.hidden.weights", zeros(&[8, 250])),
            "unknown array `contact.hidden.weights`",
        ),
        (
            "huge shape",
            with("contact.hidden.weight", forged("(1099511627776, 250)")),
            "array `contact.hidden.weight` cannot be read: its data (0 bytes) does not match its shape (1099511627776, 250)",
        ),
        (
            "overflowing shape",
            with("contact.hidden.weight", forged("(18446744073709551615, 250)")),
            "does not match its shape",
        ),
        (
            "not npy",
            with("contact.hidden.weight", b"not an array".to_vec()),
            "array `contact.hidden.weight` cannot be read: not a .npy array",
        ),
        (
            "version",
            with("file.version", npy(&ndarray::arr0(2f32))),
            "array `file.version`: version 2: gnubg 1.07 reads only version 1.0",
        ),
        (
            "format",
            with("file.format", npy(&Array1::from(b"gzip".to_vec()))),
            "array `file.format`: \"gzip\": must be \"binary\" or \"text\"",
        ),
    ];
    for (what, change, needle) in cases {
        let case = tempdir("bgkit-npz-case.");
        let c = case.path();
        let mut e = base.clone();
        change(&mut e);
        let bad = c.join("bad.npz");
        write_npz(&bad, &e);
        for out in ["out.wd", "out.weights"] {
            let out = c.join(out);
            std::fs::write(&out, b"old").unwrap();
            assert_one_line_failure(
                BIN,
                "trainer",
                &["weights", "import", s(&bad), "-o", s(&out)],
                needle,
            );
            assert_eq!(read(&out), b"old", "{what}: the output was changed");
            std::fs::remove_file(&out).unwrap();
        }
        let left: Vec<_> = std::fs::read_dir(c)
            .unwrap()
            .map(|f| f.unwrap().file_name())
            .collect();
        assert_eq!(left, ["bad.npz"], "{what}: files left");
    }
    // Not an archive at all; an output that is a side file of the input.
    let text = d.join("text.npz");
    std::fs::write(&text, "hello").unwrap();
    let out = d.join("out.wd");
    assert_one_line_failure(
        BIN,
        "trainer",
        &["weights", "import", s(&text), "-o", s(&out)],
        "not a NumPy .npz archive",
    );
    assert_one_line_failure(
        BIN,
        "trainer",
        &["weights", "import", s(&good), "-o", s(&d.join("w.wd.json"))],
        "choose another output name",
    );
    assert!(!out.exists());
}
