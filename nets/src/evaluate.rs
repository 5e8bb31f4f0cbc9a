//! The 0-ply evaluator (docs/formats.md#0-ply-and-n-ply) and n-ply search (gnubg's
//! `EvaluatePositionFull`). The [`Evaluator`] is immutable and `Sync`: share
//! it between threads and give each thread its own [`Scratch`].

use crate::arith::Arithmetic;
use crate::bearoff_eval::BearoffDatabases;
use crate::classify::{classify, Class};
use crate::forward::{forward, Simd};
use crate::inputs::{
    contact_inputs, contact_inputs_after, crashed_inputs, crashed_inputs_after, race_inputs,
    MAX_INPUTS,
};
use crate::net::{NetKind, Nets};
use crate::race_backgammon::race_backgammon_override;
use crate::sanity::{sanity_check_with, SideMemo};
use crate::search_cache::{Key, SearchCache};
use board::{cubeless_equity, Probabilities};
use board::{eval_over, Board, MoveList, Variant};
use std::sync::Arc;

/// Why an evaluator cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The requested arithmetic needs another CPU architecture.
    #[error("the gnubg fast-math arithmetic needs an x86-64 CPU")]
    Unsupported,
    /// The requested vector instructions are not on this CPU.
    #[error("this CPU cannot run the {0:?} code path")]
    Simd(Simd),
}

/// A position's class and its five outputs (win, win gammon, win
/// backgammon, lose gammon, lose backgammon) for the side on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// The class of the evaluated position.
    pub class: Class,
    /// The outputs, from the view of `board.sides[1]`.
    pub outputs: Probabilities,
}

impl Evaluation {
    /// Cubeless money equity of the outputs.
    pub fn equity(&self) -> f32 {
        cubeless_equity(&self.outputs)
    }
}

/// Per-thread buffers: input vector, hidden layer, move list. Reused by
/// every call, so evaluation allocates nothing.
#[derive(Clone, Debug)]
pub struct Scratch {
    pub(crate) net: NetScratch,
    pub(crate) moves: MoveList,
    pub(crate) scores: Vec<f32>,
    pub(crate) batch: BatchScratch,
}

impl Scratch {
    /// From now on keeps the evaluations this scratch makes, across
    /// searches, for as long as it lives: [`Scratch::within_search`] then
    /// finds the cache under way and leaves it be, so a position that a
    /// later search meets again (the next position of a game often leads
    /// to the same positions two plies on) is not evaluated again. The
    /// cache cannot tell evaluators apart: use it with one evaluator whose
    /// nets do not change while the scratch lives (as a pool of scratches
    /// borrowing it does).
    pub fn keep_evaluations(&mut self) {
        self.begin_caches();
    }

    /// Starts a search in the two caches; returns false if one is
    /// already under way (they begin and end together).
    fn begin_caches(&mut self) -> bool {
        let full = self.batch.full_cache.begin();
        let plied = self.batch.plied_cache.begin();
        debug_assert!(full == plied);
        full
    }

    /// Runs `search` as one n-ply search: the evaluations it makes are
    /// cached until it returns (a position met again has the bits of its
    /// first evaluation, so only the time changes). Inside a search already
    /// under way the outer one keeps the cache and ends it. The evaluator
    /// must not change while `search` runs.
    pub fn within_search<T>(&mut self, search: impl FnOnce(&mut Scratch) -> T) -> T {
        let outer = self.begin_caches();
        let result = search(self);
        if outer {
            self.batch.full_cache.end();
            self.batch.plied_cache.end();
        }
        result
    }
}

/// True if no count of `board` exceeds 15 (as on every legal board): the
/// race inputs' lists encode counts through the base inputs' table.
fn counts_fit(board: &Board) -> bool {
    board.sides.iter().flatten().all(|&n| n <= 15)
}

/// [`Evaluator::evaluate_many`]'s batches of more boards than this look
/// for repeats among them ([`Evaluator::evaluate_batch`]).
const REPEATS_FROM: usize = 64;

/// The first board before `i` whose key is `key`, found in `firsts` (a
/// board index a slot, open addressing, a power of two long, more than
/// the boards); else `i` is recorded there and `None` returned.
fn first_with(firsts: &mut [u32], keys: &[Option<Key>], i: usize, key: &Key) -> Option<u32> {
    let mask = firsts.len() - 1;
    let mut at = key.slot() as usize & mask;
    loop {
        match firsts[at] {
            u32::MAX => {
                firsts[at] = i as u32;
                return None;
            }
            j if keys[j as usize].as_ref() == Some(key) => return Some(j),
            _ => at = (at + 1) & mask,
        }
    }
}

/// Buffers of batched evaluation.
#[derive(Clone, Debug, Default)]
pub(crate) struct BatchScratch {
    pub(crate) indices: Vec<usize>,
    pub(crate) boards: Vec<Board>,
    pub(crate) outputs: Vec<Probabilities>,
    classes: Vec<Class>,
    /// The pruning nets' kept side 1 ([`crate::forward_batch::Listing::Base`]).
    base_rows: crate::forward_batch::BaseRows,
    /// The race net's lists of non-zero inputs.
    race_lists: crate::forward_batch::InputLists,
    members: Vec<usize>,
    inputs: Vec<f32>,
    hidden: Vec<f32>,
    net_out: Vec<Probabilities>,
    /// Which batch boards were found in the cache.
    cached: Vec<bool>,
    /// The boards still to evaluate.
    todo: Vec<usize>,
    /// The batch boards' cache keys, computed (and their entries fetched)
    /// before any is looked up.
    keys: Vec<Option<Key>>,
    /// For each batch board, the earlier board of the batch it repeats
    /// (evaluated once for both), if any.
    repeats: Vec<Option<u32>>,
    /// The first board of the batch with each key, by slot
    /// ([`Evaluator::evaluate_batch`]'s repeats), `u32::MAX` where none.
    firsts: Vec<u32>,
    /// The candidates of several rolls, queued to be evaluated in one
    /// batch ([`crate::move_select`]), with the class of each if known...
    pub(crate) queued: Vec<Board>,
    pub(crate) queued_known: Vec<Option<Class>>,
    /// ...and where each roll's candidates end.
    pub(crate) queued_ends: Vec<usize>,
    /// 0-ply evaluations of the search under way.
    pub(crate) full_cache: SearchCache,
    /// n-ply values (n ≥ 1) of the search under way, tagged with n and
    /// the pruning ([`crate::plied`]).
    pub(crate) plied_cache: SearchCache,
}

impl BatchScratch {
    /// The class of batch board `k` in the last [`Evaluator::evaluate_batch`].
    pub(crate) fn class_of(&self, k: usize) -> Class {
        self.classes[k]
    }
}

/// Buffers of one forward pass.
#[derive(Clone, Debug)]
pub(crate) struct NetScratch {
    pub(crate) inputs: Vec<f32>,
    /// Starts on a cache line, as the weight rows do.
    pub(crate) hidden: crate::aligned::Aligned,
}

/// Evaluates positions with gnubg's nets and bearoff databases. A clone
/// copies the nets and shares the (read-only) databases.
#[derive(Clone, Debug)]
pub struct Evaluator {
    pub(crate) nets: Nets,
    bearoff: Arc<BearoffDatabases>,
    arith: Arithmetic,
    simd: Simd,
}

impl Evaluator {
    /// An evaluator with the given nets, databases and arithmetic.
    pub fn new(
        nets: Nets,
        bearoff: BearoffDatabases,
        arith: Arithmetic,
    ) -> Result<Evaluator, EvalError> {
        if !arith.is_supported() {
            return Err(EvalError::Unsupported);
        }
        Ok(Evaluator {
            nets,
            bearoff: Arc::new(bearoff),
            arith,
            simd: Simd::Auto,
        })
    }

    /// The same evaluator on the given vector instructions (same results,
    /// other speed); fails if this CPU cannot run them.
    pub fn with_simd(mut self, simd: Simd) -> Result<Evaluator, EvalError> {
        if !simd.is_available() {
            return Err(EvalError::Simd(simd));
        }
        self.simd = simd;
        Ok(self)
    }

    /// The vector instructions in use.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// Fresh per-thread buffers sized for these nets.
    pub fn scratch(&self) -> Scratch {
        Scratch {
            net: NetScratch {
                inputs: vec![0.0; MAX_INPUTS],
                hidden: crate::aligned::Aligned::zeroed(self.nets.max_hidden()),
            },
            moves: MoveList::new(),
            scores: Vec::with_capacity(64),
            batch: BatchScratch::default(),
        }
    }

    /// The nets.
    pub fn nets(&self) -> &Nets {
        &self.nets
    }

    /// The bearoff databases.
    pub fn bearoff(&self) -> &BearoffDatabases {
        &self.bearoff
    }

    /// The arithmetic in use.
    pub fn arithmetic(&self) -> Arithmetic {
        self.arith
    }

    /// The class of a position under this evaluator's databases.
    pub fn classify(&self, board: &Board) -> Class {
        classify(board, &self.bearoff)
    }

    /// Static (0-ply) evaluation of `board` (`sides[1]` on roll).
    pub fn evaluate(&self, board: &Board, scratch: &mut Scratch) -> Evaluation {
        let cache = &mut scratch.batch.full_cache;
        let key = cache.key(board);
        if let Some((class, outputs)) = cache.get_key(key.as_ref()) {
            return Evaluation { class, outputs };
        }
        let class = self.classify(board);
        let outputs = self.evaluate_class(board, class, &mut scratch.net);
        scratch
            .batch
            .full_cache
            .put_key(key.as_ref(), class, outputs);
        Evaluation { class, outputs }
    }

    /// 0-ply evaluation of many positions (e.g. candidate moves, already
    /// swapped so the opponent is on roll), into `out`: the same outputs as
    /// [`Evaluator::evaluate`] for each, with the positions of one net
    /// evaluated together when the CPU has AVX2 ([`crate::forward_batch`]).
    pub fn evaluate_many(&self, boards: &[Board], out: &mut [Evaluation], scratch: &mut Scratch) {
        assert_eq!(boards.len(), out.len(), "one result per board");
        let Scratch { batch, net, .. } = scratch;
        batch.boards.clear();
        batch.boards.extend_from_slice(boards);
        self.evaluate_batch(batch, net, |_| None, boards.len() > REPEATS_FROM);
        for ((o, &class), outputs) in out.iter_mut().zip(&batch.classes).zip(&batch.outputs) {
            *o = Evaluation {
                class,
                outputs: *outputs,
            };
        }
    }

    /// 0-ply evaluation of the positions in `scratch`'s batch boards (the
    /// candidates of a roll, swapped so the opponent is on roll) into its
    /// batch outputs: for each exactly the outputs of [`Evaluator::evaluate`],
    /// with the positions of one net evaluated together
    /// ([`crate::forward_batch`]). `known(i)` is the class of board `i`
    /// when the caller knows it (the moves the pruning nets kept), else
    /// `None`. If `may_repeat` (the candidates of several rolls), a board
    /// that an earlier one of the batch repeats is evaluated once; one
    /// roll's candidates are all different (the move generator removes
    /// repeats), and need not be looked at.
    pub(crate) fn evaluate_batch(
        &self,
        b: &mut BatchScratch,
        s: &mut NetScratch,
        known: impl Fn(usize) -> Option<Class>,
        may_repeat: bool,
    ) {
        let n = b.boards.len();
        b.classes.clear();
        b.outputs.clear();
        b.outputs.resize(n, [0.0; 5]);
        b.cached.clear();
        b.keys.clear();
        b.keys
            .extend(b.boards.iter().map(|board| b.full_cache.prefetch(board)));
        b.repeats.clear();
        let size = if may_repeat && n > 1 {
            (2 * n).next_power_of_two()
        } else {
            0
        };
        b.firsts.clear();
        b.firsts.resize(size, u32::MAX);
        for (i, board) in b.boards.iter().enumerate() {
            let found = b.full_cache.get_key(b.keys[i].as_ref());
            let repeat = match (&found, &b.keys[i]) {
                (None, Some(key)) if size > 0 => first_with(&mut b.firsts, &b.keys, i, key),
                _ => None,
            };
            b.repeats.push(repeat);
            b.cached.push(found.is_some() || repeat.is_some());
            match (found, repeat) {
                (Some((class, outputs)), _) => {
                    b.classes.push(class);
                    b.outputs[i] = outputs;
                }
                (None, Some(j)) => {
                    let class = b.classes[j as usize];
                    b.classes.push(class);
                }
                (None, None) => b
                    .classes
                    .push(known(i).unwrap_or_else(|| self.classify(board))),
            }
        }
        for (i, &class) in b.classes.iter().enumerate() {
            if !class.uses_net() && !b.cached[i] {
                b.outputs[i] = self.evaluate_class(&b.boards[i], class, s);
            }
        }
        for class in [Class::Contact, Class::Crashed, Class::Race] {
            b.members.clear();
            b.members
                .extend((0..n).filter(|&i| b.classes[i] == class && !b.cached[i]));
            if b.members.is_empty() {
                continue;
            }
            let kind = NetKind::for_class(class, false).expect("a class with a net");
            let net = self.nets.get(kind);
            if !self.batches(net, b.members.len()) {
                for &i in &b.members {
                    b.outputs[i] = self.evaluate_class(&b.boards[i], class, s);
                }
                continue;
            }
            let count = b.members.len();
            if class == Class::Race && b.members.iter().all(|&i| counts_fit(&b.boards[i])) {
                // The race inputs listed straight from the counts.
                b.net_out.resize(count, [0.0; 5]);
                crate::forward_batch::forward_boards(
                    net,
                    &b.boards,
                    &b.members,
                    &mut b.hidden,
                    crate::forward_batch::Listing::Race(self.arith.division(), &mut b.race_lists),
                    &mut b.net_out,
                    self.arith,
                    self.simd,
                );
            } else {
                let width = net.inputs();
                crate::forward_batch::grown(&mut b.inputs, count * width);
                for (k, &i) in b.members.iter().enumerate() {
                    let (done, rest) = b.inputs.split_at_mut(k * width);
                    let row = &mut rest[..width];
                    let board = &b.boards[i];
                    // The previous candidate of the class, whose inputs are done.
                    let previous = k
                        .checked_sub(1)
                        .map(|j| (&b.boards[b.members[j]], &done[j * width..]));
                    match class {
                        Class::Contact => contact_inputs_after(previous, board, row, self.arith),
                        Class::Crashed => crashed_inputs_after(previous, board, row, self.arith),
                        _ => {
                            self.inputs(board, class, row);
                        }
                    }
                }
                self.forward_inputs(net, count, b);
            }
            let mut memo = SideMemo::default();
            for (k, &i) in b.members.iter().enumerate() {
                b.outputs[i] = b.net_out[k];
                self.finish_into(&b.boards[i], class, &mut b.outputs[i], &mut memo);
            }
        }
        for i in 0..n {
            match b.repeats[i] {
                Some(j) => b.outputs[i] = b.outputs[j as usize],
                None if !b.cached[i] => {
                    b.full_cache
                        .put_key(b.keys[i].as_ref(), b.classes[i], b.outputs[i]);
                }
                None => {}
            }
        }
    }

    /// The pruning-net evaluations (as [`Evaluator::evaluate_pruning_net`]
    /// gives them) of the batch boards, all of class `class` (race, crashed
    /// or contact), into the batch outputs; evaluated together when the CPU
    /// has AVX2 ([`crate::forward_batch`]), with the same bits.
    pub(crate) fn evaluate_pruning_batch(
        &self,
        class: Class,
        b: &mut BatchScratch,
        s: &mut NetScratch,
    ) {
        let n = b.boards.len();
        b.outputs.clear();
        b.outputs.resize(n, [0.0; 5]);
        b.todo.clear();
        b.todo.extend(0..n);
        let kind = NetKind::for_class(class, true).unwrap_or(NetKind::PruneContact);
        let net = self.nets.get(kind);
        if !self.batches(net, n) {
            for (board, out) in b.boards.iter().zip(&mut b.outputs) {
                *out = self.evaluate_pruning(board, class, s);
            }
        } else {
            b.net_out.resize(n, [0.0; 5]);
            crate::forward_batch::forward_boards(
                net,
                &b.boards,
                &b.todo,
                &mut b.hidden,
                crate::forward_batch::Listing::Base(&mut b.base_rows),
                &mut b.net_out,
                self.arith,
                self.simd,
            );
            let mut memo = SideMemo::default();
            for ((board, &raw), out) in b.boards.iter().zip(&b.net_out).zip(&mut b.outputs) {
                *out = raw;
                self.finish_into(board, class, out, &mut memo);
            }
        }
    }

    /// The forward pass of `net` on the first `count` input vectors of the
    /// batch's inputs, into its net outputs.
    fn forward_inputs(&self, net: &crate::net::Net, count: usize, b: &mut BatchScratch) {
        b.net_out.resize(count, [0.0; 5]);
        crate::forward_batch::forward_batch(
            net,
            &b.inputs,
            count,
            &mut b.hidden,
            &mut b.net_out,
            self.arith,
            self.simd,
        );
    }

    /// Writes the input vector of the net that evaluates `class` (contact,
    /// crashed or race) into `out` and returns that net's slot; `None` for
    /// classes evaluated without a net.
    pub fn inputs(&self, board: &Board, class: Class, out: &mut [f32]) -> Option<NetKind> {
        match class {
            Class::Contact => {
                contact_inputs(board, out, self.arith);
                Some(NetKind::Contact)
            }
            Class::Crashed => {
                crashed_inputs(board, out, self.arith);
                Some(NetKind::Crashed)
            }
            Class::Race => {
                race_inputs(board, out, self.arith);
                Some(NetKind::Race)
            }
            _ => None,
        }
    }

    /// Raw outputs of net `kind` for the given input vector (no sanity check).
    pub fn run_net(&self, kind: NetKind, inputs: &[f32], scratch: &mut Scratch) -> Probabilities {
        let mut out = [0f32; 5];
        let net = self.nets.get(kind);
        forward(
            net,
            inputs,
            &mut scratch.net.hidden,
            &mut out,
            self.arith,
            self.simd,
        );
        out
    }

    pub(crate) fn evaluate_class(
        &self,
        board: &Board,
        class: Class,
        s: &mut NetScratch,
    ) -> Probabilities {
        match class {
            Class::Over => eval_over(board, Variant::Standard).expect("an OVER position"),
            Class::Bearoff2 | Class::BearoffTs => {
                self.bearoff.evaluate_two_sided(board, self.arith)
            }
            Class::Bearoff1 | Class::BearoffOs => {
                self.bearoff.evaluate_one_sided(board, self.arith)
            }
            Class::Race | Class::Crashed | Class::Contact => {
                let kind = self
                    .inputs(board, class, &mut s.inputs)
                    .expect("net classes have inputs");
                self.net_outputs(board, class, kind, s)
            }
        }
    }

    /// The 0-ply evaluation of `board`, of net class `class` (race,
    /// crashed or contact; as [`Evaluator::classify`] gives it), from its
    /// input vector as [`Evaluator::inputs`] writes it: the outputs of
    /// [`Evaluator::evaluate`] without computing the inputs.
    pub fn evaluate_from_inputs(
        &self,
        board: &Board,
        class: Class,
        inputs: &[f32],
        scratch: &mut Scratch,
    ) -> Probabilities {
        let kind = NetKind::for_class(class, false).expect("a class with a net");
        let n = self.nets.get(kind).inputs();
        scratch.net.inputs[..n].copy_from_slice(&inputs[..n]);
        self.net_outputs(board, class, kind, &mut scratch.net)
    }

    /// [`Evaluator::evaluate_from_inputs`] of several boards of one net
    /// class: `inputs` holds their input vectors one after another, each
    /// as long as the class's net has inputs. The same outputs, bit for
    /// bit, with the boards evaluated together when the CPU has AVX2
    /// ([`crate::forward_batch`]: each pass over a weight row serves
    /// several boards).
    pub fn evaluate_many_from_inputs(
        &self,
        boards: &[Board],
        class: Class,
        inputs: &[f32],
        out: &mut [Probabilities],
        scratch: &mut Scratch,
    ) {
        let kind = NetKind::for_class(class, false).expect("a class with a net");
        let net = self.nets.get(kind);
        let width = net.inputs();
        let count = boards.len();
        assert_eq!(out.len(), count, "one result per board");
        assert!(inputs.len() >= count * width, "an input vector per board");
        if !self.batches(net, count) {
            for (k, (board, o)) in boards.iter().zip(out.iter_mut()).enumerate() {
                *o = self.evaluate_from_inputs(
                    board,
                    class,
                    &inputs[k * width..(k + 1) * width],
                    scratch,
                );
            }
            return;
        }
        let b = &mut scratch.batch;
        b.net_out.resize(count, [0.0; 5]);
        crate::forward_batch::forward_batch(
            net,
            &inputs[..count * width],
            count,
            &mut b.hidden,
            &mut b.net_out,
            self.arith,
            self.simd,
        );
        for ((board, o), &raw) in boards.iter().zip(out.iter_mut()).zip(&b.net_out) {
            *o = self.finished(board, class, raw);
        }
    }

    /// [`Evaluator::evaluate_pruning_net`] of several boards of class
    /// `class` (race, crashed or contact; as move selection scores a roll's
    /// candidates, swapped so the opponent is on roll), into `out`: the
    /// same bits, with the boards evaluated together when the CPU has AVX2
    /// ([`crate::forward_batch`]).
    pub fn evaluate_pruning_many(
        &self,
        boards: &[Board],
        class: Class,
        out: &mut [Probabilities],
        scratch: &mut Scratch,
    ) {
        assert_eq!(boards.len(), out.len(), "one result per board");
        let Scratch { batch, net, .. } = scratch;
        batch.boards.clear();
        batch.boards.extend_from_slice(boards);
        self.evaluate_pruning_batch(class, batch, net);
        out.copy_from_slice(&batch.outputs[..boards.len()]);
    }

    /// The pruning net's evaluation of `board` (of class `class`: race,
    /// crashed or contact), with the race backgammon override and the
    /// sanity check, as move selection uses it.
    pub fn evaluate_pruning_net(
        &self,
        board: &Board,
        class: Class,
        scratch: &mut Scratch,
    ) -> Probabilities {
        self.evaluate_pruning(board, class, &mut scratch.net)
    }

    /// The pruning-net evaluation of a position of class `class` (race,
    /// crashed or contact) on the 200 base inputs, with the race backgammon
    /// override and the sanity check (docs/formats.md#move-selection-and-pruning).
    pub(crate) fn evaluate_pruning(
        &self,
        board: &Board,
        class: Class,
        s: &mut NetScratch,
    ) -> Probabilities {
        let kind = NetKind::for_class(class, true).unwrap_or(NetKind::PruneContact);
        crate::inputs::base_inputs(board, &mut s.inputs);
        self.net_outputs(board, class, kind, s)
    }

    /// The forward pass of net `kind` on the inputs in `s`, then gnubg's
    /// race backgammon override (race positions) and sanity check.
    fn net_outputs(
        &self,
        board: &Board,
        class: Class,
        kind: NetKind,
        s: &mut NetScratch,
    ) -> Probabilities {
        let net = self.nets.get(kind);
        let mut out = [0f32; 5];
        forward(
            net,
            &s.inputs[..net.inputs()],
            &mut s.hidden,
            &mut out,
            self.arith,
            self.simd,
        );
        self.finished(board, class, out)
    }

    /// A net's raw outputs for `board` (of class `class`) made into its
    /// evaluation: gnubg's race backgammon override (race positions), then
    /// its sanity check.
    fn finished(&self, board: &Board, class: Class, out: Probabilities) -> Probabilities {
        let mut out = out;
        self.finish_into(board, class, &mut out, &mut SideMemo::default());
        out
    }

    /// [`Evaluator::finished`] in place, for the boards of one batch one
    /// after another: `out` holds the net's outputs and gets the finished
    /// ones, written where they stay (a finished copy read back at once
    /// waited for the check's separate stores). The sanity check keeps
    /// side 1's counts in `memo` (a roll's candidates share side 1); `memo`
    /// must not outlive the batch.
    fn finish_into(
        &self,
        board: &Board,
        class: Class,
        out: &mut Probabilities,
        memo: &mut SideMemo,
    ) {
        if class == Class::Race {
            race_backgammon_override(board, out, &self.bearoff, self.arith);
        }
        sanity_check_with(board, out, &self.bearoff, memo);
    }

    /// Whether `count` input vectors for `net` go through the batch
    /// ([`crate::forward_batch`]): two or more, a CPU with AVX2, and a net
    /// the batch computes with the single pass's bits.
    fn batches(&self, net: &crate::net::Net, count: usize) -> bool {
        count >= 2
            && crate::forward_batch::batch_available(self.simd)
            && crate::forward_batch::batch_exact(net)
    }
}
