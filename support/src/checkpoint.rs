//! Checkpoint files: the one storage format of bgkit's resumable work
//! (docs/formats.md#checkpoint-files).
//!
//! A checkpoint file is a magic line, a fingerprint naming the work it
//! belongs to, then numbered blocks, little-endian throughout:
//!
//! ```text
//! "bgkit-ckpt-v1\n\0\0" | fingerprint length (u64) | fingerprint (UTF-8)
//! block 0, 1, 2, …:  number (u64) | length (u64) | payload | hash (u64)
//! ```
//!
//! It is used in two ways; what a payload holds and which fingerprint fits
//! (the policy) is the caller's:
//! * **Append-only** ([`Checkpoint`]): blocks are appended and synced as
//!   work finishes. [`Checkpoint::open`] checks the fingerprint with the
//!   caller's policy, hands each complete block to the caller, drops a
//!   torn or damaged tail and appends after the last good block, so a
//!   resumed job recomputes only what was lost. [`Checkpoint::resume`] and
//!   [`Checkpoint::append`] do this for a [`Job`] (makebearoff), one block
//!   per unit.
//! * **Snapshot** ([`Snapshot`]): a file with exactly one block, written
//!   whole by the caller (atomically, [`crate::atomic`]) and read whole;
//!   anything else is refused.
//!
//! A file whose first line is another bgkit format's (`bgkit …`) is
//! refused as written by an older bgkit, never read as something else.

use crate::job::{Job, PayloadError};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"bgkit-ckpt-v1\n\0\0";

/// What the first line of every older bgkit format starts with.
const OLDER_BGKIT: &[u8] = b"bgkit ";

/// The longest fingerprint a checkpoint holds.
pub const MAX_FINGERPRINT: usize = 4096;

/// The bytes a block adds to its payload: its number, length and hash.
pub const BLOCK_OVERHEAD: usize = 24;

/// The length of a checkpoint's head (magic and fingerprint) for a
/// fingerprint of `fingerprint_len` bytes.
pub const fn head_len(fingerprint_len: usize) -> usize {
    MAGIC.len() + 8 + fingerprint_len
}

/// What is wrong with a checkpoint (its file is named by
/// [`CheckpointError`]).
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// Reading or writing the file failed.
    #[error("{0}")]
    Io(io::Error),
    /// Not a bgkit checkpoint.
    #[error("not a bgkit checkpoint")]
    NotCheckpoint,
    /// A file of an older bgkit format (its first line).
    #[error("it was written by an older bgkit ({0}): remove it and start again")]
    OlderFormat(String),
    /// The caller's policy refused its fingerprint (why).
    #[error("{0}")]
    Refused(String),
    /// A snapshot's block fails its hash.
    #[error("its checksum does not match: it was damaged or edited")]
    Damaged,
    /// A snapshot that is not a head and one block (what it is instead).
    #[error("{0}")]
    Malformed(&'static str),
    /// The caller could not restore a complete block.
    #[error("block {block}: {error}")]
    Invalid {
        /// The block's number.
        block: u64,
        /// What is wrong with its payload.
        error: PayloadError,
    },
}

/// A checkpoint that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("checkpoint {}: {problem}", path.display())]
pub struct CheckpointError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: Problem,
}

/// A damaged block that [`Checkpoint::open`] dropped, with everything
/// after it (a block cut short at the end, what a crash leaves, is
/// dropped silently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Damage {
    /// The damaged block's number.
    pub block: u64,
    /// The bytes dropped: the block and all after it.
    pub bytes: u64,
}

/// 64-bit FNV-1a over words, enough to detect torn or corrupted blocks.
fn hash(unit: u64, payload: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ unit;
    let mut chunks = payload.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes(c.try_into().expect("8 bytes"))).wrapping_mul(0x100_0000_01b3);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h ^ payload.len() as u64
}

/// The head of a checkpoint with `fingerprint`.
///
/// # Panics
/// If the fingerprint is longer than [`MAX_FINGERPRINT`] (fingerprints are
/// made by programs, not read from users).
fn head(fingerprint: &str) -> Vec<u8> {
    assert!(
        fingerprint.len() <= MAX_FINGERPRINT,
        "a fingerprint has at most {MAX_FINGERPRINT} bytes"
    );
    let mut bytes = Vec::with_capacity(head_len(fingerprint.len()));
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(fingerprint.len() as u64).to_le_bytes());
    bytes.extend_from_slice(fingerprint.as_bytes());
    bytes
}

/// Writes block `number` holding `payload`.
fn write_block(out: &mut impl Write, number: u64, payload: &[u8]) -> io::Result<()> {
    out.write_all(&number.to_le_bytes())?;
    out.write_all(&(payload.len() as u64).to_le_bytes())?;
    out.write_all(payload)?;
    out.write_all(&hash(number, payload).to_le_bytes())
}

/// `read_exact`, with the end of the input meaning "not a checkpoint".
fn read_exact(r: &mut impl Read, buf: &mut [u8]) -> Result<(), Problem> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Problem::NotCheckpoint,
        _ => Problem::Io(e),
    })
}

/// Reads a checkpoint's head: its fingerprint. A file of an older bgkit
/// format is named by its first line.
fn read_head(r: &mut impl Read) -> Result<String, Problem> {
    let mut start = Vec::with_capacity(64);
    r.by_ref()
        .take(MAGIC.len() as u64)
        .read_to_end(&mut start)
        .map_err(Problem::Io)?;
    if start != MAGIC {
        if !start.starts_with(OLDER_BGKIT) {
            return Err(Problem::NotCheckpoint);
        }
        r.by_ref()
            .take(48)
            .read_to_end(&mut start)
            .map_err(Problem::Io)?;
        let line = start.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = crate::stdio::shorten(&String::from_utf8_lossy(line), 40);
        return Err(Problem::OlderFormat(line));
    }
    let mut word = [0u8; 8];
    read_exact(r, &mut word)?;
    let len = u64::from_le_bytes(word);
    if len > MAX_FINGERPRINT as u64 {
        return Err(Problem::NotCheckpoint);
    }
    let mut fingerprint = vec![0u8; len as usize];
    read_exact(r, &mut fingerprint)?;
    String::from_utf8(fingerprint).map_err(|_| Problem::NotCheckpoint)
}

/// How the next block of a checkpoint reads.
enum Block {
    /// No bytes left.
    End,
    /// Cut short by the end of the file.
    Torn,
    /// Complete, but with another number or a wrong hash.
    Bad,
    /// Intact: its payload was read.
    Good,
}

/// Reads block `number` from `r`, which holds `left` more bytes; an intact
/// block's payload is left in `payload`. Never allocates more than `left`.
fn read_block(
    r: &mut impl Read,
    left: u64,
    number: u64,
    payload: &mut Vec<u8>,
) -> io::Result<Block> {
    if left == 0 {
        return Ok(Block::End);
    }
    if left < BLOCK_OVERHEAD as u64 {
        return Ok(Block::Torn);
    }
    let mut word = [0u8; 8];
    r.read_exact(&mut word)?;
    let found = u64::from_le_bytes(word);
    r.read_exact(&mut word)?;
    let len = u64::from_le_bytes(word);
    if found != number {
        return Ok(Block::Bad);
    }
    if len > left - BLOCK_OVERHEAD as u64 {
        return Ok(Block::Torn);
    }
    payload.clear();
    payload.resize(len as usize, 0);
    r.read_exact(payload)?;
    r.read_exact(&mut word)?;
    Ok(if u64::from_le_bytes(word) == hash(number, payload) {
        Block::Good
    } else {
        Block::Bad
    })
}

/// An open append-only checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    file: File,
    path: PathBuf,
    /// Blocks in the file (the next block's number).
    blocks: u64,
}

impl Checkpoint {
    /// The conventional checkpoint path for an output file: `FILE.ckpt`.
    pub fn path_for(output: &Path) -> PathBuf {
        crate::atomic::with_suffix(output, ".ckpt")
    }

    /// Starts a new checkpoint with `fingerprint`, its head synced
    /// (replacing any old one; a symbolic link at `path` is refused, never
    /// followed). The head is written to a temporary file renamed into
    /// place, so a run killed while creating it leaves either the old file
    /// or a complete head, never a file that cannot be resumed.
    ///
    /// # Panics
    /// If the fingerprint is longer than [`MAX_FINGERPRINT`].
    pub fn create(path: &Path, fingerprint: &str) -> io::Result<Checkpoint> {
        crate::atomic::check_checkpoint_name(path)?;
        crate::atomic::write_file(path, &head(fingerprint))?;
        let mut file = crate::atomic::open_no_follow(path, false)?;
        file.seek(SeekFrom::End(0))?;
        Ok(Checkpoint {
            file,
            path: path.to_owned(),
            blocks: 0,
        })
    }

    /// Reopens a checkpoint to continue it. `check` gets its fingerprint
    /// and says why it does not fit ([`Problem::Refused`]); `restore` gets
    /// the payload of each intact block in order (an error is
    /// [`Problem::Invalid`]). Reading stops at the first block that is cut
    /// short, numbered out of order or fails its hash: that tail is cut
    /// off (returned as [`Damage`] unless it is a block cut short by the
    /// end of the file) and new blocks follow the last intact one. The file
    /// is not changed unless it is opened.
    pub fn open(
        path: &Path,
        check: impl FnOnce(&str) -> Result<(), String>,
        mut restore: impl FnMut(&[u8]) -> Result<(), PayloadError>,
    ) -> Result<(Checkpoint, Option<Damage>), CheckpointError> {
        let fail = |problem| CheckpointError {
            path: path.to_owned(),
            problem,
        };
        let io = |e| fail(Problem::Io(e));
        crate::atomic::check_checkpoint_name(path).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut r = BufReader::with_capacity(1 << 20, &mut file);
        let fingerprint = read_head(&mut r).map_err(fail)?;
        check(&fingerprint).map_err(|why| fail(Problem::Refused(why)))?;
        let mut end = head_len(fingerprint.len()) as u64;
        let mut blocks = 0;
        let mut payload = Vec::new();
        let damage = loop {
            match read_block(&mut r, len - end, blocks, &mut payload).map_err(io)? {
                Block::End | Block::Torn => break None,
                Block::Bad => {
                    break Some(Damage {
                        block: blocks,
                        bytes: len - end,
                    })
                }
                Block::Good => {
                    restore(&payload).map_err(|error| {
                        fail(Problem::Invalid {
                            block: blocks,
                            error,
                        })
                    })?;
                    end += (BLOCK_OVERHEAD + payload.len()) as u64;
                    blocks += 1;
                }
            }
        };
        drop(r);
        if end < len {
            file.set_len(end).map_err(io)?;
        }
        file.seek(SeekFrom::Start(end)).map_err(io)?;
        let path = path.to_owned();
        Ok((Checkpoint { file, path, blocks }, damage))
    }

    /// Appends `payload` as the next block and syncs it.
    pub fn append_block(&mut self, payload: &[u8]) -> io::Result<()> {
        self.append_with(1, |_, out| out.extend_from_slice(payload))
    }

    /// Appends `count` blocks, the `i`th encoded by `encode(i, buffer)`
    /// into an empty buffer, then syncs them.
    fn append_with(
        &mut self,
        count: usize,
        mut encode: impl FnMut(usize, &mut Vec<u8>),
    ) -> io::Result<()> {
        if count == 0 {
            return Ok(());
        }
        let mut out = io::BufWriter::with_capacity(1 << 20, &mut self.file);
        let mut payload = Vec::new();
        for i in 0..count {
            payload.clear();
            encode(i, &mut payload);
            write_block(&mut out, self.blocks + i as u64, &payload)?;
        }
        out.flush()?;
        drop(out);
        self.file.sync_data()?;
        self.blocks += count as u64;
        Ok(())
    }

    /// Blocks safely on disk.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The checkpoint's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes the checkpoint (after the output is safely written).
    pub fn remove(self) -> io::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
    }
}

/// The checkpoint of a [`Job`]: one block per completed unit, under a
/// fingerprint of the job's options.
impl Checkpoint {
    /// Reopens the checkpoint of a job made with the same `fingerprint`
    /// and restores its complete units into `job` (which must be fresh). A
    /// torn or damaged tail is dropped.
    pub fn resume(
        path: &Path,
        fingerprint: &str,
        job: &mut dyn Job,
    ) -> Result<Checkpoint, CheckpointError> {
        let check = |found: &str| {
            if found == fingerprint {
                return Ok(());
            }
            Err(format!(
                "it was made with different options ({found}); expected {fingerprint}"
            ))
        };
        let restore = |payload: &[u8]| {
            if job.is_done() {
                return Err(PayloadError::Invalid("more units than the job has"));
            }
            job.restore_unit(payload)
        };
        Ok(Checkpoint::open(path, check, restore)?.0)
    }

    /// Appends every unit `job` completed since the last call, then syncs.
    pub fn append(&mut self, job: &dyn Job) -> io::Result<()> {
        let first = self.units_written();
        self.append_with(job.units_done() - first, |i, out| {
            job.encode_unit(first + i, out)
        })
    }

    /// Units safely on disk.
    pub fn units_written(&self) -> usize {
        self.blocks as usize
    }
}

/// A snapshot checkpoint: a fingerprint and exactly one block (number 0),
/// written whole by the caller (atomically) and read back whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// What the snapshot is of (checked by the caller).
    pub fingerprint: String,
    /// Its one block's payload.
    pub payload: Vec<u8>,
}

impl Snapshot {
    /// The bytes of a snapshot of `payload` under `fingerprint`.
    ///
    /// # Panics
    /// If the fingerprint is longer than [`MAX_FINGERPRINT`].
    pub fn encode(fingerprint: &str, payload: &[u8]) -> Vec<u8> {
        let mut bytes = head(fingerprint);
        bytes.reserve(BLOCK_OVERHEAD + payload.len());
        write_block(&mut bytes, 0, payload).expect("writing to memory");
        bytes
    }

    /// Reads the bytes of a snapshot, refusing anything but a head and one
    /// intact block: a wrong hash is [`Problem::Damaged`], a file cut short
    /// or going on after its block [`Problem::Malformed`].
    pub fn parse(bytes: &[u8]) -> Result<Snapshot, Problem> {
        let mut r = bytes;
        let fingerprint = read_head(&mut r)?;
        let mut payload = Vec::new();
        let left = r.len() as u64;
        match read_block(&mut r, left, 0, &mut payload).map_err(Problem::Io)? {
            Block::Good => {}
            Block::End => return Err(Problem::Malformed("it holds no block")),
            Block::Torn => return Err(Problem::Malformed("it is cut short")),
            Block::Bad => return Err(Problem::Damaged),
        }
        if !r.is_empty() {
            let left = r.len() as u64;
            let second = read_block(&mut r, left, 1, &mut Vec::new());
            return Err(Problem::Malformed(match second {
                Ok(Block::Good) => "it holds more than one block",
                _ => "it has bytes after its block",
            }));
        }
        Ok(Snapshot {
            fingerprint,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FINGERPRINT: &str = "test 1";

    /// A checkpoint at `dir/c.ckpt` holding `blocks`.
    fn written(dir: &Path, blocks: &[&[u8]]) -> PathBuf {
        let path = dir.join("c.ckpt");
        let mut c = Checkpoint::create(&path, FINGERPRINT).unwrap();
        for b in blocks {
            c.append_block(b).unwrap();
        }
        path
    }

    /// What [`reopen`] found: the restored payloads, the damage reported
    /// and the blocks kept.
    type Reopened = (Vec<Vec<u8>>, Option<Damage>, u64);

    /// Opens `path` with [`FINGERPRINT`], collecting the restored blocks.
    fn reopen(path: &Path) -> Result<Reopened, CheckpointError> {
        let mut got = Vec::new();
        let check = |f: &str| (f == FINGERPRINT).then_some(()).ok_or(format!("not {f}"));
        let (c, damage) = Checkpoint::open(path, check, |p| {
            got.push(p.to_vec());
            Ok(())
        })?;
        Ok((got, damage, c.blocks()))
    }

    #[test]
    fn the_byte_layout_is_the_documented_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"abc", b""]);
        let mut expected = b"bgkit-ckpt-v1\n\0\0".to_vec();
        expected.extend(6u64.to_le_bytes());
        expected.extend(FINGERPRINT.as_bytes());
        for (n, p) in [(0u64, &b"abc"[..]), (1, b"")] {
            expected.extend(n.to_le_bytes());
            expected.extend((p.len() as u64).to_le_bytes());
            expected.extend(p);
            expected.extend(hash(n, p).to_le_bytes());
        }
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        assert_eq!(expected.len(), head_len(6) + 2 * BLOCK_OVERHEAD + 3);
    }

    #[test]
    fn create_replaces_an_old_checkpoint_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"old block, longer than a head"]);
        let mut c = Checkpoint::create(&path, FINGERPRINT).unwrap();
        c.append_block(b"new").unwrap();
        assert_eq!(reopen(&path).unwrap().0, vec![b"new".to_vec()]);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["c.ckpt"]);
    }

    #[test]
    fn blocks_read_back_and_appends_continue_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"one", b"two"]);
        let (got, damage, blocks) = reopen(&path).unwrap();
        assert_eq!(
            (got, damage, blocks),
            (vec![b"one".to_vec(), b"two".to_vec()], None, 2)
        );
        let check = |_: &str| Ok(());
        let (mut c, _) = Checkpoint::open(&path, check, |_| Ok(())).unwrap();
        c.append_block(b"three").unwrap();
        assert_eq!(reopen(&path).unwrap().0.len(), 3);
    }

    #[test]
    fn a_torn_block_is_dropped_silently_and_the_tail_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"one", b"two"]);
        let whole = std::fs::read(&path).unwrap();
        for cut in 1..BLOCK_OVERHEAD + 3 {
            std::fs::write(&path, &whole[..whole.len() - cut]).unwrap();
            let (got, damage, blocks) = reopen(&path).unwrap();
            assert_eq!((got.len(), damage, blocks), (1, None, 1), "cut {cut}");
            let expected = whole.len() - BLOCK_OVERHEAD - 3;
            assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, expected);
        }
    }

    #[test]
    fn a_bad_hash_or_number_drops_the_block_and_all_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"one", b"two", b"three"]);
        let whole = std::fs::read(&path).unwrap();
        let second = head_len(6) + BLOCK_OVERHEAD + 3;
        for at in [second, second + 17, second + BLOCK_OVERHEAD - 1] {
            let mut bytes = whole.clone();
            bytes[at] ^= 4;
            std::fs::write(&path, &bytes).unwrap();
            let (got, damage, _) = reopen(&path).unwrap();
            let bytes = (whole.len() - second) as u64;
            assert_eq!(got, [b"one"], "byte {at}");
            assert_eq!(damage, Some(Damage { block: 1, bytes }), "byte {at}");
            assert_eq!(std::fs::read(&path).unwrap(), whole[..second]);
        }
    }

    #[test]
    fn another_fingerprint_or_format_is_refused_and_the_file_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path(), &[b"one"]);
        let before = std::fs::read(&path).unwrap();
        let e = Checkpoint::open(&path, |f| Err(format!("made for {f}")), |_| Ok(()))
            .err()
            .unwrap();
        assert!(matches!(e.problem, Problem::Refused(_)));
        assert_eq!(
            e.to_string(),
            format!("checkpoint {}: made for test 1", path.display())
        );
        let e = Checkpoint::open(&path, |_| Ok(()), |_| Err(PayloadError::Short))
            .err()
            .unwrap();
        assert!(e.to_string().contains("block 0: "), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let older: [(&[u8], &str); 3] = [
            (
                b"bgkit rollout journal 2\n0123456789abcdef",
                "(bgkit rollout journal 2)",
            ),
            (
                b"bgkit td checkpoint 2\n{\"a\":1}\n",
                "(bgkit td checkpoint 2)",
            ),
            (b"bgkit", "not a bgkit checkpoint"),
        ];
        for (bytes, needle) in older {
            std::fs::write(&path, bytes).unwrap();
            let e = reopen(&path).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{e}");
            assert!(Snapshot::parse(bytes)
                .unwrap_err()
                .to_string()
                .contains(needle));
        }
        let e = reopen(&path).unwrap_err().to_string();
        assert!(!e.contains('\n'), "one line: {e}");
        let mut huge = head("x");
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Snapshot::parse(&huge),
            Err(Problem::NotCheckpoint)
        ));
    }

    #[test]
    fn a_snapshot_round_trips_and_damage_anywhere_is_refused() {
        let payload: Vec<u8> = (0..100u8).collect();
        let bytes = Snapshot::encode(FINGERPRINT, &payload);
        let back = Snapshot::parse(&bytes).unwrap();
        assert_eq!(
            (back.fingerprint.as_str(), back.payload),
            (FINGERPRINT, payload)
        );
        for at in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut damaged = bytes.clone();
                damaged[at] ^= 1 << bit;
                let refused = match Snapshot::parse(&damaged) {
                    Err(_) => true,
                    Ok(s) => s.fingerprint != FINGERPRINT,
                };
                assert!(refused, "bit {bit} of byte {at}");
            }
        }
        let mut edited = bytes.clone();
        edited[head_len(6) + BLOCK_OVERHEAD - 8 + 50] = b'!';
        let e = Snapshot::parse(&edited).unwrap_err().to_string();
        assert!(
            e.contains("checksum") && e.contains("damaged or edited"),
            "{e}"
        );
        for cut in [1, 9, BLOCK_OVERHEAD + 99] {
            let e = Snapshot::parse(&bytes[..bytes.len() - cut]).unwrap_err();
            assert!(matches!(e, Problem::Malformed("it is cut short")), "{e}");
        }
        let e = Snapshot::parse(&head(FINGERPRINT)).unwrap_err();
        assert!(matches!(e, Problem::Malformed("it holds no block")), "{e}");
        let mut two = bytes.clone();
        write_block(&mut two, 1, b"more").unwrap();
        let e = Snapshot::parse(&two).unwrap_err();
        assert!(
            matches!(e, Problem::Malformed("it holds more than one block")),
            "{e}"
        );
        let trailing = [&bytes[..], b"x"].concat();
        let e = Snapshot::parse(&trailing).unwrap_err();
        assert!(
            matches!(e, Problem::Malformed("it has bytes after its block")),
            "{e}"
        );
    }

    /// Three units, each one byte: its number.
    #[derive(Default)]
    struct Count(Vec<u8>);

    impl Job for Count {
        fn units(&self) -> usize {
            3
        }
        fn units_done(&self) -> usize {
            self.0.len()
        }
        fn positions(&self) -> u64 {
            3
        }
        fn positions_done(&self) -> u64 {
            self.0.len() as u64
        }
        fn compute_next(&mut self) {
            self.0.push(self.0.len() as u8);
        }
        fn encode_unit(&self, unit: usize, out: &mut Vec<u8>) {
            out.push(self.0[unit]);
        }
        fn restore_unit(&mut self, payload: &[u8]) -> Result<(), PayloadError> {
            let mut c = crate::Cursor::new(payload);
            self.0.push(c.take(1)?[0]);
            c.finish()
        }
        fn output_len(&self) -> u64 {
            3
        }
        fn write(&self, out: &mut dyn Write) -> io::Result<()> {
            out.write_all(&self.0)
        }
    }

    #[test]
    fn a_job_resumes_from_its_units_and_refuses_other_options() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.ckpt");
        let mut job = Count::default();
        let mut c = Checkpoint::create(&path, "count").unwrap();
        job.compute_next();
        job.compute_next();
        c.append(&job).unwrap();
        c.append(&job).unwrap();
        assert_eq!(c.units_written(), 2);
        let mut again = Count::default();
        let mut c = Checkpoint::resume(&path, "count", &mut again).unwrap();
        assert_eq!((c.units_written(), &again.0[..]), (2, &[0, 1][..]));
        again.compute_next();
        c.append(&again).unwrap();
        let e = Checkpoint::resume(&path, "other", &mut Count::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("different options (count); expected other"),
            "{e}"
        );
        let mut full = Count::default();
        full.compute_all();
        let e = Checkpoint::resume(&path, "count", &mut full).err().unwrap();
        assert!(e.to_string().contains("more units than the job has"), "{e}");
        c.remove().unwrap();
        assert!(!path.exists());
    }
}
