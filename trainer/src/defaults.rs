//! Where weights and databases are found when not given on the command line.

use std::path::{Path, PathBuf};

/// No weights file was given and none is installed.
#[derive(Debug, thiserror::Error)]
#[error(
    "no weights file: pass --weights FILE, set {WEIGHTS_ENV}, or install gnubg \
     (`apt-get install gnubg` provides {GNUBG_WEIGHTS})"
)]
pub struct NoWeights;

/// Environment variable naming the default weights file.
pub const WEIGHTS_ENV: &str = "BGKIT_WEIGHTS";
/// Debian's binary weights (package gnubg).
pub const GNUBG_WEIGHTS: &str = "/usr/lib/gnubg/gnubg.wd";
/// gnubg's one-sided 6×15 database (package gnubg-data).
pub const GNUBG_ONE_SIDED: &str = "/usr/share/gnubg/gnubg_os0.bd";
/// gnubg's two-sided 6×6 database (built when the gnubg package is installed).
pub const GNUBG_TWO_SIDED: &str = "/var/lib/gnubg/gnubg_ts0.bd";

/// The weights file: the argument, else `$BGKIT_WEIGHTS`, else gnubg's.
pub fn weights(arg: Option<&Path>) -> Result<PathBuf, NoWeights> {
    if let Some(p) = arg {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(WEIGHTS_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    if Path::new(GNUBG_WEIGHTS).exists() {
        return Ok(PathBuf::from(GNUBG_WEIGHTS));
    }
    Err(NoWeights)
}

/// The bearoff databases: the arguments, else gnubg's installed files.
pub fn bearoff(args: &[PathBuf]) -> Vec<PathBuf> {
    if !args.is_empty() {
        return args.to_vec();
    }
    [GNUBG_ONE_SIDED, GNUBG_TWO_SIDED]
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect()
}
