//! One makebearoff run: validate, plan, generate with checkpoints, write.

use crate::cli::Cli;
use anyhow::{bail, Context, Result};
use databases::published::published_md5;
use databases::verify::first_bad_record;
use databases::{Database, Kind};
use makebearoff::one_sided::{check_old_one_sided, one_sided_job, OneSidedOptions};
use makebearoff::two_sided::{check_old_two_sided, TwoSidedJob, TwoSidedOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::atomic::{check_checkpoint_name, check_writable, parent_dir, AtomicFile};
use support::cli::Outcome;
use support::digest::{md5_hex, write_hashed};
use support::lock::OutputLock;
use support::progress::Progress;
use support::resources::{ensure_fits, human, peak_memory};
use support::{Chain, Checkpoint, Job};

/// The databases one invocation asks for.
struct Plan {
    one: Option<OneSidedOptions>,
    two: Option<TwoSidedOptions>,
}

impl Plan {
    fn from_cli(cli: &Cli) -> Result<Plan> {
        let header = !cli.no_header;
        let one = cli
            .one_sided
            .filter(|&p| p > 0)
            .map(|points| OneSidedOptions {
                points,
                gammons: !cli.no_gammon,
                compressed: !cli.no_compress,
                normal: cli.normal_dist,
                header,
            });
        let two = cli.two_sided.map(|s| TwoSidedOptions {
            points: s.points,
            chequers: s.chequers,
            cubeful: !cli.no_cubeful,
            header,
        });
        if one.is_none() && two.is_none() {
            bail!("nothing to generate: give -o P (1-18 points) or -t PxC");
        }
        if one.is_some() && two.is_some() && cli.old_bearoff.is_some() {
            bail!("-O cannot be combined with both -o and -t: an old database has one kind");
        }
        Ok(Plan { one, two })
    }

    /// A description of everything that determines the output bytes.
    fn fingerprint(&self, old: Option<&Path>) -> String {
        format!(
            "makebearoff {} one={:?} two={:?} old={:?}",
            env!("CARGO_PKG_VERSION"),
            self.one,
            self.two,
            old
        )
    }

    fn memory(&self) -> u64 {
        self.one
            .map_or(0, |o| o.memory_estimate())
            .max(self.two.map_or(0, |t| t.memory_estimate()))
            + self
                .two
                .map_or(0, |t| t.memory_estimate())
                .min(self.one.map_or(0, |o| o.memory_estimate()))
    }

    /// Upper estimate of the output size.
    fn disk(&self) -> u64 {
        let one = self.one.map_or(0, |o| {
            let n = o.positions() as u64;
            match (o.normal, o.compressed, o.gammons) {
                (true, _, _) => 16 * n,
                (false, false, g) => n * if g { 128 } else { 64 },
                // Compressed windows average well under 24 values per distribution.
                (false, true, g) => n * if g { 8 + 96 } else { 6 + 48 },
            }
        });
        one + self.two.map_or(0, |t| t.output_len())
    }

    fn kind(&self) -> Option<Kind> {
        match (self.one, self.two) {
            (Some(o), None) if o.header => Some(o.kind()),
            (None, Some(t)) if t.header => Some(t.kind()),
            _ => None,
        }
    }

    fn build(&self, old: Option<Database>) -> Box<dyn Job> {
        match (self.one, self.two) {
            (Some(o), None) => one_sided_job(o, old),
            (None, Some(t)) => Box::new(TwoSidedJob::new(t, old)),
            (Some(o), Some(t)) => Box::new(Chain::new(vec![
                one_sided_job(o, None),
                Box::new(TwoSidedJob::new(t, None)),
            ])),
            (None, None) => unreachable!("plan has a database"),
        }
    }
}

/// Opens the old database of `-O` and checks it can be reused: its kind,
/// and every record's structure (a damaged record is never copied into the
/// new database).
fn open_old(plan: &Plan, path: &Path) -> Result<Database> {
    let db = Database::open(path).context("cannot use old database (-O)")?;
    let check = match (plan.one, plan.two) {
        (Some(o), _) => check_old_one_sided(&o, &db),
        (_, Some(t)) => check_old_two_sided(&t, &db),
        _ => Ok(()),
    };
    check.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if let Some(bad) = first_bad_record(&db, &|_| {}) {
        bail!(
            "cannot use old database (-O) {}: record {} is damaged: {}",
            path.display(),
            bad.index,
            bad.problem
        );
    }
    Ok(db)
}

fn describe(kind: Option<Kind>) -> String {
    kind.map_or_else(|| "this configuration".into(), |k| k.to_string())
}

/// Runs makebearoff as the command line asks.
pub fn run(cli: &Cli, stop: Arc<AtomicBool>) -> Result<Outcome> {
    let (out_path, plan, old, _lock) = prepare(cli)?;
    let start = Instant::now();
    let fingerprint = plan.fingerprint(cli.old_bearoff.as_deref());
    let mut job = plan.build(old);
    let mut ckpt = open_checkpoint(cli, &out_path, &fingerprint, job.as_mut())?;
    if !generate(cli, job.as_mut(), ckpt.as_mut(), &stop)? {
        return interrupted(job.as_ref(), ckpt.as_mut());
    }
    let compute_time = start.elapsed();
    let cannot = || format!("cannot write {}", out_path.display());
    let (output, md5) = write_output(&out_path, job.as_ref()).with_context(cannot)?;
    if cli.verify {
        // Checked on the bytes on disk, before the file takes its name: a
        // database that fails is never left under the final name.
        let outcome = verify(output.path_being_written(), plan.kind())?;
        if outcome != Outcome::Done {
            support::note!("makebearoff: {} was not written", out_path.display());
            return Ok(outcome);
        }
    }
    output.commit().with_context(cannot)?;
    if let Some(c) = ckpt {
        c.remove().context("cannot remove the checkpoint")?;
    }
    if !cli.quiet {
        report(
            &out_path,
            &plan,
            job.as_ref(),
            start.elapsed(),
            compute_time,
            &md5,
        );
    }
    Ok(Outcome::Done)
}

/// Checks the command line, the old database, the checkpoint state, memory,
/// disk and the output's directory before any work starts.
fn prepare(cli: &Cli) -> Result<(PathBuf, Plan, Option<Database>, OutputLock)> {
    let out_path: PathBuf = cli
        .outfile
        .clone()
        .context("required option -f FILE (the output file) is missing")?;
    let plan = Plan::from_cli(cli)?;
    let dir = parent_dir(&out_path);
    if !dir.is_dir() {
        bail!("output directory {} does not exist", dir.display());
    }
    // Never another file's journal, provenance, checkpoint or lock.
    support::side::check_output(&out_path, |_| false)?;
    // One run per output: the lock covers the output and its checkpoint.
    let lock = OutputLock::acquire(&out_path)?;
    let old = cli
        .old_bearoff
        .as_deref()
        .map(|p| open_old(&plan, p))
        .transpose()?;
    let ckpt_path = Checkpoint::path_for(&out_path);
    check_checkpoint_name(&ckpt_path)
        .with_context(|| format!("cannot use checkpoint {}", ckpt_path.display()))?;
    let ckpt_exists = std::fs::symlink_metadata(&ckpt_path).is_ok();
    if !cli.resume && ckpt_exists {
        bail!(
            "checkpoint {} exists from an interrupted run: add --resume to continue it, or delete it",
            ckpt_path.display()
        );
    }
    if cli.resume && !ckpt_exists {
        bail!(
            "--resume: no checkpoint {} to resume from",
            ckpt_path.display()
        );
    }
    // A resumed run's checkpoint is already on disk: only the rest is needed.
    let on_disk = if cli.resume {
        std::fs::metadata(&ckpt_path).map_or(0, |m| m.len())
    } else {
        0
    };
    let checkpoints = cli.checkpoint_every > 0.0 || cli.resume;
    ensure_fits(
        plan.memory(),
        disk_to_reserve(plan.disk(), checkpoints, on_disk),
        &dir,
    )?;
    // Fail now, not after hours of work, if the output cannot be written.
    check_writable(&out_path).with_context(|| format!("cannot write {}", out_path.display()))?;
    Ok((out_path, plan, old, lock))
}

/// Bytes of disk a run needs: the output, as much again for its checkpoint
/// when there is one, less what a resumed run's checkpoint already holds.
fn disk_to_reserve(output: u64, checkpoint: bool, on_disk: u64) -> u64 {
    (output * if checkpoint { 2 } else { 1 }).saturating_sub(on_disk)
}

/// The checkpoint of this run: resumed (`--resume`), new, or none when
/// checkpoints are off.
fn open_checkpoint(
    cli: &Cli,
    out_path: &Path,
    fingerprint: &str,
    job: &mut dyn Job,
) -> Result<Option<Checkpoint>> {
    let ckpt_path = Checkpoint::path_for(out_path);
    if cli.resume {
        let c = Checkpoint::resume(&ckpt_path, fingerprint, job)?;
        if !cli.quiet {
            support::note!(
                "makebearoff: resumed {} of {} units from {}",
                c.units_written(),
                job.units(),
                ckpt_path.display()
            );
        }
        Ok(Some(c))
    } else if cli.checkpoint_every > 0.0 {
        let c = Checkpoint::create(&ckpt_path, fingerprint)
            .with_context(|| format!("cannot create checkpoint {}", ckpt_path.display()))?;
        Ok(Some(c))
    } else {
        Ok(None)
    }
}

/// Computes the remaining units with progress and periodic checkpoints;
/// `false` if a signal stopped it first.
fn generate(
    cli: &Cli,
    job: &mut dyn Job,
    mut ckpt: Option<&mut Checkpoint>,
    stop: &AtomicBool,
) -> Result<bool> {
    let checkpoints = cli.checkpoint_every > 0.0;
    let every = Duration::from_secs_f64(cli.checkpoint_every.min(1e9));
    let mut last_ckpt = Instant::now();
    let mut progress = Progress::new("makebearoff", "positions", job.positions(), cli.quiet);
    while !job.is_done() {
        if stop.load(Ordering::SeqCst) {
            progress.finish();
            return Ok(false);
        }
        job.compute_next();
        progress.update(job.positions_done());
        if let Some(c) = ckpt.as_deref_mut() {
            if checkpoints && last_ckpt.elapsed() >= every {
                c.append(job).context("cannot write checkpoint")?;
                last_ckpt = Instant::now();
            }
        }
    }
    progress.finish();
    Ok(true)
}

/// Writes the finished database to its temporary file (committed by the
/// caller); returns it and its MD5 (hex).
fn write_output(out_path: &Path, job: &dyn Job) -> std::io::Result<(AtomicFile, String)> {
    let mut output = AtomicFile::create(out_path)?;
    let md5 = output.write_all_with(|w| write_hashed(w, |w| job.write(w)))?;
    Ok((output, md5))
}

/// The closing lines on stderr: what was written, how fast, the MD5.
fn report(
    out_path: &Path,
    plan: &Plan,
    job: &dyn Job,
    wall: Duration,
    compute_time: Duration,
    md5: &str,
) {
    let positions = job.positions();
    support::note!(
        "makebearoff: wrote {} ({}, {} bytes): {} positions in {:.2} s ({:.2} s computing), {:.0} positions/s, peak memory {}",
        out_path.display(),
        describe(plan.kind()),
        job.output_len(),
        positions,
        wall.as_secs_f64(),
        compute_time.as_secs_f64(),
        positions as f64 / wall.as_secs_f64().max(1e-9),
        peak_memory().map_or_else(|| "unknown".into(), human)
    );
    support::note!("makebearoff: MD5 {md5}");
}

fn interrupted(job: &dyn Job, ckpt: Option<&mut Checkpoint>) -> Result<Outcome> {
    match ckpt {
        Some(c) => {
            c.append(job).context("cannot write checkpoint")?;
            support::note!(
                "makebearoff: interrupted; checkpoint {} holds {} of {} units: rerun the same command with --resume",
                c.path().display(),
                c.units_written(),
                job.units()
            );
        }
        None => support::note!("makebearoff: interrupted (checkpoints disabled, nothing saved)"),
    }
    Ok(Outcome::Interrupted)
}

/// Re-reads the written file and compares its MD5 with the published
/// table: a mismatch is a failed check (said on stderr).
fn verify(path: &Path, kind: Option<Kind>) -> Result<Outcome> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot reopen {}", path.display()))?;
    let md5 = md5_hex(std::io::BufReader::with_capacity(1 << 22, file))
        .with_context(|| format!("cannot read {}", path.display()))?;
    match kind.and_then(|k| published_md5(k).map(|p| (k, p))) {
        Some((k, expected)) if expected == md5 => {
            support::outln!("MD5 {md5} matches gnubg's published checksum for {k}")?;
            Ok(Outcome::Done)
        }
        Some((k, expected)) => {
            support::note!(
                "makebearoff: error: MD5 {md5} does NOT match gnubg's published checksum {expected} for {k}"
            );
            Ok(Outcome::Failed)
        }
        None => {
            support::outln!(
                "MD5 {md5} (gnubg publishes no checksum for {})",
                describe(kind)
            )?;
            Ok(Outcome::Done)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_checkpoint_counts_as_already_reserved() {
        assert_eq!(disk_to_reserve(100, false, 0), 100);
        assert_eq!(disk_to_reserve(100, true, 0), 200);
        assert_eq!(disk_to_reserve(100, true, 60), 140);
        assert_eq!(disk_to_reserve(100, true, 500), 0);
    }
}
