//! One makehyper run: validate, start or restart, sweep with checkpoints, write.

use crate::cli::Cli;
use anyhow::{bail, Context, Result};
use databases::cli::Outcome;
use databases::hyper::{check_file, file_len, memory_estimate, HyperSolver};
use databases::output::{check_writable, parent_dir, AtomicFile, RecycledFile};
use databases::progress::Progress;
use databases::resources::{ensure_fits, human, peak_memory};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

fn checkpoint_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes the solver's state to `path` atomically and returns the file's
/// MD5; `bytes` is the run's encoding buffer (the checkpoints' too).
fn save(solver: &HyperSolver, path: &Path, bytes: &mut Vec<u8>) -> Result<String> {
    solver.encode_into(bytes);
    let mut file =
        AtomicFile::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all_with(|w| w.write_all(bytes))
        .and_then(|md5| file.commit().map(|()| md5))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Runs makehyper as the command line asks.
pub fn run(cli: &Cli, stop: Arc<AtomicBool>) -> Result<Outcome> {
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
    // Read the restart file before any heavy work: its errors come first.
    let restart = cli
        .restart
        .as_ref()
        .map(|p| {
            std::fs::read(p)
                .map(|b| (p, b))
                .with_context(|| format!("cannot read restart file {}", p.display()))
        })
        .transpose()?;
    let solver_bytes = file_len(chequers);
    // Refuse a wrong or truncated restart file before building the tables
    // (minutes and gigabytes for 3 chequers).
    if let Some((path, bytes)) = &restart {
        check_file(bytes, chequers)
            .map_err(|e| anyhow::anyhow!("cannot restart from {}: {e}", path.display()))?;
    }
    let ckpt = checkpoint_path(&out);
    let checkpoints = !cli.no_checkpoint;
    // The restart file is held in memory while the tables are built.
    let restart_bytes = restart.as_ref().map_or(0, |(_, b)| b.len() as u64);
    ensure_fits(
        memory_estimate(chequers) + restart_bytes,
        // The output, and the checkpoint with its spare.
        solver_bytes * if checkpoints { 3 } else { 1 },
        &dir,
    )?;
    // Fail now, not after the work, if the output cannot be written.
    check_writable(&out).with_context(|| format!("cannot write {}", out.display()))?;
    if checkpoints {
        // Also removes the temporary of a checkpoint a killed run was writing.
        check_writable(&ckpt).with_context(|| format!("cannot write {}", ckpt.display()))?;
    }

    let start = Instant::now();
    let mut solver = HyperSolver::new(chequers);
    if let Some((path, bytes)) = &restart {
        solver
            .restore(bytes)
            .map_err(|e| anyhow::anyhow!("cannot restart from {}: {e}", path.display()))?;
    }
    // Free the restart file's bytes (300 MB for 3 chequers) before sweeping.
    let restart = restart.map(|(path, _)| path);
    if !cli.quiet {
        let n = solver.side_positions();
        eprintln!(
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
        eprintln!("makehyper: interrupted before the first sweep; nothing was saved");
        return Ok(Outcome::Interrupted);
    }
    let mut sweeps = 0usize;
    let mut buffer = Vec::new();
    let checkpoint = RecycledFile::new(&ckpt);
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
            eprintln!(
                "makehyper: sweep {sweeps}: norm of delta {norm:.6}, {:.2} s",
                t.elapsed().as_secs_f64()
            );
        }
        // gnubg stops unless the norm is greater (a NaN norm also stops).
        let converged = norm.partial_cmp(&cli.threshold) != Some(std::cmp::Ordering::Greater);
        if checkpoints && !converged {
            solver.encode_into(&mut buffer);
            checkpoint
                .save(&buffer)
                .with_context(|| format!("cannot write {}", ckpt.display()))?;
        }
        if interrupted && !converged {
            if checkpoints {
                checkpoint
                    .remove_spare()
                    .with_context(|| format!("cannot remove the spare of {}", ckpt.display()))?;
                eprintln!(
                    "makehyper: interrupted; {} holds sweep {sweeps}: restart with -r {}",
                    ckpt.display(),
                    ckpt.display()
                );
            } else {
                eprintln!("makehyper: interrupted; checkpoints are off (-n), nothing was saved");
            }
            return Ok(Outcome::Interrupted);
        }
        if converged {
            break;
        }
    }
    let md5 = save(&solver, &out, &mut buffer)?;
    if checkpoints {
        checkpoint
            .remove()
            .with_context(|| format!("cannot remove {}", ckpt.display()))?;
    }
    if !cli.quiet {
        eprintln!(
            "makehyper: wrote {} ({} bytes) after {sweeps} sweeps in {:.2} s, peak memory {}",
            out.display(),
            solver.output_len(),
            start.elapsed().as_secs_f64(),
            peak_memory().map_or_else(|| "unknown".into(), human)
        );
        eprintln!("makehyper: MD5 {md5}");
    }
    Ok(Outcome::Done)
}
