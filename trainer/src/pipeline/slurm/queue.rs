//! Slurm's commands: `sbatch` (to check options and submit), `squeue`
//! (what is queued or running), `scancel`, and `sacct` where the cluster
//! keeps accounting.

use super::SlurmError;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// A job or array task as `squeue` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    /// Slurm's state (`PENDING`, `RUNNING`, …).
    pub state: String,
    /// Why it waits (`Dependency`, `DependencyNeverSatisfied`, …).
    pub reason: String,
}

/// Reasons a pending job never runs unless someone steps in: a
/// dependency that failed (Slurm keeps such jobs pending unless told
/// otherwise), a launch that failed and was held, too many requeues, an
/// administrator's hold.
const STUCK: [&str; 4] = [
    "DependencyNeverSatisfied",
    "launch failed requeued held",
    "JobHoldMaxRequeue",
    "JobHeldAdmin",
];

impl Queued {
    /// Still to run or running: not a job that is ending (`COMPLETING`,
    /// its processes going away) nor one that waits for what will not
    /// come (a failed dependency, a hold after a failed launch or too many
    /// requeues, an administrator's hold). A job its user held counts as
    /// queued.
    pub fn is_live(&self) -> bool {
        self.state != "COMPLETING" && !STUCK.contains(&self.reason.as_str())
    }
}

/// What `squeue` shows: jobs by ID, array tasks by (array ID, task).
#[derive(Clone, Debug, Default)]
pub struct QueueView {
    jobs: HashMap<(u64, Option<u32>), Queued>,
}

impl QueueView {
    /// Parses `squeue -h -r -o %F|%K|%T|%r`: one job or array task a
    /// line (`N/A` for a job's task; `1-4%2` for tasks not yet split off,
    /// which `-r` lists one by one).
    pub fn parse(text: &str) -> QueueView {
        let mut jobs = HashMap::new();
        for line in text.lines() {
            let f: Vec<&str> = line.trim().split('|').collect();
            let [id, task, state, reason] = f[..] else {
                continue;
            };
            let Ok(id) = id.parse::<u64>() else { continue };
            let queued = Queued {
                state: state.to_owned(),
                reason: reason.to_owned(),
            };
            for t in tasks(task) {
                jobs.insert((id, t), queued.clone());
            }
        }
        QueueView { jobs }
    }

    /// Job `id` (not an array), if queued.
    pub fn job(&self, id: u64) -> Option<&Queued> {
        self.jobs.get(&(id, None))
    }

    /// Task `task` of array `id`, if queued.
    pub fn task(&self, id: u64, task: u32) -> Option<&Queued> {
        self.jobs.get(&(id, Some(task)))
    }

    /// The job or task named `ID` or `ID_TASK`, if queued.
    pub fn named(&self, name: &str) -> Option<&Queued> {
        match name.split_once('_') {
            Some((id, task)) => self.task(id.parse().ok()?, task.parse().ok()?),
            None => self.job(name.parse().ok()?),
        }
    }
}

/// The tasks a `%K` field names: none for `N/A`, else a list like
/// `1,3-4%2`.
fn tasks(field: &str) -> Vec<Option<u32>> {
    if field == "N/A" || field.is_empty() {
        return vec![None];
    }
    let list = field.split('%').next().unwrap_or_default();
    let mut v = Vec::new();
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            v.extend((a..=b).map(Some));
        }
    }
    v
}

/// Fails with [`SlurmError::Missing`] unless `command` is on the PATH.
pub fn require(command: &'static str) -> Result<(), SlurmError> {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| {
            let p = d.join(command);
            p.is_file()
                && std::fs::metadata(&p).is_ok_and(|m| {
                    std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
                })
        })
    });
    if found {
        Ok(())
    } else {
        Err(SlurmError::Missing(command))
    }
}

/// Runs `command args`, its standard output on success.
fn run(command: &str, args: &[OsString]) -> Result<String, SlurmError> {
    let out = Command::new(command)
        .args(args)
        .output()
        .map_err(|e| SlurmError::Command {
            command: command.into(),
            why: e.to_string(),
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let mut lines = err.lines().map(str::trim).filter(|l| !l.is_empty());
        // Slurm's commands say what is wrong first (`sbatch: error: …`),
        // then perhaps how to get help.
        let why = lines
            .clone()
            .find(|l| l.contains("error") || l.contains("unrecognized"))
            .or_else(|| lines.next())
            .unwrap_or("no error message")
            .to_owned();
        return Err(SlurmError::Command {
            command: command.into(),
            why: format!("{why} ({})", out.status),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What `squeue` shows of the jobs of every user (one line per array
/// task).
pub fn squeue() -> Result<QueueView, SlurmError> {
    require("squeue")?;
    let text = run(
        "squeue",
        &["-h".into(), "-r".into(), "-o".into(), "%F|%K|%T|%r".into()],
    )?;
    Ok(QueueView::parse(&text))
}

/// `sbatch`'s arguments for `script`: the array's tasks and the job it
/// waits for (its ID, or a shell variable holding it), if any.
pub fn sbatch_args(script: &Path, array: Option<&str>, after: Option<&str>) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["--parsable".into()];
    if let Some(tasks) = array {
        a.push(format!("--array={tasks}").into());
    }
    if let Some(job) = after {
        a.push(format!("--dependency=afterok:{job}").into());
    }
    a.push(script.into());
    a
}

/// `sbatch --test-only`: Slurm checks the job's options and submits
/// nothing.
pub fn check(script: &Path, array: Option<&str>) -> Result<(), SlurmError> {
    let mut a = sbatch_args(script, array, None);
    a[0] = "--test-only".into();
    run("sbatch", &a).map(|_| ()).map_err(|e| match e {
        SlurmError::Command { why, .. } => SlurmError::Options(why),
        e => e,
    })
}

/// Submits `script` and returns the job ID.
pub fn submit(script: &Path, array: Option<&str>, after: Option<u64>) -> Result<u64, SlurmError> {
    let after = after.map(|j| j.to_string());
    let out = run("sbatch", &sbatch_args(script, array, after.as_deref()))?;
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let id = out.trim().split(';').next().unwrap_or_default();
    id.parse().map_err(|_| SlurmError::Command {
        command: "sbatch".into(),
        why: format!("printed {:?}, not a job ID", out.trim()),
    })
}

/// Longest wait for cancelled jobs to end (Slurm gives a job `KillWait`,
/// 30 s by default, to stop before it kills it).
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Cancels the jobs and tasks named (`ID` or `ID_TASK`) and waits until
/// `squeue` lists none of them: a cancelled task saves its journal or
/// checkpoint before it ends, and the task that replaces it must not
/// start before.
pub fn cancel(ids: &[String]) -> Result<(), SlurmError> {
    if ids.is_empty() {
        return Ok(());
    }
    let args: Vec<OsString> = ids.iter().map(OsString::from).collect();
    run("scancel", &args)?;
    let start = std::time::Instant::now();
    loop {
        let view = squeue()?;
        let left: Vec<&String> = ids.iter().filter(|id| view.named(id).is_some()).collect();
        if left.is_empty() {
            return Ok(());
        }
        if start.elapsed() > CANCEL_WAIT {
            return Err(SlurmError::Command {
                command: "scancel".into(),
                why: format!(
                    "{} still in the queue after {} s; submit the round again once they are gone",
                    left.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    CANCEL_WAIT.as_secs()
                ),
            });
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

/// How finished jobs and tasks ended (`FAILED`, `CANCELLED`, …) by ID
/// (`ID` or `ID_TASK`), from `sacct`; empty where the cluster keeps no
/// accounting.
pub fn ended(ids: &[u64]) -> HashMap<String, String> {
    if ids.is_empty() || require("sacct").is_err() {
        return HashMap::new();
    }
    let list = ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let args: Vec<OsString> = ["-n", "-X", "-P", "-o", "JobID,State", "-j", &list]
        .iter()
        .map(OsString::from)
        .collect();
    let Ok(text) = run("sacct", &args) else {
        return HashMap::new();
    };
    text.lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(id, state)| (id.to_owned(), state.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_lines_name_jobs_and_array_tasks() {
        let view = QueueView::parse(
            "6|1|RUNNING|None\n6|3-4%2|PENDING|JobArrayTaskLimit\n7|N/A|PENDING|DependencyNeverSatisfied\nbad line\n",
        );
        assert_eq!(view.task(6, 1).unwrap().state, "RUNNING");
        assert!(view.task(6, 4).unwrap().is_live());
        assert!(view.task(6, 2).is_none());
        assert!(!view.job(7).unwrap().is_live());
        assert!(view.job(6).is_none());
        assert_eq!(view.named("6_3").unwrap().reason, "JobArrayTaskLimit");
        assert!(view.named("7").is_some() && view.named("8").is_none());
        let ending = Queued {
            state: "COMPLETING".into(),
            reason: "None".into(),
        };
        assert!(!ending.is_live());
    }
}
