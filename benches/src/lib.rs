//! gnubg's `calibrate` benchmark, reproduced: batches of 1024 random
//! contact positions (15 chequers a side, none on the bar or off), built
//! outside the timed region, each given a full 0-ply evaluation (class,
//! inputs, net, race-backgammon override, sanity check); the figure is
//! evaluations per second of evaluation time. See docs/calibrate.md.
#![deny(missing_docs)]

use board::Board;
use nets::{Evaluator, Scratch};
use rand_mt::Mt;
use std::sync::Barrier;
use std::time::Instant;

/// Positions per batch, as gnubg.
pub const BATCH: usize = 1024;

/// A random position as gnubg's calibrate builds one: for each of the 15
/// chequers, the first side then the second draws a point (0–23 in its own
/// numbering) until the other side has no chequer on the opposing point.
pub fn random_board(rng: &mut Mt) -> Board {
    let mut b = Board::EMPTY;
    for _ in 0..15 {
        for side in 0..2 {
            let other = 1 - side;
            let k = loop {
                let k = (rng.next_u32() % 24) as usize;
                if b.sides[other][23 - k] == 0 {
                    break k;
                }
            };
            b.sides[side][k] += 1;
        }
    }
    b
}

/// Fills `batch` with fresh random positions.
pub fn fill_batch(rng: &mut Mt, batch: &mut [Board]) {
    for b in batch {
        *b = random_board(rng);
    }
}

/// How long a calibration runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Length {
    /// This many batches in total, counted across threads (as gnubg
    /// counts them: each round adds one per thread).
    Batches(u64),
    /// Rounds until this much evaluation time has been measured.
    Seconds(f64),
}

/// One thread's share of a calibration.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreadFigure {
    /// Positions it evaluated.
    pub evaluations: u64,
    /// Its own evaluation time.
    pub seconds: f64,
}

impl ThreadFigure {
    /// Its evaluations per second.
    pub fn rate(&self) -> f64 {
        self.evaluations as f64 / self.seconds.max(1e-12)
    }
}

/// The result of a calibration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibration {
    /// Positions evaluated, all threads.
    pub evaluations: u64,
    /// Batches evaluated, all threads.
    pub batches: u64,
    /// Wall time of the evaluation rounds (from all threads started to all
    /// finished, summed over rounds).
    pub seconds: f64,
    /// Per thread.
    pub threads: Vec<ThreadFigure>,
}

impl Calibration {
    /// Static evaluations per second: evaluations / timed wall seconds.
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.evaluations as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// How each batch is evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Procedure {
    /// One position after another through [`Evaluator::evaluate`], as
    /// gnubg's `calibrate` calls its evaluator.
    #[default]
    OneByOne,
    /// The whole batch through [`Evaluator::evaluate_many`], the path
    /// bgkit's move choices and rollouts take for a roll's candidates
    /// (the positions of one net evaluated together; the same outputs).
    Batched,
}

/// Evaluates `batch` as `procedure` says, returning a value that depends on
/// every evaluation (so none is optimized away).
pub fn evaluate_batch(
    evaluator: &Evaluator,
    procedure: Procedure,
    batch: &[Board],
    out: &mut Vec<nets::Evaluation>,
    scratch: &mut Scratch,
) -> f32 {
    match procedure {
        Procedure::OneByOne => batch
            .iter()
            .map(|b| evaluator.evaluate(b, scratch).outputs[0])
            .sum(),
        Procedure::Batched => {
            let blank = nets::Evaluation {
                class: nets::Class::Over,
                outputs: [0.0; 5],
            };
            out.resize(batch.len(), blank);
            evaluator.evaluate_many(batch, out, scratch);
            out.iter().map(|e| e.outputs[0]).sum()
        }
    }
}

/// Runs a calibration on `threads` threads, each with its own positions
/// (thread `t` draws from `Mt::new(seed + t)`); `progress` is called on the
/// first thread after every round with the result so far.
pub fn calibrate(
    evaluator: &Evaluator,
    procedure: Procedure,
    threads: usize,
    length: Length,
    seed: u32,
    progress: impl FnMut(&Calibration) + Send,
) -> Calibration {
    assert!(threads >= 1, "at least one thread");
    let rounds_for = |done: &Calibration| match length {
        Length::Batches(n) => done.batches < n,
        Length::Seconds(s) => done.seconds < s,
    };
    let start_barrier = Barrier::new(threads);
    let end_barrier = Barrier::new(threads);
    let mut result = Calibration {
        threads: vec![ThreadFigure::default(); threads],
        ..Calibration::default()
    };
    let go = std::sync::atomic::AtomicBool::new(rounds_for(&result));
    let shared = std::sync::Mutex::new(&mut result);
    let mut progress = Some(progress);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (start_barrier, end_barrier, go, shared) =
                (&start_barrier, &end_barrier, &go, &shared);
            let mut progress = if t == 0 { progress.take() } else { None };
            scope.spawn(move || {
                let mut rng = Mt::new(seed.wrapping_add(t as u32));
                let mut batch = vec![Board::EMPTY; BATCH];
                let mut scratch: Scratch = evaluator.scratch();
                let mut sink = 0f32;
                let mut out = Vec::new();
                while go.load(std::sync::atomic::Ordering::SeqCst) {
                    fill_batch(&mut rng, &mut batch);
                    start_barrier.wait();
                    let round_start = Instant::now();
                    sink += evaluate_batch(evaluator, procedure, &batch, &mut out, &mut scratch);
                    let own = round_start.elapsed();
                    end_barrier.wait();
                    let wall = round_start.elapsed();
                    let mut r = shared.lock().expect("no thread panicked");
                    let mine = &mut r.threads[t];
                    mine.evaluations += BATCH as u64;
                    mine.seconds += own.as_secs_f64();
                    if t == 0 {
                        r.evaluations += (BATCH * threads) as u64;
                        r.batches += threads as u64;
                        r.seconds += wall.as_secs_f64();
                        if let Some(p) = progress.as_mut() {
                            p(&r);
                        }
                        go.store(rounds_for(&r), std::sync::atomic::Ordering::SeqCst);
                    }
                    drop(r);
                    // Everyone sees thread 0's decision before the next round.
                    start_barrier.wait();
                }
                std::hint::black_box(sink);
            });
        }
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both procedures give every position of a batch the same outputs,
    /// bit for bit, on a fresh evaluator each (no cache shared).
    #[test]
    fn both_procedures_evaluate_alike() {
        // gnubg's weights and databases, which the test script installs.
        let need = "is needed: apt-get install -y gnubg";
        let path = "/usr/lib/gnubg/gnubg.wd";
        let nets = nets::weights::load(std::path::Path::new(path))
            .unwrap_or_else(|e| panic!("{path} {need} ({e})"));
        let bearoff = nets::BearoffDatabases::open(&[
            "/usr/share/gnubg/gnubg_os0.bd",
            "/var/lib/gnubg/gnubg_ts0.bd",
        ])
        .unwrap_or_else(|e| panic!("gnubg's bearoff databases {need} ({e})"));
        let evaluator =
            nets::Evaluator::new(nets, bearoff, nets::Arithmetic::GnubgFastMath).unwrap();
        let mut rng = Mt::new(3);
        let mut batch = vec![Board::EMPTY; BATCH];
        fill_batch(&mut rng, &mut batch);
        // Random boards are contact positions; add a race and a bearoff.
        let mut race = Board::EMPTY;
        let mut bearoff = Board::EMPTY;
        for side in 0..2 {
            race.sides[side][6..11].copy_from_slice(&[3; 5]);
            bearoff.sides[side][..3].copy_from_slice(&[1; 3]);
        }
        batch[10] = race;
        batch[20] = bearoff;
        let mut one = Vec::new();
        let mut scratch = evaluator.scratch();
        for b in &batch {
            one.push(evaluator.evaluate(b, &mut scratch));
        }
        let mut many = Vec::new();
        let mut scratch = evaluator.scratch();
        evaluate_batch(
            &evaluator,
            Procedure::Batched,
            &batch,
            &mut many,
            &mut scratch,
        );
        let classes: std::collections::HashSet<_> = one.iter().map(|e| e.class).collect();
        assert!(
            classes.len() >= 3,
            "the batch holds several classes: {classes:?}"
        );
        for (a, b) in one.iter().zip(&many) {
            assert_eq!(a.class, b.class);
            assert_eq!(a.outputs.map(f32::to_bits), b.outputs.map(f32::to_bits));
        }
    }

    #[test]
    fn random_boards_are_legal_contact_positions() {
        let mut rng = Mt::new(1);
        for _ in 0..2000 {
            let b = random_board(&mut rng);
            assert_eq!(b.chequers(0), 15);
            assert_eq!(b.chequers(1), 15);
            assert_eq!(b.sides[0][24] + b.sides[1][24], 0, "nothing on the bar");
            for k in 0..24 {
                assert!(b.sides[0][k] == 0 || b.sides[1][23 - k] == 0, "{k} shared");
            }
        }
        let again: Vec<Board> = {
            let mut rng = Mt::new(1);
            (0..3).map(|_| random_board(&mut rng)).collect()
        };
        let mut rng = Mt::new(1);
        assert_eq!(
            again,
            (0..3).map(|_| random_board(&mut rng)).collect::<Vec<_>>()
        );
    }
}
