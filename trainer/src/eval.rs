//! Evaluating a stream of Position IDs and printing one line per position
//! (tab-separated or JSON), as `trainer eval` does.

use board::{Board, PositionIdError};
use nets::{Evaluation, Evaluator};
use serde::Serialize;
use std::io::{self, Write};
use support::stdio::{shorten, Line};

/// How positions are evaluated and printed.
#[derive(Clone, Copy, Debug, Default)]
pub struct EvalOptions {
    /// Search depth (0 or 1).
    pub plies: u32,
    /// At 1 ply, choose replies with gnubg's pruning nets.
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

/// Evaluates every ID of `ids` (blank lines are skipped) and writes a line
/// for each to `out`. A line that is not a valid Position ID (too long, not
/// UTF-8, not an ID) is passed to `on_bad` with the reason, and the stream
/// goes on. Stops at the first I/O error of `ids` or `out`.
pub fn evaluate_ids(
    evaluator: &Evaluator,
    options: EvalOptions,
    ids: impl IntoIterator<Item = io::Result<Line>>,
    out: &mut impl Write,
    mut on_bad: impl FnMut(String),
) -> Result<Summary, StreamError> {
    let mut scratch = evaluator.scratch();
    let mut summary = Summary::default();
    for line in ids {
        let bytes = match line.map_err(StreamError::Read)? {
            Line::Text(bytes) => bytes,
            Line::TooLong => {
                summary.bad += 1;
                on_bad(format!("input line longer than {MAX_LINE} bytes"));
                continue;
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            summary.bad += 1;
            on_bad("input line is not UTF-8 text".to_owned());
            continue;
        };
        let id = text.trim();
        if id.is_empty() {
            continue;
        }
        match Board::from_position_id(id) {
            Ok(board) => {
                let e =
                    evaluator.evaluate_plied(&board, options.plies, options.prune, &mut scratch);
                write_line(out, id, &e, options.json).map_err(StreamError::Write)?;
                summary.evaluated += 1;
            }
            Err(err) => {
                summary.bad += 1;
                on_bad(bad_id(id, err));
            }
        }
    }
    out.flush().map_err(StreamError::Write)?;
    Ok(summary)
}

/// The message for an invalid ID (a long one is shortened).
fn bad_id(id: &str, err: PositionIdError) -> String {
    format!("bad Position ID {:?}: {err}", shorten(id, 40))
}
