//! Helpers the subcommands share.

use anyhow::{Context, Result};
use nets::weights::Format;
use nets::Nets;
use std::path::{Path, PathBuf};

/// Saves nets atomically in the format the file name asks for.
pub fn save_weights(nets: &Nets, path: &Path) -> Result<()> {
    nets::weights::save(nets, path, Format::for_path(path))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Loads a weights file, naming it in the error.
pub fn load_weights(path: &Path) -> Result<Nets> {
    nets::weights::load(path).map_err(|e| match e {
        nets::WeightsError::Io { .. } => anyhow::anyhow!("cannot load weights {e}"),
        _ => anyhow::anyhow!("cannot load weights {}: {e}", path.display()),
    })
}

/// The MD5 of a file.
pub fn file_md5(path: &Path) -> Result<String> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    databases::published::md5_hex(file).with_context(|| format!("cannot read {}", path.display()))
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
