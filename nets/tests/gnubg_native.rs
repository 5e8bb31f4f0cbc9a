//! `--native-rcp` against the installed gnubg 1.07 on this machine's CPU:
//! gnubg's fast-math build takes the hidden sigmoid's reciprocal from the
//! CPU's `rcpps`, whose low bits differ between CPU models, so
//! [`Arithmetic::GnubgFastMathNative`] must give exactly what gnubg prints
//! here, whatever the vendor. (The default arithmetic, which emulates the
//! reference CPU, is checked against committed data in `reference.rs`.)

mod common;

/// The positions `refs` at `plies`, each with its prune setting: gnubg's
/// bits and ours, equal.
fn compare(refs: &[common::Reference], plies: u32) -> usize {
    let rows: Vec<(String, bool)> = refs.iter().map(|r| (r.id.clone(), r.prune)).collect();
    common::assert_native_equals_gnubg(&rows, plies)
}

/// Every third reference position: all five classes, about 3,400
/// positions (gnubg's Python `evaluate` takes up to 10 ms each, however
/// fast the evaluation: it polls its worker thread).
#[test]
fn native_rcp_equals_the_installed_gnubg_at_0_ply() {
    let refs: Vec<_> = common::reference_0ply().into_iter().step_by(3).collect();
    let classes: std::collections::BTreeSet<&str> = refs.iter().map(|r| r.class.as_str()).collect();
    assert_eq!(classes.len(), 5, "{classes:?}");
    assert_eq!(compare(&refs, 0), 3_421);
}

#[test]
fn native_rcp_equals_the_installed_gnubg_at_1_ply_with_and_without_pruning() {
    let refs = common::reference_1ply();
    assert!(refs.iter().any(|r| r.prune) && refs.iter().any(|r| !r.prune));
    compare(&refs, 1);
}
