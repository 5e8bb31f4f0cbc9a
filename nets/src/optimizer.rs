//! Minibatch training: a net-shaped [`Gradient`] that
//! [`crate::train::accumulate_gradient`] sums samples into, and the
//! [`Adam`] optimizer that moves a net by a batch's gradient
//! (docs/formats.md#training-update).

use crate::aligned::Aligned;
use crate::net::Net;

/// A sum of per-sample steps, laid out as the net's parameters
/// ([`crate::Parameters`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient {
    /// Hidden weights, input-major (`[i * hidden + j]`).
    pub hidden_weights: Vec<f32>,
    /// Output weights, output-major (`[k * hidden + j]`).
    pub output_weights: Vec<f32>,
    /// Hidden thresholds.
    pub hidden_thresholds: Vec<f32>,
    /// Output thresholds.
    pub output_thresholds: Vec<f32>,
}

impl Gradient {
    /// A zero gradient for `net`'s shape.
    pub fn zeros(net: &Net) -> Gradient {
        let (i, h, o) = (net.inputs(), net.hidden(), net.outputs());
        Gradient {
            hidden_weights: vec![0.0; i * h],
            output_weights: vec![0.0; o * h],
            hidden_thresholds: vec![0.0; h],
            output_thresholds: vec![0.0; o],
        }
    }

    /// Sets every component to 0.
    pub fn clear(&mut self) {
        for part in self.parts_mut() {
            part.fill(0.0);
        }
    }

    /// Adds `other` (of the same shape) component by component.
    pub fn add(&mut self, other: &Gradient) {
        for (mine, theirs) in self.parts_mut().into_iter().zip(other.parts()) {
            for (a, &b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    fn parts(&self) -> [&[f32]; 4] {
        [
            &self.hidden_weights,
            &self.output_weights,
            &self.hidden_thresholds,
            &self.output_thresholds,
        ]
    }

    fn parts_mut(&mut self) -> [&mut [f32]; 4] {
        [
            &mut self.hidden_weights,
            &mut self.output_weights,
            &mut self.hidden_thresholds,
            &mut self.output_thresholds,
        ]
    }

    /// The number of components.
    pub fn len(&self) -> usize {
        self.parts().iter().map(|p| p.len()).sum()
    }

    /// True for a gradient of no components.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Adam (Kingma & Ba, 2015): per-parameter steps scaled by running means of
/// the gradient and of its square, with bias correction. Its state is the
/// step count and the two moments, laid out as the net's parameters in the
/// order of [`Gradient`]'s parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// Steps taken.
    pub steps: u64,
    /// The first moment (running mean of the gradient), starting on a
    /// cache line like the net's weights, so that threads stepping
    /// different runs of units never write the same line.
    pub first: Aligned,
    /// The second moment (running mean of its square), aligned the same way.
    pub second: Aligned,
}

/// Decay of Adam's first moment.
pub const ADAM_BETA1: f32 = 0.9;
/// Decay of Adam's second moment.
pub const ADAM_BETA2: f32 = 0.999;
/// Adam's guard against division by zero.
pub const ADAM_EPSILON: f32 = 1e-8;

impl Adam {
    /// A fresh optimizer for `net`'s shape (zero moments).
    pub fn new(net: &Net) -> Adam {
        let n = net.shape().values();
        Adam {
            steps: 0,
            first: Aligned::zeroed(n),
            second: Aligned::zeroed(n),
        }
    }

    /// Counts one more step and returns its constants, for a gradient
    /// summed over `samples` samples and learning rate `rate`.
    pub(crate) fn next_step(&mut self, samples: usize, rate: f32) -> AdamStep {
        self.steps += 1;
        let t = self.steps.min(i32::MAX as u64) as i32;
        AdamStep {
            rate,
            mean: 1.0 / samples.max(1) as f32,
            correct1: 1.0 - ADAM_BETA1.powi(t),
            correct2: 1.0 - ADAM_BETA2.powi(t),
        }
    }

    /// Moves `net` by learning rate `rate` along `grad`, a sum of
    /// per-sample steps over `samples` samples (their mean is the gradient),
    /// after shrinking its weights by decoupled weight decay `decay`
    /// (AdamW: each weight, not the thresholds, times `1 − rate·decay`;
    /// `decay` 0 leaves Adam's bits as they were). `grad` is left zero, and
    /// the net's blocked copy stale ([`Adam::step_sum`]).
    pub fn step(
        &mut self,
        net: &mut Net,
        grad: &mut Gradient,
        samples: usize,
        rate: f32,
        decay: f32,
    ) {
        self.step_sum(net, std::slice::from_mut(grad), samples, rate, decay);
    }

    /// [`Adam::step`] along the sum of `grads` (of one shape, at least
    /// one), each component summed in the order of `grads`: the step of
    /// `grads[0]` after adding the others to it one by one, the same bits.
    /// One component after another on the calling thread: the reference
    /// that the minibatch trainer's parallel step ([`Adam::step_chunks`])
    /// is tested against. The gradients are left zero, and the net's
    /// blocked copy of its hidden weights stale: [`Net::refresh_blocked`]
    /// before batched evaluation.
    pub fn step_sum(
        &mut self,
        net: &mut Net,
        grads: &mut [Gradient],
        samples: usize,
        rate: f32,
        decay: f32,
    ) {
        assert!(!grads.is_empty(), "no gradient to step along");
        for g in grads.iter() {
            assert_eq!(g.len(), self.first.len(), "gradient of another shape");
        }
        let step = self.next_step(samples, rate);
        let (first, second) = (&mut self.first, &mut self.second);
        net.update_deferred(|p| {
            let params = [
                p.hidden_weights,
                p.output_weights,
                p.hidden_thresholds,
                p.output_thresholds,
            ];
            let mut grad_parts: Vec<[&mut [f32]; 4]> =
                grads.iter_mut().map(Gradient::parts_mut).collect();
            let mut at = 0;
            for (part, param) in params.into_iter().enumerate() {
                for g in &grad_parts {
                    assert_eq!(g[part].len(), param.len(), "gradient of another shape");
                }
                // The weights (parts 0 and 1) decay; the thresholds do not.
                let shrink = (part < 2 && decay != 0.0).then_some(1.0 - rate * decay);
                for (j, w) in param.iter_mut().enumerate() {
                    let (sum, rest) = grad_parts.split_first_mut().expect("at least one gradient");
                    let mut s = std::mem::take(&mut sum[part][j]);
                    for g in rest.iter_mut() {
                        s += std::mem::take(&mut g[part][j]);
                    }
                    if let Some(shrink) = shrink {
                        *w *= shrink;
                    }
                    step.apply(w, &mut first[at + j], &mut second[at + j], s);
                }
                at += param.len();
            }
        });
    }
}

/// The constants of one Adam step: its learning rate, 1/samples (the
/// gradient is a sum), and the bias corrections of its step number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdamStep {
    rate: f32,
    mean: f32,
    correct1: f32,
    correct2: f32,
}

impl AdamStep {
    /// Adam's update of one parameter `w` with moments `m` and `v` along
    /// the gradient sum `sum` (weight decay, if any, applied to `w` before).
    #[inline(always)]
    pub(crate) fn apply(&self, w: &mut f32, m: &mut f32, v: &mut f32, sum: f32) {
        let gi = sum * self.mean;
        *m = ADAM_BETA1 * *m + (1.0 - ADAM_BETA1) * gi;
        *v = ADAM_BETA2 * *v + (1.0 - ADAM_BETA2) * gi * gi;
        *w += self.rate * (*m / self.correct1) / ((*v / self.correct2).sqrt() + ADAM_EPSILON);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Arithmetic;
    use crate::forward::Simd;
    use crate::train::tests::small_net;
    use crate::train::{accumulate_gradient, train_net, TrainScratch};

    fn loss(net: &Net, samples: &[([f32; 6], [f32; 5])]) -> f32 {
        let mut h = vec![0.0; net.hidden()];
        samples
            .iter()
            .map(|(x, t)| {
                let mut y = [0.0; 5];
                crate::forward::forward(net, x, &mut h, &mut y, Arithmetic::Ieee, Simd::Auto);
                y.iter().zip(t).map(|(a, b)| (a - b) * (a - b)).sum::<f32>()
            })
            .sum()
    }

    const SAMPLES: [([f32; 6], [f32; 5]); 2] = [
        ([1.0, 0.0, 0.5, 1.0, 0.0, 0.25], [0.9, 0.3, 0.05, 0.1, 0.01]),
        ([0.0, 1.0, 0.0, 0.5, 1.0, 0.0], [0.2, 0.05, 0.0, 0.6, 0.2]),
    ];

    /// One sample's gradient is the step plain training takes with α = 1.
    #[test]
    fn a_gradient_is_the_unit_step() {
        let net = small_net();
        let (x, t) = SAMPLES[0];
        let mut s = TrainScratch::default();
        let mut grad = Gradient::zeros(&net);
        accumulate_gradient(
            &net,
            &x,
            &t,
            Arithmetic::Ieee,
            Simd::Auto,
            &mut s,
            &mut grad,
        );
        let mut stepped = net.clone();
        train_net(
            &mut stepped,
            &x,
            &t,
            1.0,
            Arithmetic::Ieee,
            Simd::Auto,
            &mut s,
        );
        for (k, (&after, &before)) in stepped
            .output_thresholds()
            .iter()
            .zip(net.output_thresholds())
            .enumerate()
        {
            assert!((after - before - grad.output_thresholds[k]).abs() < 1e-6);
        }
        // Rows of inputs that are 0 get no gradient.
        let h = net.hidden();
        assert!(grad.hidden_weights[h..2 * h].iter().all(|&g| g == 0.0));
        assert!(grad.hidden_weights[..h].iter().any(|&g| g != 0.0));
    }

    /// A step along several gradients is the step along their sum added
    /// up in order, bit for bit (the minibatch trainer's chunks).
    #[test]
    fn a_step_along_several_gradients_is_the_step_along_their_sum() {
        let net = small_net();
        let mut s = TrainScratch::default();
        let grads: Vec<Gradient> = SAMPLES
            .iter()
            .chain(SAMPLES.iter().rev())
            .map(|(x, t)| {
                let mut g = Gradient::zeros(&net);
                accumulate_gradient(&net, x, t, Arithmetic::Ieee, Simd::Auto, &mut s, &mut g);
                g
            })
            .collect();
        let mut sum = grads[0].clone();
        for g in &grads[1..] {
            sum.add(g);
        }
        let (mut one, mut many) = (net.clone(), net.clone());
        let (mut adam_one, mut adam_many) = (Adam::new(&net), Adam::new(&net));
        for _ in 0..3 {
            adam_one.step(&mut one, &mut sum.clone(), 4, 0.01, 0.0);
            let mut used = grads.clone();
            adam_many.step_sum(&mut many, &mut used, 4, 0.01, 0.0);
            assert!(
                used.iter().all(|g| *g == Gradient::zeros(&net)),
                "left zero"
            );
        }
        assert_ne!(one, net);
        assert_eq!(one, many);
        assert_eq!(adam_one, adam_many);
    }

    /// [`Adam::step_sum`] computes Adam's formula for each weight, the
    /// gradients added in order, bit for bit, on a net of more than
    /// 8,192 weights; with weight decay, each weight (not
    /// threshold) is first multiplied by `1 − rate·decay`.
    #[test]
    fn step_sum_is_adams_formula_for_every_weight() {
        for decay in [0.0, 0.5] {
            step_sum_matches_the_formula(decay);
        }
    }

    fn step_sum_matches_the_formula(decay: f32) {
        let mut net = crate::train::tests::varied_net(800);
        let weights = net.hidden_weights().len() + net.output_weights().len();
        let mut next = crate::test_rng::xorshift(7);
        let mut random = || (next() % 20_001) as f32 / 10_000.0 - 1.0;
        let grads: Vec<Gradient> = (0..3)
            .map(|_| {
                let mut g = Gradient::zeros(&net);
                for v in [
                    &mut g.hidden_weights,
                    &mut g.output_weights,
                    &mut g.hidden_thresholds,
                    &mut g.output_thresholds,
                ] {
                    v.iter_mut().for_each(|x| *x = random());
                }
                g
            })
            .collect();
        let flat = |n: &Net| {
            [
                n.hidden_weights(),
                n.output_weights(),
                n.hidden_thresholds(),
                n.output_thresholds(),
            ]
            .concat()
        };
        let flat_grad = |g: &Gradient| {
            [
                &g.hidden_weights[..],
                &g.output_weights,
                &g.hidden_thresholds,
                &g.output_thresholds,
            ]
            .concat()
        };
        assert!(flat(&net).len() > 2 * 4096, "a net of thousands of weights");
        let gs: Vec<Vec<f32>> = grads.iter().map(flat_grad).collect();
        let mut w = flat(&net);
        let (mut m, mut v) = (vec![0f32; w.len()], vec![0f32; w.len()]);
        let mut adam = Adam::new(&net);
        let (samples, rate) = (5, 0.003);
        for t in 1..=2 {
            let mut used = grads.clone();
            adam.step_sum(&mut net, &mut used, samples, rate, decay);
            let correct1 = 1.0 - ADAM_BETA1.powi(t);
            let correct2 = 1.0 - ADAM_BETA2.powi(t);
            for e in 0..w.len() {
                let mut sum = gs[0][e];
                for g in &gs[1..] {
                    sum += g[e];
                }
                let gi = sum * (1.0 / samples as f32);
                m[e] = ADAM_BETA1 * m[e] + (1.0 - ADAM_BETA1) * gi;
                v[e] = ADAM_BETA2 * v[e] + (1.0 - ADAM_BETA2) * gi * gi;
                if decay != 0.0 && e < weights {
                    w[e] *= 1.0 - rate * decay;
                }
                w[e] += rate * (m[e] / correct1) / ((v[e] / correct2).sqrt() + ADAM_EPSILON);
            }
        }
        let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&flat(&net)), bits(&w));
        assert_eq!(bits(&adam.first), bits(&m));
        assert_eq!(bits(&adam.second), bits(&v));
    }

    #[test]
    fn adam_steps_lower_a_batch_loss_and_repeat_exactly() {
        let run = || {
            let mut net = small_net();
            let mut adam = Adam::new(&net);
            let mut grad = Gradient::zeros(&net);
            let mut s = TrainScratch::default();
            for _ in 0..300 {
                grad.clear();
                for (x, t) in &SAMPLES {
                    accumulate_gradient(
                        &net,
                        x,
                        t,
                        Arithmetic::Ieee,
                        Simd::Auto,
                        &mut s,
                        &mut grad,
                    );
                }
                adam.step(&mut net, &mut grad, SAMPLES.len(), 0.01, 0.0);
            }
            (net, adam)
        };
        let before = loss(&small_net(), &SAMPLES);
        let (net, adam) = run();
        let after = loss(&net, &SAMPLES);
        assert!(after < before / 10.0, "{before} -> {after}");
        assert_eq!(adam.steps, 300);
        assert_eq!(run(), (net, adam));
    }
}
