//! Restart files with random damage never panic and never get past the
//! checks with impossible values: mutated 1-chequer databases go through
//! everything a restart does (size and header check, structural
//! verification, restore into the solver).

use databases::hyper::check_file;
use databases::verify::first_bad_record;
use databases::Database;
use makehyper::HyperSolver;
use proptest::prelude::*;
use std::sync::OnceLock;

/// A converged 1-chequer database, made by the solver.
fn converged() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let mut solver = HyperSolver::new(1);
        while solver.sweep(|_| {}) > 1e-5 {}
        let mut bytes = Vec::new();
        solver.encode_into(&mut bytes);
        bytes
    })
}

/// What a restart does with `bytes`; `Ok` only if it would be used.
fn restart(bytes: Vec<u8>) -> Result<(), String> {
    check_file(&bytes, 1).map_err(|e| e.to_string())?;
    let db = Database::from_bytes("fuzz.bd", bytes, None).map_err(|e| e.to_string())?;
    if let Some(bad) = first_bad_record(&db, &|_| {}) {
        return Err(bad.problem.to_string());
    }
    let mut solver = HyperSolver::new(1);
    solver.restore(db.bytes()).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn damaged_restart_files(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in prop_oneof![Just(0usize), 0usize..100],
    ) {
        let mut bytes = converged().to_vec();
        for (at, v) in edits {
            let at = at % bytes.len();
            bytes[at] = v;
        }
        bytes.truncate(bytes.len() - cut);
        if restart(bytes.clone()).is_ok() {
            // Accepted: every value is a probability or an equity gnubg
            // could have written.
            prop_assert_eq!(bytes.len(), converged().len());
        }
    }
}

#[test]
fn the_undamaged_file_is_accepted() {
    restart(converged().to_vec()).unwrap();
}
