//! gnubg 1.07's own database files and bgkit's read back to the same
//! records and the same decoded values.

mod common;

use common::*;
use databases::compare::compare;
use databases::decode::Scale;
use databases::verify::first_bad_record;
use databases::{Database, Kind};
use makebearoff::{OneSidedOptions, TwoSidedOptions};

/// Every record of `theirs` equals the same record of `ours`, stored and
/// decoded.
fn assert_same_records(theirs: &Database, ours: &Database) {
    assert_eq!(theirs.kind(), ours.kind());
    assert_eq!(theirs.records(), ours.records());
    for i in 0..theirs.records() as u64 {
        let (a, b) = (theirs.record(i).unwrap(), ours.record(i).unwrap());
        assert_eq!(a, b, "{}: record {i}", theirs.path().display());
        for scale in [Scale::Divide, Scale::Reciprocal] {
            assert_eq!(a.values(scale), b.values(scale), "record {i}");
        }
    }
}

fn one_sided(
    points: usize,
    gammons: bool,
    compressed: bool,
    normal: bool,
    header: bool,
) -> OneSidedOptions {
    OneSidedOptions {
        points,
        gammons,
        compressed,
        normal,
        header,
    }
}

#[test]
fn debian_os0_reads_like_ours() {
    let theirs = Database::open(&gnubg_file(GNUBG_OS0)).unwrap();
    let bytes = ours_one_sided(one_sided(6, true, true, false, true));
    let ours = Database::from_bytes("ours", bytes, None).unwrap();
    assert_same_records(&theirs, &ours);
    assert_eq!(first_bad_record(&theirs, &|_| {}), None);
}

#[test]
fn debian_ts0_reads_like_ours() {
    let theirs = Database::open(&gnubg_file(GNUBG_TS0)).unwrap();
    let bytes = ours_two_sided(TwoSidedOptions {
        points: 6,
        chequers: 6,
        cubeful: true,
        header: true,
    });
    let ours = Database::from_bytes("ours", bytes, None).unwrap();
    assert_same_records(&theirs, &ours);
    assert_eq!(first_bad_record(&theirs, &|_| {}), None);
}

/// What bgkit generates for a makebearoff command line.
enum Ours {
    One(OneSidedOptions),
    Two(TwoSidedOptions),
}

#[test]
fn makebearoff_variants_read_like_ours() {
    let dir = tempdir();
    let ts = |points, chequers, cubeful, header| {
        Ours::Two(TwoSidedOptions {
            points,
            chequers,
            cubeful,
            header,
        })
    };
    let os = |points, gammons, compressed, header| {
        Ours::One(one_sided(points, gammons, compressed, false, header))
    };
    let cases: [(&[&str], Ours); 8] = [
        (&["-o", "5"], os(5, true, true, true)),
        (&["-o", "4", "-g"], os(4, false, true, true)),
        (&["-o", "4", "-c"], os(4, true, false, true)),
        (&["-o", "4", "-c", "-g"], os(4, false, false, true)),
        (&["-o", "3", "-H"], os(3, true, true, false)),
        (&["-t", "6x3"], ts(6, 3, true, true)),
        (&["-t", "4x4", "-C"], ts(4, 4, false, true)),
        (&["-t", "5x2", "-H"], ts(5, 2, true, false)),
    ];
    for (i, (args, gen)) in cases.into_iter().enumerate() {
        let path = gnubg_makebearoff(dir.path(), &format!("{i}.bd"), args);
        let (bytes, kind, header) = match gen {
            Ours::One(o) => (ours_one_sided(o), o.kind(), o.header),
            Ours::Two(t) => (ours_two_sided(t), t.kind(), t.header),
        };
        let headerless = (!header).then_some(kind);
        let theirs = Database::open_as(&path, headerless).unwrap();
        let ours = Database::from_bytes("ours", bytes, headerless).unwrap();
        assert_eq!(theirs.kind(), kind, "{args:?}");
        assert_eq!(theirs.has_header(), header);
        assert_same_records(&theirs, &ours);
        assert_eq!(first_bad_record(&theirs, &|_| {}), None, "{args:?}");
    }
}

#[test]
fn normal_distribution_files_read_like_ours() {
    let dir = tempdir();
    let path = gnubg_makebearoff(dir.path(), "nd.bd", &["-o", "4", "-n"]);
    let theirs = Database::open(&path).unwrap();
    assert_eq!(theirs.kind(), Kind::NormalDist { points: 4 });
    let bytes = ours_one_sided(one_sided(4, true, false, true, true));
    let ours = Database::from_bytes("ours", bytes, None).unwrap();
    assert_same_records(&theirs, &ours);
    for diff in compare(&theirs, &ours).unwrap() {
        assert_eq!(diff.max, 0.0, "{diff:?}");
    }
    assert_eq!(first_bad_record(&theirs, &|_| {}), None);
}

#[test]
fn hypergammon_files_open_and_pass_the_checks() {
    let dir = tempdir();
    let path = gnubg_makehyper(dir.path(), 1);
    let db = Database::open(&path).unwrap();
    assert_eq!(db.kind(), Kind::Hyper { chequers: 1 });
    assert_eq!((db.side_positions(), db.records()), (26, 676));
    assert_eq!(first_bad_record(&db, &|_| {}), None);
    let headerless =
        Database::from_bytes("ours", db.bytes()[40..].to_vec(), Some(db.kind())).unwrap();
    assert_same_records(&db, &headerless);
}
