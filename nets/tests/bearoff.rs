//! Bearoff databases of other kinds than gnubg's defaults, and sharing the
//! evaluator between threads.

mod common;

use makebearoff::{one_sided_bytes, OneSidedOptions};
use nets::{Arithmetic, BearoffDatabases, BearoffError, Evaluator, Scratch};

/// One-sided 6×15 database without gammon distributions: gammons then come
/// from the regenerated first-off table (docs/formats.md#first-off-table), which
/// agrees with gnubg's gammon distributions to about 1e-5.
#[test]
fn one_sided_database_without_gammons() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("os6-nogammons.bd");
    let bytes = one_sided_bytes(OneSidedOptions {
        points: 6,
        gammons: false,
        compressed: true,
        normal: false,
        header: true,
    })
    .unwrap();
    std::fs::write(&path, bytes).unwrap();
    let mut paths = vec![path];
    paths.push(common::bearoff_paths()[1].clone());
    let db = BearoffDatabases::open(&paths).unwrap();
    let eval = Evaluator::new(common::nets().clone(), db, Arithmetic::GnubgFastMath).unwrap();
    let mut s = eval.scratch();
    let (mut n, mut worst, mut gammons) = (0, 0f64, 0);
    for r in common::reference_0ply()
        .iter()
        .filter(|r| r.class == "BEAROFF1")
    {
        let e = eval.evaluate(&r.board, &mut s);
        worst = worst.max(common::error(&e.outputs, &r.outputs));
        gammons += usize::from(r.outputs[1] > 0.0 || r.outputs[3] > 0.0);
        n += 1;
    }
    assert!(
        n > 1000 && gammons > 10,
        "{n} positions, {gammons} with gammons"
    );
    assert!(worst < 2e-5, "max error {worst}");
}

#[test]
fn databases_are_checked() {
    let paths = common::bearoff_paths();
    let two_only = BearoffDatabases::open(&paths[1..]).unwrap_err();
    assert!(matches!(two_only, BearoffError::NoOneSided));
    let twice = BearoffDatabases::open(&[&paths[0], &paths[0]]).unwrap_err();
    assert!(twice.to_string().contains("already given"), "{twice}");
    let missing = BearoffDatabases::open(&["/nonexistent.bd"]).unwrap_err();
    assert!(missing.to_string().contains("/nonexistent.bd"));
}

#[test]
fn one_evaluator_serves_many_threads() {
    fn shareable<T: Send + Sync>() {}
    fn sendable<T: Send>() {}
    shareable::<Evaluator>();
    sendable::<Scratch>();
    let eval = common::evaluator(Arithmetic::Ieee);
    let refs = common::reference_0ply();
    let positions: Vec<_> = refs.iter().step_by(7).map(|r| r.board).collect();
    let serial: Vec<_> = {
        let mut s = eval.scratch();
        positions.iter().map(|b| eval.evaluate(b, &mut s)).collect()
    };
    let halves = positions.split_at(positions.len() / 2);
    let parallel: Vec<_> = std::thread::scope(|scope| {
        let jobs = [halves.0, halves.1].map(|part| {
            let eval = &eval;
            scope.spawn(move || {
                let mut s = eval.scratch();
                part.iter()
                    .map(|b| eval.evaluate(b, &mut s))
                    .collect::<Vec<_>>()
            })
        });
        jobs.into_iter().flat_map(|j| j.join().unwrap()).collect()
    });
    assert_eq!(serial, parallel);
}
