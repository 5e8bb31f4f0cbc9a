//! Generated databases against the MD5s published in gnubg's manual.

use databases::published::published_md5;
use makebearoff::{one_sided_job, OneSidedOptions, TwoSidedJob, TwoSidedOptions};
use support::digest::md5_hex;
use support::Job;

fn md5_of(mut job: impl Job) -> String {
    job.compute_all();
    let bytes = job.to_bytes().unwrap();
    assert_eq!(bytes.len() as u64, job.output_len());
    md5_hex(&bytes[..]).unwrap()
}

#[test]
fn one_sided_1_to_8_points_match_published_md5() {
    for points in 1..=8 {
        let opts = OneSidedOptions {
            points,
            gammons: true,
            compressed: true,
            normal: false,
            header: true,
        };
        let md5 = md5_of(one_sided_job(opts, None));
        assert_eq!(
            Some(md5.as_str()),
            published_md5(opts.kind()),
            "{points} points"
        );
    }
}

#[test]
fn two_sided_6x1_to_6x6_match_published_md5() {
    for chequers in 1..=6 {
        let opts = TwoSidedOptions {
            points: 6,
            chequers,
            cubeful: true,
            header: true,
        };
        let md5 = md5_of(TwoSidedJob::new(opts, None));
        assert_eq!(
            Some(md5.as_str()),
            published_md5(opts.kind()),
            "6x{chequers}"
        );
    }
}
