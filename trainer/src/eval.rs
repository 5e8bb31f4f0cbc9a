//! Evaluating a stream of Position IDs and printing one line per position
//! (tab-separated or JSON), as `trainer eval` does.

use board::{Board, PositionIdError};
use nets::{Evaluation, Evaluator};
use serde::Serialize;
use std::io::{self, Write};

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

/// Evaluates every ID of `ids` (blank ones are skipped) and writes a line
/// for each to `out`; an invalid ID is passed to `on_bad` and the stream
/// goes on. Stops at the first I/O error of `ids` or `out`.
pub fn evaluate_ids<S: AsRef<str>>(
    evaluator: &Evaluator,
    options: EvalOptions,
    ids: impl IntoIterator<Item = io::Result<S>>,
    out: &mut impl Write,
    mut on_bad: impl FnMut(&str, PositionIdError),
) -> io::Result<Summary> {
    let mut scratch = evaluator.scratch();
    let mut summary = Summary::default();
    for id in ids {
        let id = id?;
        let id = id.as_ref().trim();
        if id.is_empty() {
            continue;
        }
        match Board::from_position_id(id) {
            Ok(board) => {
                let e =
                    evaluator.evaluate_plied(&board, options.plies, options.prune, &mut scratch);
                write_line(out, id, &e, options.json)?;
                summary.evaluated += 1;
            }
            Err(err) => {
                summary.bad += 1;
                on_bad(id, err);
            }
        }
    }
    Ok(summary)
}
