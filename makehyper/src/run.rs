//! One makehyper run: validate, start or restart, sweep with checkpoints, write.

use crate::cli::Cli;
use anyhow::{bail, Context, Result};
use databases::hyper::{check_file, file_len};
use databases::verify::first_bad_record;
use databases::Database;
use makehyper::{memory_estimate, HyperSolver};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use support::atomic::{
    check_checkpoint_name, check_writable, parent_dir, AtomicFile, RecycledFile,
};
use support::cli::Outcome;
use support::digest::write_hashed;
use support::lock::OutputLock;
use support::progress::Progress;
use support::resources::{ensure_fits, human, peak_memory};

fn checkpoint_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes the solver's state to `path` atomically and returns the file's
/// MD5; `bytes` is the run's encoding buffer (the checkpoints' too).
fn save(solver: &HyperSolver, path: &Path, bytes: &mut Vec<u8>) -> Result<String> {
    solver.encode_into(bytes);
    let cannot = || format!("cannot write {}", path.display());
    let mut file = AtomicFile::create(path).with_context(cannot)?;
    let md5 = file
        .write_all_with(|w| write_hashed(w, |w| w.write_all(bytes)))
        .with_context(cannot)?;
    file.commit().with_context(cannot)?;
    Ok(md5)
}

/// Runs makehyper as the command line asks.
pub fn run(cli: &Cli, stop: Arc<AtomicBool>) -> Result<Outcome> {
    let chequers = usize::from(cli.chequers);
    let (out, restart, _lock) = prepare(cli)?;
    let ckpt = checkpoint_path(&out);
    let start = Instant::now();
    let mut solver = HyperSolver::new(chequers);
    if let Some((path, bytes)) = &restart {
        solver
            .restore(bytes)
            .with_context(|| format!("cannot restart from {}", path.display()))?;
    }
    // Free the restart file's bytes (300 MB for 3 chequers) before sweeping.
    let restart = restart.map(|(path, _)| path);
    if !cli.quiet {
        let n = solver.side_positions();
        support::note!(
            "makehyper: {chequers} chequers, {n} positions per side, {} pairs ({} playable, {} final after the first sweep), threshold {:e}, start {} ({:.1} s to build the successor tables)",
            n * n,
            solver.playable_pairs(),
            solver.playable_pairs() - solver.changing_pairs(),
            cli.threshold,
            restart.map_or_else(|| "guess".to_string(), |p| format!("from {}", p.display())),
            start.elapsed().as_secs_f64()
        );
    }
    if stop.load(Ordering::SeqCst) {
        support::note!("makehyper: interrupted before the first sweep; nothing was saved");
        return Ok(Outcome::Interrupted);
    }
    let mut buffer = Vec::new();
    let checkpoint = RecycledFile::new(&ckpt);
    let Some(sweeps) = sweep_until_converged(cli, &mut solver, &checkpoint, &mut buffer, &stop)?
    else {
        return Ok(Outcome::Interrupted);
    };
    let md5 = save(&solver, &out, &mut buffer)?;
    if !cli.no_checkpoint {
        checkpoint
            .remove()
            .with_context(|| format!("cannot remove {}", ckpt.display()))?;
    }
    if !cli.quiet {
        support::note!(
            "makehyper: wrote {} ({} bytes) after {sweeps} sweeps in {:.2} s, peak memory {}",
            out.display(),
            solver.output_len(),
            start.elapsed().as_secs_f64(),
            peak_memory().map_or_else(|| "unknown".into(), human)
        );
        support::note!("makehyper: MD5 {md5}");
    }
    Ok(Outcome::Done)
}

/// A restart file's path and bytes.
type Restart<'a> = Option<(&'a PathBuf, Vec<u8>)>;

/// Checks the output's directory, reads and checks the restart file, and
/// checks memory, disk and writability before any heavy work starts.
fn prepare(cli: &Cli) -> Result<(PathBuf, Restart<'_>, OutputLock)> {
    let chequers = usize::from(cli.chequers);
    let out = cli
        .outfile
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("hyper{chequers}.bd")));
    let dir = parent_dir(&out);
    if dir.exists() && !dir.is_dir() {
        bail!(
            "cannot write {}: {} is not a directory",
            out.display(),
            dir.display()
        );
    }
    if !dir.is_dir() {
        bail!("output directory {} does not exist", dir.display());
    }
    // Never another file's journal, provenance, checkpoint or lock.
    support::side::check_output(&out, |_| false)?;
    // One run per output: the lock covers the output and its checkpoint.
    let lock = OutputLock::acquire(&out)?;
    // Read the restart file before any heavy work: its errors come first.
    let restart = cli
        .restart
        .as_ref()
        .map(|p| {
            read_restart(p, chequers)
                .map(|b| (p, b))
                .with_context(|| format!("cannot restart from {}", p.display()))
        })
        .transpose()?;
    let ckpt = checkpoint_path(&out);
    if !cli.no_checkpoint {
        check_checkpoint_name(&ckpt)
            .with_context(|| format!("cannot use checkpoint {}", ckpt.display()))?;
        let restarting_from_it = cli.restart.as_ref().is_some_and(|r| same_path(r, &ckpt));
        if !cli.force && !restarting_from_it && ckpt.exists() {
            bail!(
                "checkpoint {} holds an interrupted run: restart it with -r {}, or add --force to start over",
                ckpt.display(),
                ckpt.display()
            );
        }
    }
    let checkpoints = !cli.no_checkpoint;
    // The restart file is held in memory while the tables are built.
    let restart_bytes = restart.as_ref().map_or(0, |(_, b)| b.len() as u64);
    ensure_fits(
        memory_estimate(chequers) + restart_bytes,
        // The output, and the checkpoint with its spare.
        file_len(chequers) * if checkpoints { 3 } else { 1 },
        &dir,
    )?;
    // Fail now, not after the work, if the output cannot be written.
    check_writable(&out).with_context(|| format!("cannot write {}", out.display()))?;
    if checkpoints {
        // Also removes the temporary of a checkpoint a killed run was writing.
        check_writable(&ckpt).with_context(|| format!("cannot write {}", ckpt.display()))?;
    }
    Ok((out, restart, lock))
}

/// Whether two paths name the same file.
fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Reads and checks a restart file: a regular file of exactly the size a
/// complete database of this chequer count has (checked before reading, so
/// a FIFO, a device or a huge file is refused at once), with a valid header
/// and every record's structure intact (a damaged record is refused, never
/// copied into the output).
fn read_restart(path: &Path, chequers: usize) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        bail!("it is not a regular file");
    }
    let want = file_len(chequers);
    if meta.len() != want {
        bail!(
            "it is {} bytes, a complete {chequers}-chequer Hypergammon file has {want}",
            meta.len()
        );
    }
    let bytes = std::fs::read(path)?;
    check_file(&bytes, chequers)?;
    let db = Database::from_bytes(path, bytes, None)?;
    if let Some(bad) = first_bad_record(&db, &|_| {}) {
        bail!("record {} is damaged: {}", bad.index, bad.problem);
    }
    Ok(db.into_bytes())
}

/// Sweeps until the norm of the change is at most the threshold, saving a
/// checkpoint after every sweep that did not converge; the number of sweeps,
/// or `None` if a signal stopped the run (after saving its last sweep).
fn sweep_until_converged(
    cli: &Cli,
    solver: &mut HyperSolver,
    checkpoint: &RecycledFile,
    buffer: &mut Vec<u8>,
    stop: &AtomicBool,
) -> Result<Option<usize>> {
    let ckpt = checkpoint.path();
    let checkpoints = !cli.no_checkpoint;
    let mut sweeps = 0usize;
    loop {
        let t = Instant::now();
        let mut progress = Progress::new(
            "makehyper",
            "pairs",
            solver.pairs_next_sweep() as u64,
            cli.quiet,
        );
        let mut interrupted = false;
        let norm = solver.sweep(|done| {
            progress.update(done as u64);
            interrupted |= stop.load(Ordering::SeqCst);
        });
        progress.finish();
        // A signal does not cut a sweep short: the state is a complete
        // sweep, saved below like any other, so waiting for it is not lost.
        let interrupted = interrupted || stop.load(Ordering::SeqCst);
        sweeps += 1;
        if !cli.quiet {
            support::note!(
                "makehyper: sweep {sweeps}: norm of delta {norm:.6}, {:.2} s",
                t.elapsed().as_secs_f64()
            );
        }
        // gnubg stops unless the norm is greater (a NaN norm also stops).
        let converged = norm.partial_cmp(&cli.threshold) != Some(std::cmp::Ordering::Greater);
        if converged {
            return Ok(Some(sweeps));
        }
        if checkpoints {
            solver.encode_into(buffer);
            checkpoint
                .save(buffer)
                .with_context(|| format!("cannot write {}", ckpt.display()))?;
        }
        if interrupted {
            if checkpoints {
                checkpoint
                    .remove_spare()
                    .with_context(|| format!("cannot remove the spare of {}", ckpt.display()))?;
                support::note!(
                    "makehyper: interrupted; {} holds sweep {sweeps}: restart with -r {}",
                    ckpt.display(),
                    ckpt.display()
                );
            } else {
                support::note!(
                    "makehyper: interrupted; checkpoints are off (-n), nothing was saved"
                );
            }
            return Ok(None);
        }
    }
}
