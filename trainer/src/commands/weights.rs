//! `trainer weights info|convert|splice|export|import`.

use crate::commands::common::{
    file_md5, load_weights, read_input, save_weights, save_weights_bytes, write_atomically,
};
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use nets::weights::Format;
use nets::NetKind;
use std::path::{Path, PathBuf};
use support::claim::Claim;
use support::cli::Outcome;
use trainer::provenance::{self, NTrained, Parent, Provenance, Recorded};
use trainer::weights_npz;

/// Arguments of `trainer weights`.
#[derive(Args, Debug)]
pub struct WeightsArgs {
    #[command(subcommand)]
    command: WeightsCommand,
}

#[derive(Subcommand, Debug)]
enum WeightsCommand {
    /// Sizes, slopes, training counts (from FILE.json when bgkit wrote it)
    /// and an MD5 per net.
    Info {
        /// A weights file, text or binary.
        file: PathBuf,
    },
    /// Text ↔ binary: writes the nets of IN to OUT, binary if OUT ends in
    /// .wd, text otherwise.
    Convert {
        /// The weights to read.
        input: PathBuf,
        /// The file to write.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: PathBuf,
    },
    /// Puts one net of --from into --into and writes the result to -o (to
    /// try a new race net inside gnubg's weights, say).
    Splice {
        /// Weights holding the net to take.
        #[arg(long, value_name = "A")]
        from: PathBuf,
        /// Which net.
        #[arg(long, value_enum)]
        net: NetChoice,
        /// The slot it takes in the result (default: the same as --net);
        /// another net of as many inputs, e.g. a trained contact net as the
        /// start of a crashed net.
        #[arg(long = "as", value_enum, value_name = "NET")]
        as_net: Option<NetChoice>,
        /// Weights receiving it.
        #[arg(long, value_name = "B")]
        into: PathBuf,
        /// The file to write.
        #[arg(short = 'o', long, value_name = "C")]
        output: PathBuf,
    },
    /// Every net of FILE as NumPy arrays (.npz): weights, biases, slopes
    /// and the file's other fields, so that `weights import` writes FILE
    /// back byte for byte (docs/trainer.md, "Weights interchange").
    Export {
        /// A weights file, text or binary.
        file: PathBuf,
        /// The archive's format.
        #[arg(long, value_enum, default_value_t = Interchange::Npz)]
        format: Interchange,
        /// The archive to write.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: PathBuf,
    },
    /// Weights from NumPy arrays (an .npz with the arrays `weights export`
    /// writes): OUT is binary if it ends in .wd, text otherwise.
    Import {
        /// The archive (written by numpy.savez, not savez_compressed).
        input: PathBuf,
        /// The archive's format.
        #[arg(long, value_enum, default_value_t = Interchange::Npz)]
        format: Interchange,
        /// The weights file to write.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: PathBuf,
    },
}

/// The formats of `weights export` and `import`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Interchange {
    /// NumPy's .npz archive of named arrays.
    Npz,
}

/// A net of a weights file.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum NetChoice {
    Contact,
    Race,
    Crashed,
    PruneContact,
    PruneCrashed,
    PruneRace,
}

impl From<NetChoice> for NetKind {
    fn from(c: NetChoice) -> NetKind {
        match c {
            NetChoice::Contact => NetKind::Contact,
            NetChoice::Race => NetKind::Race,
            NetChoice::Crashed => NetKind::Crashed,
            NetChoice::PruneContact => NetKind::PruneContact,
            NetChoice::PruneCrashed => NetKind::PruneCrashed,
            NetChoice::PruneRace => NetKind::PruneRace,
        }
    }
}

/// The MD5 of a net's values (little-endian f32, file order).
fn net_md5(net: &nets::Net) -> String {
    let bytes: Vec<u8> = net.values().flat_map(f32::to_le_bytes).collect();
    support::digest::md5_of(&bytes)
}

/// The claim of a command writing weights to `output` (and its provenance)
/// from `inputs`.
fn claim_weights(inputs: &[&PathBuf], output: &Path) -> Result<support::claim::Claimed> {
    Ok(Claim::new()
        .inputs(inputs)
        .output(output)
        .beside(output, provenance::path_for(output))
        .acquire()?)
}

/// The starting weights at `path`: their MD5 and recorded training counts.
fn parent(path: &Path) -> Result<(Parent, NTrained)> {
    let md5 = file_md5(path)?;
    let counts = provenance::recorded_n_trained(path, &md5).or_zero();
    let parent = Parent {
        path: path.to_path_buf(),
        md5,
    };
    Ok((parent, counts))
}

/// Runs `trainer weights`.
pub fn run(args: &WeightsArgs) -> Result<Outcome> {
    match &args.command {
        WeightsCommand::Info { file } => info(file),
        WeightsCommand::Export { file, output, .. } => export(file, output),
        WeightsCommand::Import { input, output, .. } => import(input, output),
        WeightsCommand::Convert { input, output } => {
            let _claim = claim_weights(&[input], output)?;
            let nets = load_weights(input)?;
            let (parent, counts) = parent(input)?;
            // The same nets: their training counts go on.
            let record = Provenance::new(
                0,
                0,
                counts,
                Some(parent),
                serde_json::json!({ "converted": input }),
            );
            save_weights(&nets, output, record)?;
            support::outln!("trainer: wrote {}", output.display())?;
            Ok(Outcome::Done)
        }
        WeightsCommand::Splice {
            from,
            net,
            as_net,
            into,
            output,
        } => {
            let kind = NetKind::from(*net);
            let slot = as_net.map_or(kind, NetKind::from);
            if kind.inputs() != slot.inputs() {
                anyhow::bail!(
                    "--net {} has {} inputs, --as {} needs {}",
                    kind.name(),
                    kind.inputs(),
                    slot.name(),
                    slot.inputs()
                );
            }
            let _claim = claim_weights(&[from, into], output)?;
            let donor = load_weights(from)?;
            let mut nets = load_weights(into)?;
            let (donor_parent, donor_counts) = parent(from)?;
            let (into_parent, mut counts) = parent(into)?;
            *nets.get_mut(slot) = donor.get(kind).clone();
            // Each net keeps the count of the net it comes from.
            if let Some(n) = donor_counts.get(kind) {
                counts.set(slot, n);
            }
            let mut settings = serde_json::json!({ "spliced": kind.name(), "from": donor_parent });
            if slot != kind {
                settings["as"] = slot.name().into();
            }
            let record = Provenance::new(0, 0, counts, Some(into_parent), settings);
            save_weights(&nets, output, record)?;
            let place = if slot == kind {
                String::new()
            } else {
                format!(" as its {} net", slot.name())
            };
            support::outln!(
                "trainer: wrote {}: {} with the {} net of {}{place}",
                output.display(),
                into.display(),
                kind.name(),
                from.display()
            )?;
            Ok(Outcome::Done)
        }
    }
}

/// The bytes of the weights file `file`.
fn read_weights(file: &Path) -> Result<Vec<u8>> {
    let limit = support::input::Limit {
        bytes: nets::weights::MAX_FILE_LEN,
        what: "weights file",
    };
    read_input(file, limit)
}

/// `weights export FILE -o OUT`: the arrays of every net, and the training
/// counts recorded beside FILE if its record is one of it.
fn export(file: &Path, output: &Path) -> Result<Outcome> {
    let _claim = Claim::new().input(file).output(output).acquire()?;
    let bytes = read_weights(file)?;
    let md5 = support::digest::md5_of(&bytes);
    let counts = match provenance::recorded_n_trained(file, &md5) {
        Recorded::Counts(t) => Some(t),
        _ => None,
    };
    let exported = weights_npz::export(&bytes, counts)
        .map_err(|e| anyhow::anyhow!("cannot load weights {}: {e}", file.display()))?;
    write_atomically(output, &exported.bytes)?;
    // No provenance record: none of an older file may stay.
    provenance::remove_stale(output)?;
    if !exported.canonical {
        support::note!(
            "trainer: note: {} is not laid out as gnubg and bgkit write weights files \
             (spacing, number formats or training counters); `weights import` gives \
             the same nets in that layout, not these bytes",
            file.display()
        );
    }
    support::outln!(
        "trainer: wrote {}: the six nets of {} ({} weights file, MD5 {md5})",
        output.display(),
        file.display(),
        format_name(exported.format)
    )?;
    Ok(Outcome::Done)
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Binary => "binary",
        Format::Text => "text",
    }
}

/// Largest archive `weights import` reads (the largest nets `trainer new`
/// makes take 13 MB).
const MAX_NPZ_LEN: u64 = nets::weights::MAX_FILE_LEN;

/// `weights import IN -o OUT`: the arrays checked, then OUT and OUT.json.
fn import(input: &Path, output: &Path) -> Result<Outcome> {
    let _claim = claim_weights(&[&input.to_path_buf()], output)?;
    let limit = support::input::Limit {
        bytes: MAX_NPZ_LEN,
        what: "npz archive",
    };
    let bytes = read_input(input, limit)?;
    let imported =
        weights_npz::import(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))?;
    let format = Format::for_path(output);
    let weights = imported
        .to_bytes(format)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    let md5 = support::digest::md5_of(&weights);
    let parent = Parent {
        path: input.to_path_buf(),
        md5: support::digest::md5_of(&bytes),
    };
    let settings = serde_json::json!({
        "imported": input,
        "exported_format": imported.source_format.map(format_name),
        "exported_md5": imported.source_md5,
    });
    let counts = imported.n_trained.unwrap_or_default();
    let record = Provenance::new(0, 0, counts, Some(parent), settings);
    save_weights_bytes(&weights, output, record)?;
    let same = match &imported.source_md5 {
        Some(m) if *m == md5 => " (the bytes of the exported file)".to_string(),
        Some(m) => format!(" (MD5 {md5}; the exported file's was {m})"),
        None => format!(" (MD5 {md5})"),
    };
    support::outln!(
        "trainer: wrote {} ({} weights) from {}{same}",
        output.display(),
        format_name(format),
        input.display()
    )?;
    Ok(Outcome::Done)
}

fn info(file: &Path) -> Result<Outcome> {
    let bytes = read_weights(file)?;
    let (nets, format) = nets::weights::parse(&bytes)
        .map_err(|e| anyhow::anyhow!("cannot load weights {}: {e}", file.display()))?;
    let format = match format {
        nets::weights::Format::Binary => "binary (gnubg.wd)",
        nets::weights::Format::Text => "text (gnubg.weights)",
    };
    let md5 = support::digest::md5_of(&bytes);
    let recorded = provenance::recorded_n_trained(file, &md5);
    let trained = match &recorded {
        Recorded::Counts(t) => Some(*t),
        _ => None,
    };
    support::outln!("file: {}", file.display())?;
    support::outln!("format: {format}")?;
    support::outln!("md5: {md5}")?;
    support::outln!(
        "{:<16} {:>6} {:>6} {:>7} {:>6} {:>6} {:>10} {:>10}  md5 of the values",
        "net",
        "inputs",
        "hidden",
        "outputs",
        "β_h",
        "β_o",
        "parameters",
        "n_trained"
    )?;
    for kind in NetKind::ALL {
        let net = nets.get(kind);
        let n = match (trained, kind) {
            (Some(t), NetKind::Contact) => t.contact.to_string(),
            (Some(t), NetKind::Race) => t.race.to_string(),
            (Some(t), NetKind::Crashed) => t.crashed.to_string(),
            _ => "-".to_string(),
        };
        support::outln!(
            "{:<16} {:>6} {:>6} {:>7} {:>6} {:>6} {:>10} {:>10}  {}",
            kind.name(),
            net.inputs(),
            net.hidden(),
            net.outputs(),
            net.beta_hidden(),
            net.beta_output(),
            net.shape().values(),
            n,
            net_md5(net)
        )?;
    }
    match recorded {
        Recorded::Counts(_) => {}
        Recorded::Missing => support::outln!(
            "n_trained: not recorded (gnubg's formats do not hold it; bgkit keeps it in {})",
            provenance::path_for(file).display()
        )?,
        Recorded::Uncounted => support::outln!(
            "n_trained: not recorded (its record {} keeps none)",
            provenance::path_for(file).display()
        )?,
        Recorded::Ignored(why) => support::outln!("n_trained: not recorded (ignored: {why})")?,
    }
    Ok(Outcome::Done)
}
