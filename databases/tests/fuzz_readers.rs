//! The readers never panic on arbitrary bytes: random files, valid headers
//! over random bodies, mutated valid files and random lookups either give
//! an error or records that decode, verify and compare. Bounded (a few
//! hundred cases per property) so that it runs in CI on every push.

mod common;

use board::{Board, POINTS};
use common::{ours_one_sided, ours_two_sided};
use databases::compare::compare;
use databases::decode::Scale;
use databases::verify::first_bad_record;
use databases::{Database, Kind, HEADER_LEN};
use makebearoff::{OneSidedOptions, TwoSidedOptions};
use proptest::prelude::*;
use std::sync::OnceLock;

const CASES: u32 = 256;

/// Uses everything a caller can reach on an opened database.
fn exercise(db: &Database) {
    let n = db.records() as u64;
    for i in 0..n {
        let record = db.record(i).expect("records below records() exist");
        let _ = record.values(Scale::Divide);
        let _ = record.values(Scale::Reciprocal);
        let pair = db.pair_at(i).expect("pairs below records() exist");
        let again = db
            .pair_of(&pair.board)
            .expect("a pair's board is in its database");
        assert_eq!(again, pair);
        if let Some(r) = db.pair_record(&pair) {
            assert_eq!(r, i);
        }
    }
    assert!(db.record(n).is_err());
    assert!(db.pair_at(n).is_err());
    let _ = first_bad_record(db, &|_| {});
    let diffs = compare(db, db).expect("a file compares with itself");
    assert!(diffs.iter().all(|d| d.max == 0.0), "{diffs:?}");
}

fn open(bytes: Vec<u8>, kind: Option<Kind>) {
    if let Ok(db) = Database::from_bytes("fuzz", bytes, kind) {
        exercise(&db);
    }
}

/// Small kinds (files of at most a few tens of kilobytes).
fn small_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        (1u8..=4, any::<bool>(), any::<bool>()).prop_map(|(points, gammons, compressed)| {
            Kind::OneSided {
                points,
                gammons,
                compressed,
            }
        }),
        (1u8..=4).prop_map(|points| Kind::NormalDist { points }),
        (1u8..=4, 1u8..=3, any::<bool>()).prop_map(|(points, chequers, cubeful)| {
            Kind::TwoSided {
                points,
                chequers,
                cubeful,
            }
        }),
        Just(Kind::Hyper { chequers: 1 }),
    ]
}

/// Any kind, including ones the formats do not allow.
fn any_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        (any::<u8>(), any::<bool>(), any::<bool>()).prop_map(|(points, gammons, compressed)| {
            Kind::OneSided {
                points,
                gammons,
                compressed,
            }
        }),
        any::<u8>().prop_map(|points| Kind::NormalDist { points }),
        (any::<u8>(), any::<u8>(), any::<bool>()).prop_map(|(points, chequers, cubeful)| {
            Kind::TwoSided {
                points,
                chequers,
                cubeful,
            }
        }),
        any::<u8>().prop_map(|chequers| Kind::Hyper { chequers }),
    ]
}

/// Valid files made by bgkit's generators (and a Hypergammon-sized file).
fn valid_files() -> &'static [(Vec<u8>, Kind)] {
    static FILES: OnceLock<Vec<(Vec<u8>, Kind)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let os = |points, gammons, compressed, normal| OneSidedOptions {
            points,
            gammons,
            compressed,
            normal,
            header: true,
        };
        let ts = |points, chequers, cubeful| TwoSidedOptions {
            points,
            chequers,
            cubeful,
            header: true,
        };
        let mut files: Vec<(Vec<u8>, Kind)> = [
            os(3, true, true, false),
            os(3, false, true, false),
            os(2, true, false, false),
            os(3, true, false, true),
        ]
        .into_iter()
        .map(|o| (ours_one_sided(o), o.kind()))
        .collect();
        for t in [ts(3, 2, true), ts(3, 3, false)] {
            files.push((ours_two_sided(t), t.kind()));
        }
        let hyper = Kind::Hyper { chequers: 1 };
        let mut bytes = hyper.header().to_vec();
        bytes.resize(HEADER_LEN + 28 * 26 * 26, 0);
        files.push((bytes, hyper));
        files
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048), kind in any_kind()) {
        let _ = Kind::parse(&bytes);
        open(bytes.clone(), None);
        open(bytes, Some(kind));
    }

    #[test]
    fn valid_headers_over_random_bodies(kind in small_kind(), extra in -3i64..=3, seed in any::<u64>()) {
        // A body of about the right size for the kind (compressed: the
        // index plus a plausible data area).
        let n = kind.side_positions();
        let body = match kind {
            Kind::OneSided { compressed: true, gammons, .. } => n * if gammons { 8 } else { 6 } + 4 * n,
            Kind::OneSided { gammons, .. } => n * if gammons { 128 } else { 64 },
            Kind::NormalDist { .. } => 16 * n,
            Kind::TwoSided { cubeful, .. } => n * n * if cubeful { 8 } else { 2 },
            Kind::Hyper { .. } => 28 * n * n,
        };
        let len = (body as i64 + extra).max(0) as usize;
        let mut state = seed | 1;
        let mut bytes = kind.header().to_vec();
        bytes.extend((0..len).map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        }));
        open(bytes.clone(), None);
        open(bytes[HEADER_LEN..].to_vec(), Some(kind));
    }

    #[test]
    fn mutated_headers(which in 0usize..7, edits in proptest::collection::vec((0usize..HEADER_LEN, any::<u8>()), 1..6)) {
        let (bytes, _) = &valid_files()[which];
        let mut bytes = bytes.clone();
        for (at, v) in edits {
            bytes[at] = v;
        }
        open(bytes, None);
    }

    #[test]
    fn mutated_files(
        which in 0usize..7,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        resize in prop_oneof![3 => Just(0i64), 1 => -64i64..=64],
        headerless in any::<bool>(),
    ) {
        let (bytes, kind) = &valid_files()[which];
        let mut bytes = bytes.clone();
        for (at, v) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= v;
        }
        let len = (bytes.len() as i64 + resize).max(0) as usize;
        bytes.resize(len, 0xA5);
        if headerless {
            let body = bytes.get(HEADER_LEN..).unwrap_or_default().to_vec();
            open(body, Some(*kind));
        } else {
            open(bytes, None);
        }
    }

    #[test]
    fn random_lookups(
        which in 0usize..7,
        sides in proptest::collection::vec(0u8..=3, 2 * POINTS),
        index in any::<u64>(),
        id in "[A-Za-z0-9+/]{14}",
    ) {
        let (bytes, _) = &valid_files()[which];
        let db = Database::from_bytes("valid", bytes.clone(), None).unwrap();
        let mut board = Board::EMPTY;
        for (k, &v) in sides.iter().enumerate() {
            let side = k / POINTS;
            if board.chequers(side) + u32::from(v) <= 15 {
                board.sides[side][k % POINTS] = v;
            }
        }
        if let Ok(pair) = db.pair_of(&board) {
            prop_assert_eq!(pair.board, board);
        }
        let _ = db.record(index);
        let _ = db.pair_at(index);
        if let Ok(b) = Board::from_position_id(&id) {
            let _ = db.pair_of(&b);
        }
    }
}
