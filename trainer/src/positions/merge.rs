//! The union of position databases (`db merge`): rolled-out copies win,
//! conflicting results or settings are errors, label stamps combine as
//! [`crate::positions::labels`] says.

use crate::positions::db::Record;
use crate::positions::db::{position_id, DbError, PositionDb};
use crate::positions::labels::{LabelPart, LabelStamp};
use std::collections::{HashMap, HashSet};

impl PositionDb {
    /// The union of databases, in order of first appearance. A rolled-out
    /// copy of a position wins over one that is not; two different
    /// rolled-out results for one position, rolled-out records made with
    /// different settings, or shards labelled with different settings
    /// ([`DbError::LabelsDiffer`]) are errors.
    pub fn merge(dbs: &[PositionDb]) -> Result<PositionDb, DbError> {
        Ok(PositionDb::merge_excluding(dbs, &[])?.0)
    }

    /// [`merge`](Self::merge) of `dbs` without the positions of `exclude`
    /// (a held-out set, say), and the number of positions left out.
    pub fn merge_excluding(
        dbs: &[PositionDb],
        exclude: &[PositionDb],
    ) -> Result<(PositionDb, usize), DbError> {
        let mut settings: Option<&String> = None;
        for db in dbs {
            if let Some(s) = &db.rollout_settings {
                if settings.is_some_and(|t| t != s) {
                    return Err(DbError::Conflict(format!(
                        "the databases were rolled out with different settings ({} and {s})",
                        settings.expect("checked")
                    )));
                }
                settings = Some(s);
            }
        }
        check_mergeable(dbs)?;
        let mut out = PositionDb {
            records: Vec::new(),
            rollout_settings: settings.cloned(),
            labels: None,
        };
        let mut index: HashMap<[u8; 10], usize> = HashMap::new();
        for db in dbs {
            for r in &db.records {
                match index.get(&r.key) {
                    None => {
                        index.insert(r.key, out.records.len());
                        out.records.push(*r);
                    }
                    Some(&i) => {
                        let have = &mut out.records[i];
                        if r.rolled_out() && have.rolled_out() && r != have {
                            return Err(DbError::Conflict(format!(
                                "position {} has two different rolled-out results",
                                position_id(&r.key)
                            )));
                        }
                        if r.rolled_out() && !have.rolled_out()
                            || r.has_targets() && !have.has_targets()
                        {
                            *have = *r;
                        }
                    }
                }
            }
        }
        let left_out: HashSet<[u8; 10]> = exclude
            .iter()
            .flat_map(|db| db.records.iter().map(|r| r.key))
            .collect();
        let before = out.records.len();
        out.records.retain(|r| !left_out.contains(&r.key));
        let excluded = before - out.records.len();
        out.labels = merged(dbs, &out.records, excluded > 0);
        Ok((out, excluded))
    }
}

/// Fails if two of `dbs` were labelled with different settings and one of
/// them is a shard or part of a labelling (whole labellings with different
/// teachers merge).
fn check_mergeable(dbs: &[PositionDb]) -> Result<(), DbError> {
    let stamped: Vec<(usize, &LabelStamp)> = dbs
        .iter()
        .enumerate()
        .filter_map(|(i, db)| Some((i, db.labels.as_ref()?)))
        .collect();
    for (k, &(first, a)) in stamped.iter().enumerate() {
        for &(second, b) in &stamped[k + 1..] {
            let whole = a.part == LabelPart::All && b.part == LabelPart::All;
            if a.settings != b.settings && !whole {
                return Err(DbError::LabelsDiffer {
                    first,
                    first_stamp: a.clone(),
                    second,
                    second_stamp: b.clone(),
                });
            }
        }
    }
    Ok(())
}

/// The stamp of the merge of `dbs` whose records are `records` (with
/// positions left out if `excluded`): none unless every stamped input
/// shares its settings and no unstamped input brings targets; then all
/// positions if every record is labelled (the merge of every shard) or
/// every input was a whole labelling, the one shard if all were that
/// shard, else some shards.
fn merged(dbs: &[PositionDb], records: &[Record], excluded: bool) -> Option<LabelStamp> {
    let stamps: Vec<&LabelStamp> = dbs.iter().filter_map(|db| db.labels.as_ref()).collect();
    let first = *stamps.first()?;
    if stamps.iter().any(|s| s.settings != first.settings) {
        return None;
    }
    let other_labels = dbs
        .iter()
        .any(|db| db.labels.is_none() && db.records.iter().any(Record::has_targets));
    if other_labels {
        return None;
    }
    let part = if records.iter().all(|r| r.has_targets() && !r.rolled_out())
        || stamps.iter().all(|s| s.part == LabelPart::All)
    {
        LabelPart::All
    } else if !excluded && stamps.iter().all(|s| s.part == first.part) {
        first.part
    } else {
        LabelPart::Partial
    };
    Some(LabelStamp {
        settings: first.settings.clone(),
        part,
    })
}

#[cfg(test)]
mod tests {
    use crate::positions::db::{PositionDb, Record, HAS_TARGETS, ROLLED_OUT};

    fn record(k: u8, rolled: bool) -> Record {
        let mut r = Record::new([k; 10], nets::Class::Contact);
        if rolled {
            r.flags = HAS_TARGETS | ROLLED_OUT;
            r.trials = 36;
            r.targets = [0.5, 0.1, 0.0, 0.1, 0.0];
        }
        r
    }

    fn db(records: Vec<Record>, rollout_settings: Option<&str>) -> PositionDb {
        PositionDb {
            records,
            rollout_settings: rollout_settings.map(String::from),
            labels: None,
        }
    }

    #[test]
    fn merge_prefers_rolled_out_copies_and_refuses_conflicts() {
        let a = db(vec![record(1, false), record(2, true)], Some("s"));
        let b = db(
            vec![record(1, true), record(3, false), record(2, true)],
            Some("s"),
        );
        let m = PositionDb::merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(m.records.len(), 3);
        assert!(m.records[0].rolled_out());
        assert_eq!(m.records[2].key, [3; 10]);
        let mut c = b.clone();
        c.records[2].targets[0] = 0.6;
        assert!(PositionDb::merge(&[a.clone(), c]).is_err());
        let d = PositionDb {
            rollout_settings: Some("t".into()),
            ..b
        };
        assert!(PositionDb::merge(&[a, d]).is_err());
    }

    #[test]
    fn merge_excluding_leaves_out_the_excluded_positions() {
        let a = db(
            vec![record(1, false), record(2, false), record(3, false)],
            None,
        );
        let held = db(vec![record(2, false), record(9, false)], None);
        let (m, excluded) = PositionDb::merge_excluding(&[a], &[held]).unwrap();
        let keys: Vec<u8> = m.records.iter().map(|r| r.key[0]).collect();
        assert_eq!((keys, excluded), (vec![1, 3], 1));
    }
}

#[cfg(test)]
mod label_tests {
    use super::*;
    use crate::positions::db::HAS_TARGETS;

    fn db(labelled: &[bool], stamp: Option<(&str, LabelPart)>) -> PositionDb {
        PositionDb {
            records: labelled
                .iter()
                .enumerate()
                .map(|(k, &l)| {
                    let mut r = Record::new([k as u8; 10], nets::Class::Contact);
                    if l {
                        r.flags = HAS_TARGETS;
                    }
                    r
                })
                .collect(),
            rollout_settings: None,
            labels: stamp.map(|(s, part)| LabelStamp {
                settings: s.into(),
                part,
            }),
        }
    }

    #[test]
    fn shards_of_other_settings_conflict_whole_labellings_do_not() {
        let shard = |k, s| db(&[k == 1, k == 2], Some((s, LabelPart::shard(k, 2))));
        let e = check_mergeable(&[shard(1, "x"), db(&[false], None), shard(2, "y")]);
        let e = e.unwrap_err().to_string();
        assert!(e.contains("databases 1 and 3"), "{e}");
        assert!(e.contains("shard 1/2 labelled with settings x"), "{e}");
        assert!(e.contains("shard 2/2 labelled with settings y"), "{e}");
        let whole = |s| db(&[true, true], Some((s, LabelPart::All)));
        check_mergeable(&[whole("x"), whole("y")]).unwrap();
        assert!(check_mergeable(&[whole("x"), shard(2, "y")]).is_err());
        // Every shard of one labelling: all positions.
        let (a, b) = (shard(1, "x"), shard(2, "x"));
        let records = [true, true].map(|l| db(&[l], None).records[0]);
        let all = merged(&[a.clone(), b.clone()], &records, false).unwrap();
        assert_eq!(all.part, LabelPart::All);
        // One shard with unlabelled positions stays that shard; with
        // positions left out, or two of three shards, only some.
        let some = [true, false].map(|l| db(&[l], None).records[0]);
        let one = merged(&[a.clone(), db(&[false], None)], &some, false).unwrap();
        assert_eq!(one.part, LabelPart::shard(1, 2));
        assert_eq!(
            merged(std::slice::from_ref(&a), &some, true).unwrap().part,
            LabelPart::Partial
        );
        let c = db(&[false, false, true], Some(("x", LabelPart::shard(3, 3))));
        assert_eq!(
            merged(&[a.clone(), c], &some, false).unwrap().part,
            LabelPart::Partial
        );
        // Whole labellings of other teachers, or other labels: no stamp.
        assert_eq!(merged(&[whole("x"), whole("y")], &records, false), None);
        assert_eq!(merged(&[a, db(&[true], None)], &records, false), None);
        assert_eq!(merged(&[db(&[true], None)], &records, false), None);
    }
}
