//! Per-thread state kept across parallel jobs: [`PerThread`] holds one
//! value for each thread of the current rayon pool, and [`ScratchPool`]
//! one evaluation [`Scratch`] per thread, so that an n-ply search's
//! buffers and caches are made once per thread, not once per position, and
//! its caches keep their evaluations from one position to the next
//! ([`Scratch::keep_evaluations`]).

use nets::{Evaluator, Scratch};
use std::sync::Mutex;

/// One `T` per thread of the current rayon pool (and one for a thread
/// outside it), made on first use and kept until the pool of values is
/// dropped.
pub struct PerThread<T> {
    slots: Vec<Mutex<Option<T>>>,
}

impl<T> PerThread<T> {
    /// Empty slots for the threads of the current rayon pool.
    pub fn new() -> PerThread<T> {
        let slots = (0..rayon::current_num_threads().max(1))
            .map(|_| Mutex::new(None))
            .collect();
        PerThread { slots }
    }

    /// Runs `f` with this thread's value, made by `init` if it has none.
    /// `f` holds the slot while it runs: it must not start parallel work
    /// that could call `with` on the same slots (the thread could wait on
    /// itself).
    pub fn with<R>(&self, init: impl FnOnce() -> T, f: impl FnOnce(&mut T) -> R) -> R {
        let i = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // A thread holds its slot only while it runs `f`; the only other
        // user of a slot is a thread outside the pool (slot 0), which waits.
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        f(slot.get_or_insert_with(init))
    }
}

impl<T> Default for PerThread<T> {
    fn default() -> Self {
        PerThread::new()
    }
}

/// Per-thread buffers for `eval`, for work spread over the current rayon
/// pool.
pub struct ScratchPool<'a> {
    eval: &'a Evaluator,
    slots: PerThread<Scratch>,
}

impl<'a> ScratchPool<'a> {
    /// A pool for the threads of the current rayon pool (and the thread
    /// that calls from outside it).
    pub fn new(eval: &'a Evaluator) -> ScratchPool<'a> {
        ScratchPool {
            eval,
            slots: PerThread::new(),
        }
    }

    /// Runs `f` with this thread's buffers.
    pub fn with<R>(&self, f: impl FnOnce(&Evaluator, &mut Scratch) -> R) -> R {
        let init = || {
            let mut scratch = self.eval.scratch();
            // The pool borrows its evaluator for as long as it lives, so
            // nothing can change the nets its scratches' caches hold the
            // values of: they may last across jobs.
            scratch.keep_evaluations();
            scratch
        };
        self.slots.with(init, |scratch| f(self.eval, scratch))
    }
}
