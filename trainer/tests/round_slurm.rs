//! `trainer round PLAN --slurm` on a real one-node Slurm cluster that the
//! test starts itself (Debian's `slurm-wlm` and `munge`; a `slurm.conf`
//! for this machine; every daemon on its own socket, ports and state
//! folder, stopped at the end): a small round submitted as jobs, one
//! array task of its labelling cancelled mid-run, the round submitted
//! again, ends with the very files of the same plan run locally, and
//! `--status` reports every stage done. Without Slurm, or with an option
//! sbatch refuses, the command fails in one line and submits nothing.

mod common;

use common::{ok, s, BIN, GNUBG_WD};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;
use test_support::{describe, error_line_problems, gnubg_file, tempdir, wait_until};

/// A small round's plan in `dir`: gnubg's weights play and label at 2
/// plies (pruned), small nets train a few epochs; one thread a stage.
fn plan(dir: &Path) -> PathBuf {
    gnubg_file(GNUBG_WD);
    let plan = dir.join("plan.json");
    let text = serde_json::json!({
        "player": GNUBG_WD, "teacher": GNUBG_WD,
        "games": 30, "seed": 5, "held": "held.db", "holdout": 0.2,
        "plies": 2, "prune": true, "start": "start.wd", "hidden": 16,
        "train": {"epochs": 2, "schedule": "cosine", "alpha_start": 1.0, "alpha_low": 0.05},
        "opponent": "start.wd", "match_games": 20, "threads": 1
    });
    std::fs::write(&plan, text.to_string()).unwrap();
    plan
}

/// A one-node Slurm cluster on this machine, its files in a temporary
/// folder; stopped (every job cancelled and gone, every daemon ended) when
/// dropped, also when a test fails midway.
struct Cluster {
    dir: tempfile::TempDir,
}

/// Debian's Slurm and munge, run by their paths (`/usr/sbin` is not on
/// every user's PATH).
const MUNGED: &str = "/usr/sbin/munged";
const SLURMCTLD: &str = "/usr/sbin/slurmctld";
const SLURMD: &str = "/usr/sbin/slurmd";

impl Cluster {
    fn start() -> Cluster {
        for tool in [
            MUNGED,
            SLURMCTLD,
            SLURMD,
            "/usr/bin/sbatch",
            "/usr/bin/squeue",
            "/usr/bin/scancel",
        ] {
            assert!(
                Path::new(tool).exists(),
                "{tool} is missing: install Debian's slurm-wlm and munge (scripts/test.sh does)"
            );
        }
        let cluster = Cluster {
            dir: tempdir("bgkit-slurm."),
        };
        let d = cluster.dir.path().to_owned();
        let munge = d.join("munge");
        std::fs::create_dir(&munge).unwrap();
        set_mode(&munge, 0o700);
        let key = munge.join("munge.key");
        let bytes: Vec<u8> = (0..1024u32).map(|i| (i * 7919 % 251) as u8).collect();
        std::fs::write(&key, bytes).unwrap();
        set_mode(&key, 0o600);
        let socket = munge.join("socket");
        run(Command::new(MUNGED).args([
            "-f",
            &format!("--socket={}", socket.display()),
            &format!("--key-file={}", key.display()),
            &format!("--pid-file={}", munge.join("pid").display()),
            &format!("--log-file={}", munge.join("log").display()),
            &format!("--seed-file={}", munge.join("seed").display()),
        ]));
        let user = String::from_utf8(run(Command::new("id").arg("-un")).stdout).unwrap();
        let host = String::from_utf8(run(Command::new("hostname").arg("-s")).stdout).unwrap();
        let (user, host) = (user.trim(), host.trim());
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let conf = format!(
            "ClusterName=bgkittest\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmUser={user}\nSlurmdUser={user}\n\
             SlurmctldPort={}\nSlurmdPort={}\n\
             AuthType=auth/munge\nAuthInfo=socket={}\nCryptoType=crypto/munge\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             SchedulerType=sched/builtin\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n\
             JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
             JobAcctGatherType=jobacct_gather/none\nSwitchType=switch/none\nKillWait=5\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            socket.display(),
            d = d.display(),
        );
        std::fs::write(cluster.conf(), conf).unwrap();
        run(cluster.command(SLURMCTLD).args(["-c", "-i"]));
        run(&mut cluster.command(SLURMD));
        wait_until(Duration::from_secs(60), "the node is idle", || {
            let out = cluster.command("sinfo").args(["-h", "-o", "%T"]).output();
            out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// `program`, talking to this cluster.
    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", self.conf());
        cmd
    }

    /// `trainer args` with this cluster's Slurm commands.
    fn trainer(&self, args: &[&str]) -> Output {
        self.command(BIN).args(args).output().unwrap()
    }

    /// `trainer args`, which must succeed; its standard output.
    fn trainer_ok(&self, args: &[&str]) -> String {
        let out = self.trainer(args);
        assert!(out.status.success(), "trainer {args:?}\n{}", describe(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Every job and task `squeue` lists (`None` if it fails).
    fn queue(&self) -> Option<String> {
        let out = self
            .command("squeue")
            .args(["-h", "-r", "-o", "%i %T %r"])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Polls `trainer args` once a second (a failed call counts as not
    /// yet) until `done` holds for its output, which it returns.
    fn poll(
        &self,
        args: &[&str],
        what: &str,
        limit: Duration,
        done: impl Fn(&str) -> bool,
    ) -> String {
        let start = std::time::Instant::now();
        loop {
            let out = self.trainer(args);
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            if out.status.success() && done(&text) {
                return text;
            }
            assert!(
                start.elapsed() < limit,
                "timed out waiting until {what}; last:\n{}",
                describe(&out)
            );
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let d = self.dir.path().to_owned();
        if d.join("slurmctld.pid").exists() {
            let user = Command::new("id").arg("-un").output().map_or_else(
                |_| "root".into(),
                |o| String::from_utf8_lossy(&o.stdout).trim().to_owned(),
            );
            let _ = self
                .command("scancel")
                .args(["--full", "--user", &user])
                .status();
            // The jobs' processes end before the daemons do.
            let start = std::time::Instant::now();
            while self.queue().is_some_and(|q| !q.is_empty()) && start.elapsed().as_secs() < 30 {
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = self.command("scontrol").arg("shutdown").status();
            std::thread::sleep(Duration::from_millis(500));
        }
        for (pid, name) in [
            ("slurmctld.pid", "slurmctld"),
            ("slurmd.pid", "slurmd"),
            ("munge/pid", "munged"),
        ] {
            let Ok(text) = std::fs::read_to_string(d.join(pid)) else {
                continue;
            };
            let pid = text.trim();
            // Only a daemon of this cluster, not a process that took its PID.
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(name) {
                let _ = Command::new("kill").arg("-9").arg(pid).status();
            }
        }
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A TCP port free at the moment.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs `cmd`, which must succeed.
fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?}\n{}", describe(&out));
    out
}

/// Every file under `dir` but its `slurm/` folder: (relative path, bytes).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if rel == "slurm" {
                continue;
            }
            if p.is_dir() {
                todo.push(p);
            } else {
                v.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    v.sort();
    v
}

/// The job ID of the array of `stage` in the round's job record.
fn array_of(dir: &Path, stage: &str) -> u64 {
    let text = std::fs::read_to_string(dir.join("slurm/jobs.json")).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    record["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["stage"] == stage)
        .and_then(|e| e["array"]["job"].as_u64())
        .unwrap_or_else(|| panic!("no array for {stage:?} in {text}"))
}

/// Asserts `out` is a one-line `trainer: error:` with `needle`, exit 2.
fn assert_refused(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", describe(out));
    assert!(out.stdout.is_empty(), "{}", describe(out));
    let (line, problems) = error_line_problems(out);
    assert!(problems.is_empty(), "{problems:?}\n{}", describe(out));
    assert!(
        line.starts_with("trainer: error: ") && line.contains(needle),
        "{line}"
    );
}

#[test]
fn a_round_on_slurm_with_a_cancelled_task_resubmitted_ends_with_the_local_rounds_files() {
    let local = tempdir("bgkit-round-local.");
    let local_plan = plan(local.path());
    ok(&["round", s(&local_plan)]);

    // The round's folder outlives the cluster, whose jobs write in it.
    let dir = tempdir("bgkit-round-slurm.");
    let cluster = Cluster::start();
    let round = dir.path();
    let plan = plan(round);
    let submit = [
        "round",
        s(&plan),
        "--slurm",
        "--array-size",
        "2",
        "--cpus-per-task",
        "1",
    ];

    // Options sbatch refuses submit nothing.
    let bad = cluster.trainer(&["round", s(&plan), "--slurm", "--partition", "nosuch"]);
    assert_refused(&bad, "nothing was submitted");
    let bad = cluster.trainer(&[
        "round",
        s(&plan),
        "--slurm",
        "--sbatch-arg=--no-such-option",
    ]);
    assert_refused(&bad, "sbatch refused");
    assert_eq!(cluster.queue().as_deref(), Some(""), "jobs were submitted");
    assert!(!round.join("slurm/jobs.json").exists());

    let said = cluster.trainer_ok(&submit);
    assert!(
        said.contains("label new: submitted shards 1,2 of 2"),
        "{said}"
    );
    // Submitting again while every stage is queued submits nothing.
    let again = cluster.trainer_ok(&submit);
    assert!(again.contains("nothing to submit"), "{again}");

    // Shard 2 of `label new` is cancelled once its labelling has written
    // a block of its journal.
    let journal = round.join("slurm/shards/new.db.shard-2-of-2.journal");
    let size = || std::fs::metadata(&journal).map_or(0, |m| m.len());
    wait_until(
        Duration::from_secs(300),
        "shard 2 of new.db is labelling",
        || size() > 0,
    );
    let first = size();
    wait_until(
        Duration::from_secs(60),
        "shard 2's journal has a block",
        || size() > first,
    );
    let task = format!("{}_2", array_of(round, "label new"));
    run(cluster.command("scancel").arg(&task));
    let status = ["round", s(&plan), "--status"];
    let shown = cluster.poll(
        &status,
        "the merge waits for a failed task",
        Duration::from_secs(300),
        |t| t.contains("waiting for a job that failed"),
    );
    assert!(
        shown.contains("label new: failed")
            && shown.contains("2 ended without finishing")
            && shown.contains("slurm/logs/05-label-new-2.log:")
            && shown.contains("stopped"),
        "{shown}"
    );
    assert!(shown.contains("training set: queued"), "{shown}");

    // Submitted again: only the cancelled shard and the stages after it.
    let said = cluster.trainer_ok(&submit);
    assert!(
        said.contains("label new: submitted shards 2 of 2"),
        "{said}"
    );
    assert!(!said.contains("label held"), "{said}");
    let shown = cluster.poll(
        &status,
        "every stage is done",
        Duration::from_secs(600),
        |t| {
            t.lines()
                .all(|l| l.ends_with(": done") || l.ends_with(": given"))
        },
    );
    assert_eq!(shown.lines().count(), 13, "{shown}");
    let log = std::fs::read_to_string(round.join("slurm/logs/05-label-new-2.log")).unwrap();
    assert!(
        log.contains("from the journal"),
        "the task did not resume:\n{log}"
    );
    assert!(!round.join("slurm/shards/new.db.shard-1-of-2").exists());

    let (a, b) = (files(local.path()), files(round));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs from the local round's");
    }
}

#[test]
fn without_sbatch_the_round_is_refused_in_one_line_and_nothing_is_written() {
    let dir = tempdir("bgkit-round-noslurm.");
    let plan = plan(dir.path());
    let empty = tempdir("bgkit-empty-path.");
    let out = Command::new(BIN)
        .args(["round", s(&plan), "--slurm"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_refused(&out, "sbatch: not found on the PATH");
    assert!(!dir.path().join("slurm/jobs.json").exists());
    // --dry-run needs no Slurm: it writes the scripts and submits nothing.
    let out = Command::new(BIN)
        .args([
            "round",
            s(&plan),
            "--slurm",
            "--dry-run",
            "--partition",
            "short",
        ])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let script =
        std::fs::read_to_string(dir.path().join("slurm/05-label-new.shards.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --partition=short"), "{script}");
    assert!(script.contains("--slurm-task 'label new' --shard \"$SLURM_ARRAY_TASK_ID/4\""));
    assert!(!dir.path().join("slurm/jobs.json").exists());
    assert!(!dir.path().join("positions.db").exists());
}
