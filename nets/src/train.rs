//! The backward pass: one-sample gradient descent on ½Σ(t − y)², the update
//! rule of gnubg's former `train td` and of gnubg-nn's trainer
//! (docs/formats.md#training-update), or on the outputs' cross-entropy
//! ([`Loss`]), with an optional equity term.

use crate::arith::Arithmetic;
use crate::classify::Class;
use crate::evaluate::{Evaluator, Scratch};
use crate::forward::{hidden_layer, output_sums, Simd};
use crate::net::{Net, NetKind, Parameters};
use crate::optimizer::Gradient;
use crate::sanity::sanity_check;
use crate::sigmoid::sigmoid;
use board::{Board, Probabilities};

/// Buffers of one training step, reused between steps, the loss and the
/// weight of its equity term ([`TrainScratch::with_loss`]).
#[derive(Clone, Debug, Default)]
pub struct TrainScratch {
    hidden: Vec<f32>,
    step: Vec<f32>,
    loss: Loss,
    equity_weight: f32,
}

/// What a step descends on for each of the five outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Loss {
    /// ½(t − y)²: gnubg's and gnubg-nn's, whose gradient carries the
    /// output sigmoid's slope y·(1 − y) and so fades where an output
    /// saturates.
    #[default]
    SquaredError,
    /// −t·ln y − (1 − t)·ln(1 − y), the cross-entropy of a probability
    /// target: through the output sigmoid its gradient is β_o·(y − t), with
    /// no fading slope.
    CrossEntropy,
}

/// The cubeless equity's weight on each output (win, win gammon, win
/// backgammon, lose gammon, lose backgammon).
const EQUITY_COEFFICIENTS: [f32; board::NUM_OUTPUTS] = [2.0, 1.0, 1.0, -1.0, -1.0];

impl TrainScratch {
    /// The hidden activations and steps (`scale`·δh) the last backward
    /// pass left.
    pub(crate) fn activations_and_steps(&self) -> (&[f32], &[f32]) {
        (&self.hidden, &self.step)
    }

    /// Steps on the loss ½Σ(t − y)² + ½μ(E(t) − E(y))², where E is the
    /// cubeless equity of the five outputs (2·win − 1 + wins of a gammon
    /// and a backgammon − losses of each): μ weighs the error that decides
    /// the moves against the errors of the single outputs. μ = 0 (the
    /// default) is gnubg's loss, with its bits.
    pub fn with_equity_weight(mu: f32) -> TrainScratch {
        TrainScratch::with_loss(Loss::SquaredError, mu)
    }

    /// Steps on `loss` over the five outputs plus the equity term
    /// ½μ(E(t) − E(y))² of [`TrainScratch::with_equity_weight`].
    pub fn with_loss(loss: Loss, mu: f32) -> TrainScratch {
        TrainScratch {
            loss,
            equity_weight: mu,
            ..TrainScratch::default()
        }
    }
}

/// Moves `net` one step of size `alpha` towards `target` for inputs `x`:
/// the forward pass in `arith` (gnubg's table sigmoid), then
///
/// ```text
/// δo[k] = (t[k] − y[k]) · β_o · y[k] · (1 − y[k])
/// δh[j] = β_h · h[j] · (1 − h[j]) · Σ_k δo[k] · V[k][j]   (V before the step)
/// V[k][j] += α·δo[k] · h[j];   output bias[k] += α·δo[k]
/// W[i][j] += α·δh[j] · x[i] for x[i] ≠ 0;   hidden bias[j] += α·δh[j]
/// ```
///
/// Returns the outputs before the step. Deterministic: the same bits on
/// every CPU and SIMD level.
pub fn train_net(
    net: &mut Net,
    x: &[f32],
    target: &Probabilities,
    alpha: f32,
    arith: Arithmetic,
    simd: Simd,
    scratch: &mut TrainScratch,
) -> Probabilities {
    let y = step_net(net, x, target, alpha, arith, simd, scratch);
    net.sync_blocked_rows(nonzero_inputs(x));
    y
}

/// [`train_net`] without bringing the net's blocked copy of its hidden
/// weights up to date: the same step, the same bits. For many steps in a
/// row (the copy is refreshed once after them): batched evaluation with
/// the net panics until [`Net::refresh_blocked`] has run.
pub fn train_net_deferred(
    net: &mut Net,
    x: &[f32],
    target: &Probabilities,
    alpha: f32,
    arith: Arithmetic,
    simd: Simd,
    scratch: &mut TrainScratch,
) -> Probabilities {
    let y = step_net(net, x, target, alpha, arith, simd, scratch);
    net.mark_blocked_stale();
    y
}

/// The step of [`train_net`] on the net's own weights (not its blocked copy).
fn step_net(
    net: &mut Net,
    x: &[f32],
    target: &Probabilities,
    alpha: f32,
    arith: Arithmetic,
    simd: Simd,
    scratch: &mut TrainScratch,
) -> Probabilities {
    let (y, delta_o) = backprop(net, x, target, alpha, arith, simd, scratch);
    let a = delta_o.map(|d| alpha * d);
    let (h, step) = (&scratch.hidden, &scratch.step);
    with_widest(
        simd,
        #[inline(always)]
        || add_step(net.parameters_mut(), h, x, step, &a),
    );
    y
}

/// Adds one sample's step to `p` (a net's parameters, or a gradient laid
/// out like them): output weights of output k += `a[k]`·h and its
/// threshold += `a[k]`; the hidden-weight row of each non-zero input
/// x_i += `step`·x_i, the hidden thresholds += `step`. Element by element
/// (a multiply, then an add), so every SIMD width gives the same bits.
#[inline(always)]
fn add_step(p: Parameters<'_>, h: &[f32], x: &[f32], step: &[f32], a: &[f32; board::NUM_OUTPUTS]) {
    let n_hidden = step.len();
    let h = &h[..n_hidden];
    for (k, &ak) in a.iter().enumerate() {
        for (v, &hj) in p.output_weights[k * n_hidden..(k + 1) * n_hidden]
            .iter_mut()
            .zip(h)
        {
            *v += ak * hj;
        }
        p.output_thresholds[k] += ak;
    }
    for i in nonzero_inputs(x) {
        let xi = x[i];
        let row = &mut p.hidden_weights[i * n_hidden..(i + 1) * n_hidden];
        for (w, &s) in row.iter_mut().zip(step) {
            *w += s * xi;
        }
    }
    for (b, &s) in p.hidden_thresholds.iter_mut().zip(step) {
        *b += s;
    }
}

/// The indices of `x`'s non-zero entries, in order, found 64 at a time
/// from a mask: a branch an entry, whose outcome the CPU cannot predict,
/// cost more than the rows it let a training step skip.
#[inline(always)]
pub(crate) fn nonzero_inputs(x: &[f32]) -> impl Iterator<Item = usize> + '_ {
    x.chunks(64).enumerate().flat_map(|(c, xs)| {
        let mut mask = xs
            .iter()
            .enumerate()
            .fold(0u64, |m, (k, &xi)| m | (u64::from(xi != 0.0) << k));
        std::iter::from_fn(move || {
            let k = (mask != 0).then(|| mask.trailing_zeros() as usize)?;
            mask &= mask - 1;
            Some(64 * c + k)
        })
    })
}

/// Runs `f` compiled for AVX2 where `simd` uses it and the CPU has it (the
/// element-wise loops inlined into `f` then run eight lanes wide), else as
/// it is: the same operations on each element either way.
#[inline(always)]
pub(crate) fn with_simd<R>(simd: Simd, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if simd.uses_avx2() && crate::cpu::has_avx2() {
        // SAFETY: this CPU supports AVX2 (checked just above), the only
        // requirement of the `target_feature` function.
        #[allow(unsafe_code)]
        return unsafe { run_avx2(f) };
    }
    let _ = simd;
    f()
}

/// `f()` in a function compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `f` compiled for AVX-512F where `simd` is that level and the CPU
/// has it, else as [`with_simd`] does: the same operations on each element
/// either way.
#[inline(always)]
pub(crate) fn with_widest<R>(simd: Simd, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if simd.uses_avx512() && crate::cpu::has_avx512() {
        // SAFETY: this CPU supports AVX-512F (checked just above), the
        // function's only requirement.
        #[allow(unsafe_code)]
        return unsafe { run_avx512(f) };
    }
    with_simd(simd, f)
}

/// `f()` in a function compiled with AVX-512F.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2,avx512f")]
unsafe fn run_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The forward pass and the deltas of [`train_net`]: returns the outputs and
/// δo, and leaves the hidden activations in `scratch.hidden` and
/// `scale`·δh in `scratch.step`.
pub(crate) fn backprop(
    net: &Net,
    x: &[f32],
    target: &Probabilities,
    scale: f32,
    arith: Arithmetic,
    simd: Simd,
    scratch: &mut TrainScratch,
) -> (Probabilities, [f32; board::NUM_OUTPUTS]) {
    let (n_in, n_hidden) = (net.inputs(), net.hidden());
    assert_eq!(x.len(), n_in, "input vector has the wrong length");
    scratch.hidden.resize(n_hidden, 0.0);
    scratch.step.resize(n_hidden, 0.0);
    let h = &mut scratch.hidden[..];
    hidden_layer(net, x, h, arith, simd);
    let mut y = [0f32; board::NUM_OUTPUTS];
    output_sums(net, h, &mut y, arith);
    let beta_o = net.beta_output();
    for v in y.iter_mut() {
        *v = sigmoid(-beta_o * *v);
    }
    let mu = scratch.equity_weight;
    let equity_error = || -> f32 {
        (0..board::NUM_OUTPUTS)
            .map(|k| EQUITY_COEFFICIENTS[k] * (target[k] - y[k]))
            .sum()
    };
    let delta_o: [f32; board::NUM_OUTPUTS] = match (scratch.loss, mu == 0.0) {
        (Loss::SquaredError, true) => {
            std::array::from_fn(|k| (target[k] - y[k]) * beta_o * y[k] * (1.0 - y[k]))
        }
        (Loss::SquaredError, false) => {
            let e = equity_error();
            std::array::from_fn(|k| {
                (target[k] - y[k] + mu * EQUITY_COEFFICIENTS[k] * e) * beta_o * y[k] * (1.0 - y[k])
            })
        }
        (Loss::CrossEntropy, true) => std::array::from_fn(|k| (target[k] - y[k]) * beta_o),
        (Loss::CrossEntropy, false) => {
            let e = equity_error();
            std::array::from_fn(|k| {
                (target[k] - y[k] + mu * EQUITY_COEFFICIENTS[k] * e * y[k] * (1.0 - y[k])) * beta_o
            })
        }
    };
    let beta_h = net.beta_hidden();
    let w_output = net.output_weights();
    let step = &mut scratch.step;
    with_simd(
        simd,
        #[inline(always)]
        || hidden_steps(step, h, w_output, &delta_o, beta_h, scale),
    );
    (y, delta_o)
}

/// `scale`·δh: each hidden unit's share of the output deltas through the
/// output weights (summed over the outputs in order) times the slope of its
/// sigmoid, β_h·h·(1 − h). Element by element over the units, so every
/// SIMD width gives the same bits.
#[inline(always)]
fn hidden_steps(
    step: &mut [f32],
    h: &[f32],
    w_output: &[f32],
    delta_o: &[f32; board::NUM_OUTPUTS],
    beta_h: f32,
    scale: f32,
) {
    let n_hidden = step.len();
    let h = &h[..n_hidden];
    for (j, (step, &hj)) in step.iter_mut().zip(h).enumerate() {
        let mut back = 0f32;
        for (k, &d) in delta_o.iter().enumerate() {
            back += d * w_output[k * n_hidden + j];
        }
        *step = scale * (beta_h * hj * (1.0 - hj) * back);
    }
}

/// Adds to `grad` the step [`train_net`] would take with α = 1 (the negative
/// gradient of ½Σ(t − y)²) for inputs `x`, leaving the net as it is.
/// Returns the outputs.
pub fn accumulate_gradient(
    net: &Net,
    x: &[f32],
    target: &Probabilities,
    arith: Arithmetic,
    simd: Simd,
    scratch: &mut TrainScratch,
    grad: &mut Gradient,
) -> Probabilities {
    let (y, delta_o) = backprop(net, x, target, 1.0, arith, simd, scratch);
    let p = Parameters {
        hidden_weights: &mut grad.hidden_weights,
        output_weights: &mut grad.output_weights,
        hidden_thresholds: &mut grad.hidden_thresholds,
        output_thresholds: &mut grad.output_thresholds,
    };
    let (h, step) = (&scratch.hidden, &scratch.step);
    with_simd(
        simd,
        #[inline(always)]
        || add_step(p, h, x, step, &delta_o),
    );
    y
}

impl Evaluator {
    /// Mutable access to the nets, for training.
    pub fn nets_mut(&mut self) -> &mut crate::net::Nets {
        &mut self.nets
    }

    /// One training step on `board` (`sides[1]` on roll) towards `target`:
    /// the target is sanity-checked for the position as gnubg does, then the
    /// net of the position's class (contact, crashed or race) moves by
    /// `alpha`. Returns the trained net's slot, or `None` (nothing trained)
    /// for classes evaluated without a net.
    pub fn train(
        &mut self,
        board: &Board,
        class: Class,
        target: &Probabilities,
        alpha: f32,
        scratch: &mut Scratch,
        train: &mut TrainScratch,
    ) -> Option<NetKind> {
        let (kind, t) = self.prepare_step(board, class, target, &mut scratch.net.inputs)?;
        let (arith, simd) = (self.arithmetic(), self.simd());
        let net = self.nets_mut().get_mut(kind);
        let n = net.inputs();
        train_net(net, &scratch.net.inputs[..n], &t, alpha, arith, simd, train);
        Some(kind)
    }

    /// The part of [`Evaluator::train`] that does not depend on the
    /// weights: `board`'s inputs for its class's net into `inputs` (at
    /// least as long as that net's inputs) and the sanity-checked target.
    /// `None` for classes evaluated without a net. Work that many threads
    /// can do before the steps, which must run one after another.
    pub fn prepare_step(
        &self,
        board: &Board,
        class: Class,
        target: &Probabilities,
        inputs: &mut [f32],
    ) -> Option<(NetKind, Probabilities)> {
        let kind = self.inputs(board, class, inputs)?;
        Some((kind, self.sane_target(board, target)))
    }

    /// `target` sanity-checked for `board` as gnubg does before a step.
    pub(crate) fn sane_target(&self, board: &Board, target: &Probabilities) -> Probabilities {
        let mut t = *target;
        sanity_check(board, &mut t, self.bearoff());
        t
    }

    /// [`Evaluator::train`] with `board`'s input vector for net `kind`
    /// given (as [`Evaluator::inputs`] writes it; a trainer that keeps them
    /// saves computing them every epoch), without bringing the net's
    /// blocked copy up to date ([`train_net_deferred`]): for many steps in
    /// a row, after which [`crate::Nets::refresh_blocked`] must run before
    /// a batched evaluation. The same step, the same bits.
    pub fn train_inputs_deferred(
        &mut self,
        board: &Board,
        kind: NetKind,
        inputs: &[f32],
        target: &Probabilities,
        alpha: f32,
        train: &mut TrainScratch,
    ) {
        let t = self.sane_target(board, target);
        let (arith, simd) = (self.arithmetic(), self.simd());
        let net = self.nets_mut().get_mut(kind);
        let n = net.inputs();
        train_net_deferred(net, &inputs[..n], &t, alpha, arith, simd, train);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::NetShape;

    /// The non-zero inputs found from masks are those a filter finds, in
    /// order: lengths around and past the 64 of a mask, mostly zeros,
    /// mostly not, negative zeros (which are zeros) and NaNs (which are
    /// not).
    #[test]
    fn the_nonzero_inputs_are_those_not_equal_to_zero() {
        let mut next = crate::test_rng::xorshift(11);
        for len in [0, 1, 63, 64, 65, 128, 200, 250, 300] {
            for density in [0, 1, 3, 7] {
                let x: Vec<f32> = (0..len)
                    .map(|_| match next() % 8 {
                        k if k < density => [1.0, 0.5, f32::NAN, -2.0][(next() % 4) as usize],
                        7 => -0.0,
                        _ => 0.0,
                    })
                    .collect();
                let want: Vec<usize> = (0..len).filter(|&i| x[i] != 0.0).collect();
                let got: Vec<usize> = nonzero_inputs(&x).collect();
                assert_eq!(got, want, "length {len}, density {density}");
            }
        }
    }

    /// A 6-8-5 net with fixed, varied weights.
    pub(crate) fn small_net() -> Net {
        varied_net(8)
    }

    /// A 6-`hidden`-5 net with fixed, varied weights.
    pub(crate) fn varied_net(hidden: usize) -> Net {
        let shape = NetShape {
            inputs: 6,
            hidden,
            outputs: 5,
            beta_hidden: 0.1,
            beta_output: 1.0,
        };
        let values = (0..shape.values())
            .map(|k| ((k * 7919 % 101) as f32 - 50.0) / 100.0)
            .collect();
        Net::from_values(shape, values).unwrap()
    }

    fn outputs(net: &Net, x: &[f32]) -> Probabilities {
        let mut h = vec![0.0; net.hidden()];
        let mut out = [0.0; 5];
        crate::forward::forward(net, x, &mut h, &mut out, Arithmetic::Ieee, Simd::Auto);
        out
    }

    fn error(y: &Probabilities, t: &Probabilities) -> f32 {
        y.iter().zip(t).map(|(a, b)| (a - b) * (a - b)).sum()
    }

    #[test]
    fn steps_reduce_the_error() {
        let mut net = small_net();
        let x = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25];
        let t = [0.9, 0.3, 0.05, 0.1, 0.01];
        let before = error(&outputs(&net, &x), &t);
        let mut s = TrainScratch::default();
        for _ in 0..200 {
            train_net(&mut net, &x, &t, 0.5, Arithmetic::Ieee, Simd::Auto, &mut s);
        }
        let after = error(&outputs(&net, &x), &t);
        assert!(after < before / 10.0, "{before} -> {after}");
    }

    /// A net with several blocks of hidden units, the last one partial.
    fn wide_net() -> Net {
        varied_net(40)
    }

    /// Steps whose blocked copy is refreshed once at the end leave the
    /// net exactly as steps that keep it up to date, and batched
    /// evaluation refuses the net while the copy is stale.
    #[test]
    fn deferred_steps_then_a_refresh_equal_synced_steps() {
        let samples = [
            ([1.0, 0.0, 0.5, 1.0, 0.0, 0.25], [0.9, 0.3, 0.05, 0.1, 0.01]),
            ([0.0, 1.0, 0.0, 0.5, 1.0, 0.0], [0.2, 0.05, 0.0, 0.6, 0.2]),
            ([0.0, 0.0, 1.0, 0.0, 0.0, 1.0], [0.5, 0.1, 0.0, 0.2, 0.0]),
        ];
        let (mut synced, mut deferred) = (wide_net(), wide_net());
        let mut s = TrainScratch::default();
        for (x, t) in samples.iter().cycle().take(30) {
            let a = train_net(&mut synced, x, t, 0.3, Arithmetic::Ieee, Simd::Auto, &mut s);
            let b = train_net_deferred(
                &mut deferred,
                x,
                t,
                0.3,
                Arithmetic::Ieee,
                Simd::Auto,
                &mut s,
            );
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits));
        }
        assert_ne!(synced, wide_net(), "the steps changed the net");
        let stale = std::panic::catch_unwind(|| deferred.blocked_hidden_weights().len());
        assert!(stale.is_err(), "a stale blocked copy is refused");
        deferred.refresh_blocked();
        assert_eq!(deferred, synced);
        assert_eq!(
            deferred.blocked_hidden_weights(),
            synced.blocked_hidden_weights()
        );
    }

    #[test]
    fn zero_inputs_leave_their_rows_alone() {
        let mut net = small_net();
        let before = net.clone();
        let x = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25];
        let mut s = TrainScratch::default();
        train_net(
            &mut net,
            &x,
            &[1.0; 5],
            0.1,
            Arithmetic::Ieee,
            Simd::Auto,
            &mut s,
        );
        let h = net.hidden();
        for row in [1, 4] {
            assert_eq!(
                net.hidden_weights()[row * h..(row + 1) * h],
                before.hidden_weights()[row * h..(row + 1) * h]
            );
        }
        assert_ne!(net.hidden_weights()[..h], before.hidden_weights()[..h]);
        assert_ne!(net.output_weights(), before.output_weights());
    }

    /// The step matches the gradient of ½Σ(t − y)² taken numerically (with
    /// the smooth reference sigmoid the table approximates), and with an
    /// equity term ½μ(E(t) − E(y))² that of the whole loss; the same for
    /// the outputs' cross-entropy.
    #[test]
    fn step_is_the_gradient() {
        for loss in [Loss::SquaredError, Loss::CrossEntropy] {
            for mu in [0.0, 0.5, 3.0] {
                step_is_the_gradient_of(loss, mu);
            }
        }
    }

    /// The cross-entropy's step differs from the squared error's, and most
    /// where an output saturates: there the squared error's gradient fades
    /// with the sigmoid's slope and the cross-entropy's does not.
    #[test]
    fn cross_entropy_steps_harder_on_a_saturated_output() {
        let net = small_net();
        let x = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25];
        let mut probe = net.clone();
        let y = train_net(
            &mut probe,
            &x,
            &[0.5; 5],
            0.0,
            Arithmetic::Ieee,
            Simd::Auto,
            &mut TrainScratch::default(),
        );
        // Targets far from the outputs: the output thresholds' steps.
        let t: Probabilities = std::array::from_fn(|k| if y[k] > 0.5 { 0.0 } else { 1.0 });
        let step = |loss| {
            let mut n = net.clone();
            let mut s = TrainScratch::with_loss(loss, 0.0);
            train_net(&mut n, &x, &t, 0.01, Arithmetic::Ieee, Simd::Auto, &mut s);
            let before = net.output_thresholds();
            let after = n.output_thresholds().to_vec();
            (0..5)
                .map(|k| f64::from(after[k] - before[k]))
                .collect::<Vec<_>>()
        };
        let (se, ce) = (step(Loss::SquaredError), step(Loss::CrossEntropy));
        for k in 0..5 {
            let slope = f64::from(y[k]) * (1.0 - f64::from(y[k]));
            // The same direction; the cross-entropy's step is 1 / (y·(1 − y))
            // times the squared error's (at least 4 times).
            assert!(se[k] * ce[k] > 0.0, "output {k}: {} {}", se[k], ce[k]);
            let ratio = ce[k] / se[k];
            assert!(
                (ratio * slope - 1.0).abs() < 1e-3 && ratio >= 4.0,
                "output {k}: ratio {ratio}, y {}",
                y[k]
            );
        }
    }

    /// An equity weight of 0 is gnubg's step, bit for bit.
    #[test]
    fn equity_weight_zero_is_the_plain_step() {
        let net = small_net();
        let x = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25];
        let t = [0.9, 0.3, 0.05, 0.1, 0.01];
        let step = |mut s: TrainScratch| {
            let mut n = net.clone();
            let y = train_net(&mut n, &x, &t, 0.1, Arithmetic::Ieee, Simd::Auto, &mut s);
            (n, y)
        };
        let (plain, y) = step(TrainScratch::default());
        let (zero, y0) = step(TrainScratch::with_equity_weight(0.0));
        let (weighted, _) = step(TrainScratch::with_equity_weight(1.0));
        assert_eq!(y.map(f32::to_bits), y0.map(f32::to_bits));
        let bits = |n: &Net| {
            [
                n.hidden_weights(),
                n.output_weights(),
                n.hidden_thresholds(),
                n.output_thresholds(),
            ]
            .concat()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
        };
        assert_eq!(bits(&plain), bits(&zero));
        assert_ne!(
            bits(&plain),
            bits(&weighted),
            "the equity term changes the step"
        );
    }

    fn step_is_the_gradient_of(kind: Loss, mu: f32) {
        let net = small_net();
        let x = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25];
        let t = [0.9, 0.3, 0.05, 0.1, 0.01];
        let alpha = 1e-3;
        let mut trained = net.clone();
        let mut s = TrainScratch::with_loss(kind, mu);
        train_net(
            &mut trained,
            &x,
            &t,
            alpha,
            Arithmetic::Ieee,
            Simd::Auto,
            &mut s,
        );
        let loss = |n: &Net| {
            let (hw, ow, hb, ob) = (
                n.hidden_weights(),
                n.output_weights(),
                n.hidden_thresholds(),
                n.output_thresholds(),
            );
            let logistic = |z: f64| 1.0 / (1.0 + (-z).exp());
            let hid: Vec<f64> = (0..n.hidden())
                .map(|j| {
                    let s: f64 = f64::from(hb[j])
                        + (0..n.inputs())
                            .map(|i| f64::from(hw[i * n.hidden() + j]) * f64::from(x[i]))
                            .sum::<f64>();
                    logistic(f64::from(n.beta_hidden()) * s)
                })
                .collect();
            let y: Vec<f64> = (0..5)
                .map(|k| {
                    let s: f64 = f64::from(ob[k])
                        + (0..n.hidden())
                            .map(|j| f64::from(ow[k * n.hidden() + j]) * hid[j])
                            .sum::<f64>();
                    logistic(f64::from(n.beta_output()) * s)
                })
                .collect();
            let equity_error: f64 = (0..5)
                .map(|k| f64::from(EQUITY_COEFFICIENTS[k]) * (f64::from(t[k]) - y[k]))
                .sum();
            (0..5)
                .map(|k| {
                    let t = f64::from(t[k]);
                    match kind {
                        Loss::SquaredError => 0.5 * (t - y[k]).powi(2),
                        Loss::CrossEntropy => -t * y[k].ln() - (1.0 - t) * (1.0 - y[k]).ln(),
                    }
                })
                .sum::<f64>()
                + 0.5 * f64::from(mu) * equity_error.powi(2)
        };
        // Compare a few parameters: the step should be −α·∂L/∂p.
        for (which, index) in [(0usize, 3usize), (0, 17), (1, 5), (2, 2), (3, 4)] {
            let eps = 1e-3f32;
            let mut plus = net.clone();
            let mut minus = net.clone();
            for (n, delta) in [(&mut plus, eps), (&mut minus, -eps)] {
                n.update(|p| {
                    [
                        p.hidden_weights,
                        p.output_weights,
                        p.hidden_thresholds,
                        p.output_thresholds,
                    ][which][index] += delta
                });
            }
            let grad = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
            let step = {
                let vals = |n: &Net| -> Vec<f32> {
                    match which {
                        0 => n.hidden_weights().to_vec(),
                        1 => n.output_weights().to_vec(),
                        2 => n.hidden_thresholds().to_vec(),
                        _ => n.output_thresholds().to_vec(),
                    }
                };
                f64::from(vals(&trained)[index] - vals(&net)[index])
            };
            let expected = -f64::from(alpha) * grad;
            assert!(
                (step - expected).abs() <= 0.05 * expected.abs() + 2e-8,
                "{kind:?}, μ {mu}, parameter {which}/{index}: step {step}, −α·gradient {expected}"
            );
        }
    }

    /// Training steps and gradients are the same bits at every SIMD level
    /// this CPU runs (the portable scalar code is the reference), on a
    /// 250-input net of 256 hidden units with sparse inputs.
    #[test]
    fn steps_and_gradients_are_the_same_bits_at_every_simd_level() {
        let start = crate::test_rng::random_net(250, 256, 11);
        let mut next = crate::test_rng::xorshift(5);
        let samples: Vec<(Vec<f32>, Probabilities)> = (0..8)
            .map(|_| {
                let x = (0..250)
                    .map(|_| match next() % 4 {
                        0 => (next() % 1000) as f32 / 1000.0,
                        1 => 1.0,
                        _ => 0.0,
                    })
                    .collect();
                let t = std::array::from_fn(|_| (next() % 1000) as f32 / 1000.0);
                (x, t)
            })
            .collect();
        let run = |simd: Simd| {
            let mut net = start.clone();
            let mut s = TrainScratch::with_equity_weight(0.5);
            let mut grad = Gradient::zeros(&start);
            for (x, t) in &samples {
                train_net(&mut net, x, t, 0.1, Arithmetic::Ieee, simd, &mut s);
                accumulate_gradient(&start, x, t, Arithmetic::Ieee, simd, &mut s, &mut grad);
            }
            (net, grad)
        };
        let (net, grad) = run(Simd::Portable);
        assert_ne!(net, start, "the steps changed the net");
        for simd in Simd::available() {
            let (n, g) = run(simd);
            assert!(n == net, "{simd:?}: the trained net differs");
            let bits = |g: &Gradient| {
                g.hidden_weights
                    .iter()
                    .chain(&g.output_weights)
                    .chain(&g.hidden_thresholds)
                    .chain(&g.output_thresholds)
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert!(bits(&g) == bits(&grad), "{simd:?}: the gradient differs");
        }
    }
}
