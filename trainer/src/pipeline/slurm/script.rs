//! The sbatch scripts of a round's jobs.

use std::path::Path;

/// The job options every job of the round gets, as `#SBATCH` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobOptions {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--time` (a job's limit: the longest stage's).
    pub time: Option<String>,
    /// `--cpus-per-task`.
    pub cpus_per_task: Option<u32>,
    /// Further `sbatch` options, one argument each (`--qos=high`).
    pub extra: Vec<String>,
}

/// What a job runs.
#[derive(Clone, Debug)]
pub struct JobScript<'a> {
    /// The trainer executable.
    pub exe: &'a Path,
    /// The plan file (absolute).
    pub plan: &'a Path,
    /// The round's directory (absolute).
    pub dir: &'a Path,
    /// The stage's name.
    pub stage: &'a str,
    /// The job's log; `%a` stands for an array task's number.
    pub log: &'a Path,
    /// For an array of shard tasks: the number of shards. For the job
    /// that merges them first: the same number.
    pub shards: Option<u32>,
    /// True for the array of shard tasks.
    pub array: bool,
}

impl JobScript<'_> {
    /// The script's text.
    pub fn text(&self, options: &JobOptions) -> String {
        let mut s = String::from("#!/bin/sh\n");
        s.push_str(&format!(
            "# bgkit trainer round: {} of the stage {:?} of {}\n",
            if self.array {
                "the shard tasks"
            } else {
                "the job"
            },
            self.stage,
            self.plan.display()
        ));
        s.push_str("# written by `trainer round PLAN --slurm`; submitted with sbatch --array and --dependency\n");
        let name = format!("bgkit-{}", super::slug(self.stage));
        let mut lines = vec![
            format!("--job-name={name}"),
            format!("--chdir={}", self.dir.display()),
            format!("--output={}", self.log.display()),
            "--open-mode=append".into(),
            "--requeue".into(),
        ];
        let opt = |flag: &str, v: &Option<String>| v.as_ref().map(|v| format!("--{flag}={v}"));
        lines.extend(opt("partition", &options.partition));
        lines.extend(opt("account", &options.account));
        lines.extend(opt("time", &options.time));
        lines.extend(
            options
                .cpus_per_task
                .map(|n| format!("--cpus-per-task={n}")),
        );
        lines.extend(options.extra.iter().cloned());
        for l in lines {
            s.push_str(&format!("#SBATCH {l}\n"));
        }
        // Without the plan's `threads`, a stage uses the task's CPUs.
        s.push_str(
            "export RAYON_NUM_THREADS=\"${RAYON_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}\"\n",
        );
        let mut cmd = vec![
            quoted(&self.exe.to_string_lossy()),
            "round".into(),
            quoted(&self.plan.to_string_lossy()),
            "--slurm-task".into(),
            quoted(self.stage),
        ];
        match (self.array, self.shards) {
            (true, Some(n)) => cmd.push(format!("--shard \"$SLURM_ARRAY_TASK_ID/{n}\"")),
            (false, Some(n)) => cmd.push(format!("--shards {n}")),
            _ => {}
        }
        s.push_str(&format!("exec {}\n", cmd.join(" ")));
        s
    }
}

/// `text` quoted for the shell.
pub fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_script_names_its_options_and_its_task() {
        let options = JobOptions {
            partition: Some("short".into()),
            cpus_per_task: Some(8),
            extra: vec!["--qos=high".into()],
            ..JobOptions::default()
        };
        let script = JobScript {
            exe: Path::new("/opt/bgkit/trainer"),
            plan: Path::new("/shared/r1/plan's.json"),
            dir: Path::new("/shared/r1"),
            stage: "label new",
            log: Path::new("/shared/r1/slurm/logs/05-label-new-%a.log"),
            shards: Some(16),
            array: true,
        };
        let text = script.text(&options);
        for line in [
            "#SBATCH --partition=short\n",
            "#SBATCH --cpus-per-task=8\n",
            "#SBATCH --qos=high\n",
            "#SBATCH --requeue\n",
            "#SBATCH --chdir=/shared/r1\n",
            "exec '/opt/bgkit/trainer' round '/shared/r1/plan'\\''s.json' --slurm-task 'label new' --shard \"$SLURM_ARRAY_TASK_ID/16\"\n",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
        assert!(!text.contains("--account"));
    }
}
