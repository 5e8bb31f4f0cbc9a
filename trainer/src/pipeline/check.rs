//! A plan's checks before any stage runs: every setting in range, and no
//! path that collides with another or with the round's own files.

use super::plan::{Plan, TrainPlan};
use super::stages::{Stage, HELD_SET_STAGE, LABEL_HELD_STAGE, SPLIT_STAGE, START_STAGE};
use std::path::{Component, Path, PathBuf};

/// The most worker threads a plan may ask for (`--threads` takes a u16).
const MAX_THREADS: usize = u16::MAX as usize;

impl Plan {
    /// The settings' own consistency and ranges (each stage's command line
    /// is checked as well by `trainer round` before the first stage).
    pub fn check(&self) -> Result<(), String> {
        if self.games == 0 {
            return Err("games must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.explore) {
            return Err(format!("explore {}: must be between 0 and 1", self.explore));
        }
        if !(self.disagreement_threshold > 0.0 && self.disagreement_threshold.is_finite()) {
            return Err(format!(
                "disagreement_threshold {}: must be above 0",
                self.disagreement_threshold
            ));
        }
        if !(0.0..1.0).contains(&self.holdout) {
            return Err(format!(
                "holdout {}: must be at least 0 and below 1",
                self.holdout
            ));
        }
        if self.holdout > 0.0 && self.held_games > 0 {
            return Err(format!(
                "holdout {} and held_games {}: the held-out set comes from one or the other",
                self.holdout, self.held_games
            ));
        }
        if !(1..=nets::MAX_PLIES).contains(&self.plies) {
            return Err(format!(
                "plies {}: must be 1 to {}",
                self.plies,
                nets::MAX_PLIES
            ));
        }
        crate::init::check_hidden(self.hidden).map_err(|e| format!("hidden: {e}"))?;
        if let (true, Some(from)) = (self.crashed_from_contact, &self.crashed_from) {
            return Err(format!(
                "crashed_from {} and crashed_from_contact: the crashed net starts from one or the other",
                from.display()
            ));
        }
        if let Some(n) = self.threads {
            if !(1..=MAX_THREADS).contains(&n) {
                return Err(format!("threads {n}: must be 1 to {MAX_THREADS}"));
            }
        }
        let by_class = self
            .train_by_class
            .iter()
            .map(|(class, t)| (format!("train_by_class.{}", class.name()), t));
        let all = [
            ("train".to_string(), &self.train),
            ("prune_train".to_string(), &self.prune_train),
        ];
        for (name, t) in all.into_iter().chain(by_class) {
            t.check().map_err(|why| format!("{name}.{why}"))?;
        }
        if self.match_games == 0 {
            return Err("match_games must be at least 1".into());
        }
        for (name, path) in self.named_paths() {
            check_path(path).map_err(|why| format!("{name} {:?}: {why}", path))?;
        }
        Ok(())
    }

    /// Every path of the plan with its field's name.
    fn named_paths(&self) -> Vec<(String, &Path)> {
        let mut v: Vec<(String, &Path)> = vec![
            ("player".into(), &self.player),
            ("teacher".into(), &self.teacher),
            ("held".into(), &self.held),
            ("start".into(), &self.start),
            ("opponent".into(), &self.opponent),
        ];
        if let Some(crashed) = &self.crashed_from {
            v.push(("crashed_from".into(), crashed));
        }
        v.extend(self.listed_inputs());
        v
    }

    /// The databases the plan lists (`include` and `exclude`), each with
    /// its field's name and index.
    fn listed_inputs(&self) -> Vec<(String, &Path)> {
        let mut v = Vec::new();
        for (field, list) in [("include", &self.include), ("exclude", &self.exclude)] {
            v.extend(
                list.iter()
                    .enumerate()
                    .map(|(i, p)| (format!("{field}[{i}]"), p.as_path())),
            );
        }
        v
    }

    /// Refuses plans whose files collide: a path of the plan that is one of
    /// the round's own files (or their side files), `held` or `start`
    /// (which the round may write) that is an input or an input's side
    /// file, `held` among the training inputs. `dir` is the round's
    /// directory, `stages` its stages and `own` the round's bookkeeping
    /// files.
    pub fn check_paths(&self, dir: &Path, stages: &[Stage], own: &[PathBuf]) -> Result<(), String> {
        let key = |p: &Path| normalized(&dir.join(p));
        // The round's files: every stage's outputs and side files, except
        // the plan's own outputs where their own stages write them.
        let held = key(&self.held);
        let start = key(&self.start);
        let with_sides = |p: &Path| {
            let mut v = vec![key(p)];
            v.extend(super::side_files(p).iter().map(|s| key(s)));
            v
        };
        let (held_files, start_files) = (with_sides(&self.held), with_sides(&self.start));
        let mut round_files: Vec<(PathBuf, String)> = Vec::new();
        for stage in stages {
            let plan_output = match stage.name.as_str() {
                SPLIT_STAGE | HELD_SET_STAGE | LABEL_HELD_STAGE => &held_files,
                START_STAGE => &start_files,
                _ => &Vec::new(),
            };
            for f in stage.owned_files() {
                let k = key(&f);
                if !plan_output.contains(&k) {
                    round_files.push((k, format!("a file of stage {:?}", stage.name)));
                }
            }
        }
        for f in own {
            round_files.push((key(f), "the round's record".into()));
        }
        let sides_of_plan_outputs: Vec<PathBuf> = held_files[1..]
            .iter()
            .chain(&start_files[1..])
            .cloned()
            .collect();
        for (name, path) in self.named_paths() {
            let k = key(path);
            if let Some((_, what)) = round_files.iter().find(|(f, _)| *f == k) {
                return Err(format!("{name} {}: is {what}", path.display()));
            }
            if sides_of_plan_outputs.contains(&k) {
                return Err(format!(
                    "{name} {}: is a side file (journal, record, checkpoint or lock) of held or start",
                    path.display()
                ));
            }
        }
        // What the round writes must not be what it reads.
        if held == start {
            return Err(format!(
                "held and start are the same file ({})",
                self.held.display()
            ));
        }
        let mut inputs: Vec<(String, &Path)> = vec![
            ("player".into(), &self.player),
            ("teacher".into(), &self.teacher),
        ];
        inputs.extend(self.listed_inputs());
        inputs.push(("opponent".into(), &self.opponent));
        for (name, path) in &inputs {
            let k = key(path);
            if k == held {
                return Err(format!(
                    "held {}: is also {name} (the held-out set must be a file of its own)",
                    self.held.display()
                ));
            }
            if k == start && (name.starts_with("include") || name.starts_with("exclude")) {
                return Err(format!("start {}: is also {name}", self.start.display()));
            }
            for side in super::side_files(path) {
                let side = key(&side);
                if side == held || side == start {
                    return Err(format!(
                        "held or start is a side file (journal, record, checkpoint or lock) \
                         of {name} {}",
                        path.display()
                    ));
                }
            }
        }
        Ok(())
    }
}

impl TrainPlan {
    /// The ranges `trainer train` accepts; the error starts with the field.
    fn check(&self) -> Result<(), String> {
        if self.epochs == 0 {
            return Err("epochs must be at least 1".into());
        }
        if self.batch == 0 {
            return Err("batch must be at least 1".into());
        }
        if !(self.alpha_start > 0.0 && self.alpha_start <= crate::supervised::MAX_ALPHA) {
            return Err(format!(
                "alpha_start {}: must be above 0 and at most {}",
                self.alpha_start,
                crate::supervised::MAX_ALPHA
            ));
        }
        if !(self.alpha_low > 0.0 && self.alpha_low <= self.alpha_start) {
            return Err(format!(
                "alpha_low {}: must be above 0 and at most alpha_start",
                self.alpha_low
            ));
        }
        crate::supervised::check_weight_decay(
            self.weight_decay,
            self.alpha_start,
            self.optimizer == super::plan::Optimizer::Adam,
        )
        .map_err(|why| format!("weight_decay {why}"))?;
        crate::supervised::check_equity_weight(self.equity_weight)
            .map_err(|why| format!("equity_weight {why}"))
    }
}

/// A path a command line can carry: not empty, no NUL byte.
fn check_path(path: &Path) -> Result<(), String> {
    let text = path.as_os_str();
    if text.is_empty() {
        return Err("empty path".into());
    }
    if text.as_encoded_bytes().contains(&0) {
        return Err("has a NUL byte".into());
    }
    Ok(())
}

/// `path` made absolute and without `.` and `..` components; the existing
/// part of its directory resolved through symbolic links, so that two
/// names of one file compare equal.
pub(crate) fn normalized(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    let Some(name) = out.file_name().map(ToOwned::to_owned) else {
        return out;
    };
    match out.parent().map(std::fs::canonicalize) {
        Some(Ok(parent)) => parent.join(name),
        _ => out,
    }
}
