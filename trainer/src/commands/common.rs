//! Helpers the subcommands share.

use anyhow::{bail, Context, Result};
use nets::weights::Format;
use nets::Nets;
use std::path::{Path, PathBuf};
use support::atomic::{BackgroundFile, RecycledFile};
use support::claim::{Claim, Claimed};
use support::cli::Outcome;
use trainer::provenance::Provenance;
use trainer::td::checkpoint::CheckpointError;

/// Saves nets atomically in the format the file name asks for, then their
/// provenance `PATH.json` (`record`, with the MD5 of the bytes written):
/// every weights file the trainer writes gets a record of its own, never an
/// older file's.
pub fn save_weights(nets: &Nets, path: &Path, record: Provenance) -> Result<()> {
    let bytes = nets::weights::to_bytes(nets, Format::for_path(path))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    save_weights_bytes(&bytes, path, record)
}

/// Saves the bytes of a weights file atomically, then their provenance
/// `PATH.json` (`record`, with the MD5 of `bytes`), as [`save_weights`].
pub fn save_weights_bytes(bytes: &[u8], path: &Path, mut record: Provenance) -> Result<()> {
    write_atomically(path, bytes)?;
    record.md5 = support::digest::md5_of(bytes);
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
    support::digest::md5_of_file(path).map_err(io_context(path))
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

pub use support::atomic::with_suffix;

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    support::atomic::write_file(path, bytes).map_err(io_context(path))
}

/// The files of a training run (`trainer td`, `trainer train`) beside its
/// output OUT: the checkpoint OUT.ckpt and the provenance OUT.json, claimed
/// for the run (with its inputs and other files beside OUT).
pub struct RunFiles {
    out: PathBuf,
    checkpoint: BackgroundFile,
    _claim: Claimed,
}

impl RunFiles {
    /// Claims `inputs`, OUT, OUT.json, OUT.ckpt and `beside`.
    pub fn claim(out: &Path, inputs: Vec<PathBuf>, beside: &[PathBuf]) -> Result<RunFiles> {
        let ckpt = with_suffix(out, ".ckpt");
        let mut claim = Claim::new()
            .inputs(inputs)
            .output(out)
            .beside(out, trainer::provenance::path_for(out))
            .checkpoint(out, &ckpt);
        for path in beside {
            claim = claim.beside(out, path);
        }
        Ok(RunFiles {
            out: out.to_owned(),
            checkpoint: BackgroundFile::new(RecycledFile::new(&ckpt)),
            _claim: claim.acquire()?,
        })
    }

    /// The checkpoint's path.
    pub fn checkpoint_path(&self) -> &Path {
        self.checkpoint.path()
    }

    /// The checkpoint to continue from: with `resume`, OUT.ckpt as `parse`
    /// reads and checks it; without, none, refusing to start over an
    /// existing one.
    pub fn resume<T>(
        &self,
        resume: bool,
        parse: impl FnOnce(&[u8]) -> Result<T, CheckpointError>,
    ) -> Result<Option<T>> {
        let ckpt = self.checkpoint_path();
        if !resume {
            if ckpt.exists() {
                bail!(
                    "{} exists: continue that run with --resume, or remove it to start again",
                    ckpt.display()
                );
            }
            return Ok(None);
        }
        let bytes = support::input::read(ckpt, trainer::td::checkpoint::LIMIT).map_err(|e| {
            anyhow::anyhow!(
                "--resume: cannot read the checkpoint {}: {e}",
                ckpt.display()
            )
        })?;
        let parsed = parse(&bytes).with_context(|| format!("checkpoint {}", ckpt.display()))?;
        Ok(Some(parsed))
    }

    /// Starts saving a checkpoint's `bytes` over OUT.ckpt in the
    /// background (written and synced while the run goes on; the previous
    /// save is waited for first, and its error returned).
    pub fn save_checkpoint(
        &self,
        bytes: Result<Vec<u8>, nets::WeightsError>,
    ) -> std::io::Result<()> {
        let bytes = bytes.map_err(std::io::Error::other)?;
        self.checkpoint
            .save(bytes)
            .map_err(|e| self.checkpoint_error(e))
    }

    fn checkpoint_error(&self, e: std::io::Error) -> std::io::Error {
        let path = self.checkpoint_path();
        std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    }

    /// Waits for the checkpoint being saved, then says where an
    /// interrupted run (`tool`, stopped after `done`) left it.
    pub fn stopped(&self, tool: &str, done: &str) -> Result<Outcome> {
        self.checkpoint
            .wait()
            .map_err(|e| self.checkpoint_error(e))?;
        support::note!(
            "{tool}: stopped after {done}; checkpoint {} (continue with --resume)",
            self.checkpoint_path().display()
        );
        Ok(Outcome::Interrupted)
    }

    /// Saves the trained `nets` as OUT with their provenance `record`, then
    /// removes the checkpoint (once its last save has ended).
    pub fn finish(self, nets: &Nets, record: Provenance) -> Result<()> {
        self.checkpoint
            .wait()
            .map_err(|e| self.checkpoint_error(e))?;
        save_weights(nets, &self.out, record)?;
        let ckpt = self.checkpoint.path().to_owned();
        self.checkpoint.remove().map_err(io_context(&ckpt))
    }
}
