//! `db export --format npz`: the net inputs and targets of a database as
//! NumPy arrays, one group per net class, for training elsewhere (PyTorch,
//! JAX). Arrays (float32 unless noted), for each of contact, crashed and
//! race that the database holds with targets:
//!
//! * `CLASS_inputs`: n × inputs (250 or 214), the inputs `nets` computes;
//! * `CLASS_targets`: n × 5, the five probabilities for the side on roll;
//! * `CLASS_keys`: n × 10 uint8, the positions' keys.

use crate::positions::db::PositionDb;
use ndarray::Array2;
use ndarray_npy::NpzWriter;
use nets::{Arithmetic, Class};

/// Why the arrays cannot be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the npz archive: {0}")]
pub struct NpzError(String);

/// The `.npz` bytes of the positions with targets of net classes, inputs
/// computed in `arith` (gnubg 1.07's by default). Returns the bytes and the
/// number of positions written per class (contact, crashed, race).
pub fn npz_bytes(db: &PositionDb, arith: Arithmetic) -> Result<(Vec<u8>, [usize; 3]), NpzError> {
    let err = |e: &dyn std::fmt::Display| NpzError(e.to_string());
    let mut npz = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    let mut counts = [0usize; 3];
    for (k, (class, name)) in [
        (Class::Contact, "contact"),
        (Class::Crashed, "crashed"),
        (Class::Race, "race"),
    ]
    .into_iter()
    .enumerate()
    {
        let rows: Vec<_> = db
            .records
            .iter()
            .filter(|r| r.has_targets() && r.class() == class)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let width = match class {
            Class::Race => nets::inputs::RACE_INPUTS,
            _ => nets::inputs::CONTACT_INPUTS,
        };
        let mut inputs = Array2::<f32>::zeros((rows.len(), width));
        let mut targets = Array2::<f32>::zeros((rows.len(), 5));
        let mut keys = Array2::<u8>::zeros((rows.len(), 10));
        for (i, r) in rows.iter().enumerate() {
            let board = board::Board::from_id_bytes(&r.key)
                .map_err(|e| NpzError(format!("record {i} of {name} is not a position ({e})")))?;
            let row = inputs.row_mut(i).into_slice().expect("rows are contiguous");
            match class {
                Class::Contact => nets::inputs::contact_inputs(&board, row, arith),
                Class::Crashed => nets::inputs::crashed_inputs(&board, row, arith),
                _ => nets::inputs::race_inputs(&board, row, arith),
            }
            for (t, v) in targets.row_mut(i).iter_mut().zip(r.targets) {
                *t = v;
            }
            for (t, v) in keys.row_mut(i).iter_mut().zip(r.key) {
                *t = v;
            }
        }
        npz.add_array(format!("{name}_inputs"), &inputs)
            .map_err(|e| err(&e))?;
        npz.add_array(format!("{name}_targets"), &targets)
            .map_err(|e| err(&e))?;
        npz.add_array(format!("{name}_keys"), &keys)
            .map_err(|e| err(&e))?;
        counts[k] = rows.len();
    }
    let cursor = npz.finish().map_err(|e| err(&e))?;
    Ok((cursor.into_inner(), counts))
}
