//! What the `weights export|import` tests share: running the commands,
//! and reading and writing `.npz` archives entry by entry.

use super::{ok, s};
use ndarray::{Array, ArrayD, Dimension};
use ndarray_npy::{NpzReader, WritableElement, WriteNpyExt};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

/// The bytes of file `p`.
pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The MD5 of file `p`.
pub fn md5(p: &Path) -> String {
    support::digest::md5_of(&read(p))
}

/// File `p` as JSON.
pub fn json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&read(p)).unwrap()
}

/// `trainer weights export WEIGHTS --format npz -o NPZ`; its stdout.
pub fn export(weights: &Path, npz: &Path) -> String {
    ok(&[
        "weights",
        "export",
        s(weights),
        "--format",
        "npz",
        "-o",
        s(npz),
    ])
}

/// `trainer weights import NPZ -o OUT`; its stdout.
pub fn import(npz: &Path, out: &Path) -> String {
    ok(&["weights", "import", s(npz), "-o", s(out)])
}

/// The entries of an archive: array name (without `.npy`) → `.npy` bytes.
pub fn entries(npz: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(npz).unwrap()).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut f = zip.by_index(i).unwrap();
            let name = f.name().strip_suffix(".npy").unwrap().to_string();
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes).unwrap();
            (name, bytes)
        })
        .collect()
}

/// Writes `entries` as an (uncompressed) archive, as numpy.savez does.
pub fn write_npz(path: &Path, entries: &BTreeMap<String, Vec<u8>>) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in entries {
        zip.start_file(format!("{name}.npy"), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// The `.npy` bytes of an array.
pub fn npy<A: WritableElement, D: Dimension>(a: &Array<A, D>) -> Vec<u8> {
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    bytes
}

/// The float32 array `name` of an archive.
pub fn floats(npz: &Path, name: &str) -> ArrayD<f32> {
    let mut r = NpzReader::new(std::fs::File::open(npz).unwrap()).unwrap();
    r.by_name(name)
        .unwrap_or_else(|e| panic!("{name} of {}: {e}", npz.display()))
}
