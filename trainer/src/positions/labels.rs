//! The label stamp of a position database: the settings `db label eval`
//! labelled it with (their MD5, without the shard) and the positions that
//! run covered. Shards labelled with different settings are never merged
//! ([`crate::positions::db::PositionDb::merge`]); the merge of every shard of one labelling is
//! stamped as the unsharded labelling is, byte for byte; and a labelling
//! already done is not done again.

/// The positions a labelling covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelPart {
    /// Every position (`--shard 1/1`), or a merge of such labellings.
    All,
    /// Shard `index`/`count` (`count` ≥ 2): the positions `i` with
    /// `i mod count = index − 1`; the others have no targets.
    Shard {
        /// K, 1-based.
        index: u64,
        /// N.
        count: u64,
    },
    /// Some positions: a merge of shards that does not label them all.
    Partial,
}

impl LabelPart {
    /// The part of shard `index`/`count`.
    pub fn shard(index: u64, count: u64) -> LabelPart {
        if count == 1 {
            LabelPart::All
        } else {
            LabelPart::Shard { index, count }
        }
    }

    /// As stored in a header: (K, N), (1, 1) for all, (0, 0) for some.
    pub(crate) fn to_pair(self) -> (u64, u64) {
        match self {
            LabelPart::All => (1, 1),
            LabelPart::Shard { index, count } => (index, count),
            LabelPart::Partial => (0, 0),
        }
    }

    /// The part stored as (K, N), if valid.
    pub(crate) fn from_pair(index: u64, count: u64) -> Option<LabelPart> {
        match (index, count) {
            (1, 1) => Some(LabelPart::All),
            (0, 0) => Some(LabelPart::Partial),
            (k, n) if n >= 2 && (1..=n).contains(&k) => Some(LabelPart::Shard { index, count }),
            _ => None,
        }
    }

    /// Whether the labelling covered the positions of shard
    /// `index`/`count`.
    pub fn covers(self, index: u64, count: u64) -> bool {
        self == LabelPart::All || self == LabelPart::shard(index, count)
    }
}

impl std::fmt::Display for LabelPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelPart::All => write!(f, "all positions"),
            LabelPart::Shard { index, count } => write!(f, "shard {index}/{count}"),
            LabelPart::Partial => write!(f, "some shards"),
        }
    }
}

/// How a database was labelled by `db label eval`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelStamp {
    /// The MD5 (hex) of the label settings, without the shard.
    pub settings: String,
    /// The positions labelled.
    pub part: LabelPart,
}

impl std::fmt::Display for LabelStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} labelled with settings {}", self.part, self.settings)
    }
}

/// The stamp of a part of a database stamped `stamp` (`db split`): a
/// whole labelling stays one; a shard's positions are no longer its
/// shard's.
pub(crate) fn of_part(stamp: &Option<LabelStamp>) -> Option<LabelStamp> {
    stamp.as_ref().map(|s| LabelStamp {
        settings: s.settings.clone(),
        part: match s.part {
            LabelPart::All => LabelPart::All,
            _ => LabelPart::Partial,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_and_cover_their_shards() {
        for part in [
            LabelPart::All,
            LabelPart::Partial,
            LabelPart::Shard { index: 2, count: 3 },
        ] {
            let (k, n) = part.to_pair();
            assert_eq!(LabelPart::from_pair(k, n), Some(part));
        }
        for (k, n) in [(0, 2), (3, 2), (1, 0), (2, 1)] {
            assert_eq!(LabelPart::from_pair(k, n), None, "{k}/{n}");
        }
        assert!(LabelPart::All.covers(2, 3));
        assert!(LabelPart::shard(2, 3).covers(2, 3));
        assert!(!LabelPart::shard(2, 3).covers(1, 3));
        assert!(!LabelPart::shard(2, 3).covers(1, 1));
        assert!(!LabelPart::Partial.covers(1, 1));
    }
}
