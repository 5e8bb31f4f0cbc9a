//! Import: the weights of an `.npz` archive, every array checked, and the
//! weights file they make.

use super::archive::Archive;
use super::npy::Dtype;
use super::{invalid, prefix, NpzError, LAYOUT_VERSION};
use crate::provenance::NTrained;
use nets::weights::{Format, WeightsFile};
use nets::{Net, NetKind, Nets, WeightsError};

/// Weights read from an archive.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The six nets.
    pub nets: Nets,
    /// The format of the exported file (`file.format`), if recorded.
    pub source_format: Option<Format>,
    /// Its MD5 (`file.md5`), if recorded.
    pub source_md5: Option<String>,
    /// Each net's header counter (`P.header_counter`), if recorded.
    pub counters: [Option<i32>; 6],
    /// The training counts recorded (`P.n_trained`; 0 where absent), if
    /// any is.
    pub n_trained: Option<NTrained>,
}

impl Imported {
    /// The weights file in `format`: with the exported file's header
    /// counters when `format` is its format (so an export comes back byte
    /// for byte), else with the counters gnubg and bgkit write (so the
    /// other format comes out as `weights convert` writes it).
    pub fn to_bytes(&self, format: Format) -> Result<Vec<u8>, WeightsError> {
        let own = self.source_format == Some(format);
        let counters = self
            .counters
            .map(|c| c.filter(|_| own).unwrap_or(format.counter()));
        WeightsFile {
            nets: self.nets.clone(),
            format,
            counters: counters.map(Some),
        }
        .to_bytes()
    }
}

/// Reads the weights of an `.npz` archive (its bytes), checking every
/// array: present, known, of its dtype and shape (inputs as gnubg's net
/// needs, 5 outputs, a hidden size gnubg 1.07 evaluates), finite, slopes
/// positive.
pub fn import(bytes: &[u8]) -> Result<Imported, NpzError> {
    let mut archive = Archive::open(bytes)?;
    let known = known_names();
    if let Some(unknown) = archive.entries.keys().find(|n| !known.contains(n)) {
        return Err(NpzError::Unknown(unknown.clone()));
    }
    if let Some(v) = archive.scalar::<i32>("layout_version", Dtype::I32)? {
        if v != LAYOUT_VERSION {
            return Err(invalid(
                "layout_version",
                format!("layout version {v}: this trainer reads version {LAYOUT_VERSION}"),
            ));
        }
    }
    let source_format = match archive.ascii("file.format")?.as_deref() {
        None => None,
        Some("binary") => Some(Format::Binary),
        Some("text") => Some(Format::Text),
        Some(other) => {
            return Err(invalid(
                "file.format",
                format!("{other:?}: must be \"binary\" or \"text\""),
            ))
        }
    };
    if let Some(v) = archive.scalar::<f32>("file.version", Dtype::F32)? {
        if v != nets::weights_binary::VERSION {
            return Err(invalid(
                "file.version",
                format!("version {v}: gnubg 1.07 reads only version 1.0"),
            ));
        }
    }
    let source_md5 = archive.ascii("file.md5")?;
    archive.scalar::<bool>("file.canonical", Dtype::Bool)?;
    let mut nets = Vec::with_capacity(6);
    let mut counters = [None; 6];
    let mut n_trained = None::<NTrained>;
    for (kind, counter) in NetKind::ALL.into_iter().zip(&mut counters) {
        nets.push(archive.net(kind)?);
        let p = prefix(kind);
        *counter = archive.scalar::<i32>(&format!("{p}.header_counter"), Dtype::I32)?;
        if let Some(n) = archive.scalar::<u64>(&format!("{p}.n_trained"), Dtype::U64)? {
            n_trained.get_or_insert_with(NTrained::default).set(kind, n);
        }
    }
    let nets: [Net; 6] = nets.try_into().expect("six nets were read");
    Ok(Imported {
        nets: Nets::new(nets)?,
        source_format,
        source_md5,
        counters,
        n_trained,
    })
}

/// Every array name the layout has.
pub(super) fn known_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "layout_version",
        "file.format",
        "file.version",
        "file.md5",
        "file.canonical",
    ]
    .map(String::from)
    .to_vec();
    for kind in NetKind::ALL {
        let p = prefix(kind);
        for part in [
            "hidden.weight",
            "hidden.bias",
            "output.weight",
            "output.bias",
            "beta_hidden",
            "beta_output",
            "header_counter",
        ] {
            names.push(format!("{p}.{part}"));
        }
        if matches!(kind, NetKind::Contact | NetKind::Race | NetKind::Crashed) {
            names.push(format!("{p}.n_trained"));
        }
    }
    names
}
