//! A database's summary by class: positions, targets, rollouts, trials,
//! mean win target and mean equity standard error.

use crate::positions::db::{PositionDb, Record};

/// The summary of one class's positions.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassStats {
    /// The class code of the records ([`crate::positions::db::class_from_code`]).
    pub code: u8,
    /// Positions.
    pub positions: usize,
    /// Positions with targets.
    pub with_targets: usize,
    /// Positions rolled out.
    pub rolled_out: usize,
    /// Trials of the rolled-out positions.
    pub trials: u64,
    /// Mean win target of the positions with targets (0 if none).
    pub mean_win: f64,
    /// Mean equity standard error of the rolled-out positions (0 if none).
    pub mean_equity_std_error: f64,
}

/// The summary of each class code present in `db`, in code order.
pub fn class_stats(db: &PositionDb) -> Vec<ClassStats> {
    (0..8u8)
        .filter_map(|code| {
            let rs: Vec<&Record> = db.records.iter().filter(|r| r.class == code).collect();
            (!rs.is_empty()).then(|| summary(code, &rs))
        })
        .collect()
}

/// The summary of the records `rs`, all of class `code`.
fn summary(code: u8, rs: &[&Record]) -> ClassStats {
    let with: Vec<&&Record> = rs.iter().filter(|r| r.has_targets()).collect();
    let rolled: Vec<&&Record> = rs.iter().filter(|r| r.rolled_out()).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let wins: Vec<f64> = with.iter().map(|r| f64::from(r.targets[0])).collect();
    let errors: Vec<f64> = rolled
        .iter()
        .map(|r| f64::from(r.equity_std_error))
        .collect();
    ClassStats {
        code,
        positions: rs.len(),
        with_targets: with.len(),
        rolled_out: rolled.len(),
        trials: rolled.iter().map(|r| u64::from(r.trials)).sum(),
        mean_win: mean(&wins),
        mean_equity_std_error: mean(&errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::db::{class_code, HAS_TARGETS, ROLLED_OUT};

    #[test]
    fn classes_are_summarized_in_code_order() {
        let mut rolled = Record::new([1; 10], nets::Class::Race);
        rolled.flags = HAS_TARGETS | ROLLED_OUT;
        rolled.trials = 36;
        rolled.targets[0] = 0.5;
        rolled.equity_std_error = 0.02;
        let db = PositionDb {
            records: vec![
                rolled,
                Record::new([2; 10], nets::Class::Contact),
                Record::new([3; 10], nets::Class::Race),
            ],
            rollout_settings: None,
            labels: None,
        };
        let s = class_stats(&db);
        let codes: Vec<u8> = s.iter().map(|c| c.code).collect();
        let mut want = vec![
            class_code(nets::Class::Contact),
            class_code(nets::Class::Race),
        ];
        want.sort();
        assert_eq!(codes, want);
        let race = s
            .iter()
            .find(|c| c.code == class_code(nets::Class::Race))
            .unwrap();
        assert_eq!(
            (
                race.positions,
                race.with_targets,
                race.rolled_out,
                race.trials
            ),
            (2, 1, 1, 36)
        );
        assert_eq!(race.mean_win, 0.5);
        assert!((race.mean_equity_std_error - 0.02).abs() < 1e-9);
    }
}
