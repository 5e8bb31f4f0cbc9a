//! Running a round's stages: what is done already (from the round's
//! [`Ledger`]), what may not be touched, stale temporaries and locks of
//! the round's own files, and each stage's command in the round's
//! directory, stopped cleanly by SIGINT/SIGTERM.

use super::ledger::{self, Ledger, State};
use super::stages::{RunFlags, Stage, StageKind};
use super::{io_error, PipelineError};
use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a round run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// Every stage is done.
    Finished,
    /// Stopped by SIGINT/SIGTERM; the stage under way kept its journal or
    /// checkpoint.
    Interrupted,
    /// Stopped before the stage it was asked to stop before.
    Paused,
}

/// What [`Round::run`] reports about each stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageEvent {
    /// Already done: skipped.
    Skipped,
    /// Its output exists and is the plan's own input (`start`): skipped.
    Given,
    /// Starting (resuming if true).
    Starting {
        /// Resumes from a journal or checkpoint.
        resume: bool,
    },
    /// Finished, at this cost (of this run of it: a stage resumed from a
    /// journal or checkpoint counts only the part done since).
    Done {
        /// What running it took.
        cost: Cost,
    },
}

/// What running a stage's command took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Wall-clock time.
    pub wall: std::time::Duration,
    /// CPU time of the command, all its threads (user and system).
    pub cpu: std::time::Duration,
}

impl Cost {
    /// The sum of two costs.
    pub fn plus(self, other: Cost) -> Cost {
        Cost {
            wall: self.wall + other.wall,
            cpu: self.cpu + other.cpu,
        }
    }

    /// As `12 min 5 s, 0.38 core-hours`.
    pub fn shown(&self) -> String {
        let secs = self.wall.as_secs();
        let wall = match secs {
            0..=59 => format!("{:.1} s", self.wall.as_secs_f64()),
            60..=3599 => format!("{} min {} s", secs / 60, secs % 60),
            _ => format!("{} h {} min", secs / 3600, secs / 60 % 60),
        };
        format!("{wall}, {:.2} core-hours", self.cpu.as_secs_f64() / 3600.0)
    }
}

/// What a stage is, before the round runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Recorded done with the plan's settings, its `done` file present.
    Done,
    /// `start`, given by the user.
    Given,
    /// To run (or to resume).
    ToDo,
}

/// A round ready to run: its directory, stages and record.
pub struct Round {
    exe: PathBuf,
    dir: PathBuf,
    stages: Vec<Stage>,
    /// Arguments every stage gets (`--threads N`).
    common: Vec<OsString>,
    ledger: Ledger,
}

impl Round {
    /// A round of `stages` in `dir`, run with the `trainer` executable
    /// `exe`, each stage with `--threads threads` if given. Reads the
    /// round's record and refuses, before anything runs, a stage recorded
    /// with other settings and an output that exists but that the round did
    /// not write.
    pub fn open(
        exe: &Path,
        dir: &Path,
        stages: Vec<Stage>,
        threads: Option<usize>,
    ) -> Result<Round, PipelineError> {
        let ledger = Ledger::open(&ledger::path(dir)).map_err(PipelineError::Refused)?;
        let mut common = Vec::new();
        if let Some(n) = threads {
            common.extend(["--threads".into(), n.to_string().into()]);
        }
        let round = Round {
            exe: exe.to_owned(),
            dir: dir.to_owned(),
            stages,
            common,
            ledger,
        };
        for stage in &round.stages {
            round.check_stage(stage)?;
        }
        Ok(round)
    }

    /// The round's stages.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The stage named `name`.
    pub fn stage(&self, name: &str) -> Result<&Stage, PipelineError> {
        Ok(&self.stages[self.stage_index(name)?])
    }

    fn stage_index(&self, name: &str) -> Result<usize, PipelineError> {
        self.stages
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| PipelineError::Refused(format!("the plan has no stage {name:?}")))
    }

    /// The round's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True if `stage` was started and is not recorded done: under way,
    /// or stopped before it finished.
    pub fn started(&self, stage: &Stage) -> bool {
        self.ledger
            .get(&stage.name)
            .is_some_and(|e| e.state == State::Started)
    }

    /// The arguments `stage`'s command gets when it runs, after its own:
    /// `-q` and `--threads N` as its [`RunFlags`] ask.
    pub fn run_flags(&self, stage: &Stage) -> Vec<OsString> {
        let mut v = Vec::new();
        if stage.flags == RunFlags::QuietThreads {
            v.push("-q".into());
        }
        if stage.flags != RunFlags::None {
            v.extend(self.common.iter().cloned());
        }
        v
    }

    fn at(&self, p: &Path) -> PathBuf {
        self.dir.join(p)
    }

    fn check_stage(&self, stage: &Stage) -> Result<(), PipelineError> {
        let planned = ledger::recorded(&stage.args);
        if let Some(entry) = self.ledger.get(&stage.name) {
            if entry.command != planned {
                return Err(PipelineError::Refused(format!(
                    "stage {:?} was run with other settings ({}); the round does not mix two \
                     plans: use a new directory, or remove the stage's outputs, the later \
                     stages' and {}",
                    stage.name,
                    ledger::difference(&entry.command, &planned),
                    ledger::FILE
                )));
            }
            return Ok(());
        }
        if self.is_given_start(stage) {
            return Ok(());
        }
        let mut unowned = stage.owned_files();
        match &stage.kind {
            // A journal or checkpoint of the stage's own command run by
            // hand: resumed (each checks that it was made for these
            // settings).
            StageKind::InPlace { journal } => unowned.retain(|f| f != journal),
            StageKind::Resumable { checkpoint } => unowned.retain(|f| f != checkpoint),
            _ => {}
        }
        if let Some(f) = unowned.iter().find(|f| self.at(f).exists()) {
            return Err(PipelineError::Refused(format!(
                "{}: exists, but this round did not write it (stage {:?} has no record in {}); \
                 move it away, or name another file in the plan",
                self.at(f).display(),
                stage.name,
                ledger::FILE
            )));
        }
        Ok(())
    }

    /// The `start weights` stage, whose output the user gave.
    fn is_given_start(&self, stage: &Stage) -> bool {
        stage.name == super::stages::START_STAGE
            && self.ledger.get(&stage.name).is_none()
            && self.at(&stage.done).exists()
    }

    /// Where `stage` stands.
    pub fn status(&self, stage: &Stage) -> Status {
        if self.is_given_start(stage) {
            return Status::Given;
        }
        match self.ledger.get(&stage.name) {
            Some(e) if e.state == State::Done && self.at(&stage.done).exists() => Status::Done,
            _ => Status::ToDo,
        }
    }

    /// The full command line of `stage` (with `--resume` when its journal
    /// or checkpoint exists), to run in the round's directory.
    pub fn command_line(&self, stage: &Stage) -> Vec<OsString> {
        let mut line = vec![self.exe.as_os_str().to_owned()];
        line.extend(stage.args.iter().cloned());
        line.extend(self.run_flags(stage));
        if self.resumes(stage) {
            line.push("--resume".into());
        }
        line
    }

    fn resumes(&self, stage: &Stage) -> bool {
        match &stage.kind {
            StageKind::InPlace { journal } => self.at(journal).exists(),
            StageKind::Resumable { checkpoint } => self.at(checkpoint).exists(),
            _ => false,
        }
    }

    /// Removes what killed runs left of the round's own files: temporaries
    /// (`.NAME.*.tmp`) and stale lock files. Refuses if a file is in use by
    /// another run.
    pub fn clean(&self) -> Result<(), PipelineError> {
        let files: Vec<PathBuf> = self
            .stages
            .iter()
            .filter(|s| !self.is_given_start(s))
            .flat_map(Stage::owned_files)
            .map(|f| self.at(&f))
            .collect();
        // The record's lock is the round's own, held by the caller.
        let record = ledger::path(&self.dir);
        support::atomic::remove_temporaries_of(&record).map_err(io_error(&record))?;
        for f in files {
            let parent = support::atomic::parent_dir(&f);
            if !parent.is_dir() {
                continue;
            }
            let lock = support::lock::OutputLock::acquire(&f)
                .map_err(|e| PipelineError::Refused(e.to_string()))?;
            drop(lock);
            support::atomic::remove_temporaries_of(&f).map_err(io_error(&f))?;
        }
        Ok(())
    }

    fn record(&mut self, stage: &Stage, state: State) -> Result<(), PipelineError> {
        let order: Vec<&str> = self.stages.iter().map(|s| s.name.as_str()).collect();
        self.ledger
            .set(&stage.name, ledger::recorded(&stage.args), state, &order);
        let path = ledger::path(&self.dir);
        self.ledger.save(&path).map_err(io_error(&path))
    }

    /// Runs the stages not done yet, in order, up to the one named
    /// `stop_before` if given; `report` hears of each. Stops after the
    /// stage under way once `stop` is set (the stage's command is told with
    /// SIGINT, saves its journal or checkpoint and stops), and at the first
    /// stage that fails.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        stop_before: Option<&str>,
        report: &mut dyn FnMut(&Stage, StageEvent),
    ) -> Result<RoundEnd, PipelineError> {
        for i in 0..self.stages.len() {
            let stage = self.stages[i].clone();
            if stop_before == Some(stage.name.as_str()) {
                return Ok(RoundEnd::Paused);
            }
            if self.run_one(&stage, stop, report)? == RoundEnd::Interrupted {
                return Ok(RoundEnd::Interrupted);
            }
        }
        Ok(RoundEnd::Finished)
    }

    /// Runs the stage named `name` alone, as [`run`](Self::run) would run
    /// it (skipped when done), once every stage before it is done: a
    /// cluster job's share of the round. Returns
    /// [`RoundEnd::Finished`] when the stage is done.
    pub fn run_stage(
        &mut self,
        name: &str,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Stage, StageEvent),
    ) -> Result<RoundEnd, PipelineError> {
        let i = self.stage_index(name)?;
        if let Some(before) = self.stages[..i]
            .iter()
            .find(|s| self.status(s) == Status::ToDo)
        {
            return Err(PipelineError::Refused(format!(
                "stage {name:?} comes after {:?}, which is not done",
                before.name
            )));
        }
        let stage = self.stages[i].clone();
        self.run_one(&stage, stop, report)
    }

    /// Runs `stage` unless it is done or given: [`RoundEnd::Finished`]
    /// once it is done, [`RoundEnd::Interrupted`] if `stop` stopped it.
    fn run_one(
        &mut self,
        stage: &Stage,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Stage, StageEvent),
    ) -> Result<RoundEnd, PipelineError> {
        match self.status(stage) {
            Status::Done => {
                report(stage, StageEvent::Skipped);
                return Ok(RoundEnd::Finished);
            }
            Status::Given => {
                report(stage, StageEvent::Given);
                return Ok(RoundEnd::Finished);
            }
            Status::ToDo => {}
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(RoundEnd::Interrupted);
        }
        self.record(stage, State::Started)?;
        if matches!(stage.kind, StageKind::Writes) {
            // Outputs of an earlier, unfinished run of this stage.
            for p in std::iter::once(&stage.done).chain(&stage.partial) {
                let p = self.at(p);
                support::atomic::remove_if_present(&p).map_err(io_error(&p))?;
            }
        }
        report(
            stage,
            StageEvent::Starting {
                resume: self.resumes(stage),
            },
        );
        let line = self.command_line(stage);
        let (started, cpu) = (
            std::time::Instant::now(),
            support::child::children_cpu_time(),
        );
        let ran = run_command(&line, &self.dir, stage.kind == StageKind::Stdout, stop)
            .map_err(io_error(&self.exe))?;
        let cost = Cost {
            wall: started.elapsed(),
            cpu: support::child::children_cpu_time().saturating_sub(cpu),
        };
        if !ran.status.success() {
            if ran.interrupted(stop) {
                return Ok(RoundEnd::Interrupted);
            }
            return Err(ran.failure(stage.name.clone(), &line));
        }
        let done = self.at(&stage.done);
        match &stage.kind {
            StageKind::Stdout => {
                support::atomic::write_file(&done, &ran.stdout).map_err(io_error(&done))?
            }
            StageKind::InPlace { .. } => {
                support::atomic::write_file(&done, b"").map_err(io_error(&done))?
            }
            _ => {}
        }
        self.record(stage, State::Done)?;
        report(stage, StageEvent::Done { cost });
        Ok(RoundEnd::Finished)
    }
}

/// How a stage's command ended.
pub(crate) struct Ran {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its standard output, if captured.
    pub stdout: Vec<u8>,
    /// The last non-empty line it wrote to standard error.
    pub last_error: Option<String>,
}

impl Ran {
    /// True if the command stopped because it was told to (`stop` set, or
    /// its exit status 130).
    pub fn interrupted(&self, stop: &AtomicBool) -> bool {
        stop.load(Ordering::SeqCst) || self.status.code() == Some(130)
    }

    /// The error of the command `line` of `stage` that failed so.
    pub fn failure(self, stage: String, line: &[OsString]) -> PipelineError {
        PipelineError::Stage {
            stage,
            status: self.status.to_string(),
            why: self.last_error.unwrap_or_else(|| "no error message".into()),
            command: shown(line),
        }
    }
}

/// Runs `line` in `dir`, in a process group of its own that dies with this
/// process, its standard error passed through (its last line kept) and its
/// standard output captured if `capture`. Once `stop` is set the command
/// gets one SIGINT.
pub(crate) fn run_command(
    line: &[OsString],
    dir: &Path,
    capture: bool,
    stop: &AtomicBool,
) -> std::io::Result<Ran> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(&line[0]);
    cmd.args(&line[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    if capture {
        cmd.stdout(Stdio::piped());
    }
    // A stage never outlives its round (kill -9 included).
    support::child::dies_with_parent(&mut cmd);
    let mut child = cmd.spawn()?;
    let stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut last = None;
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(std::io::stderr(), "{line}");
            if !line.trim().is_empty() {
                last = Some(line);
            }
        }
        last
    });
    let output = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            out.read_to_end(&mut bytes).map(|_| bytes)
        })
    });
    let mut told = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if !told && stop.load(Ordering::SeqCst) {
            told = true;
            support::child::interrupt(child.id());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = match output {
        Some(t) => t.join().expect("the reader does not panic")?,
        None => Vec::new(),
    };
    let last_error = errors.join().expect("the reader does not panic");
    Ok(Ran {
        status,
        stdout,
        last_error,
    })
}

/// A command line as one would type it.
pub fn shown(line: &[OsString]) -> String {
    line.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
