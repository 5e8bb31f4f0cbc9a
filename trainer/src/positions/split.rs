//! A database split into a training set and a held-out set: a position's
//! side depends only on the seed and its key, so the split is the same
//! whatever the order or company of the positions.

use crate::positions::db::PositionDb;

/// Whether the position of `key` is held out, for the held-out fraction
/// `holdout` (in `[0, 1]`) and `seed`.
pub fn held_out(key: &[u8; 10], seed: u64, holdout: f64) -> bool {
    crate::keyed::unit(seed, key) < holdout
}

/// `db` as (training set, held-out set), each keeping `db`'s rollout
/// settings, its label stamp (a shard's as some shards: its positions are
/// no longer the shard's) and its record order.
pub fn split(db: &PositionDb, holdout: f64, seed: u64) -> (PositionDb, PositionDb) {
    let empty = || PositionDb {
        records: Vec::new(),
        rollout_settings: db.rollout_settings.clone(),
        labels: crate::positions::labels::of_part(&db.labels),
    };
    let (mut train, mut held) = (empty(), empty());
    for r in &db.records {
        if held_out(&r.key, seed, holdout) {
            held.records.push(*r);
        } else {
            train.records.push(*r);
        }
    }
    (train, held)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::db::Record;

    #[test]
    fn a_positions_side_depends_only_on_the_seed_and_its_key() {
        let db = PositionDb {
            records: (0..200u8)
                .map(|k| Record::new([k; 10], nets::Class::Race))
                .collect(),
            rollout_settings: Some("s".into()),
            labels: None,
        };
        let (train, held) = split(&db, 0.25, 7);
        assert_eq!(train.records.len() + held.records.len(), 200);
        assert!(
            (20..80).contains(&held.records.len()),
            "{}",
            held.records.len()
        );
        assert_eq!(held.rollout_settings.as_deref(), Some("s"));
        for r in &held.records {
            assert!(held_out(&r.key, 7, 0.25));
        }
        let (_, none) = split(&db, 0.0, 7);
        let (_, all) = split(&db, 1.0, 7);
        assert_eq!((none.records.len(), all.records.len()), (0, 200));
    }
}
