//! Evaluating a stream of Position IDs and printing one line per position
//! (tab-separated or JSON), as `trainer eval` does.

use crate::scratch_pool::ScratchPool;
use board::{Board, PositionIdError};
use nets::{Evaluation, Evaluator};
use serde::Serialize;
use std::io::{self, Write};
use support::stdio::{shorten, Line};

/// How positions are evaluated and printed.
#[derive(Clone, Copy, Debug, Default)]
pub struct EvalOptions {
    /// Search depth (0 to [`nets::MAX_PLIES`]).
    pub plies: u32,
    /// Above 0 ply, choose the moves of the search with gnubg's pruning
    /// nets (gnubg's move filters for evaluation).
    pub prune: bool,
    /// One JSON object per line instead of tab-separated columns.
    pub json: bool,
}

/// What a stream of IDs came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Positions evaluated and printed.
    pub evaluated: usize,
    /// IDs that were not valid Position IDs.
    pub bad: usize,
}

#[derive(Serialize)]
struct JsonLine<'a> {
    id: &'a str,
    class: &'a str,
    outputs: [f32; 5],
    equity: f32,
}

/// Writes one evaluation as a line: `ID class p0..p4 equity` separated by
/// tabs (six decimals), or a JSON object `{"id", "class", "outputs",
/// "equity"}`.
pub fn write_line(out: &mut impl Write, id: &str, e: &Evaluation, json: bool) -> io::Result<()> {
    if json {
        let line = JsonLine {
            id,
            class: e.class.name(),
            outputs: e.outputs,
            equity: e.equity(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)
    } else {
        let o = &e.outputs;
        writeln!(
            out,
            "{id}\t{}\t{:.6}\t{:.6}\t{:.6}\t{:.6}\t{:.6}\t{:.6}",
            e.class,
            o[0],
            o[1],
            o[2],
            o[3],
            o[4],
            e.equity()
        )
    }
}

/// Longest input line `trainer eval` reads (a Position ID has 14
/// characters); longer lines are reported and skipped.
pub const MAX_LINE: usize = 4096;

/// Why evaluating a stream of IDs stopped.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The input could not be read.
    #[error("cannot read the input: {0}")]
    Read(#[source] io::Error),
    /// The output could not be written.
    #[error("cannot write the output: {0}")]
    Write(#[source] io::Error),
}

/// Positions evaluated together (in parallel) when more than one thread
/// works; with one thread each line is answered as soon as it is read.
const CHUNK: usize = 256;

/// A line of the input, read and checked.
enum Parsed {
    /// A Position ID and its position.
    Good(String, Board),
    /// Why the line is not a Position ID.
    Bad(String),
}

/// Evaluates every ID of `ids` (blank lines are skipped) and writes a line
/// for each to `out`, in input order; chunks of positions are evaluated in
/// parallel on the current rayon pool. A line that is not a valid Position
/// ID (too long, not UTF-8, not an ID) is passed to `on_bad` with the
/// reason, and the stream goes on. Stops at the first I/O error of `ids`
/// or `out`.
pub fn evaluate_ids(
    evaluator: &Evaluator,
    options: EvalOptions,
    ids: impl IntoIterator<Item = io::Result<Line>>,
    out: &mut impl Write,
    mut on_bad: impl FnMut(String),
) -> Result<Summary, StreamError> {
    let chunk = if rayon::current_num_threads() > 1 {
        CHUNK
    } else {
        1
    };
    let pool = ScratchPool::new(evaluator);
    let mut summary = Summary::default();
    let mut pending = Vec::with_capacity(chunk);
    for line in ids {
        if let Some(parsed) = parse_line(line.map_err(StreamError::Read)?) {
            pending.push(parsed);
        }
        if pending.len() >= chunk {
            write_chunk(&pool, options, &mut pending, out, &mut on_bad, &mut summary)?;
        }
    }
    write_chunk(&pool, options, &mut pending, out, &mut on_bad, &mut summary)?;
    out.flush().map_err(StreamError::Write)?;
    Ok(summary)
}

/// Reads one input line: `None` for a blank line.
fn parse_line(line: Line) -> Option<Parsed> {
    let bytes = match line {
        Line::Text(bytes) => bytes,
        Line::TooLong => {
            return Some(Parsed::Bad(format!(
                "input line longer than {MAX_LINE} bytes"
            )))
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Some(Parsed::Bad("input line is not UTF-8 text".to_owned()));
    };
    let id = text.trim();
    if id.is_empty() {
        return None;
    }
    Some(match Board::from_position_id(id) {
        Ok(board) => Parsed::Good(id.to_owned(), board),
        Err(err) => Parsed::Bad(bad_id(id, err)),
    })
}

/// Evaluates the positions of `pending` in parallel, then writes their
/// lines (and reports the bad ones) in order, and empties it.
fn write_chunk(
    pool: &ScratchPool,
    options: EvalOptions,
    pending: &mut Vec<Parsed>,
    out: &mut impl Write,
    on_bad: &mut impl FnMut(String),
    summary: &mut Summary,
) -> Result<(), StreamError> {
    use rayon::prelude::*;
    let results: Vec<Result<(String, Evaluation), String>> = pending
        .par_drain(..)
        .map(|parsed| match parsed {
            Parsed::Good(id, board) => Ok((
                id,
                pool.with(|e, s| e.evaluate_plied(&board, options.plies, options.prune, s)),
            )),
            Parsed::Bad(why) => Err(why),
        })
        .collect();
    for result in results {
        match result {
            Ok((id, e)) => {
                write_line(out, &id, &e, options.json).map_err(StreamError::Write)?;
                summary.evaluated += 1;
            }
            Err(why) => {
                summary.bad += 1;
                on_bad(why);
            }
        }
    }
    Ok(())
}

/// The message for an invalid ID (a long one is shortened).
fn bad_id(id: &str, err: PositionIdError) -> String {
    format!("bad Position ID {:?}: {err}", shorten(id, 40))
}
