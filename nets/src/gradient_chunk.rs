//! The samples of a run of a minibatch whose gradients are summed together
//! ([`GradientChunk`]), and Adam's step along the sum of several such runs
//! ([`Adam::step_chunks`]), with the bits of adding each sample's gradient
//! as it comes ([`crate::accumulate_gradient`]) into one gradient a chunk
//! and stepping along their sum ([`Adam::step_sum`]).
//!
//! One sample's gradient adds `step · x_i` to the hidden-weight row of each
//! of its non-zero inputs: for a net of 512 hidden units about seventy rows
//! of 2 KB, in a gradient of 512 KB that does not stay in a core's L2
//! cache. A chunk keeps each sample's hidden steps, activations and output
//! deltas instead. The step then sums every element's gradient in
//! registers, chunk by chunk, samples in order, and applies it at once:
//! no gradient is ever stored. Its work is split by hidden units over the
//! threads (each runs the same per-element arithmetic), so every
//! element's weight and moments stay with one thread, and the bits do not
//! depend on the number of threads.

use crate::aligned::PER_LINE;
use crate::arith::Arithmetic;
use crate::classify::Class;
use crate::evaluate::{Evaluator, Scratch};
use crate::forward::Simd;
use crate::net::{Net, NetKind};
use crate::optimizer::{Adam, AdamStep};
use crate::train::{backprop, nonzero_inputs, with_widest, TrainScratch};
use board::{Board, Probabilities, NUM_OUTPUTS};
use std::ops::Range;

/// Hidden units whose gradient sums stay in registers together.
const BLOCK: usize = 64;

/// The samples of a gradient not yet summed ([`Adam::step_chunks`]).
#[derive(Clone, Debug, Default)]
pub struct GradientChunk {
    /// Hidden units of the net the samples came from.
    hidden: usize,
    /// Each sample's hidden activations, a row of [`row_stride`] values a
    /// sample (`hidden` of them, then zeros), from `row_start`.
    activations: Vec<f32>,
    /// Each sample's hidden steps (δh), laid out as `activations`.
    steps: Vec<f32>,
    /// Where the rows start in `activations` and `steps`: the first cache
    /// line boundary of each when its first row was written, so that a
    /// thread stepping a run of units reads whole lines of every row.
    row_start: [usize; 2],
    /// Each output's terms (sample, δo), samples in order.
    output_terms: [Vec<(u32, f32)>; NUM_OUTPUTS],
    /// The hidden thresholds' terms (sample, 1), samples in order.
    ones: Vec<(u32, f32)>,
    /// Each sample's non-zero inputs (input, value), in input order,
    /// sample after sample.
    nonzero: Vec<(u16, f32)>,
    /// Where each sample's non-zero inputs end in `nonzero`.
    ends: Vec<u32>,
    /// Where each input's terms start in `by_input` (one more entry than
    /// inputs), once indexed.
    starts: Vec<u32>,
    /// Scratch of the indexing: the next free place of each input's terms.
    next: Vec<u32>,
    /// The terms (sample, value) of each input, input after input, samples
    /// in order, once indexed.
    by_input: Vec<(u32, f32)>,
    /// Inputs the chunk is indexed for ([`GradientChunk::index`]); `None`
    /// after every push.
    indexed: Option<usize>,
}

impl GradientChunk {
    /// An empty chunk.
    pub fn new() -> GradientChunk {
        GradientChunk::default()
    }

    /// Samples collected.
    pub fn len(&self) -> usize {
        self.ones.len()
    }

    /// True if no sample waits.
    pub fn is_empty(&self) -> bool {
        self.ones.is_empty()
    }

    /// [`crate::accumulate_gradient`] deferred: computes the sample's
    /// forward pass and deltas now and keeps them for
    /// [`Adam::step_chunks`]. Returns the outputs.
    ///
    /// # Panics
    /// If `net` has another number of hidden units than the samples
    /// already collected.
    pub fn push(
        &mut self,
        net: &Net,
        x: &[f32],
        target: &Probabilities,
        arith: Arithmetic,
        simd: Simd,
        scratch: &mut TrainScratch,
    ) -> Probabilities {
        let (y, delta_o) = backprop(net, x, target, 1.0, arith, simd, scratch);
        let n = net.hidden();
        if self.is_empty() {
            self.hidden = n;
            self.row_start = [
                start_on_a_line(&mut self.activations, n),
                start_on_a_line(&mut self.steps, n),
            ];
        }
        assert_eq!(n, self.hidden, "samples of nets of different sizes");
        let (h, step) = scratch.activations_and_steps();
        let padding = row_stride(n) - n;
        for (rows, values) in [
            (&mut self.activations, &h[..n]),
            (&mut self.steps, &step[..n]),
        ] {
            rows.extend_from_slice(values);
            rows.resize(rows.len() + padding, 0.0);
        }
        let sample = self.ones.len() as u32;
        for (terms, &d) in self.output_terms.iter_mut().zip(&delta_o) {
            terms.push((sample, d));
        }
        self.ones.push((sample, 1.0));
        assert!(x.len() <= usize::from(u16::MAX), "at most 65,535 inputs");
        // Every index is below `x.len()`, so it fits in 16 bits.
        self.nonzero
            .extend(nonzero_inputs(x).map(|i| (i as u16, x[i])));
        self.ends.push(self.nonzero.len() as u32);
        self.indexed = None;
        y
    }

    /// Forgets the collected samples.
    pub fn clear(&mut self) {
        self.activations.clear();
        self.steps.clear();
        self.row_start = [0, 0];
        for terms in &mut self.output_terms {
            terms.clear();
        }
        self.ones.clear();
        self.nonzero.clear();
        self.ends.clear();
        self.indexed = None;
    }

    /// Sorts the samples' terms by input for a net of `inputs` inputs (a
    /// counting sort, stable, so each input's terms keep the samples'
    /// order): needed once after the last push, before a step reads the
    /// chunk.
    ///
    /// # Panics
    /// If a sample has a non-zero input at or past `inputs`.
    pub fn index(&mut self, inputs: usize) {
        self.starts.clear();
        self.starts.resize(inputs + 1, 0);
        for &(i, _) in &self.nonzero {
            assert!(
                usize::from(i) < inputs,
                "a sample longer than the net's inputs"
            );
            self.starts[usize::from(i) + 1] += 1;
        }
        for i in 0..inputs {
            self.starts[i + 1] += self.starts[i];
        }
        self.next.clear();
        self.next.extend_from_slice(&self.starts);
        self.by_input.clear();
        self.by_input.resize(self.nonzero.len(), (0, 0.0));
        let mut from = 0;
        for (sample, &end) in self.ends.iter().enumerate() {
            for &(i, xi) in &self.nonzero[from..end as usize] {
                let at = &mut self.next[usize::from(i)];
                self.by_input[*at as usize] = (sample as u32, xi);
                *at += 1;
            }
            from = end as usize;
        }
        self.indexed = Some(inputs);
    }

    /// Each sample's hidden steps (δh), a row of [`row_stride`] values a
    /// sample.
    fn steps(&self) -> &[f32] {
        &self.steps[self.row_start[1]..]
    }

    /// Each sample's hidden activations, laid out as the steps.
    fn activations(&self) -> &[f32] {
        &self.activations[self.row_start[0]..]
    }

    /// Input `i`'s terms (sample, value), samples in order.
    fn terms(&self, i: usize) -> &[(u32, f32)] {
        &self.by_input[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// Floats from one sample's row of a chunk to the next for a net of
/// `hidden` units: whole cache lines.
fn row_stride(hidden: usize) -> usize {
    hidden.next_multiple_of(PER_LINE)
}

/// Samples a chunk makes room for when its first sample comes (the
/// trainer's chunks hold 64); more samples may move its rows, which stay
/// correct but may no longer start on a cache line.
const ROOM_SAMPLES: usize = 64;

/// Empties `rows`, makes room for [`ROOM_SAMPLES`] rows of `hidden` units
/// and returns the index of the first float on a cache line, zeros up to
/// it.
fn start_on_a_line(rows: &mut Vec<f32>, hidden: usize) -> usize {
    rows.clear();
    rows.reserve(ROOM_SAMPLES * row_stride(hidden) + PER_LINE);
    let start = crate::aligned::floats_to_a_line(rows.as_ptr());
    rows.resize(start, 0.0);
    start
}

/// The runs of units the threads own: one per thread, each a whole number
/// of cache lines ([`PER_LINE`] floats) but the last.
fn unit_ranges(hidden: usize, threads: usize) -> Vec<Range<usize>> {
    let per = hidden
        .div_ceil(threads.max(1))
        .next_multiple_of(PER_LINE)
        .max(PER_LINE);
    let mut ranges: Vec<Range<usize>> = (0..hidden)
        .step_by(per)
        .map(|s| s..(s + per).min(hidden))
        .collect();
    if ranges.is_empty() {
        ranges.push(0..0);
    }
    ranges
}

/// One run of units' share of a part of the parameters: the same pieces of
/// the weights and of both moments.
struct Share<'a> {
    w: Vec<&'a mut [f32]>,
    m: Vec<&'a mut [f32]>,
    v: Vec<&'a mut [f32]>,
}

/// One batch's step settings: Adam's constants for its step number and the
/// weight decay's factor ([`Adam::plan_step`]).
#[derive(Clone, Copy, Debug)]
pub struct PlannedStep {
    step: AdamStep,
    shrink: Option<f32>,
}

impl Adam {
    /// Counts one more step, along the gradient of `samples` samples with
    /// learning rate `rate` and weight decay `decay` ([`Adam::step`]'s),
    /// and returns its settings for [`TeamStep::step_part`]: a team plans
    /// the steps of its batches, in order, before it runs them.
    pub fn plan_step(&mut self, samples: usize, rate: f32, decay: f32) -> PlannedStep {
        PlannedStep {
            step: self.next_step(samples, rate),
            shrink: (decay != 0.0).then_some(1.0 - rate * decay),
        }
    }

    /// [`Adam::step_sum`] along the gradients of `chunks` (each
    /// [`GradientChunk::index`]ed for `net`), each chunk's the sum of its
    /// samples' in order: the bits of [`crate::accumulate_gradient`] into
    /// one gradient a chunk and [`Adam::step_sum`] along them, on any number
    /// of threads. The work is split by hidden units over the threads of
    /// the current rayon pool. `samples` counts the batch's positions (the
    /// gradient's mean divides by it); `decay` is [`Adam::step`]'s. Leaves
    /// the net's blocked copy stale.
    ///
    /// # Panics
    /// If a chunk is not indexed for the net, or the net has other than
    /// five outputs.
    pub fn step_chunks(
        &mut self,
        net: &mut Net,
        chunks: &[GradientChunk],
        samples: usize,
        rate: f32,
        decay: f32,
        simd: Simd,
    ) {
        use rayon::prelude::*;
        let team = TeamStep::new(net, self, rayon::current_num_threads());
        let planned = self.plan_step(samples, rate, decay);
        let chunks: Vec<&GradientChunk> = chunks.iter().collect();
        (0..team.parts()).into_par_iter().for_each(|part| {
            // SAFETY: `net` and `self` stay borrowed for this call, so
            // nothing else reaches their parameters or moments (unmoved
            // since `TeamStep::new`); each part is stepped by one task,
            // and the tasks end before the call returns.
            #[allow(unsafe_code)]
            unsafe {
                team.step_part(part, &chunks, &planned, simd)
            }
        });
    }
}

/// [`TeamStep::new`]'s checks: a net of five outputs and moments of its
/// size.
fn check_step(net: &Net, adam: &Adam) {
    assert_eq!(net.outputs(), NUM_OUTPUTS, "a net of five outputs");
    assert_eq!(
        adam.first.len(),
        net.shape().values(),
        "moments of another net"
    );
    assert_eq!(
        adam.second.len(),
        adam.first.len(),
        "moments of another net"
    );
}

/// Panics unless `chunk` is indexed for a net of `inputs` inputs and
/// `hidden` units (or empty).
fn check_chunk(inputs: usize, hidden: usize, chunk: &GradientChunk) {
    assert_eq!(
        chunk.indexed,
        Some(inputs),
        "a chunk not indexed for this net"
    );
    assert!(
        chunk.is_empty() || chunk.hidden == hidden,
        "a chunk of another net"
    );
}

/// A net's parameters and Adam's moments for a team of threads that runs
/// a minibatch epoch in two phases a batch, each ended by a barrier: every
/// thread reads the whole net (the forward and backward passes of its
/// chunks), then each thread steps its own run of hidden units
/// ([`TeamStep::step_part`], the work [`Adam::step_chunks`] splits the
/// same way). A run of units always belongs to the same thread, so its
/// weights and moments stay in that core's caches, and the threads wait
/// for each other only at the barriers. It holds the parameters' addresses,
/// not a borrow, since the net is read between the steps: the caller
/// keeps the net and the optimizer alive and unchanged in shape while the
/// team runs (see [`TeamStep::step_part`]).
pub struct TeamStep {
    hidden_weights: *mut f32,
    output_weights: *mut f32,
    hidden_thresholds: *mut f32,
    output_thresholds: *mut f32,
    first: *mut f32,
    second: *mut f32,
    inputs: usize,
    hidden: usize,
    ranges: Vec<Range<usize>>,
}

// SAFETY: `TeamStep` is a set of addresses; every access through them is
// in `step_part`, whose contract gives each thread its own disjoint part
// and separates the parts' writes from every other access.
#[allow(unsafe_code)]
unsafe impl Send for TeamStep {}
// SAFETY: as for `Send`.
#[allow(unsafe_code)]
unsafe impl Sync for TeamStep {}

impl TeamStep {
    /// The step of `net` with `adam`'s moments split into `parts` runs of
    /// units (fewer if the net has few units: [`TeamStep::parts`]). Marks
    /// the net's blocked copy stale: call [`Net::refresh_blocked`] after
    /// the team.
    ///
    /// # Panics
    /// If the net has other than five outputs or the moments are another
    /// net's.
    pub fn new(net: &mut Net, adam: &mut Adam, parts: usize) -> TeamStep {
        check_step(net, adam);
        let (inputs, hidden) = (net.inputs(), net.hidden());
        let p = net.parameters_mut();
        let team = TeamStep {
            hidden_weights: p.hidden_weights.as_mut_ptr(),
            output_weights: p.output_weights.as_mut_ptr(),
            hidden_thresholds: p.hidden_thresholds.as_mut_ptr(),
            output_thresholds: p.output_thresholds.as_mut_ptr(),
            first: adam.first.as_mut_ptr(),
            second: adam.second.as_mut_ptr(),
            inputs,
            hidden,
            ranges: unit_ranges(hidden, parts),
        };
        net.mark_blocked_stale();
        team
    }

    /// The runs of units, one a thread (part `0..parts()`); a thread with
    /// no part has nothing to step.
    pub fn parts(&self) -> usize {
        self.ranges.len()
    }

    /// Part `part`'s share of a step along the gradients of `chunks` with
    /// the settings `planned`: exactly the arithmetic [`Adam::step_chunks`]
    /// does for these units. Does nothing if `part` is not below
    /// [`TeamStep::parts`].
    ///
    /// # Panics
    /// If a chunk is not indexed for the net, or `simd` is a level this CPU
    /// cannot run.
    ///
    /// # Safety
    /// The net and the optimizer given to [`TeamStep::new`] are alive, and
    /// none of their parameter or moment arrays was resized or reallocated
    /// since. While the call runs, nothing else reads or writes this part's
    /// units (their columns of the weights and thresholds, with their
    /// moments; part 0 also the output thresholds and theirs): no other
    /// call for the same part, and no reference to the net's parameters or
    /// to the moments is in use elsewhere. Calls for different parts may
    /// run at once. Every access before and after the call is ordered with
    /// it (for example by a barrier with acquire and release ordering).
    #[allow(unsafe_code)]
    pub unsafe fn step_part(
        &self,
        part: usize,
        chunks: &[&GradientChunk],
        planned: &PlannedStep,
        simd: Simd,
    ) {
        let Some(range) = self.ranges.get(part).cloned() else {
            return;
        };
        for chunk in chunks {
            check_chunk(self.inputs, self.hidden, chunk);
        }
        assert!(simd.is_available(), "this CPU cannot run {simd:?}");
        let (inputs, n) = (self.inputs, self.hidden);
        // The moments hold the hidden weights, the output weights, the
        // hidden thresholds and the output thresholds, in that order.
        let (m_output, m_thresholds, m_out) = (
            inputs * n,
            (inputs + NUM_OUTPUTS) * n,
            (inputs + NUM_OUTPUTS + 1) * n,
        );
        // SAFETY: each piece lies inside its array (`rows` rows of `n`
        // from the array's start, `range` within `0..n`), the arrays are
        // alive and unmoved, and this part's pieces are touched by nothing
        // else while the call runs (the caller's contract); pieces of
        // different parts are disjoint, since the runs are.
        let piece = |base: *mut f32, rows: usize| -> Vec<&mut [f32]> {
            (0..rows)
                .map(|r| unsafe {
                    std::slice::from_raw_parts_mut(base.add(r * n + range.start), range.len())
                })
                .collect()
        };
        let share = |w: *mut f32, offset: usize, rows: usize| Share {
            w: piece(w, rows),
            // SAFETY: `offset` is where this array's moments start, inside
            // the moments (`check_step` in `new` matched their length).
            m: piece(unsafe { self.first.add(offset) }, rows),
            v: piece(unsafe { self.second.add(offset) }, rows),
        };
        let out_thresholds = (part == 0).then(|| {
            // SAFETY: the five output thresholds and their moments, which
            // only part 0 touches.
            unsafe {
                (
                    std::slice::from_raw_parts_mut(self.output_thresholds, NUM_OUTPUTS),
                    std::slice::from_raw_parts_mut(self.first.add(m_out), NUM_OUTPUTS),
                    std::slice::from_raw_parts_mut(self.second.add(m_out), NUM_OUTPUTS),
                )
            }
        });
        let (hidden, output, thresholds) = (
            share(self.hidden_weights, 0, inputs),
            share(self.output_weights, m_output, NUM_OUTPUTS),
            share(self.hidden_thresholds, m_thresholds, 1),
        );
        let context = Context {
            chunks,
            stride: row_stride(n),
            step: planned.step,
            shrink: planned.shrink,
        };
        let first = range.start;
        with_widest(
            simd,
            #[inline(always)]
            || {
                let (steps, activations) = (GradientChunk::steps, GradientChunk::activations);
                context.update_rows(first, hidden, |i, c| c.terms(i), steps, true);
                context.update_rows(first, output, |k, c| &c.output_terms[k], activations, true);
                context.update_rows(first, thresholds, |_, c| &c.ones, steps, false);
                if let Some(share) = out_thresholds {
                    context.update_output_thresholds(share);
                }
            },
        )
    }
}

/// What every run of units reads in the step.
struct Context<'a> {
    chunks: &'a [&'a GradientChunk],
    /// Floats from a sample's row to the next ([`row_stride`]).
    stride: usize,
    step: AdamStep,
    /// Weight decay's factor, if any.
    shrink: Option<f32>,
}

impl Context<'_> {
    /// The block of `len` parameters from `start` of `w` (moments `m`, `v`)
    /// moved along gradient sums `g`, after weight decay if `decays`.
    #[inline(always)]
    fn apply(
        &self,
        (w, m, v): (&mut [f32], &mut [f32], &mut [f32]),
        g: &[f32; BLOCK],
        start: usize,
        len: usize,
        decays: bool,
    ) {
        let shrink = if decays { self.shrink } else { None };
        if len == BLOCK {
            let (w, m, v) = (
                whole_block(w, start),
                whole_block(m, start),
                whole_block(v, start),
            );
            if let Some(shrink) = shrink {
                for w in w.iter_mut() {
                    *w *= shrink;
                }
            }
            for l in 0..BLOCK {
                self.step.apply(&mut w[l], &mut m[l], &mut v[l], g[l]);
            }
        } else {
            let end = start + len;
            let (w, m, v) = (&mut w[start..end], &mut m[start..end], &mut v[start..end]);
            for (((w, m), v), &g) in w.iter_mut().zip(m).zip(v).zip(g) {
                if let Some(shrink) = shrink {
                    *w *= shrink;
                }
                self.step.apply(w, m, v, g);
            }
        }
    }

    /// The gradient sums of the `len` (at most [`BLOCK`]) elements from
    /// unit `start` of a block: element `l` sums `rows(c)[s·stride + start
    /// + l]·coefficient` over each chunk's terms `(s, coefficient)`
    /// (`terms(c)`) from 0, then the chunks' sums in order.
    #[inline(always)]
    fn gradient<'t>(
        &self,
        terms: impl Fn(&'t GradientChunk) -> &'t [(u32, f32)],
        rows: impl Fn(&'t GradientChunk) -> &'t [f32],
        start: usize,
        len: usize,
    ) -> [f32; BLOCK]
    where
        Self: 't,
    {
        let mut g = [0f32; BLOCK];
        for (c, chunk) in self.chunks.iter().enumerate() {
            let mut part = [0f32; BLOCK];
            let (terms, rows) = (terms(chunk), rows(chunk));
            if len == BLOCK {
                block_sums(&mut part, rows, self.stride, start, terms);
            } else {
                tail_sums(&mut part, rows, self.stride, start, len, terms);
            }
            if c == 0 {
                g = part;
            } else {
                for l in 0..BLOCK {
                    g[l] += part[l];
                }
            }
        }
        g
    }

    /// A run's share of a part of the parameters (units from `first`), row
    /// after row within each block of units (the samples' rows of one block
    /// stay in L1): element `(r, j)`'s gradient sums `rows(c)[s][j]·x` over
    /// the terms `(s, x)` of `terms(r, c)` of each chunk `c`, in registers,
    /// and is applied at once (after weight decay if `decays`). The hidden
    /// weights sum `δh·x` over the samples whose input `r` is not 0, the
    /// output weights `δo[r]·h`, the hidden thresholds `δh·1`.
    #[inline(always)]
    fn update_rows<'t>(
        &'t self,
        first: usize,
        share: Share<'_>,
        terms: impl Fn(usize, &'t GradientChunk) -> &'t [(u32, f32)],
        rows: impl Fn(&'t GradientChunk) -> &'t [f32],
        decays: bool,
    ) {
        let Share {
            mut w,
            mut m,
            mut v,
        } = share;
        let width = w.first().map_or(0, |r| r.len());
        for (start, len) in blocks(width) {
            for r in 0..w.len() {
                // The weights two rows on, which the other threads have
                // read since this one last stepped them: fetched for
                // writing while this row's gradient is summed.
                if let Some(ahead) = w.get(r + 2) {
                    support::prefetch::prefetch_write_slice(&ahead[start..start + len]);
                }
                let (w, m, v) = (&mut *w[r], &mut *m[r], &mut *v[r]);
                let g = self.gradient(|c| terms(r, c), &rows, first + start, len);
                self.apply((w, m, v), &g, start, len, decays);
            }
        }
    }

    /// The output thresholds: each sums its output's deltas.
    fn update_output_thresholds(&self, (w, m, v): (&mut [f32], &mut [f32], &mut [f32])) {
        let mut g = [0f32; BLOCK];
        for (k, g) in g.iter_mut().enumerate().take(NUM_OUTPUTS) {
            for (c, chunk) in self.chunks.iter().enumerate() {
                let mut partial = 0f32;
                for &(_, delta) in &chunk.output_terms[k] {
                    partial += delta;
                }
                *g = if c == 0 { partial } else { *g + partial };
            }
        }
        self.apply((w, m, v), &g, 0, NUM_OUTPUTS, false);
    }
}

/// The [`BLOCK`] elements of `x` from `start`.
#[inline(always)]
fn whole_block(x: &mut [f32], start: usize) -> &mut [f32; BLOCK] {
    (&mut x[start..start + BLOCK])
        .try_into()
        .expect("a whole block")
}

/// `sums[l] += rows[s·stride + start + l]·c` over the terms `(s, c)` in
/// order, for the [`BLOCK`] elements `l` of a whole block.
#[inline(always)]
fn block_sums(
    sums: &mut [f32; BLOCK],
    rows: &[f32],
    stride: usize,
    start: usize,
    terms: &[(u32, f32)],
) {
    let mut acc = *sums;
    for &(s, c) in terms {
        let at = s as usize * stride + start;
        let r: &[f32; BLOCK] = rows[at..at + BLOCK].try_into().expect("a whole block");
        for (a, &r) in acc.iter_mut().zip(r) {
            *a += r * c;
        }
    }
    *sums = acc;
}

/// [`block_sums`] for the first `len` elements of a block.
#[inline(always)]
fn tail_sums(
    sums: &mut [f32; BLOCK],
    rows: &[f32],
    stride: usize,
    start: usize,
    len: usize,
    terms: &[(u32, f32)],
) {
    for &(s, c) in terms {
        let at = s as usize * stride + start;
        for (a, &r) in sums.iter_mut().zip(&rows[at..at + len]) {
            *a += r * c;
        }
    }
}

/// The blocks `(start, len)` of a run of `width` units: whole blocks of
/// [`BLOCK`], then the rest.
fn blocks(width: usize) -> impl Iterator<Item = (usize, usize)> {
    let whole = width - width % BLOCK;
    (0..whole)
        .step_by(BLOCK)
        .map(|s| (s, BLOCK))
        .chain((whole < width).then_some((whole, width - whole)))
}

impl Evaluator {
    /// [`Evaluator::train`]'s step as a gradient, deferred: keeps in
    /// `chunk` the negative gradient for `board` towards the
    /// sanity-checked `target` ([`GradientChunk::push`]), leaving the nets
    /// as they are; [`Adam::step_chunks`] steps along the chunks' sum.
    pub fn push_gradient(
        &self,
        board: &Board,
        class: Class,
        target: &Probabilities,
        scratch: &mut Scratch,
        train: &mut TrainScratch,
        chunk: &mut GradientChunk,
    ) -> Option<NetKind> {
        let kind = self.inputs(board, class, &mut scratch.net.inputs)?;
        self.push_gradient_of(board, kind, &scratch.net.inputs, target, train, chunk);
        Some(kind)
    }

    /// [`Evaluator::push_gradient`] with `board`'s input vector for net
    /// `kind` given (as [`Evaluator::inputs`] writes it; a trainer that
    /// keeps them saves computing them every epoch).
    pub fn push_gradient_of(
        &self,
        board: &Board,
        kind: NetKind,
        inputs: &[f32],
        target: &Probabilities,
        train: &mut TrainScratch,
        chunk: &mut GradientChunk,
    ) {
        let t = self.sane_target(board, target);
        let net = self.nets.get(kind);
        chunk.push(
            net,
            &inputs[..net.inputs()],
            &t,
            self.arithmetic(),
            self.simd(),
            train,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::Gradient;
    use crate::train::{accumulate_gradient, Loss};

    /// A net of `inputs`-`hidden`-5 with seeded random weights.
    fn net(inputs: usize, hidden: usize) -> Net {
        crate::test_rng::random_net(inputs, hidden, 0x5851_F42D_4C95_7F2D + hidden as u64)
    }

    /// Samples: input vectors and targets.
    type Samples = Vec<(Vec<f32>, Probabilities)>;

    /// Sparse inputs like gnubg's (mostly 0, many 1, some fractions) and
    /// targets, seeded.
    fn samples(inputs: usize, count: usize, seed: u64) -> Samples {
        let mut random = crate::test_rng::xorshift(seed);
        let mut unit = move || (random() % 1_000_000) as f32 / 1_000_000.0;
        (0..count)
            .map(|_| {
                let x = (0..inputs)
                    .map(|_| match (unit() * 10.0) as u32 {
                        0..=5 => 0.0,
                        6 | 7 => 1.0,
                        8 => 0.5,
                        _ => unit() * 3.0 - 1.0,
                    })
                    .collect();
                (x, std::array::from_fn(|_| unit()))
            })
            .collect()
    }

    fn bits(net: &Net, adam: &Adam) -> Vec<u32> {
        [
            net.hidden_weights(),
            net.output_weights(),
            net.hidden_thresholds(),
            net.output_thresholds(),
            &adam.first,
            &adam.second,
        ]
        .iter()
        .flat_map(|v| v.iter().map(|x| x.to_bits()))
        .collect()
    }

    /// A chunk of each batch's samples, pushed through `net` and indexed.
    fn chunks_of(
        net: &Net,
        batch: &[Samples],
        arith: Arithmetic,
        simd: Simd,
        s: &mut TrainScratch,
    ) -> Vec<GradientChunk> {
        batch
            .iter()
            .map(|samples| {
                let mut chunk = GradientChunk::new();
                for (x, t) in samples {
                    chunk.push(net, x, t, arith, simd, s);
                }
                chunk.index(net.inputs());
                chunk
            })
            .collect()
    }

    /// Two steps along chunks give the bits of summing each chunk's samples
    /// with `accumulate_gradient` and stepping along the chunks' sum with
    /// `step_sum`: for nets whose units fill the blocks or not (fewer than
    /// one run of 16, runs of unequal lengths), both losses, with and
    /// without the equity term and weight decay, chunks of uneven sizes
    /// (one empty), on 1, 2 and 3 threads and every SIMD level this CPU
    /// runs, and by a team of 1, 2 and 3 threads ([`TeamStep`]).
    #[test]
    fn a_step_along_chunks_has_the_bits_of_their_gradients_summed_in_order() {
        for (inputs, hidden) in [(250, 128), (250, 512), (200, 16), (30, 72), (6, 5)] {
            let start = net(inputs, hidden);
            let batches: Vec<Vec<Samples>> = (0..2)
                .map(|b| {
                    [23, 0, 64, 7]
                        .iter()
                        .enumerate()
                        .map(|(c, &len)| samples(inputs, len, 17 + 10 * b + c as u64))
                        .collect()
                })
                .collect();
            let settings = [
                (Loss::SquaredError, 0.0, 0.0),
                (Loss::SquaredError, 0.5, 0.3),
                (Loss::CrossEntropy, 0.0, 0.3),
                (Loss::CrossEntropy, 0.5, 0.0),
            ];
            for (loss, mu, decay) in settings {
                let arith = Arithmetic::GnubgFastMath;
                let (mut want, mut adam) = (start.clone(), Adam::new(&start));
                let mut s = TrainScratch::with_loss(loss, mu);
                for batch in &batches {
                    let mut grads: Vec<Gradient> =
                        batch.iter().map(|_| Gradient::zeros(&want)).collect();
                    for (chunk, grad) in batch.iter().zip(&mut grads) {
                        for (x, t) in chunk {
                            accumulate_gradient(&want, x, t, arith, Simd::Portable, &mut s, grad);
                        }
                    }
                    adam.step_sum(&mut want, &mut grads, 95, 0.01, decay);
                }
                let want = bits(&want, &adam);
                for threads in [1, 2, 3] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("a thread pool");
                    for simd in Simd::available() {
                        let (mut net, mut adam) = (start.clone(), Adam::new(&start));
                        for batch in &batches {
                            let chunks = chunks_of(&net, batch, arith, simd, &mut s);
                            pool.install(|| {
                                adam.step_chunks(&mut net, &chunks, 95, 0.01, decay, simd)
                            });
                        }
                        assert!(
                            bits(&net, &adam) == want,
                            "{inputs}-{hidden}, {loss:?}, μ {mu}, decay {decay}, \
                             {threads} threads, {simd:?}"
                        );
                    }
                }
                // The same steps taken by a team: each part on a thread of
                // its own, all at once.
                for parts in [1, 2, 3] {
                    let (mut net, mut adam) = (start.clone(), Adam::new(&start));
                    for batch in &batches {
                        let chunks = chunks_of(&net, batch, arith, Simd::Portable, &mut s);
                        let refs: Vec<&GradientChunk> = chunks.iter().collect();
                        let planned = adam.plan_step(95, 0.01, decay);
                        let team = TeamStep::new(&mut net, &mut adam, parts);
                        std::thread::scope(|scope| {
                            for part in 0..parts {
                                let (team, refs, planned) = (&team, &refs, &planned);
                                // SAFETY: the net and the moments outlive
                                // the scope and nothing else touches them
                                // in it; each thread steps its own part.
                                #[allow(unsafe_code)]
                                scope.spawn(move || unsafe {
                                    team.step_part(part, refs, planned, Simd::Portable)
                                });
                            }
                        });
                        net.refresh_blocked();
                    }
                    assert!(
                        bits(&net, &adam) == want,
                        "{inputs}-{hidden}, {loss:?}, μ {mu}, decay {decay}, a team of {parts}"
                    );
                }
            }
        }
    }

    /// A chunk's rows start on cache lines and take whole lines each (so
    /// threads stepping different runs of units read whole lines), and
    /// they hold each sample's values, also after a clear and for more
    /// samples than the room made for them.
    #[test]
    fn a_chunks_rows_are_whole_lines_of_each_samples_values() {
        for hidden in [128, 72, 5] {
            let net = net(30, hidden);
            let mut s = TrainScratch::with_loss(Loss::SquaredError, 1.0);
            let mut chunk = GradientChunk::new();
            for round in 0..2 {
                chunk.clear();
                for (x, t) in samples(30, 70, 7 + round) {
                    chunk.push(
                        &net,
                        &x,
                        &t,
                        Arithmetic::GnubgFastMath,
                        Simd::Portable,
                        &mut s,
                    );
                    let row = chunk.len() - 1;
                    let (h, step) = s.activations_and_steps();
                    let stride = row_stride(hidden);
                    assert_eq!(stride % 16, 0);
                    for (rows, values) in [(chunk.activations(), h), (chunk.steps(), step)] {
                        if chunk.len() <= ROOM_SAMPLES {
                            assert_eq!(rows.as_ptr() as usize % 64, 0, "{hidden} units");
                        }
                        let mine = &rows[row * stride..(row + 1) * stride];
                        assert_eq!(&mine[..hidden], &values[..hidden]);
                        assert!(mine[hidden..].iter().all(|&v| v == 0.0));
                    }
                }
            }
        }
    }

    /// The runs of units cover every unit once, in order, each a whole
    /// number of cache lines but the last.
    #[test]
    fn the_runs_cover_the_units() {
        for hidden in [5, 16, 70, 128, 512] {
            for threads in 1..=5 {
                let ranges = unit_ranges(hidden, threads);
                assert!(ranges.len() <= threads);
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges.last().map(|r| r.end), Some(hidden));
                for pair in ranges.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                    assert_eq!(pair[0].len() % 16, 0);
                }
            }
        }
    }
}
