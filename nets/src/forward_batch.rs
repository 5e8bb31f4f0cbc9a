//! The forward pass of one net for a batch of input vectors (the candidate
//! moves of one roll), computing exactly the bits of [`forward`] for each.
//!
//! A single evaluation streams every used row of hidden weights from L2
//! (a contact net's 128 KB do not fit L1). The batch instead walks the
//! weights one block of 16 hidden units at a time ([`Net::blocked_hidden_weights`],
//! 16 KB for 250 inputs, which stays in L1) and updates four vectors per
//! weight row loaded: the accumulators of four candidates live in registers
//! (AVX2: two 8-float registers per candidate; with `Simd::Avx512`, one
//! 16-float register). The output layer then takes two candidates per AVX2
//! register.
//!
//! Exactness: each unit's sum is its threshold plus `w·x` over the inputs in
//! index order, as in [`forward`]. The four candidates share one list of
//! rows (the union of their non-zero inputs), so a candidate also adds
//! `w·0 = ±0` for rows where its input is 0. Adding ±0 leaves every sum
//! unchanged except −0 (−0 + +0 = +0); a sum can only be −0 if it starts
//! at −0 (a sum of non-zero-signed terms rounds an exact zero to +0), so
//! the batch is used only for nets without a −0 hidden threshold
//! ([`batch_exact`]); the others take the single path. Where every input
//! of a row is 0 or 1, `w·x` is exact (`w` or ±0), so rounding `w·x + s`
//! once (a fused multiply-add) gives the bits of rounding `w·x` and then
//! the sum: with AVX-512F those rows take one fused multiply-add a unit
//! instead of a multiply and an add (two fifths of a roll's candidates'
//! rows, mostly the base inputs; the contact features are fractions).
//!
//! [`forward`]: crate::forward::forward

use crate::arith::Arithmetic;
#[cfg(not(target_arch = "x86_64"))]
use crate::forward::activate;
use crate::forward::{output_sums, Simd};
use crate::net::Net;
use crate::sigmoid::sigmoid;

/// Candidates whose accumulators share the registers.
#[cfg(target_arch = "x86_64")]
const GROUP: usize = 4;

/// Groups whose hidden sums go block by block together in the batch: a
/// block's weights are read once for up to `SPAN·GROUP` vectors.
#[cfg(target_arch = "x86_64")]
const SPAN: usize = 16;

/// Vectors of a full span.
#[cfg(target_arch = "x86_64")]
const SPAN_VECTORS: usize = SPAN * GROUP;

/// Vectors whose hidden sums, sigmoid and output sums go together in
/// [`forward_batch`]: one span, so a span's hidden rows (128 KB for a
/// 512-unit net) are still in the core's cache when the sigmoid and the
/// output layer read them, where a whole batch's (2 MB for 1,024 such
/// vectors) would have left it.
#[cfg(target_arch = "x86_64")]
const FINISHED_TOGETHER: usize = SPAN_VECTORS;
/// (Without x86-64 the batch is not used, [`batch_available`].)
#[cfg(not(target_arch = "x86_64"))]
const FINISHED_TOGETHER: usize = 64;

/// True if the batch computes the same bits as the single path for `net`
/// (no hidden threshold is −0).
pub fn batch_exact(net: &Net) -> bool {
    !net.hidden_thresholds()
        .iter()
        .any(|t| t.to_bits() == (-0.0f32).to_bits())
}

/// Runs `net` on `count` input vectors stored one after another in `xs`
/// (`net.inputs()` each), writing each vector's outputs to `out`.
/// `hidden` is scratch space, grown as needed.
pub fn forward_batch(
    net: &Net,
    xs: &[f32],
    count: usize,
    hidden: &mut Vec<f32>,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    simd: Simd,
) {
    let n_in = net.inputs();
    let padded = net.padded_hidden();
    assert!(xs.len() >= count * n_in && out.len() >= count);
    let hidden = grown_aligned(hidden, count.min(FINISHED_TOGETHER) * padded);
    let mut start = 0;
    while start < count {
        let n = (count - start).min(FINISHED_TOGETHER);
        let (xs, hidden) = (
            &xs[start * n_in..(start + n) * n_in],
            &mut hidden[..n * padded],
        );
        let out = &mut out[start..start + n];
        accumulate_batch(net, xs, n, hidden, simd);
        #[cfg(target_arch = "x86_64")]
        avx2::finish(net, hidden, n, out, arith, simd.uses_avx512());
        #[cfg(not(target_arch = "x86_64"))]
        finish(net, hidden, n, out, arith, activate, sums_one_by_one);
        start += n;
    }
}

/// Room of a board's list of non-zero race inputs: the most it can have,
/// and the 8 entries past the last that padding may write.
const LIST_ROOM: usize = 2 * crate::inputs::race::MAX_RACE_SIDE_NONZERO + 8;

/// Room of one side's list of non-zero race inputs, and the 4 entries past
/// the last that listing may write.
const SIDE_ROOM: usize = crate::inputs::race::MAX_RACE_SIDE_NONZERO + 4;

/// A group's lists of non-zero race inputs ([`forward_boards`]):
/// each board's own entries (`rows[c][..len]`, `xs[c][..len]`, a shorter list
/// padded with inputs of value 0), then the entries every board of the
/// group shares (`shared_rows[..shared]`): a roll's candidates share side
/// 1, the side now on roll, which did not move. Kept in the batch's
/// scratch: its rooms are not cleared for every batch, and a side 1 listed
/// for one roll serves the next rolls from the same position.
#[derive(Clone, Debug)]
pub(crate) struct InputLists {
    rows: [[u16; LIST_ROOM]; GROUP],
    xs: [[f32; LIST_ROOM]; GROUP],
    len: usize,
    shared_rows: [u16; SIDE_ROOM],
    shared_xs: [f32; SIDE_ROOM],
    shared: usize,
    /// The side 1 listed in the shared entries, if any, and the division
    /// it was listed with.
    side1: Option<([u8; 25], crate::arith::Division)>,
}

/// The base inputs' scratch of [`forward_boards`]: side 1's mask of
/// non-zero rows kept from the last group (the groups of one roll's
/// candidates, and the rolls from one position, share it).
#[derive(Clone, Debug, Default)]
pub(crate) struct BaseRows {
    side1: Option<([u8; 25], u128)>,
}

/// Which inputs [`forward_boards`] reads from a board's counts, with the
/// scratch that reading keeps.
#[derive(Debug)]
pub(crate) enum Listing<'a> {
    /// The base inputs ([`crate::inputs::base_inputs`]), the pruning nets':
    /// each side's non-zero rows as a mask ([`base_rows`]).
    Base(&'a mut BaseRows),
    /// The race inputs ([`crate::inputs::race_inputs`]) with this division,
    /// listed.
    Race(crate::arith::Division, &'a mut InputLists),
}

impl Listing<'_> {
    /// The inputs of the nets it reads for.
    fn inputs(&self) -> usize {
        match self {
            Listing::Base(_) => crate::inputs::BASE_INPUTS,
            Listing::Race(..) => crate::inputs::RACE_INPUTS,
        }
    }
}

impl Default for InputLists {
    fn default() -> Self {
        InputLists {
            rows: [[0; LIST_ROOM]; GROUP],
            xs: [[0.0; LIST_ROOM]; GROUP],
            len: 0,
            shared_rows: [0; SIDE_ROOM],
            shared_xs: [0.0; SIDE_ROOM],
            shared: 0,
            side1: None,
        }
    }
}

/// [`forward_batch`] of the inputs `listing` names (the base inputs
/// [`crate::inputs::base_inputs`], the pruning nets' only inputs, or the
/// race inputs) of the boards `which` picks out of `boards`, with the same
/// bits, without writing the dense vectors: the inputs are read straight
/// from the boards' counts, four boards at a time. The base inputs go
/// through the union of the four boards' masks of non-zero rows
/// ([`base_rows`]); the race inputs through each board's own list, a
/// list shorter than the longest padded with inputs of value 0 at its
/// end. Either way a board adds `w·0 = ±0` for some rows, which changes no
/// sum under [`batch_exact`]. Needs AVX2 ([`batch_available`]) and counts
/// of at most 15.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_boards(
    net: &Net,
    boards: &[board::Board],
    which: &[usize],
    hidden: &mut Vec<f32>,
    listing: Listing,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    simd: Simd,
) {
    assert!(batch_available(simd), "the batch needs AVX2");
    assert_eq!(net.inputs(), listing.inputs());
    let count = which.len();
    assert!(out.len() >= count);
    let padded = net.padded_hidden();
    let hidden = grown_aligned(hidden, count * padded);
    #[cfg(target_arch = "x86_64")]
    {
        avx2::accumulate_listed_boards(net, boards, which, hidden, listing, simd.uses_avx512());
        avx2::finish(net, hidden, count, out, arith, simd.uses_avx512());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (boards, hidden, listing, arith);
}

/// The first `len` values of `buffer`, grown (never shrunk) to hold them:
/// a batch's buffers are written whole before they are read, so what a
/// larger batch left in them is never seen, and a smaller batch after a
/// larger one costs no zeroing when the next larger one comes.
pub(crate) fn grown(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// [`grown`], the slice starting on a cache line: for buffers only ever
/// reached through it (a growth may move where the slice starts).
pub(crate) fn grown_aligned(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    let room = grown(buffer, len + crate::aligned::PER_LINE - 1);
    let start = crate::aligned::floats_to_a_line(room.as_ptr());
    &mut room[start..start + len]
}

/// The hidden sigmoid, the output sums and the output sigmoid of every
/// vector, from the hidden sums: `activate` one vector's hidden layer,
/// `output_layer` writes every vector's pre-sigmoid output sums.
#[inline(always)]
fn finish(
    net: &Net,
    hidden: &mut [f32],
    count: usize,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
    activate: impl Fn(&Net, &mut [f32], Arithmetic),
    output_layer: impl Fn(&Net, &[f32], usize, &mut [[f32; 5]], Arithmetic),
) {
    let padded = net.padded_hidden();
    if padded == net.hidden() {
        // No padding between the vectors: one call for all (the sigmoid
        // is taken element by element, so the same bits).
        activate(net, &mut hidden[..count * padded], arith);
    } else {
        for c in 0..count {
            activate(
                net,
                &mut hidden[c * padded..c * padded + net.hidden()],
                arith,
            );
        }
    }
    output_layer(net, hidden, count, out, arith);
    output_sigmoid(&mut out[..count], -net.beta_output());
}

/// The output sigmoid `sigmoid(beta·v)` of every value of `out`, in place:
/// eight values at a time with AVX2 ([`crate::sigmoid::scaled_sigmoids_avx2`],
/// the same bits), the rest one by one.
#[inline(always)]
fn output_sigmoid(out: &mut [[f32; 5]], beta: f32) {
    let flat = out.as_flattened_mut();
    #[cfg(target_arch = "x86_64")]
    let flat = if crate::cpu::has_avx2() {
        // SAFETY: AVX2 was detected at run time.
        #[allow(unsafe_code)]
        let done = unsafe { crate::sigmoid::scaled_sigmoids_avx2(flat, beta) };
        &mut flat[done..]
    } else {
        flat
    };
    for v in flat {
        *v = sigmoid(beta * *v);
    }
}

/// The output sums of `count` activated vectors (padded rows of `hidden`),
/// one vector at a time.
#[inline(always)]
fn sums_one_by_one(
    net: &Net,
    hidden: &[f32],
    count: usize,
    out: &mut [[f32; 5]],
    arith: Arithmetic,
) {
    let padded = net.padded_hidden();
    for (c, o) in out.iter_mut().enumerate().take(count) {
        let h = &hidden[c * padded..c * padded + net.hidden()];
        output_sums(net, h, &mut o[..net.outputs()], arith);
    }
}

/// True if this evaluator's SIMD level runs the batch (AVX2 only: without
/// it the single path is as fast).
pub fn batch_available(simd: Simd) -> bool {
    simd.uses_avx2()
}

/// Pre-activation hidden sums of `count` vectors into `hs` (`count` rows
/// of `net.padded_hidden()`).
///
/// # Panics
/// If [`batch_available`] is false.
fn accumulate_batch(net: &Net, xs: &[f32], count: usize, hs: &mut [f32], simd: Simd) {
    assert!(batch_available(simd), "the batch needs AVX2");
    #[cfg(target_arch = "x86_64")]
    avx2::accumulate_batch(net, xs, count, hs, simd.uses_avx512());
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (net, xs, count, hs);
}

/// The batch with AVX2 intrinsics: per block of 16 units, the accumulators
/// of up to four vectors stay in eight registers while the rows of the
/// union go by. Multiply, then add, so each unit sees exactly the single
/// path's operations; with AVX-512F, where a row's inputs are all 0 or 1
/// (exact products), one fused multiply-add: the same bits, half the
/// operations. (On AVX2 the runs cost more than the fused operations save:
/// 4 % slower on gnubg's contact net, measured on an Intel host.)
#[cfg(target_arch = "x86_64")]
mod base_rows;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{InputLists, Listing, Net, GROUP, LIST_ROOM, SIDE_ROOM, SPAN};
    use crate::arith::Division;
    use crate::forward::{BIT_COUNTS, SET_BITS};
    use crate::inputs::race::race_side_nonzero;
    use crate::net::BLOCK_UNITS;
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_cmp_ps, _mm256_cvtepu16_epi32,
        _mm256_loadu_ps, _mm256_movemask_ps, _mm256_mul_ps, _mm256_permutevar8x32_ps,
        _mm256_setzero_ps, _mm256_storeu_ps, _mm_add_epi16, _mm_loadu_si128, _mm_set1_epi16,
        _mm_storeu_si128, _CMP_NEQ_UQ,
    };

    #[allow(unsafe_code)]
    pub(super) fn accumulate_batch(
        net: &Net,
        xs: &[f32],
        count: usize,
        hs: &mut [f32],
        wide: bool,
    ) {
        // SAFETY: `accumulate_batch` asserted `batch_available`, i.e. that
        // this CPU has AVX2 (checked at run time), the only requirement of
        // the `target_feature` function; `wide` only where it has AVX-512F.
        unsafe { accumulate_batch_avx2(net, xs, count, hs, wide) }
    }

    #[allow(unsafe_code)]
    pub(super) fn finish(
        net: &Net,
        hidden: &mut [f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
        wide: bool,
    ) {
        // SAFETY: reached only after `accumulate_batch` asserted that this
        // CPU has AVX2; `wide` only where it has AVX-512F.
        unsafe { finish_avx2(net, hidden, count, out, arith, wide) }
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn finish_avx2(
        net: &Net,
        hidden: &mut [f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
        wide: bool,
    ) {
        use crate::arith::Arithmetic;
        // Two vectors at a time through the output layer where its sums
        // are the four-lane ones of a five-output net.
        let pairs = arith != Arithmetic::Reference && net.outputs() == 5;
        let activate = crate::forward::activate_avx2;
        if pairs {
            // SAFETY: `finish_avx2` is reached only after `accumulate_batch`
            // asserted that this CPU has AVX2, and `wide` only where it has
            // AVX-512F.
            let in_pairs = |net: &Net, h: &[f32], count, out: &mut _, arith| unsafe {
                sums_in_pairs(net, h, count, out, arith, wide)
            };
            super::finish(net, hidden, count, out, arith, activate, in_pairs);
        } else {
            super::finish(
                net,
                hidden,
                count,
                out,
                arith,
                activate,
                super::sums_one_by_one,
            );
        }
    }

    /// [`super::sums_one_by_one`] four vectors at a time if `wide`
    /// ([`crate::forward::sums_five_quad_avx512`]), then two at a time
    /// ([`crate::forward::sums_five_pair_avx2`]), for a five-output net in
    /// a four-lane arithmetic: the same bits.
    ///
    /// # Safety
    /// The CPU must support AVX2, and AVX-512F if `wide`.
    #[allow(unsafe_code)]
    #[inline(always)]
    unsafe fn sums_in_pairs(
        net: &Net,
        hidden: &[f32],
        count: usize,
        out: &mut [[f32; 5]],
        arith: crate::arith::Arithmetic,
        wide: bool,
    ) {
        let padded = net.padded_hidden();
        let mut c = 0;
        while wide && c + 3 < count {
            let [a, b, d, e] = &mut out[c..c + 4] else {
                unreachable!("four outputs")
            };
            let h: [&[f32]; 4] =
                std::array::from_fn(|k| &hidden[(c + k) * padded..(c + k + 1) * padded]);
            // SAFETY: the caller guarantees AVX-512F where `wide`.
            unsafe { crate::forward::sums_five_quad_avx512(net, h, [a, b, d, e]) };
            c += 4;
        }
        while c + 1 < count {
            let (a, b) = out[c..c + 2].split_at_mut(1);
            let (ha, hb) = hidden[c * padded..].split_at(padded);
            // SAFETY: the caller guarantees AVX2.
            unsafe { crate::forward::sums_five_pair_avx2(net, ha, hb, &mut a[0], &mut b[0]) };
            c += 2;
        }
        if c < count {
            super::sums_one_by_one(net, &hidden[c * padded..], 1, &mut out[c..], arith);
        }
    }

    /// The hidden sums of a batch, [`SPAN`] groups of [`GROUP`] vectors at a
    /// time: each group's union of non-zero rows and each vector's inputs
    /// at them first ([`Groups::push`]), then block by block of units every
    /// group of the span, so that a block's weights are read from memory
    /// once per span rather than once per group (a 512-unit net's weights
    /// do not stay in a core's L2). Each unit still adds its vector's rows
    /// in input order: the bits of one group at a time.
    ///
    /// # Safety
    /// The CPU must support AVX2, and AVX-512F if `wide`.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate_batch_avx2(
        net: &Net,
        xs: &[f32],
        count: usize,
        hs: &mut [f32],
        wide: bool,
    ) {
        let n_in = net.inputs();
        let padded = net.padded_hidden();
        assert!(
            n_in <= crate::inputs::MAX_INPUTS,
            "gnubg's nets have at most 250 inputs"
        );
        assert!(xs.len() >= count * n_in && hs.len() >= count * padded);
        assert!(net.blocked_hidden_weights().len() == padded / BLOCK_UNITS * n_in * BLOCK_UNITS);
        GROUPS.with_borrow_mut(|groups| {
            let mut start = 0;
            while start < count {
                let end = (start + SPAN * GROUP).min(count);
                groups.sizes.clear();
                let mut first = start;
                while first < end {
                    let g = (end - first).min(GROUP);
                    // `push` needs AVX2, enabled in this function.
                    groups.push(&xs[first * n_in..(first + g) * n_in], n_in, g, wide);
                    first += g;
                }
                let out = &mut hs[start * padded..end * padded];
                let blocks = padded / BLOCK_UNITS;
                let mut b = 0;
                while b < blocks {
                    // With AVX-512F, four blocks a pass where four remain,
                    // else two, else one.
                    let nb = match (wide, blocks - b) {
                        (false, _) => 1,
                        (true, 4..) => 4,
                        (true, 2..) => 2,
                        (true, _) => 1,
                    };
                    let mut at = 0;
                    for (union, x, runs, g) in groups.iter() {
                        let dst = &mut out[at * padded..(at + g) * padded];
                        // SAFETY: `groups` holds only rows below `n_in`, `g`
                        // inputs per row and runs that end at the union's end
                        // (`Groups::push`), `dst` is `g` padded rows and the
                        // blocked weights' length was asserted above:
                        // `block_sums`' requirements. `wide` is
                        // `simd.uses_avx512()`, true only where the CPU has
                        // AVX-512F (checked at run time; its fused
                        // multiply-add comes with it); blocks `b` to
                        // `b + nb - 1` exist.
                        match (wide, nb, g) {
                            (true, 4, 4) => block_sums_512::<4, 4>(net, b, union, x, runs, dst),
                            (true, 4, 3) => block_sums_512::<3, 4>(net, b, union, x, runs, dst),
                            (true, 4, 2) => block_sums_512::<2, 4>(net, b, union, x, runs, dst),
                            (true, 4, _) => block_sums_512::<1, 4>(net, b, union, x, runs, dst),
                            (true, 2, 4) => block_sums_512::<4, 2>(net, b, union, x, runs, dst),
                            (true, 2, 3) => block_sums_512::<3, 2>(net, b, union, x, runs, dst),
                            (true, 2, 2) => block_sums_512::<2, 2>(net, b, union, x, runs, dst),
                            (true, 2, _) => block_sums_512::<1, 2>(net, b, union, x, runs, dst),
                            (true, _, 4) => block_sums_512::<4, 1>(net, b, union, x, runs, dst),
                            (true, _, 3) => block_sums_512::<3, 1>(net, b, union, x, runs, dst),
                            (true, _, 2) => block_sums_512::<2, 1>(net, b, union, x, runs, dst),
                            (true, _, _) => block_sums_512::<1, 1>(net, b, union, x, runs, dst),
                            (false, _, 4) => block_sums::<4>(net, b, union, x, dst),
                            (false, _, 3) => block_sums::<3>(net, b, union, x, dst),
                            (false, _, 2) => block_sums::<2>(net, b, union, x, dst),
                            (false, _, _) => block_sums::<1>(net, b, union, x, dst),
                        }
                        at += g;
                    }
                    b += nb;
                }
                start = end;
            }
        });
    }

    /// Groups of [`accumulate_batch_avx2`]'s span: of each, its vectors'
    /// union of non-zero rows (in input order), each vector's inputs at
    /// those rows (a list a vector) and the union's runs of exact rows.
    /// Each group has a fixed room in every buffer, made once per thread.
    struct Groups {
        /// Group `i`'s union from `i·ROWS`.
        rows: Vec<u16>,
        /// Group `i`'s vector `c`'s inputs at the union's rows from
        /// `(i·GROUP + c)·ROWS`.
        inputs: Vec<f32>,
        /// From `i·ROWS`: group `i`'s union cut into runs of rows, each
        /// run's end and whether every input of its rows is 0 or 1 (so its
        /// products `w·x` are exact).
        runs: Vec<Run>,
        /// Each group's size, union length and number of runs.
        sizes: Vec<(usize, usize, usize)>,
    }

    /// A run of a group's union: where it ends, and whether every input of
    /// its rows is 0 or 1.
    type Run = (u16, bool);

    /// Words of a union's exact-row bits: a bit for every row of its room,
    /// and a word more than its inputs fill (where the bits
    /// [`union_of_nonzero_512`] appends cross into it).
    const EXACT_WORDS: usize = ROWS.div_ceil(64);
    /// A union's exact-row bits, row `k` at bit `k % 64` of word `k / 64`.
    type ExactBits = [u64; EXACT_WORDS];

    /// Room of a group's union: every input, and the 16 entries past the
    /// last that [`union_of_nonzero_512`] may write.
    const ROWS: usize = crate::inputs::MAX_INPUTS + 16;
    /// Room of a group's inputs: a union's room for each vector.
    const INPUTS: usize = GROUP * ROWS;

    thread_local! {
        /// This thread's groups: no allocation per batch (a rollout
        /// evaluates a batch of candidates for every move).
        static GROUPS: std::cell::RefCell<Groups> = std::cell::RefCell::new(Groups {
            rows: vec![0; SPAN * ROWS],
            inputs: vec![0.0; SPAN * INPUTS],
            runs: vec![(0, false); SPAN * ROWS],
            sizes: Vec::with_capacity(SPAN),
        });
    }

    impl Groups {
        /// Adds the group of the `g` vectors of `n_in` inputs in `group`
        /// (at most [`SPAN`] groups between [`Vec::clear`]s of `sizes`),
        /// its union cut into runs of exact and inexact rows if
        /// `with_runs` (else no runs: the AVX2 kernel reads none).
        #[allow(unsafe_code)]
        #[target_feature(enable = "avx2")]
        fn push(&mut self, group: &[f32], n_in: usize, g: usize, with_runs: bool) {
            assert!((1..=GROUP).contains(&g) && n_in <= crate::inputs::MAX_INPUTS);
            assert!(group.len() == g * n_in && self.sizes.len() < SPAN);
            let i = self.sizes.len();
            let rows = &mut self.rows[i * ROWS..(i + 1) * ROWS];
            // Bit `k` set if every input of the union's row `k` is 0 or 1.
            let mut exact: ExactBits = [0; EXACT_WORDS];
            let xs = &mut self.inputs[i * INPUTS..(i + 1) * INPUTS];
            // SAFETY: AVX2 is enabled in this function; `rows` and each
            // vector's room in `xs` have the `n_in + 8` entries
            // `union_of_nonzero` needs, and `group` the `g` vectors it reads
            // (asserted).
            let len = unsafe { union_of_group(group, n_in, g, with_runs, rows, &mut exact, xs) };
            let union = &rows[..len];
            // `block_sums` relies on it: every row is one of `n_in` inputs.
            assert!(rows_below(union, n_in));
            let runs = &mut self.runs[i * ROWS..(i + 1) * ROWS];
            let n_runs = if with_runs && len > 0 {
                runs_of(&exact, len, runs)
            } else {
                0
            };
            self.sizes.push((g, len, n_runs));
        }

        /// Each group's union, inputs (vector `c`'s from `c·ROWS`), runs and
        /// size, in order.
        fn iter(&self) -> impl Iterator<Item = (&[u16], &[f32], &[Run], usize)> + '_ {
            self.sizes.iter().enumerate().map(|(i, &(g, len, n_runs))| {
                (
                    &self.rows[i * ROWS..i * ROWS + len],
                    &self.inputs[i * INPUTS..(i + 1) * INPUTS],
                    &self.runs[i * ROWS..i * ROWS + n_runs],
                    g,
                )
            })
        }
    }

    impl super::InputLists {
        /// Lists `group`'s boards' race inputs with the division `div`:
        /// side 1 once if they all have the same, else each board whole.
        #[inline(always)]
        fn of(&mut self, boards: &[board::Board], group: &[usize], div: Division) {
            let first = &boards[group[0]].sides[1];
            let same = group.iter().all(|&i| &boards[i].sides[1] == first);
            if !same {
                self.shared = 0;
                self.side1 = None;
            } else if self.side1 != Some((*first, div)) {
                // The groups of one roll's candidates list it once.
                self.shared =
                    race_side_nonzero(first, 1, &mut self.shared_rows, &mut self.shared_xs, div);
                self.side1 = Some((*first, div));
            }
            let mut lens = [0usize; GROUP];
            for (c, &i) in group.iter().enumerate() {
                let (rows, xs) = (&mut self.rows[c], &mut self.xs[c]);
                let sides = &boards[i].sides;
                lens[c] = race_side_nonzero(&sides[0], 0, rows, xs, div);
                if !same {
                    let len = lens[c];
                    lens[c] +=
                        race_side_nonzero(&sides[1], 1, &mut rows[len..], &mut xs[len..], div);
                }
            }
            self.len = lens.into_iter().max().unwrap_or(0);
            // Padded with zeros to the longest, eight entries at a time (a
            // few stores, no call): `len + 8 ≤ LIST_ROOM`.
            for (c, &len) in lens.iter().enumerate().take(group.len()) {
                let mut l = len;
                while l < self.len {
                    self.rows[c][l..l + 8].fill(0);
                    self.xs[c][l..l + 8].fill(0.0);
                    l += 8;
                }
            }
        }
    }

    /// The hidden sums of [`super::forward_boards`]: four boards at a
    /// time, the base inputs by their masks ([`super::base_rows`]), the
    /// race inputs by the boards' lists side by side (with AVX-512F if
    /// `wide`).
    #[allow(unsafe_code)]
    pub(super) fn accumulate_listed_boards(
        net: &Net,
        boards: &[board::Board],
        which: &[usize],
        hs: &mut [f32],
        listing: Listing,
        wide: bool,
    ) {
        let padded = net.padded_hidden();
        let (div, lists) = match listing {
            Listing::Race(div, lists) => (div, lists),
            Listing::Base(kept) => {
                // SAFETY: as below.
                unsafe {
                    super::base_rows::base_sums(net, boards, which, hs, kept, wide);
                }
                return;
            }
        };
        for (start, group) in (0..).step_by(GROUP).zip(which.chunks(GROUP)) {
            lists.of(boards, group, div);
            let out = &mut hs[start * padded..(start + group.len()) * padded];
            let l = &*lists;
            // SAFETY: `forward_boards` asserted `batch_available`, i.e.
            // that this CPU has AVX2 (checked at run time), the only
            // requirement of the `target_feature` functions; `wide` only
            // where it has AVX-512F.
            unsafe {
                match (wide, group.len()) {
                    (true, 4) => list_sums_512::<4>(net, l, out),
                    (true, 3) => list_sums_512::<3>(net, l, out),
                    (true, 2) => list_sums_512::<2>(net, l, out),
                    (true, _) => list_sums_512::<1>(net, l, out),
                    (false, 4) => list_sums::<4>(net, l, out),
                    (false, 3) => list_sums::<3>(net, l, out),
                    (false, 2) => list_sums::<2>(net, l, out),
                    (false, _) => list_sums::<1>(net, l, out),
                }
            }
        }
    }

    /// True if every row of `rows` is below `n_in`: their largest, found
    /// without a branch per row (the unsafe kernels' bound).
    #[inline]
    fn rows_below(rows: &[u16], n_in: usize) -> bool {
        rows.is_empty() || usize::from(rows.iter().fold(0, |m, &r| m.max(r))) < n_in
    }

    /// Checks what [`list_sums`] and [`list_sums_512`] rely on: `G` lists
    /// and the shared one within their room, every row below the net's
    /// inputs, `out` holding `G` padded vectors and the blocked weights
    /// their full length. Returns the net's inputs, padded hidden units
    /// and blocked weights.
    fn checked_lists<'a, const G: usize>(
        net: &'a Net,
        lists: &InputLists,
        out: &[f32],
    ) -> (usize, usize, &'a [f32]) {
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        let blocked = net.blocked_hidden_weights();
        assert!(G <= GROUP && out.len() == G * padded);
        assert!(lists.len <= LIST_ROOM && lists.shared <= SIDE_ROOM);
        assert!(blocked.len() == padded / BLOCK_UNITS * n_in * BLOCK_UNITS);
        assert!(lists.rows[..G]
            .iter()
            .all(|r| rows_below(&r[..lists.len], n_in)));
        assert!(rows_below(&lists.shared_rows[..lists.shared], n_in));
        (n_in, padded, blocked)
    }

    /// The sums of `G` vectors given as lists of (input, value), each
    /// board's own entries then the shared ones, block by block; each unit
    /// adds the entries of a list in its order, as [`block_sums`] adds its
    /// rows. A shared entry's product is the same for every board: taken
    /// once, added to each.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn list_sums<const G: usize>(net: &Net, lists: &InputLists, out: &mut [f32]) {
        let (n_in, padded, blocked) = checked_lists::<G>(net, lists, out);
        let (rows, xs) = (&lists.rows, &lists.xs);
        for b in 0..padded / BLOCK_UNITS {
            let bias = block_bias(net, b);
            // SAFETY (every load and store below): `bias` and `dst` are 16
            // floats; block b holds `n_in` rows of 16 weights (asserted
            // length) and every listed row is below `n_in` (asserted), so
            // `block + 16r` is followed by 16 floats. Unaligned forms.
            let lo = _mm256_loadu_ps(bias.as_ptr());
            let hi = _mm256_loadu_ps(bias[8..].as_ptr());
            let mut acc: [[__m256; 2]; G] = [[lo, hi]; G];
            let block = blocked.as_ptr().add(b * n_in * BLOCK_UNITS);
            for k in 0..lists.len {
                for (c, a) in acc.iter_mut().enumerate() {
                    let row = block.add(usize::from(rows[c][k]) * BLOCK_UNITS);
                    let xc = _mm256_broadcast_ss(&xs[c][k]);
                    a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(_mm256_loadu_ps(row), xc));
                    a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(_mm256_loadu_ps(row.add(8)), xc));
                }
            }
            for k in 0..lists.shared {
                let row = block.add(usize::from(lists.shared_rows[k]) * BLOCK_UNITS);
                let x = _mm256_broadcast_ss(&lists.shared_xs[k]);
                let p0 = _mm256_mul_ps(_mm256_loadu_ps(row), x);
                let p1 = _mm256_mul_ps(_mm256_loadu_ps(row.add(8)), x);
                for a in acc.iter_mut() {
                    a[0] = _mm256_add_ps(a[0], p0);
                    a[1] = _mm256_add_ps(a[1], p1);
                }
            }
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + b * BLOCK_UNITS;
                let dst = &mut out[at..at + BLOCK_UNITS];
                _mm256_storeu_ps(dst.as_mut_ptr(), a[0]);
                _mm256_storeu_ps(dst[8..].as_mut_ptr(), a[1]);
            }
        }
    }

    /// [`list_sums`] with AVX-512F: a block's 16 sums of a vector in one
    /// register. The same operations in the same order, so the same bits.
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f")]
    unsafe fn list_sums_512<const G: usize>(net: &Net, lists: &InputLists, out: &mut [f32]) {
        use std::arch::x86_64::*;
        let (n_in, padded, blocked) = checked_lists::<G>(net, lists, out);
        let (rows, xs) = (&lists.rows, &lists.xs);
        for b in 0..padded / BLOCK_UNITS {
            // SAFETY (every load and store below): as in `list_sums`.
            let mut acc = [_mm512_loadu_ps(block_bias(net, b).as_ptr()); G];
            let block = blocked.as_ptr().add(b * n_in * BLOCK_UNITS);
            for k in 0..lists.len {
                for (c, a) in acc.iter_mut().enumerate() {
                    let row = block.add(usize::from(rows[c][k]) * BLOCK_UNITS);
                    let xc = _mm512_set1_ps(xs[c][k]);
                    *a = _mm512_add_ps(*a, _mm512_mul_ps(_mm512_loadu_ps(row), xc));
                }
            }
            for k in 0..lists.shared {
                let row = block.add(usize::from(lists.shared_rows[k]) * BLOCK_UNITS);
                let p = _mm512_mul_ps(_mm512_loadu_ps(row), _mm512_set1_ps(lists.shared_xs[k]));
                for a in acc.iter_mut() {
                    *a = _mm512_add_ps(*a, p);
                }
            }
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + b * BLOCK_UNITS;
                _mm512_storeu_ps(out[at..at + BLOCK_UNITS].as_mut_ptr(), *a);
            }
        }
    }

    /// Cuts the `len` rows of a union into runs of rows of one kind (bit
    /// `k` of `exact`: every input of row `k` is 0 or 1), written to
    /// `runs` as each run's end and kind; returns how many. The kind
    /// changes where a bit differs from the one before: those bits are
    /// found a word at a time, so a union of some fifty rows in a handful
    /// of runs costs a handful of steps, not a branch a row.
    #[inline(always)]
    fn runs_of(exact: &ExactBits, len: usize, runs: &mut [Run]) -> usize {
        assert!(len > 0 && len <= 64 * EXACT_WORDS && runs.len() >= len);
        let mut current = exact[0] & 1 == 1;
        let mut n_runs = 0;
        let mut carry = exact[0] & 1;
        for (w, &word) in exact.iter().enumerate().take(len.div_ceil(64)) {
            let mut changes = word ^ (word << 1 | carry);
            carry = word >> 63;
            let left = len - 64 * w;
            if left < 64 {
                changes &= (1u64 << left) - 1;
            }
            while changes != 0 {
                let k = 64 * w + changes.trailing_zeros() as usize;
                runs[n_runs] = (k as u16, current);
                n_runs += 1;
                current = !current;
                changes &= changes - 1;
            }
        }
        runs[n_runs] = (len as u16, current);
        n_runs + 1
    }

    /// The union of a group of `g` vectors (1 to 4): with `wide` (the CPU
    /// has AVX-512F) by [`union_of_nonzero_512`], with the exact-row bits,
    /// else by [`union_of_nonzero`], without them (the AVX2 kernel reads
    /// no runs).
    ///
    /// # Safety
    /// The CPU must support AVX2, and AVX-512F if `wide`.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn union_of_group(
        group: &[f32],
        n_in: usize,
        g: usize,
        wide: bool,
        rows: &mut [u16],
        exact: &mut ExactBits,
        xs: &mut [f32],
    ) -> usize {
        // SAFETY: AVX2 is enabled in this function, AVX-512F is there
        // where `wide` (the caller's guarantee).
        unsafe {
            match (wide, g) {
                (true, 4) => union_of_nonzero_512::<4>(group, n_in, rows, exact, xs),
                (true, 3) => union_of_nonzero_512::<3>(group, n_in, rows, exact, xs),
                (true, 2) => union_of_nonzero_512::<2>(group, n_in, rows, exact, xs),
                (true, _) => union_of_nonzero_512::<1>(group, n_in, rows, exact, xs),
                (false, 4) => union_of_nonzero::<4>(group, n_in, rows, xs),
                (false, 3) => union_of_nonzero::<3>(group, n_in, rows, xs),
                (false, 2) => union_of_nonzero::<2>(group, n_in, rows, xs),
                (false, _) => union_of_nonzero::<1>(group, n_in, rows, xs),
            }
        }
    }

    /// Writes to `rows` the indices, in order, of the inputs that are not
    /// zero in at least one of the `G` vectors of `n_in` inputs in `group`,
    /// and to `xs` (from `c·ROWS`) each vector `c`'s inputs at those rows;
    /// returns how many rows there are. Eight inputs at a time: a compare
    /// and a move-mask per vector, then the indices of the mask's set bits
    /// from [`SET_BITS`] in one 16-byte store, and each vector's values at
    /// those indices packed by one permute into one 32-byte store (no
    /// branch per index). `rows` and each vector's room in `xs` need 8
    /// entries past the last one written.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn union_of_nonzero<const G: usize>(
        group: &[f32],
        n_in: usize,
        rows: &mut [u16],
        xs: &mut [f32],
    ) -> usize {
        assert!(group.len() >= G * n_in && rows.len() >= n_in + 8);
        assert!(n_in + 8 <= ROWS && xs.len() >= G * ROWS);
        let zero = _mm256_setzero_ps();
        let mut len = 0;
        let mut r = 0;
        let base = group.as_ptr();
        while r + 8 <= n_in {
            let mut bits = 0u32;
            // SAFETY: the 8 floats at `c·n_in + r` lie inside `group`
            // (`r + 8 ≤ n_in`, `c < G`, asserted length); unaligned loads.
            let mut v = [zero; G];
            for (c, v) in v.iter_mut().enumerate() {
                *v = _mm256_loadu_ps(base.add(c * n_in + r));
            }
            for v in v {
                // Unordered not-equal: NaN counts as non-zero, as `!= 0.0`.
                let nonzero = _mm256_cmp_ps::<_CMP_NEQ_UQ>(v, zero);
                bits |= _mm256_movemask_ps(nonzero) as u32;
            }
            // SAFETY: an entry of SET_BITS is 16 readable bytes.
            let lanes = _mm_loadu_si128(SET_BITS[bits as usize].as_ptr().cast());
            let at = _mm_add_epi16(lanes, _mm_set1_epi16(r as i16));
            // SAFETY: `len ≤ r` (at most one index per input so far) and
            // `r + 8 ≤ n_in`, so the 8 entries at `len` lie inside `rows`
            // (asserted `n_in + 8` long) and inside each vector's `ROWS`
            // in `xs` (`n_in + 8 ≤ ROWS`, asserted); unaligned stores.
            _mm_storeu_si128(rows.as_mut_ptr().add(len).cast(), at);
            let lanes = _mm256_cvtepu16_epi32(lanes);
            for (c, v) in v.into_iter().enumerate() {
                let packed = _mm256_permutevar8x32_ps(v, lanes);
                _mm256_storeu_ps(xs.as_mut_ptr().add(c * ROWS + len), packed);
            }
            len += usize::from(BIT_COUNTS[bits as usize]);
            r += 8;
        }
        for r in r..n_in {
            rows[len] = r as u16;
            for c in 0..G {
                xs[c * ROWS + len] = group[c * n_in + r];
            }
            len += usize::from((0..G).any(|c| group[c * n_in + r] != 0.0));
        }
        len
    }

    /// [`union_of_nonzero`] with AVX-512F, sixteen inputs at a time and the
    /// last few under a mask, also setting bit `k` of `exact` where every
    /// vector's input at row `rows[k]` is 0 or 1 (else clearing it; NaN is
    /// neither), for every row `k` listed. Per sixteen inputs: a compare
    /// per vector into a mask, their union, then one compress of the
    /// indices (narrowed to 16 bits), one of each vector's values and one
    /// of the rows' flags, each a single store (no branch per index).
    /// `rows` and each vector's room in `xs` need 16 entries past the last
    /// one written.
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2,avx512f")]
    unsafe fn union_of_nonzero_512<const G: usize>(
        group: &[f32],
        n_in: usize,
        rows: &mut [u16],
        exact: &mut ExactBits,
        xs: &mut [f32],
    ) -> usize {
        use std::arch::x86_64::*;
        assert!(group.len() >= G * n_in && rows.len() >= n_in + 16);
        assert!(n_in + 16 <= ROWS && xs.len() >= G * ROWS);
        assert!(n_in <= 64 * (EXACT_WORDS - 1));
        let (zero, one) = (_mm512_setzero_ps(), _mm512_set1_ps(1.0));
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        *exact = [0; EXACT_WORDS];
        let base = group.as_ptr();
        let mut len = 0;
        let mut r = 0;
        while r < n_in {
            // The inputs left, at most 16: a lane past the last loads 0,
            // so it is never listed.
            let live: __mmask16 = if n_in - r >= 16 {
                0xFFFF
            } else {
                (1 << (n_in - r)) - 1
            };
            // SAFETY: the live lanes at `c·n_in + r` lie inside `group`
            // (`r + lane < n_in`, `c < G`, asserted length); a masked load
            // touches no other memory.
            let v: [__m512; G] = std::array::from_fn(|c| unsafe {
                _mm512_maskz_loadu_ps(live, base.add(c * n_in + r))
            });
            let (mut listed, mut inexact): (__mmask16, __mmask16) = (0, 0);
            for v in v {
                // Unordered not-equal: NaN counts as non-zero (as `!= 0.0`)
                // and as not one.
                let nonzero = _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(v, zero);
                listed |= nonzero;
                inexact |= _mm512_mask_cmp_ps_mask::<_CMP_NEQ_UQ>(nonzero, v, one);
            }
            let at = _mm512_add_epi32(iota, _mm512_set1_epi32(r as i32));
            let at = _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(listed, at));
            // SAFETY: `len ≤ r` (at most one index per input so far) and
            // `r < n_in`, so the 16 entries at `len` lie inside `rows`
            // (asserted `n_in + 16` long) and inside each vector's `ROWS`
            // in `xs` (`n_in + 16 ≤ ROWS`, asserted); unaligned stores.
            _mm256_storeu_si256(rows.as_mut_ptr().add(len).cast(), at);
            for (c, v) in v.into_iter().enumerate() {
                let packed = _mm512_maskz_compress_ps(listed, v);
                _mm512_storeu_ps(xs.as_mut_ptr().add(c * ROWS + len), packed);
            }
            // The listed rows' flags, packed as their inputs were.
            let flags = _mm512_maskz_compress_epi32(
                listed,
                _mm512_maskz_mov_epi32(inexact, _mm512_set1_epi32(-1)),
            );
            let n = listed.count_ones() as usize;
            let bits = u64::from(!_mm512_test_epi32_mask(flags, flags)) & ((1 << n) - 1);
            // `len < n_in ≤ 64·(EXACT_WORDS − 1)`, so word `len / 64 + 1`
            // exists where the bits cross into it.
            let (w, off) = (len / 64, len % 64);
            exact[w] |= bits << off;
            if off > 48 {
                exact[w + 1] |= bits >> (64 - off);
            }
            len += n;
            r += 16;
        }
        len
    }

    /// Block `b`'s sums of `G` vectors over the rows in `union`, their
    /// inputs in `x` (`x[c·ROWS + k]` is vector `c`'s input at row
    /// `union[k]`), into the vectors' padded rows in `out`.
    ///
    /// # Safety
    /// The CPU must support AVX2; every row of `union` is below
    /// `net.inputs()`; the blocked weights hold `net.inputs()` rows of
    /// [`BLOCK_UNITS`] per block. (`b` below the blocks, `x` holding `G`
    /// rooms of [`ROWS`] values and `out` `G` padded rows are asserted.)
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx2")]
    unsafe fn block_sums<const G: usize>(
        net: &Net,
        b: usize,
        union: &[u16],
        x: &[f32],
        out: &mut [f32],
    ) {
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        assert!(x.len() >= G * ROWS && union.len() <= ROWS && out.len() == G * padded);
        assert!(b < padded / BLOCK_UNITS);
        let bias = block_bias(net, b);
        // SAFETY (every load and store below): `bias` and `dst` are 16
        // floats; `rows` holds block b's `n_in` rows of 16 weights and every
        // `r` in `union` is below `n_in` (the caller's guarantees), so
        // `rows + 16r` is followed by 16 floats; `x` holds a value for each
        // vector `c < G` and union row `k` at `c·ROWS + k` (asserted).
        // Unaligned loads and stores throughout.
        let lo = _mm256_loadu_ps(bias.as_ptr());
        let hi = _mm256_loadu_ps(bias[8..].as_ptr());
        let mut acc: [[__m256; 2]; G] = [[lo, hi]; G];
        let rows = net
            .blocked_hidden_weights()
            .as_ptr()
            .add(b * n_in * BLOCK_UNITS);
        for (k, &r) in union.iter().enumerate() {
            let row = rows.add(usize::from(r) * BLOCK_UNITS);
            let w0 = _mm256_loadu_ps(row);
            let w1 = _mm256_loadu_ps(row.add(8));
            for (c, a) in acc.iter_mut().enumerate() {
                let xc = _mm256_broadcast_ss(x.get_unchecked(c * ROWS + k));
                a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(w0, xc));
                a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(w1, xc));
            }
        }
        for (c, a) in acc.iter().enumerate() {
            let at = c * padded + b * BLOCK_UNITS;
            let dst = &mut out[at..at + BLOCK_UNITS];
            _mm256_storeu_ps(dst.as_mut_ptr(), a[0]);
            _mm256_storeu_ps(dst[8..].as_mut_ptr(), a[1]);
        }
    }

    /// [`block_sums`] with AVX-512F for `NB` blocks from `b` at once: a
    /// block's 16 sums of a vector in one register, `NB` independent sums
    /// a vector (so that fused multiply-adds are not held back by each
    /// one's latency, and each row's index and inputs are read once for
    /// `NB` blocks). `runs` cuts the union into runs of rows (each run's
    /// end, and whether every input of its rows is 0 or 1): there `w·x` is
    /// exact, and one fused multiply-add rounds `w·x + s` as the multiply
    /// and the add would. The same bits as [`block_sums`].
    ///
    /// # Safety
    /// As [`block_sums`], with AVX-512F (whose fused multiply-add comes
    /// with it); blocks `b` to `b + NB - 1` exist and the runs end at the
    /// union's end (both asserted).
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f")]
    unsafe fn block_sums_512<const G: usize, const NB: usize>(
        net: &Net,
        b: usize,
        union: &[u16],
        x: &[f32],
        runs: &[Run],
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let (n_in, padded) = (net.inputs(), net.padded_hidden());
        assert!(x.len() >= G * ROWS && union.len() <= ROWS && out.len() == G * padded);
        assert!(runs.last().map_or(0, |r| usize::from(r.0)) == union.len());
        assert!(b + NB <= padded / BLOCK_UNITS);
        // SAFETY (every load and store below): as in `block_sums`, for
        // blocks `b` to `b + NB - 1`; the runs' ends increase
        // (`Groups::push`) up to the union's end (asserted), so every `k`
        // indexes the union.
        let mut acc: [[__m512; G]; NB] =
            std::array::from_fn(|k| [_mm512_loadu_ps(block_bias(net, b + k).as_ptr()); G]);
        let rows = net
            .blocked_hidden_weights()
            .as_ptr()
            .add(b * n_in * BLOCK_UNITS);
        let mut start = 0;
        for &(end, exact) in runs {
            let end = usize::from(end);
            let run = &union[start..end];
            let mut xs: [&[f32]; G] = [&[]; G];
            for (c, xs) in xs.iter_mut().enumerate() {
                *xs = &x[c * ROWS + start..c * ROWS + end];
            }
            // Two loops, so that neither tests `exact` per row.
            if exact {
                run_512::<G, NB, true>(run, xs, rows, n_in * BLOCK_UNITS, &mut acc);
            } else {
                run_512::<G, NB, false>(run, xs, rows, n_in * BLOCK_UNITS, &mut acc);
            }
            start = end;
        }
        for (k, acc) in acc.iter().enumerate() {
            for (c, a) in acc.iter().enumerate() {
                let at = c * padded + (b + k) * BLOCK_UNITS;
                _mm512_storeu_ps(out[at..at + BLOCK_UNITS].as_mut_ptr(), *a);
            }
        }
    }

    /// One run of [`block_sums_512`]: the rows `run` (vector `c`'s inputs
    /// at them in `x[c]`) added to `acc[k]` from the block at `rows + k·stride`,
    /// by one fused multiply-add a unit if `EXACT` (every input 0 or 1),
    /// else a multiply and an add.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; every row of `run` is below the
    /// blocks' row count and `NB` blocks of `stride` floats follow `rows`
    /// (each `x[c]` holding an input a row is asserted).
    #[allow(unsafe_code)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn run_512<const G: usize, const NB: usize, const EXACT: bool>(
        run: &[u16],
        x: [&[f32]; G],
        rows: *const f32,
        stride: usize,
        acc: &mut [[std::arch::x86_64::__m512; G]; NB],
    ) {
        use std::arch::x86_64::*;
        let term = |a, w, x| {
            if EXACT {
                _mm512_fmadd_ps(w, x, a)
            } else {
                _mm512_add_ps(a, _mm512_mul_ps(w, x))
            }
        };
        assert!(x.iter().all(|x| x.len() == run.len()));
        for (k, &r) in run.iter().enumerate() {
            // SAFETY: row `r` of a block is 16 floats inside it (the
            // caller's guarantees); unaligned loads. `k` is below every
            // `x[c]`'s length (asserted).
            let r = usize::from(r) * BLOCK_UNITS;
            let w: [__m512; NB] =
                std::array::from_fn(|b| _mm512_loadu_ps(rows.add(b * stride + r)));
            let xs: [__m512; G] = std::array::from_fn(|c| _mm512_set1_ps(*x[c].get_unchecked(k)));
            for (acc, w) in acc.iter_mut().zip(w) {
                for (a, &xc) in acc.iter_mut().zip(&xs) {
                    *a = term(*a, w, xc);
                }
            }
        }
    }

    /// The hidden thresholds of block `b`'s units (0 past the last unit).
    #[inline(always)]
    pub(super) fn block_bias(net: &Net, b: usize) -> [f32; BLOCK_UNITS] {
        let thresholds = net.hidden_thresholds();
        let start = b * BLOCK_UNITS;
        // A whole block in one copy (unit by unit, its 16 stores made the
        // block's load wait).
        if let Some(block) = thresholds.get(start..start + BLOCK_UNITS) {
            return block.try_into().expect("a block of units");
        }
        std::array::from_fn(|u| thresholds.get(start + u).copied().unwrap_or(0.0))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The union's rows, their inputs and (with AVX-512F) their
        /// exact-row bits, and the runs cut from those bits, against the
        /// plain definitions, on groups of 1 to 4 sparse vectors of 250 and
        /// of 214 inputs, by both kernels where the CPU has them.
        #[test]
        #[allow(unsafe_code)]
        fn unions_and_runs_follow_their_definitions() {
            if !crate::cpu::has_avx2() {
                return;
            }
            let widths: Vec<bool> = [false, true]
                .into_iter()
                .filter(|&wide| !wide || crate::cpu::has_avx512())
                .collect();
            let mut next = crate::test_rng::xorshift(41);
            for round in 0..800 {
                let wide = widths[round % widths.len()];
                let n_in = if round / 2 % 2 == 0 { 250 } else { 214 };
                let g = 1 + round / 4 % GROUP;
                let group: Vec<f32> = (0..g * n_in)
                    .map(|_| match next() % 10 {
                        0 | 1 => 1.0,
                        2 => 0.5 + (next() % 7) as f32,
                        _ => 0.0,
                    })
                    .collect();
                let (mut rows, mut exact) = (vec![0u16; ROWS], [0u64; EXACT_WORDS]);
                let mut xs = vec![0f32; GROUP * ROWS];
                // SAFETY: AVX2 was detected, and AVX-512F where `wide`; the
                // buffers have the room the kernels assert.
                let len = unsafe {
                    union_of_group(&group, n_in, g, wide, &mut rows, &mut exact, &mut xs)
                };
                let value = |c: usize, r: usize| group[c * n_in + r];
                let want: Vec<usize> = (0..n_in)
                    .filter(|&r| (0..g).any(|c| value(c, r) != 0.0))
                    .collect();
                assert_eq!(len, want.len());
                let mut kinds = Vec::new();
                for (k, &r) in want.iter().enumerate() {
                    assert_eq!(usize::from(rows[k]), r);
                    for c in 0..g {
                        assert_eq!(xs[c * ROWS + k].to_bits(), value(c, r).to_bits());
                    }
                    let is_exact = (0..g).all(|c| value(c, r) == 0.0 || value(c, r) == 1.0);
                    if wide {
                        assert_eq!(exact[k / 64] >> (k % 64) & 1 == 1, is_exact, "row {r}");
                    }
                    kinds.push(is_exact);
                }
                if !wide {
                    continue;
                }
                assert!(
                    (len..64 * EXACT_WORDS).all(|k| exact[k / 64] >> (k % 64) & 1 == 0),
                    "a bit past the union"
                );
                let mut runs = vec![(0u16, false); ROWS];
                let n_runs = runs_of(&exact, len, &mut runs);
                let mut start = 0;
                for &(end, kind) in &runs[..n_runs] {
                    let end = usize::from(end);
                    assert!(start < end, "an empty run");
                    assert!(kinds[start..end].iter().all(|&k| k == kind));
                    if end < len {
                        assert_ne!(kinds[end], kind, "a run ends early");
                    }
                    start = end;
                }
                assert_eq!(start, len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetShape;
    use crate::test_rng::xorshift;

    /// The path from the boards gives every board the bits of the single
    /// forward pass on its dense base inputs (the pruning nets') or race
    /// inputs (the race net's, 128 units), for hidden layers of one block,
    /// less than one and more, batches that leave groups of one to three,
    /// and counts 0 to 15 on every point; one set of lists serves both.
    #[test]
    fn the_boards_path_gives_the_single_pass_bits() {
        let mut lists = InputLists::default();
        let mut rows = BaseRows::default();
        for (hidden, seed, race) in [
            (16, 3, false),
            (8, 4, false),
            (128, 9, true),
            (5, 5, false),
            (40, 6, true),
        ] {
            let inputs = if race {
                crate::inputs::RACE_INPUTS
            } else {
                crate::inputs::BASE_INPUTS
            };
            let net = crate::test_rng::random_net(inputs, hidden, seed);
            let mut next = xorshift(seed + 100);
            assert!(batch_exact(&net));
            let mut random_side = || {
                std::array::from_fn(|_| {
                    if next().is_multiple_of(3) {
                        (next() % 16) as u8
                    } else {
                        0
                    }
                })
            };
            // Runs of boards with the same side 1, as a roll's candidates
            // have (the list of its entries is shared), then unrelated ones.
            let sides1: [[u8; 25]; 3] = std::array::from_fn(|_| random_side());
            let boards: Vec<board::Board> = (0..23)
                .map(|i| board::Board {
                    sides: [
                        random_side(),
                        if i < 18 {
                            sides1[i / 6 % 3]
                        } else {
                            random_side()
                        },
                    ],
                })
                .collect();
            // One set of lists for every batch, as a scratch keeps it: a
            // side 1 listed for one batch serves the next only if equal
            // and listed the same way.
            for simd in Simd::available()
                .into_iter()
                .filter(|s| batch_available(*s))
            {
                for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
                    for (count, stride) in [1, 2, 3, 4, 7, 23]
                        .into_iter()
                        .flat_map(|count| [(count, 5), (count, 1)])
                    {
                        let which: Vec<usize> =
                            (0..count).map(|i| (i * stride) % boards.len()).collect();
                        let mut got = vec![[0f32; 5]; count];
                        let mut scratch = Vec::new();
                        let listing = if race {
                            Listing::Race(arith.division(), &mut lists)
                        } else {
                            Listing::Base(&mut rows)
                        };
                        forward_boards(
                            &net,
                            &boards,
                            &which,
                            &mut scratch,
                            listing,
                            &mut got,
                            arith,
                            simd,
                        );
                        for (&i, g) in which.iter().zip(&got) {
                            let mut x = vec![0f32; inputs];
                            if race {
                                crate::inputs::race_inputs(&boards[i], &mut x, arith);
                            } else {
                                crate::inputs::base_inputs(&boards[i], &mut x);
                            }
                            let (mut h, mut want) = (vec![0f32; hidden], [0f32; 5]);
                            crate::forward::forward(&net, &x, &mut h, &mut want, arith, simd);
                            assert_eq!(
                                g.map(f32::to_bits),
                                want.map(f32::to_bits),
                                "{hidden} {simd:?} {arith:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Dense input vectors through the batch give each vector the bits of
    /// the single forward pass, on wide nets (a partial last block
    /// included) and batches of one group to several spans of groups.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn batches_of_several_spans_give_the_single_pass_bits() {
        for (inputs, hidden, seed) in [(250, 520, 11), (214, 128, 12), (250, 16, 13)] {
            let net = crate::test_rng::random_net(inputs, hidden, seed);
            assert!(batch_exact(&net));
            let mut next = xorshift(seed + 7);
            let most = 2 * SPAN_VECTORS + 5;
            // Sparse vectors as a board's: most inputs zero, some 1, some
            // other values.
            let xs: Vec<f32> = (0..most * inputs)
                .map(|_| match next() % 8 {
                    0 => 1.0,
                    1 => (next() % 1000) as f32 / 333.0,
                    _ => 0.0,
                })
                .collect();
            for simd in Simd::available()
                .into_iter()
                .filter(|s| batch_available(*s))
            {
                for arith in [Arithmetic::GnubgFastMath, Arithmetic::Ieee] {
                    for count in [
                        1,
                        3,
                        5,
                        SPAN_VECTORS - 1,
                        SPAN_VECTORS,
                        SPAN_VECTORS + 1,
                        most,
                    ] {
                        let mut got = vec![[0f32; 5]; count];
                        let mut scratch = Vec::new();
                        forward_batch(&net, &xs, count, &mut scratch, &mut got, arith, simd);
                        for (x, g) in xs.chunks(inputs).zip(&got) {
                            let (mut h, mut want) = (vec![0f32; hidden], [0f32; 5]);
                            crate::forward::forward(&net, x, &mut h, &mut want, arith, simd);
                            assert_eq!(
                                g.map(f32::to_bits),
                                want.map(f32::to_bits),
                                "{hidden} units, {count} vectors, {simd:?} {arith:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_minus_zero_threshold_sends_a_net_to_the_single_path() {
        let shape = NetShape {
            inputs: 4,
            hidden: 8,
            outputs: 5,
            beta_hidden: 0.1,
            beta_output: 1.0,
        };
        let mut net = Net::zeroed(shape).unwrap();
        assert!(batch_exact(&net));
        net.update(|p| p.hidden_thresholds[3] = -0.0);
        assert!(!batch_exact(&net));
        assert_eq!(net.padded_hidden(), 16);
        assert_eq!(net.blocked_hidden_weights().len(), 16 * 4);
    }
}
