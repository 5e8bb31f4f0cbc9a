//! One evaluation [`Scratch`] per worker thread, kept across parallel
//! jobs: an n-ply search's buffers and caches are made once per thread, not
//! once per position, and its caches keep their evaluations from one
//! position to the next ([`Scratch::keep_evaluations`]).

use nets::{Evaluator, Scratch};
use std::sync::Mutex;

/// Per-thread buffers for `eval`, for work spread over the current rayon
/// pool.
pub struct ScratchPool<'a> {
    eval: &'a Evaluator,
    slots: Vec<Mutex<Option<Scratch>>>,
}

impl<'a> ScratchPool<'a> {
    /// A pool for the threads of the current rayon pool (and the thread
    /// that calls from outside it).
    pub fn new(eval: &'a Evaluator) -> ScratchPool<'a> {
        let slots = (0..rayon::current_num_threads().max(1))
            .map(|_| Mutex::new(None))
            .collect();
        ScratchPool { eval, slots }
    }

    /// Runs `f` with this thread's buffers.
    pub fn with<R>(&self, f: impl FnOnce(&Evaluator, &mut Scratch) -> R) -> R {
        let i = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        // A thread holds its slot only while it runs `f`; the only other
        // user of a slot is a thread outside the pool (slot 0), which waits.
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        let scratch = slot.get_or_insert_with(|| {
            let mut scratch = self.eval.scratch();
            // The pool borrows its evaluator for as long as it lives, so
            // nothing can change the nets its scratches' caches hold the
            // values of: they may last across jobs.
            scratch.keep_evaluations();
            scratch
        });
        f(self.eval, scratch)
    }
}
