//! Helpers the subcommands share.

use anyhow::Result;
use nets::weights::Format;
use nets::Nets;
use std::path::{Path, PathBuf};
use trainer::provenance::Provenance;

/// Saves nets atomically in the format the file name asks for, then their
/// provenance `PATH.json` (`record`, with the MD5 of the bytes written):
/// every weights file the trainer writes gets a record of its own, never an
/// older file's.
pub fn save_weights(nets: &Nets, path: &Path, mut record: Provenance) -> Result<()> {
    let bytes = nets::weights::to_bytes(nets, Format::for_path(path))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    write_atomically(path, &bytes)?;
    record.md5 = databases::published::md5_hex(&bytes[..]).expect("hashing memory cannot fail");
    trainer::provenance::save(path, &record)
        .map_err(io_context(&trainer::provenance::path_for(path)))
}

/// Loads a weights file, naming it in the error.
pub fn load_weights(path: &Path) -> Result<Nets> {
    nets::weights::load(path).map_err(|e| match e {
        nets::WeightsError::Io { .. } => anyhow::anyhow!("cannot load weights {e}"),
        _ => anyhow::anyhow!("cannot load weights {}: {e}", path.display()),
    })
}

/// The MD5 of a file (a regular file only: see [`support::input`]).
pub fn file_md5(path: &Path) -> Result<String> {
    let (file, _) = support::input::open(path).map_err(io_context(path))?;
    databases::published::md5_hex(file).map_err(io_context(path))
}

/// The content of an input file of at most `limit` bytes (a regular file
/// only: see [`support::input`]), naming it in the error.
pub fn read_input(path: &Path, limit: support::input::Limit) -> Result<Vec<u8>> {
    support::input::read(path, limit).map_err(io_context(path))
}

/// [`read_input`] as UTF-8 text.
pub fn read_text_input(path: &Path, limit: support::input::Limit) -> Result<String> {
    support::input::read_text(path, limit).map_err(io_context(path))
}

/// "PATH: error" for an I/O error about `path`.
pub fn io_context(path: &Path) -> impl FnOnce(std::io::Error) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("{}: {e}", path.display())
}

/// `PATH` + `suffix` (e.g. `OUT.ckpt`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = support::atomic::AtomicFile::create(path).map_err(io_context(path))?;
    file.write_all_with(|w| w.write_all(bytes))
        .map_err(io_context(path))?;
    file.commit().map_err(io_context(path))
}
