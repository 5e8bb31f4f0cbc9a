//! Damaged checkpoints never panic and never resume into wrong bytes: a
//! checkpoint of a small generation with random edits or cut short either
//! is refused or resumes to exactly the database an uninterrupted run makes.

use makebearoff::{one_sided_job, OneSidedOptions, TwoSidedJob, TwoSidedOptions};
use proptest::prelude::*;
use std::sync::OnceLock;
use support::{Checkpoint, Job};

const FINGERPRINT: &str = "fuzz one-sided 4 + two-sided 4x3";

fn job() -> Box<dyn Job> {
    Box::new(support::Chain::new(vec![
        one_sided_job(
            OneSidedOptions {
                points: 4,
                gammons: true,
                compressed: true,
                normal: false,
                header: true,
            },
            None,
        ),
        Box::new(TwoSidedJob::new(
            TwoSidedOptions {
                points: 4,
                chequers: 3,
                cubeful: true,
                header: true,
            },
            None,
        )),
    ]))
}

/// The complete checkpoint of the job and the database it makes.
fn reference() -> &'static (Vec<u8>, Vec<u8>) {
    static REF: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    REF.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.ckpt");
        let mut job = job();
        let mut ckpt = Checkpoint::create(&path, FINGERPRINT).unwrap();
        while !job.is_done() {
            job.compute_next();
            ckpt.append(job.as_ref()).unwrap();
        }
        (std::fs::read(&path).unwrap(), job.to_bytes().unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn damaged_checkpoints(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..5),
        cut in prop_oneof![Just(0usize), any::<usize>()],
    ) {
        let (ckpt, database) = reference();
        let mut bytes = ckpt.clone();
        for (at, v) in edits {
            let at = at % bytes.len();
            bytes[at] = v;
        }
        bytes.truncate(bytes.len() - cut % (bytes.len() + 1));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.ckpt");
        std::fs::write(&path, &bytes).unwrap();
        let mut job = job();
        if Checkpoint::resume(&path, FINGERPRINT, job.as_mut()).is_ok() {
            job.compute_all();
            prop_assert_eq!(&job.to_bytes().unwrap(), database);
        }
    }
}
