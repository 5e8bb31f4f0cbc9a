//! A barrier for a team of threads that meet often: a minibatch epoch's
//! threads meet twice a batch, thousands of times an epoch. Waiting
//! threads spin rather than sleep: waking a sleeping thread cost tens of
//! microseconds a phase on the virtual machines bgkit was measured on
//! (docs/performance.md), a fifth of a batch's work. `std::sync::Barrier`
//! sleeps, and `spin::Barrier` neither yields to other work nor lets the
//! other threads go when one of them panics, so this one does both.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Spins before a waiting thread starts offering its core to other work
/// between its checks (a spin is one `pause`: from a few to about 140
/// cycles by CPU, so this is some microseconds to 50). It still checks in
/// between, so it wakes as soon as it sees the others, and a team with
/// more threads than cores still moves on.
const SPINS: u32 = 1 << 10;

/// A reusable barrier for `threads` threads that spin while they wait.
/// Everything a thread did before [`SpinBarrier::wait`] happens before
/// what every thread does after it.
pub struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `threads` threads (at least one).
    pub fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads: threads.max(1),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Waits until every thread of the team has called `wait` as many times
    /// as this one.
    ///
    /// # Panics
    /// If a thread of the team panicked ([`SpinBarrier::guard`]): the others
    /// would wait for it forever.
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            // The last to arrive: no thread can arrive at the next barrier
            // before it sees the new generation, stored after the reset.
            self.arrived.store(0, Ordering::Relaxed);
            self.generation
                .store(generation.wrapping_add(1), Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            assert!(
                !self.poisoned.load(Ordering::Relaxed),
                "another thread of the team panicked"
            );
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// A guard for a thread of the team: if the thread panics while it
    /// holds it, the threads waiting at the barrier panic too instead of
    /// waiting forever.
    pub fn guard(&self) -> PanicGuard<'_> {
        PanicGuard { barrier: self }
    }
}

/// Poisons its barrier if dropped while its thread panics
/// ([`SpinBarrier::guard`]).
pub struct PanicGuard<'a> {
    barrier: &'a SpinBarrier,
}

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.barrier.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Every thread sees every other thread's writes of a round after the
    /// barrier: each round, each thread adds to its own counter, meets the
    /// others, checks that all counters reached the round, and meets them
    /// again before the next round.
    #[test]
    fn a_round_ends_only_when_every_thread_has_done_it() {
        for threads in [1, 2, 3, 4] {
            let barrier = SpinBarrier::new(threads);
            let counts: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
            std::thread::scope(|s| {
                for me in 0..threads {
                    let (barrier, counts) = (&barrier, &counts);
                    s.spawn(move || {
                        for round in 1..=2000u64 {
                            counts[me].fetch_add(1, Ordering::Relaxed);
                            barrier.wait();
                            for c in counts {
                                assert_eq!(c.load(Ordering::Relaxed), round);
                            }
                            barrier.wait();
                        }
                    });
                }
            });
        }
    }

    /// A thread that panics lets the others go: they panic at the barrier
    /// instead of waiting forever.
    #[test]
    fn a_panicking_thread_releases_the_others() {
        let barrier = SpinBarrier::new(2);
        let results: Vec<bool> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|me| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let _guard = barrier.guard();
                        barrier.wait();
                        if me == 0 {
                            panic!("a chunk failed");
                        }
                        barrier.wait();
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().is_err()).collect()
        });
        assert_eq!(results, [true, true], "both threads stopped");
    }
}
