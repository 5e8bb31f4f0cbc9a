//! Labelling a position database in place without a full rollout: its
//! race positions by one-sided bearoff play ([`race_label`], journaled like
//! a rollout, so kill -9 loses no finished position and a resumed run
//! gives the same bytes), or every position by an evaluator's own
//! evaluation.

use crate::positions::db::{DbError, LabelPart, LabelStamp, PositionDb, Record, HAS_TARGETS};
use crate::rollouts::job::{finish, journaled, JobError, Journal, Shard};
use crate::rollouts::race_label;
use crate::scratch_pool::ScratchPool;
use board::Board;
use nets::{BearoffDatabases, Evaluator};
use std::path::Path;

/// Why a labelling failed.
#[derive(Debug, thiserror::Error)]
pub enum LabellingError {
    /// The database holds no position to label (what is said).
    #[error("no {0} to label")]
    NothingToLabel(&'static str),
    /// Hashing the bearoff databases for the fingerprint failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The journaled job failed.
    #[error(transparent)]
    Job(#[from] JobError),
}

/// How the race positions of a database are labelled.
#[derive(Clone, Copy, Debug)]
pub struct RaceLabelling<'a> {
    /// The one-sided (and two-sided) bearoff databases.
    pub bearoff: &'a BearoffDatabases,
    /// One-sided rollout games per side outside the one-sided database.
    pub games: u32,
    /// Seed of the dice.
    pub seed: u64,
    /// Label only the races whose two sides both lie within the one-sided
    /// database (exact targets).
    pub exact_only: bool,
}

/// What a race labelling did.
#[derive(Clone, Debug)]
pub struct RaceSummary {
    /// Positions labelled.
    pub labelled: usize,
    /// Of which exact (both sides within the one-sided database).
    pub exact: usize,
    /// Positions read back from the journal.
    pub resumed: usize,
    /// Mean equity standard error of the labelled positions.
    pub mean_equity_std_error: f64,
    /// The settings, for the provenance record.
    pub settings: serde_json::Value,
}

impl RaceLabelling<'_> {
    /// The indices of the records of `db` to label: its races (with
    /// [`exact_only`](Self::exact_only), those within the one-sided
    /// database); none is an error.
    pub fn todo(&self, db: &PositionDb) -> Result<Vec<usize>, LabellingError> {
        let todo: Vec<usize> = db
            .records
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, Board::from_id_bytes(&r.key).ok()?)))
            .filter(|(_, b)| race_label::is_race(b))
            .filter(|(_, b)| !self.exact_only || race_label::is_exact(self.bearoff, b))
            .map(|(i, _)| i)
            .collect();
        if todo.is_empty() {
            return Err(LabellingError::NothingToLabel(if self.exact_only {
                "race positions within the one-sided database"
            } else {
                "race positions"
            }));
        }
        Ok(todo)
    }

    /// Labels the records `todo` of `db`, the database at `path`,
    /// journaled (`how`), then saves it and removes the journal.
    /// `progress(done)` follows the positions finished; `stop()` ends the
    /// run after a chunk (the journal keeps the work; returns `None`).
    pub fn run(
        &self,
        path: &Path,
        db: &mut PositionDb,
        todo: &[usize],
        how: Journal,
        progress: &mut dyn FnMut(usize),
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<RaceSummary>, LabellingError> {
        let mut settings = serde_json::json!({
            "label": "race",
            "exact_only": self.exact_only,
            "games": self.games,
            "seed": self.seed,
            "bearoff_md5": crate::evaluator_args::bearoff_md5(self.bearoff)?,
        });
        let fingerprint = support::digest::md5_hex(settings.to_string().as_bytes())?;
        // For the provenance only: the fingerprint knows the files by content.
        settings["bearoff"] = serde_json::json!(self.bearoff.paths());
        let work = |i: usize, r: &Record| self.label(i, r);
        let ran = journaled(
            path,
            db,
            &fingerprint,
            todo.to_vec(),
            how,
            &work,
            progress,
            stop,
        )?;
        let Some((resumed, _)) = ran else {
            return Ok(None);
        };
        if !db.records.iter().any(|r| r.rolled_out()) {
            db.rollout_settings = None;
        }
        // Its race labels are not one evaluation's.
        db.labels = None;
        finish(path, db)?;
        let (exact, sum_se) =
            todo.iter()
                .map(|&i| &db.records[i])
                .fold((0usize, 0f64), |(e, s), r| {
                    (
                        e + usize::from(r.trials == 0),
                        s + f64::from(r.equity_std_error),
                    )
                });
        Ok(Some(RaceSummary {
            labelled: todo.len(),
            exact,
            resumed,
            mean_equity_std_error: sum_se / todo.len() as f64,
            settings,
        }))
    }

    /// Record `i`, `r`, labelled.
    fn label(&self, i: usize, r: &Record) -> Result<Record, DbError> {
        let board = Board::from_id_bytes(&r.key)
            .map_err(|e| DbError::Corrupt(format!("record {i} is not a position ({e})")))?;
        let l = race_label::label(self.bearoff, &board, self.games, self.seed)
            .map_err(|e| DbError::Corrupt(format!("record {i}: {e}")))?;
        Ok(Record {
            flags: HAS_TARGETS,
            trials: l.games,
            targets: l.targets,
            equity: l.equity,
            std_errors: l.std_errors,
            equity_std_error: l.equity_std_error,
            ..*r
        })
    }
}

/// How a database is labelled with an evaluator's n-ply evaluation
/// (`db label eval`): journaled as a rollout is, so kill -9 loses no
/// finished position, a resumed run gives the same bytes and shards on
/// copies merge into the unsharded result.
#[derive(Clone, Copy, Debug)]
pub struct EvalLabelling<'a> {
    /// The evaluator.
    pub eval: &'a Evaluator,
    /// Plies of the evaluation (0 to [`nets::MAX_PLIES`]).
    pub plies: u32,
    /// Choose the moves of the search with gnubg's pruning nets.
    pub prune: bool,
    /// The MD5 of the weights file, for the fingerprint.
    pub weights_md5: &'a str,
    /// The positions this run labels.
    pub shard: Shard,
}

/// What an evaluation labelling did.
#[derive(Clone, Debug)]
pub struct EvalSummary {
    /// Positions of the shard, labelled.
    pub labelled: usize,
    /// Of which read back from the journal.
    pub resumed: usize,
    /// The settings, for the provenance record.
    pub settings: serde_json::Value,
}

impl EvalLabelling<'_> {
    /// The settings the labels depend on, without the shard (their MD5 is
    /// the labelled database's stamp).
    pub fn label_settings(&self) -> Result<serde_json::Value, LabellingError> {
        Ok(serde_json::json!({
            "label": "eval",
            "plies": self.plies,
            "prune": self.prune,
            "weights_md5": self.weights_md5,
            "evaluator": crate::evaluator_args::EvaluatorId::of(self.eval)?,
        }))
    }

    /// The settings of this run: the label settings and the shard (their
    /// MD5 is the journal's fingerprint).
    pub fn settings(&self) -> Result<serde_json::Value, LabellingError> {
        let mut settings = self.label_settings()?;
        settings["shard"] = format!("{}/{}", self.shard.index, self.shard.count).into();
        Ok(settings)
    }

    /// The stamp of the database this run labels.
    pub fn stamp(&self) -> Result<LabelStamp, LabellingError> {
        let settings = self.label_settings()?.to_string();
        Ok(LabelStamp {
            settings: support::digest::md5_hex(settings.as_bytes())?,
            part: LabelPart::shard(self.shard.index, self.shard.count),
        })
    }

    /// True if `db` is labelled as this run would label it: stamped with
    /// these settings over this shard's positions (or all), every one of
    /// them with targets that are not a rollout's.
    pub fn done_in(&self, db: &PositionDb) -> Result<bool, LabellingError> {
        let Some(have) = &db.labels else {
            return Ok(false);
        };
        let (index, count) = (self.shard.index, self.shard.count);
        if !have.part.covers(index, count) || have.settings != self.stamp()?.settings {
            return Ok(false);
        }
        Ok(db
            .records
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.shard.contains(i))
            .all(|(_, r)| r.has_targets() && !r.rolled_out()))
    }

    /// Labels the positions of the shard in `db`, the database at `path`,
    /// replacing any targets they had; a shard's run clears the records
    /// of the other shards (so that [`PositionDb::merge`] of the shards'
    /// copies gives the unsharded result). Journaled (`how`); then saves
    /// the database and removes the journal. `progress(done, total)`
    /// follows the positions finished; `stop()` ends the run after a chunk
    /// (the journal keeps the work; returns `None`).
    pub fn run(
        &self,
        path: &Path,
        db: &mut PositionDb,
        how: Journal,
        progress: &mut dyn FnMut(usize, usize),
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<EvalSummary>, LabellingError> {
        let settings = self.settings()?;
        let fingerprint = support::digest::md5_hex(settings.to_string().as_bytes())?;
        let stamp = self.stamp()?;
        let todo: Vec<usize> = (0..db.records.len())
            .filter(|&i| self.shard.contains(i))
            .collect();
        if todo.is_empty() {
            return Err(LabellingError::NothingToLabel("positions in this shard"));
        }
        let total = todo.len();
        let pool = ScratchPool::new(self.eval);
        let work = |i: usize, r: &Record| self.label(i, r, &pool);
        let ran = journaled(
            path,
            db,
            &fingerprint,
            todo,
            how,
            &work,
            &mut |done| progress(done, total),
            stop,
        )?;
        let Some((resumed, _)) = ran else {
            return Ok(None);
        };
        for (i, r) in db.records.iter_mut().enumerate() {
            if !self.shard.contains(i) {
                *r = Record::new(r.key, r.class());
            }
        }
        db.rollout_settings = None;
        db.labels = Some(stamp);
        finish(path, db)?;
        Ok(Some(EvalSummary {
            labelled: total,
            resumed,
            settings,
        }))
    }

    /// Record `i`, `r`, labelled.
    fn label(&self, i: usize, r: &Record, pool: &ScratchPool) -> Result<Record, DbError> {
        let board = Board::from_id_bytes(&r.key)
            .map_err(|e| DbError::Corrupt(format!("record {i} is not a position ({e})")))?;
        let outputs = pool.with(|e, s| e.evaluate_plied(&board, self.plies, self.prune, s).outputs);
        Ok(Record {
            flags: HAS_TARGETS,
            trials: 0,
            targets: outputs,
            equity: board::cubeless_equity(&outputs),
            std_errors: [0.0; 5],
            equity_std_error: 0.0,
            ..*r
        })
    }
}
