//! External engines as players (docs/formats.md#the-bgkit-engine-protocol):
//! a program started as a child process that answers, one line per
//! decision, which position it moves to. bgkit checks every answer against
//! the legal moves and trusts nothing else: an engine that crashes, hangs
//! past the time limit, answers garbage or an illegal move, or closes its
//! pipe ends the match with an error naming the engine, the position, the
//! dice and the reply.

use board::Board;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

/// The protocol's greeting, with its version.
pub const HELLO: &str = "bgkit-engine 1";
/// The longest reply line read (a Position ID is 14 characters).
const MAX_LINE: usize = 4096;

/// How to start an engine.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// The command line as typed (split as a POSIX shell splits words).
    pub command: String,
    /// The longest wait for one reply (the handshake gets the same).
    pub timeout: Duration,
    /// The file its standard error is appended to.
    pub log: PathBuf,
}

/// Why an engine failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The command line cannot be split or started.
    #[error("engine `{command}`: cannot start: {why}")]
    Start {
        /// The command.
        command: String,
        /// Why.
        why: String,
    },
    /// The engine misbehaved while asked for a move (or for its name).
    #[error(transparent)]
    Failed(Box<EngineFailure>),
}

/// What an engine did wrong, and where.
#[derive(Debug, thiserror::Error)]
#[error("engine `{command}` {what} at position {position} dice {dice}; reply {reply:?} (its stderr: {log})")]
pub struct EngineFailure {
    /// The command.
    pub command: String,
    /// What went wrong.
    pub what: String,
    /// The Position ID asked about (`-` for the handshake).
    pub position: String,
    /// The dice (`-` for the handshake).
    pub dice: String,
    /// What it answered (cut to 100 characters).
    pub reply: String,
    /// Its stderr log.
    pub log: String,
}

/// One running engine.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    spec: EngineSpec,
    /// What it said of itself in its handshake.
    pub name: String,
}

impl Engine {
    /// Starts the engine of `spec` (dying with this process) and reads its
    /// handshake.
    pub fn start(spec: &EngineSpec) -> Result<Engine, EngineError> {
        let start_err = |why: String| EngineError::Start {
            command: spec.command.clone(),
            why,
        };
        let words = shlex::split(&spec.command)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| start_err("not a command line (unbalanced quotes?)".into()))?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&spec.log)
            .map_err(|e| start_err(format!("log {}: {e}", spec.log.display())))?;
        let mut cmd = Command::new(&words[0]);
        cmd.args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log);
        support::child::dies_with_parent(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| start_err(e.to_string()))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                let read = (&mut reader).take(MAX_LINE as u64).read_line(&mut line);
                let end = matches!(read, Ok(0) | Err(_));
                if tx.send(read.map(|_| line)).is_err() || end {
                    break;
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines,
            spec: spec.clone(),
            name: String::new(),
        };
        let reply = engine.ask(HELLO, "-", "-")?;
        match reply.strip_prefix("ready") {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                engine.name = rest.trim().to_owned();
                Ok(engine)
            }
            _ => Err(engine.failed("answered the handshake wrongly", "-", "-", &reply)),
        }
    }

    fn failed(&self, what: &str, position: &str, dice: &str, reply: &str) -> EngineError {
        EngineError::Failed(Box::new(EngineFailure {
            command: self.spec.command.clone(),
            what: what.into(),
            position: position.into(),
            dice: dice.into(),
            reply: reply.chars().take(100).collect(),
            log: self.spec.log.display().to_string(),
        }))
    }

    /// Sends `request` and waits for one reply line (without its newline).
    fn ask(&mut self, request: &str, position: &str, dice: &str) -> Result<String, EngineError> {
        if writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return Err(self.failed("closed its input (crashed?)", position, dice, ""));
        }
        match self.lines.recv_timeout(self.spec.timeout) {
            Ok(Ok(line)) if line.is_empty() => {
                // An engine that ended has closed its output: say how it
                // ended once it has.
                let mut status = None;
                for _ in 0..50 {
                    status = self.child.try_wait().ok().flatten();
                    if status.is_some() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                let what = match status {
                    Some(s) => format!("ended ({s})"),
                    None => "closed its output".into(),
                };
                Err(self.failed(&what, position, dice, ""))
            }
            Ok(Ok(line)) if !line.ends_with('\n') => {
                Err(self.failed("answered a line too long", position, dice, &line))
            }
            Ok(Ok(line)) => Ok(line.trim_end_matches(['\n', '\r']).to_owned()),
            Ok(Err(e)) => Err(self.failed(&format!("unreadable reply ({e})"), position, dice, "")),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let what = format!("did not answer within {:?}", self.spec.timeout);
                Err(self.failed(&what, position, dice, ""))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(self.failed("closed its output", position, dice, ""))
            }
        }
    }

    /// The engine's move from `board` (mover in `sides[1]`) with dice
    /// `d0`, `d1`, which must be one of `legal` (the distinct results).
    pub fn choose(
        &mut self,
        board: &Board,
        d0: u8,
        d1: u8,
        legal: &[Board],
    ) -> Result<Board, EngineError> {
        let position = board.position_id();
        let dice = format!("{d0}{d1}");
        let reply = self.ask(&format!("move {position} {d0} {d1}"), &position, &dice)?;
        let Some(id) = reply.strip_prefix("move ") else {
            let what = if reply.starts_with("error") {
                "reported an error"
            } else {
                "answered garbage"
            };
            return Err(self.failed(what, &position, &dice, &reply));
        };
        let after = Board::from_position_id(id.trim())
            .map_err(|_| self.failed("answered no Position ID", &position, &dice, &reply))?;
        if !legal.contains(&after) {
            return Err(self.failed("answered an illegal move", &position, &dice, &reply));
        }
        Ok(after)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        // A polite engine ends at once; one that does not is killed.
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EnginePool({:?})", self.spec.command)
    }
}

/// Engines of one spec shared by a match's worker threads: each seat takes
/// one while it plays and gives it back; at most as many run as seats
/// play at once.
pub struct EnginePool {
    spec: EngineSpec,
    idle: Mutex<Vec<Engine>>,
    /// The first engine's name, for the record.
    pub name: String,
}

impl EnginePool {
    /// A pool of `spec`'s engines, one started at once (to fail early and
    /// learn its name).
    pub fn new(spec: EngineSpec) -> Result<EnginePool, EngineError> {
        let first = Engine::start(&spec)?;
        Ok(EnginePool {
            name: first.name.clone(),
            spec,
            idle: Mutex::new(vec![first]),
        })
    }

    /// An idle engine, or a new one.
    pub fn take(&self) -> Result<Engine, EngineError> {
        let idle = self.idle.lock().expect("no panic holds the pool").pop();
        match idle {
            Some(e) => Ok(e),
            None => Engine::start(&self.spec),
        }
    }

    /// Gives `engine` back for another seat.
    pub fn give(&self, engine: Engine) {
        self.idle
            .lock()
            .expect("no panic holds the pool")
            .push(engine);
    }

    /// The command line.
    pub fn command(&self) -> &str {
        &self.spec.command
    }
}
