//! The gradient of a run of samples added at once, with the bits of adding
//! each sample's as it comes ([`crate::accumulate_gradient`]).
//!
//! One sample's gradient adds `step · x_i` to the hidden-weight row of each
//! of its non-zero inputs: for a net of 512 hidden units about seventy rows
//! of 2 KB, read and written back, in a gradient of 512 KB that does not
//! stay in a core's L2 cache. [`GradientChunk`] keeps each sample's
//! hidden steps, activations and output deltas instead, and adds them all
//! in one pass: block by block of hidden units (the samples' steps of one
//! block stay in L1), row by row, each element summing its samples' terms
//! in registers and written once. Every element still adds the same
//! products in the same order (the samples in the order they came), so
//! the gradient has the same bits.

use crate::arith::Arithmetic;
use crate::classify::Class;
use crate::evaluate::{Evaluator, Scratch};
use crate::forward::Simd;
use crate::net::{Net, NetKind};
use crate::optimizer::Gradient;
use crate::sanity::sanity_check;
use crate::train::{backprop, with_simd, TrainScratch};
use board::{Board, Probabilities, NUM_OUTPUTS};

/// Hidden units whose sums stay in registers together (eight AVX2
/// registers).
const BLOCK: usize = 64;

/// The samples of a gradient not yet added ([`GradientChunk::add_to`]).
#[derive(Clone, Debug, Default)]
pub struct GradientChunk {
    /// Hidden units of the net the samples came from.
    hidden: usize,
    /// Each sample's hidden activations, `hidden` values a sample.
    activations: Vec<f32>,
    /// Each sample's hidden steps (δh), `hidden` values a sample.
    steps: Vec<f32>,
    /// Each sample's output deltas (δo).
    output_steps: Vec<[f32; NUM_OUTPUTS]>,
    /// Each sample's non-zero inputs (input, value), in input order,
    /// sample after sample.
    nonzero: Vec<(u16, f32)>,
    /// Where each sample's non-zero inputs end in `nonzero`.
    ends: Vec<u32>,
    /// Scratch of [`GradientChunk::add_to`]: where each input's terms start
    /// in `by_input` (one more entry than inputs).
    starts: Vec<u32>,
    /// Scratch of [`GradientChunk::add_to`]: the next free place of each
    /// input's terms while they are sorted.
    next: Vec<u32>,
    /// Scratch of [`GradientChunk::add_to`]: the terms (sample, value) of
    /// each input, input after input, samples in order.
    by_input: Vec<(u32, f32)>,
}

impl GradientChunk {
    /// An empty chunk.
    pub fn new() -> GradientChunk {
        GradientChunk::default()
    }

    /// Samples collected and not yet added.
    pub fn len(&self) -> usize {
        self.output_steps.len()
    }

    /// True if no sample waits.
    pub fn is_empty(&self) -> bool {
        self.output_steps.is_empty()
    }

    /// [`crate::accumulate_gradient`] deferred: computes the sample's
    /// forward pass and deltas now and keeps them for
    /// [`GradientChunk::add_to`]. Returns the outputs.
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
        }
        assert_eq!(n, self.hidden, "samples of nets of different sizes");
        let (h, step) = scratch.activations_and_steps();
        self.activations.extend_from_slice(&h[..n]);
        self.steps.extend_from_slice(&step[..n]);
        self.output_steps.push(delta_o);
        let inputs = u16::try_from(x.len()).expect("at most 65,535 inputs");
        self.nonzero.extend(
            (0..inputs)
                .zip(x)
                .filter(|&(_, &xi)| xi != 0.0)
                .map(|(i, &xi)| (i, xi)),
        );
        self.ends.push(self.nonzero.len() as u32);
        y
    }

    /// Adds every collected sample's gradient to `grad` (of the samples'
    /// net's shape), the samples in the order they came: the bits of
    /// [`crate::accumulate_gradient`] for each in turn. Leaves the chunk
    /// empty.
    ///
    /// # Panics
    /// If `grad` has another shape than the samples' net.
    pub fn add_to(&mut self, grad: &mut Gradient, simd: Simd) {
        if self.is_empty() {
            return;
        }
        let n = self.hidden;
        assert_eq!(grad.hidden_thresholds.len(), n, "gradient of another net");
        assert_eq!(
            grad.output_weights.len(),
            NUM_OUTPUTS * n,
            "gradient of another net"
        );
        let inputs = grad.hidden_weights.len() / n;
        assert!(
            self.nonzero.iter().all(|&(i, _)| usize::from(i) < inputs),
            "gradient of another net"
        );
        self.sort_by_input(inputs);
        with_simd(
            simd,
            #[inline(always)]
            || self.add_all(grad),
        );
        self.clear();
    }

    /// Forgets the collected samples.
    pub fn clear(&mut self) {
        self.activations.clear();
        self.steps.clear();
        self.output_steps.clear();
        self.nonzero.clear();
        self.ends.clear();
    }

    /// Fills `by_input` and `starts` from `nonzero` and `ends`: a counting
    /// sort by input, stable, so each input's terms keep the samples' order.
    fn sort_by_input(&mut self, inputs: usize) {
        self.starts.clear();
        self.starts.resize(inputs + 1, 0);
        for &(i, _) in &self.nonzero {
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
    }

    /// The sums of [`GradientChunk::add_to`], once `by_input` is filled.
    #[inline(always)]
    fn add_all(&self, grad: &mut Gradient) {
        let n = self.hidden;
        let samples = self.len() as u32;
        // Output weights (`δo[k]·h`) and thresholds (`δo[k]`); a threshold
        // adds `δo[k]·1`, which is `δo[k]`, and `step·1` is `step`.
        for (k, row) in grad.output_weights.chunks_exact_mut(n).enumerate() {
            let terms: Vec<(u32, f32)> = (0..samples)
                .map(|p| (p, self.output_steps[p as usize][k]))
                .collect();
            add_terms(row, &self.activations, n, &terms);
            for &(_, d) in &terms {
                grad.output_thresholds[k] += d;
            }
        }
        let ones: Vec<(u32, f32)> = (0..samples).map(|p| (p, 1.0)).collect();
        add_terms(&mut grad.hidden_thresholds, &self.steps, n, &ones);
        // Hidden weights: block after block of units, so that the samples'
        // steps of one block stay in L1 while every input's row goes by.
        let whole = n - n % BLOCK;
        let terms = |i: usize| &self.by_input[self.starts[i] as usize..self.starts[i + 1] as usize];
        for start in (0..whole).step_by(BLOCK) {
            for (i, row) in grad.hidden_weights.chunks_exact_mut(n).enumerate() {
                add_block(row, &self.steps, n, start, terms(i));
            }
        }
        for (i, row) in grad.hidden_weights.chunks_exact_mut(n).enumerate() {
            add_tail(row, &self.steps, n, whole, terms(i));
        }
    }
}

/// `dst[j] += rows[p][j]·c` for each term `(p, c)` in order, element by
/// element (`rows` holds vectors of `width` values, `dst` is `width` long).
#[inline(always)]
fn add_terms(dst: &mut [f32], rows: &[f32], width: usize, terms: &[(u32, f32)]) {
    let whole = width - width % BLOCK;
    for start in (0..whole).step_by(BLOCK) {
        add_block(dst, rows, width, start, terms);
    }
    add_tail(dst, rows, width, whole, terms);
}

/// [`add_terms`] for the block of units from `start`, summed in registers.
#[inline(always)]
fn add_block(dst: &mut [f32], rows: &[f32], width: usize, start: usize, terms: &[(u32, f32)]) {
    if terms.is_empty() {
        return;
    }
    let sums: &mut [f32; BLOCK] = (&mut dst[start..start + BLOCK])
        .try_into()
        .expect("a whole block");
    let mut acc = *sums;
    for &(p, c) in terms {
        let at = p as usize * width + start;
        let v: &[f32; BLOCK] = rows[at..at + BLOCK].try_into().expect("a whole block");
        for (a, &v) in acc.iter_mut().zip(v) {
            *a += v * c;
        }
    }
    *sums = acc;
}

/// [`add_terms`] for the units from `from` to the end, one by one.
#[inline(always)]
fn add_tail(dst: &mut [f32], rows: &[f32], width: usize, from: usize, terms: &[(u32, f32)]) {
    for &(p, c) in terms {
        let at = p as usize * width;
        for (d, &v) in dst[from..].iter_mut().zip(&rows[at + from..at + width]) {
            *d += v * c;
        }
    }
}

impl Evaluator {
    /// [`Evaluator::train`]'s step as a gradient, deferred: keeps in
    /// `chunk` the negative gradient for `board` towards the
    /// sanity-checked `target` ([`GradientChunk::push`]), leaving the nets
    /// as they are; [`GradientChunk::add_to`] adds it to a gradient of the
    /// class's net.
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
        let mut t = *target;
        sanity_check(board, &mut t, self.bearoff());
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
    use crate::accumulate_gradient;

    /// A net of `inputs`-`hidden`-5 with seeded random weights.
    fn net(inputs: usize, hidden: usize) -> Net {
        crate::test_rng::random_net(inputs, hidden, 0x5851_F42D_4C95_7F2D + hidden as u64)
    }

    /// Sparse inputs like gnubg's (mostly 0, many 1, some fractions) and
    /// targets, seeded.
    fn samples(inputs: usize, count: usize) -> Vec<(Vec<f32>, Probabilities)> {
        let mut random = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15);
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
                let t = std::array::from_fn(|_| unit());
                (x, t)
            })
            .collect()
    }

    fn bits(g: &Gradient) -> Vec<u32> {
        [
            &g.hidden_weights,
            &g.output_weights,
            &g.hidden_thresholds,
            &g.output_thresholds,
        ]
        .iter()
        .flat_map(|v| v.iter().map(|x| x.to_bits()))
        .collect()
    }

    /// Adding a chunk's samples at once gives the bits of adding each as it
    /// comes, for whole and partial blocks of units, every loss, on every
    /// SIMD level this CPU runs, onto a gradient that already holds a sum.
    #[test]
    fn a_chunk_adds_the_bits_of_its_samples_one_by_one() {
        for (inputs, hidden) in [(250, 128), (250, 512), (200, 16), (30, 72), (6, 5)] {
            let net = net(inputs, hidden);
            let all = samples(inputs, 70);
            for loss in [crate::Loss::SquaredError, crate::Loss::CrossEntropy] {
                for simd in Simd::available() {
                    let mut scratch = TrainScratch::with_loss(loss, 0.5);
                    let mut one_by_one = Gradient::zeros(&net);
                    let mut chunked = Gradient::zeros(&net);
                    let mut chunk = GradientChunk::new();
                    // Two chunks of uneven sizes, the second added onto the
                    // first's sum.
                    for part in [&all[..23], &all[23..]] {
                        for (x, t) in part {
                            let a = accumulate_gradient(
                                &net,
                                x,
                                t,
                                Arithmetic::GnubgFastMath,
                                simd,
                                &mut scratch,
                                &mut one_by_one,
                            );
                            let b = chunk.push(
                                &net,
                                x,
                                t,
                                Arithmetic::GnubgFastMath,
                                simd,
                                &mut scratch,
                            );
                            assert_eq!(a, b);
                        }
                        assert_eq!(chunk.len(), part.len());
                        chunk.add_to(&mut chunked, simd);
                        assert!(chunk.is_empty());
                        assert_eq!(
                            bits(&one_by_one),
                            bits(&chunked),
                            "{inputs}-{hidden}, {loss:?}, {simd:?}"
                        );
                    }
                    assert!(bits(&chunked).iter().any(|&b| b != 0));
                }
            }
        }
    }
}
