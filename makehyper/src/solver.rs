//! The Hypergammon solver (docs/formats.md#hypergammon-databases): value
//! iteration with the cube over every pair of 1–3 chequer positions.
//!
//! gnubg sweeps in place in `(us, them)` order, one position at a time,
//! generating moves as it goes. bgkit precomputes every successor once and
//! sweeps pairs in groups of equal total pip count, fewest pips first: every
//! move lowers the mover's pips, so most successors were already updated in
//! the same sweep and the values propagate from the end of the game in one
//! sweep. A group is computed in parallel from the current state, then
//! stored (deterministic whatever the thread count). The successor table is
//! laid out in sweep order, so each sweep streams it sequentially. The fixed
//! point is gnubg's; the converged values agree with gnubg's well within the
//! threshold (see docs/makehyper.md).

use board::bearoff_index::{rank, unrank};
#[cfg(doc)]
use board::MoveList;
use board::{
    cubeless_equity, eval_over, generate_plays, invert, jacoby_equity, Board, PlaySink,
    Probabilities, SideArray, Variant, ROLLS,
};
use databases::hyper::{check_file, file_len, side_positions, Entry, HyperFileError, RECORD_LEN};
use databases::{Kind, HEADER_LEN};
use rayon::prelude::*;
use support::prefetch::prefetch;

/// The opponent's double/take decision (values in units of the cube).
#[inline]
fn cube(nd: f32, dt: f32, dp: f32) -> f32 {
    if 2.0 * dt >= nd && dp >= nd {
        if 2.0 * dt >= dp {
            dp
        } else {
            2.0 * dt
        }
    } else {
        nd
    }
}

/// What a successor with equities `x` (the opponent's view) offers the
/// roller in each of the five equity slots: the cubeless equity, then the
/// roller owning the cube and the three cube states decided by the
/// opponent's double/take (docs/formats.md#hypergammon-databases). The sweep maximises these.
#[inline]
fn offers(x: &[f32; 5]) -> [f32; 5] {
    [
        -x[0],
        -x[4],
        -cube(x[2], x[4], 1.0),
        -cube(x[3], x[4], 1.0),
        -cube(x[1], x[4], 1.0),
    ]
}

/// The exact values of a finished game.
fn over(out: Probabilities) -> Entry {
    let u = cubeless_equity(&out);
    let mut eq = [u; 5];
    eq[3] = jacoby_equity(&out);
    Entry { out, eq }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Illegal,
    Over,
    Play,
}

/// The playable pairs of one total pip count, in sweep order, with their
/// successors: per pair, 6 words packing the 21 list lengths (a byte each),
/// the slot of the reversed pair (what a dance reads), then the successor
/// slots of every roll in gnubg's move-list order.
struct Group {
    /// State slots of the pairs, in sweep order.
    slots: Vec<u32>,
    starts: Vec<u32>,
    data: Vec<u32>,
    /// The pair numbers `k` to sweep: first those whose value can change
    /// after the first sweep, then (`order[cyclic..]`) those that cannot.
    order: Vec<u32>,
    cyclic: usize,
}

/// How many pairs ahead the sweep prefetches successors (2 to 6 measured
/// equally good).
const PREFETCH_AHEAD: usize = 4;

/// Words before the successors in a pair's block.
const BLOCK_HEADER: usize = 7;

impl Group {
    /// The pair numbers a sweep visits: all of them in a first sweep (after
    /// a start or restart), then only those whose value can still change.
    fn to_sweep(&self, swept: bool) -> &[u32] {
        if swept {
            &self.order[..self.cyclic]
        } else {
            &self.order
        }
    }

    /// The successor block of pair `k` (header, then successor slots).
    #[inline]
    fn block(&self, k: usize) -> &[u32] {
        &self.data[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// Generates the successor lists of `pairs` (pair indices, in sweep
    /// order) in parallel, as state slots (`slot_of`).
    fn new(pairs: &[u32], n: usize, chequers: usize, slot_of: &[u32]) -> Group {
        const CHUNK: usize = 2048;
        let chunks: Vec<(Vec<u32>, Vec<u32>)> = pairs
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut data = Vec::new();
                let mut lens = Vec::with_capacity(chunk.len());
                for &i in chunk {
                    let start = data.len();
                    let (us, them) = (i as usize / n, i as usize % n);
                    let b = pair_board(us, them, chequers);
                    data.extend_from_slice(&[0u32; BLOCK_HEADER]);
                    data[start + 6] = slot_of[them * n + us];
                    for (r, roll) in ROLLS.iter().enumerate() {
                        let before = data.len();
                        let mut sink = Successors {
                            root: &b.sides[0],
                            them: them as u32,
                            n: n as u32,
                            start: before,
                            keys: &mut data,
                        };
                        generate_plays(&b, roll.high, roll.low, &mut sink);
                        let len = data.len() - before;
                        data[start + r / 4] |= (len as u32) << (8 * (r % 4));
                    }
                    for k in &mut data[start + BLOCK_HEADER..] {
                        *k = slot_of[*k as usize];
                    }
                    lens.push((data.len() - start) as u32);
                }
                (data, lens)
            })
            .collect();
        let total = chunks.iter().map(|(d, _)| d.len()).sum();
        let mut data = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(pairs.len() + 1);
        starts.push(0u32);
        for (d, lens) in chunks {
            data.extend_from_slice(&d);
            for l in lens {
                starts.push(starts.last().expect("starts has a first entry") + l);
            }
        }
        Group {
            slots: pairs.iter().map(|&i| slot_of[i as usize]).collect(),
            starts,
            data,
            order: (0..pairs.len() as u32).collect(),
            cyclic: pairs.len(),
        }
    }
}

/// Collects one roll's successor pair indices in gnubg's move-list order:
/// distinct resulting positions, first occurrence kept (what [`MoveList`]
/// does, keyed by pair index instead of by board, without copying boards).
struct Successors<'a> {
    /// The opponent's side before the move (it changes only on a hit).
    root: &'a SideArray,
    /// Its index.
    them: u32,
    n: u32,
    /// Where this roll's list starts in `keys`.
    start: usize,
    keys: &'a mut Vec<u32>,
}

impl PlaySink for Successors<'_> {
    fn reset(&mut self) {
        self.keys.truncate(self.start);
    }

    #[inline]
    fn play(&mut self, b: &Board) {
        // After the move the opponent is on roll: pair (opponent, mover).
        let them = if b.sides[0] == *self.root {
            self.them
        } else {
            rank(&b.sides[0]) as u32
        };
        let key = them * self.n + rank(&b.sides[1]) as u32;
        if !self.keys[self.start..].contains(&key) {
            self.keys.push(key);
        }
    }
}

/// The part of a slot's state the sweep's inner loop reads.
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    offer: [f32; 5],
    out: [f32; 5],
}

impl Hot {
    fn new(e: &Entry) -> Hot {
        Hot {
            offer: offers(&e.eq),
            out: e.out,
        }
    }
}

/// The Hypergammon solver state.
pub struct HyperSolver {
    chequers: usize,
    n: usize,
    /// The state slot of each pair index `us · n + them`. Slots are ordered
    /// by (total pips, `us > them`, `us`, `them`), so the successors that
    /// pairs with the same opponent side read lie in a few short runs of
    /// nearby groups: the sweep's reads stay in cache.
    slot_of: Vec<u32>,
    /// What each slot offers a mover (`offers(eq)`) and its outputs, side by
    /// side: the hot loop reads the offers of every successor and then the
    /// outputs of the chosen one, which are then already in cache.
    hot: Vec<Hot>,
    /// Equities of every slot (read for dances and the norm).
    eq: Vec<[f32; 5]>,
    /// Playable pairs grouped by total pip count, ascending.
    groups: Vec<Group>,
    /// Whether a sweep has run since the state was set: the pairs that
    /// cannot change any more are then skipped.
    swept: bool,
}

/// Finds the playable pairs whose value is final after one sweep: every
/// successor of every roll lies in an earlier group (fewer pips, so it is
/// computed before them in the same sweep) and is itself final or a finished
/// game, and no roll is a dance (which reads the reversed pair, of the same
/// pip count). Pure races are such pairs. Recomputing them in later sweeps
/// would reproduce the same bits, so each group lists them last and the
/// sweep skips them after the first.
fn mark_final_after_one_sweep(groups: &mut [(usize, Group)], bucket_start: &[u32], slots: usize) {
    let mut is_final = vec![true; slots];
    for (_, g) in groups.iter() {
        for &slot in &g.slots {
            is_final[slot as usize] = false;
        }
    }
    for (bucket, g) in groups.iter_mut() {
        let start = bucket_start[*bucket];
        let mut stable = Vec::new();
        let mut changing = Vec::new();
        for k in 0..g.slots.len() {
            let block = g.block(k);
            let (lens, succ) = block.split_at(BLOCK_HEADER);
            let dance = (0..ROLLS.len()).any(|r| (lens[r / 4] >> (8 * (r % 4))) & 0xFF == 0);
            let settled = !dance && succ.iter().all(|&s| s < start && is_final[s as usize]);
            if settled {
                is_final[g.slots[k] as usize] = true;
                stable.push(k as u32);
            } else {
                changing.push(k as u32);
            }
        }
        g.cyclic = changing.len();
        changing.extend(stable);
        g.order = changing;
    }
}

/// The two boards of pair (`us` on roll, `them`).
fn pair_board(us: usize, them: usize, chequers: usize) -> Board {
    let mut b = Board::EMPTY;
    unrank(them, chequers, &mut b.sides[0]);
    unrank(us, chequers, &mut b.sides[1]);
    b
}

fn classify(b: &Board) -> Class {
    if (0..24).any(|i| b.sides[0][i] > 0 && b.sides[1][23 - i] > 0) {
        Class::Illegal
    } else if b.chequers(0) == 0 || b.chequers(1) == 0 {
        Class::Over
    } else {
        Class::Play
    }
}

/// Bytes of memory the solver needs, estimated before starting.
pub fn memory_estimate(chequers: usize) -> u64 {
    let pairs = (side_positions(chequers) as u64).pow(2);
    // state planes (60 bytes a pair), slot map (4), the encoding buffer
    // kept for checkpoints and the output (28) + successor table (measured: 3/4 of the
    // pairs are playable, with about 112 successors each for 3 chequers)
    pairs * (92 + 400)
}

/// Why a file cannot be the start of a run.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// Not a complete Hypergammon file for this run.
    #[error(transparent)]
    File(#[from] HyperFileError),
    /// A record holds an impossible value.
    #[error("record {record} has a probability above 1")]
    Probability {
        /// The record's index.
        record: usize,
    },
}

impl HyperSolver {
    /// Builds the start guess (docs/formats.md#hypergammon-databases) and the successor tables.
    pub fn new(chequers: usize) -> HyperSolver {
        assert!(
            (1..=3).contains(&chequers),
            "Hypergammon has 1 to 3 chequers"
        );
        let n = side_positions(chequers);
        let variant = Variant::Hyper(chequers as u8);
        // Two groups per total pip count: pairs with `us <= them`, then the
        // others. A pair and its reverse (which a dance reads) are then never
        // computed together from the same old values, which would make them
        // flip signs back and forth instead of converging.
        let buckets = 2 * (2 * 25 * chequers + 1);
        let rows: Vec<Vec<(Entry, usize, bool)>> = (0..n)
            .into_par_iter()
            .map(|us| {
                (0..n)
                    .map(|them| {
                        let b = pair_board(us, them, chequers);
                        let bucket = 2 * (b.pips(0) + b.pips(1)) as usize + usize::from(us > them);
                        match classify(&b) {
                            Class::Over => (
                                over(eval_over(&b, variant).expect("a side is off")),
                                bucket,
                                false,
                            ),
                            Class::Play => (
                                Entry {
                                    out: [1.0, 1.0, 0.0, 0.0, 0.0],
                                    eq: [2.0, 0.0, 0.0, 0.0, 0.0],
                                },
                                bucket,
                                true,
                            ),
                            Class::Illegal => (Entry::default(), bucket, false),
                        }
                    })
                    .collect()
            })
            .collect();
        // Counting sort of the pairs into slots by bucket, (us, them) order
        // within a bucket.
        let mut first = vec![0u32; buckets + 1];
        for row in &rows {
            for &(_, bucket, _) in row {
                first[bucket + 1] += 1;
            }
        }
        for b in 0..buckets {
            first[b + 1] += first[b];
        }
        let bucket_start = first.clone();
        let mut slot_of = vec![0u32; n * n];
        let mut groups: Vec<Vec<u32>> = vec![Vec::new(); buckets];
        let mut entries = vec![Entry::default(); n * n];
        for (us, row) in rows.into_iter().enumerate() {
            for (them, (e, bucket, playable)) in row.into_iter().enumerate() {
                let slot = first[bucket];
                first[bucket] += 1;
                slot_of[us * n + them] = slot;
                entries[slot as usize] = e;
                if playable {
                    groups[bucket].push((us * n + them) as u32);
                }
            }
        }
        let mut groups: Vec<(usize, Group)> = groups
            .into_iter()
            .enumerate()
            .filter(|(_, g)| !g.is_empty())
            .map(|(bucket, mut pairs)| {
                // Sweep pairs with the same opponent side together: they
                // read the same runs of the state.
                pairs.sort_unstable_by_key(|&i| (i as usize % n, i as usize / n));
                (bucket, Group::new(&pairs, n, chequers, &slot_of))
            })
            .collect();
        mark_final_after_one_sweep(&mut groups, &bucket_start, n * n);
        let groups = groups.into_iter().map(|(_, g)| g).collect();
        HyperSolver {
            chequers,
            n,
            slot_of,
            hot: entries.iter().map(Hot::new).collect(),
            eq: entries.iter().map(|e| e.eq).collect(),
            groups,
            swept: false,
        }
    }

    /// Chequers per side.
    pub fn chequers(&self) -> usize {
        self.chequers
    }

    /// Positions per side.
    pub fn side_positions(&self) -> usize {
        self.n
    }

    /// The current values of pair (`us` on roll, `them`).
    pub fn entry(&self, us: usize, them: usize) -> Entry {
        let i = self.slot_of[us * self.n + them] as usize;
        Entry {
            out: self.hot[i].out,
            eq: self.eq[i],
        }
    }

    /// New value of one playable pair from the current state, given its
    /// successor block.
    fn update(&self, block: &[u32]) -> Entry {
        let (header, mut succ) = block.split_at(BLOCK_HEADER);
        let (lens, reversed) = (&header[..6], header[6] as usize);
        let (mut sum_o, mut sum_e) = ([0f32; 5], [0f32; 5]);
        for (r, roll) in ROLLS.iter().enumerate() {
            let len = ((lens[r / 4] >> (8 * (r % 4))) & 0xFF) as usize;
            let (list, rest) = succ.split_at(len);
            succ = rest;
            let mut b_e = [-10000f32; 5];
            // The cubeless choice: the LAST move with the best equity (gnubg
            // compares with >=). With no legal move gnubg negates the
            // reversed pair's equities index by index (a quirk kept as is).
            let mut chosen = reversed;
            if list.is_empty() {
                b_e = self.eq[chosen].map(|e| -e);
            }
            for &i in list {
                let c = &self.hot[i as usize].offer;
                if c[0] >= b_e[0] {
                    b_e[0] = c[0];
                    chosen = i as usize;
                }
                for (b, &v) in b_e[1..].iter_mut().zip(&c[1..]) {
                    if v >= *b {
                        *b = v;
                    }
                }
            }
            let b_o = invert(&self.hot[chosen].out);
            let w = if roll.is_double() { 1.0f32 } else { 2.0 };
            for k in 0..5 {
                sum_o[k] += w * b_o[k];
                sum_e[k] += w * b_e[k];
            }
        }
        Entry {
            out: sum_o.map(|s| s / 36.0),
            eq: sum_e.map(|s| s / 36.0),
        }
    }

    /// One sweep over every playable pair; returns the largest change of
    /// any of the ten values (gnubg's "norm of delta"). Pairs are visited
    /// in groups of equal total pip count, fewest pips first: every move
    /// lowers the mover's count, so most successors were already updated
    /// in this sweep and values propagate from the end of the game in one
    /// sweep rather than one step per sweep. A group is computed in
    /// parallel from the current state, then stored. `progress` is called
    /// after each group with the number of pairs done.
    pub fn sweep(&mut self, mut progress: impl FnMut(usize)) -> f32 {
        let mut norm = 0f32;
        let mut done = 0;
        for g in 0..self.groups.len() {
            let group = &self.groups[g];
            let order = group.to_sweep(self.swept);
            let new: Vec<(Hot, [f32; 5], f32)> = order
                .par_iter()
                .enumerate()
                .map(|(j, &k)| {
                    // The successors of a pair a few places ahead start
                    // loading while this one is computed: the sweep mostly
                    // waits for these scattered reads (measured: a sweep of
                    // 3 chequers 3.2 s instead of 4.4 s).
                    if let Some(&next) = order.get(j + PREFETCH_AHEAD) {
                        let next = group.block(next as usize);
                        for &s in &next[BLOCK_HEADER..] {
                            prefetch(&self.hot[s as usize]);
                        }
                    }
                    let k = k as usize;
                    let i = group.slots[k] as usize;
                    let e = self.update(group.block(k));
                    let d = e
                        .out
                        .iter()
                        .zip(&self.hot[i].out)
                        .chain(e.eq.iter().zip(&self.eq[i]))
                        .map(|(a, b)| (a - b).abs())
                        .fold(0f32, f32::max);
                    (Hot::new(&e), e.eq, d)
                })
                .collect();
            for (&k, (hot, eq, d)) in order.iter().zip(new) {
                let i = group.slots[k as usize] as usize;
                self.hot[i] = hot;
                self.eq[i] = eq;
                norm = norm.max(d);
            }
            done += order.len();
            progress(done);
        }
        self.swept = true;
        norm
    }

    /// Number of pairs a first sweep updates (every playable pair).
    pub fn playable_pairs(&self) -> usize {
        self.groups.iter().map(|g| g.order.len()).sum()
    }

    /// Number of pairs whose value can still change after the first sweep.
    pub fn changing_pairs(&self) -> usize {
        self.groups.iter().map(|g| g.cyclic).sum()
    }

    /// Number of pairs the next sweep updates: every playable pair in the
    /// first sweep, then only those whose value can still change.
    pub fn pairs_next_sweep(&self) -> usize {
        self.groups
            .iter()
            .map(|g| g.to_sweep(self.swept).len())
            .sum()
    }

    /// The file's header kind.
    pub fn kind(&self) -> Kind {
        Kind::Hyper {
            chequers: self.chequers as u8,
        }
    }

    /// Size of the file [`HyperSolver::encode_into`] produces.
    pub fn output_len(&self) -> u64 {
        file_len(self.chequers)
    }

    /// Puts the whole database (header and every record) in gnubg's format
    /// into `bytes`, encoded in parallel; `bytes`' allocation is reused (a
    /// run saves a checkpoint after every sweep).
    pub fn encode_into(&self, bytes: &mut Vec<u8>) {
        let n = self.n;
        bytes.resize(self.output_len() as usize, 0);
        let (header, records) = bytes.split_at_mut(HEADER_LEN);
        header.copy_from_slice(&self.kind().header());
        records
            .par_chunks_mut(n * RECORD_LEN)
            .enumerate()
            .for_each(|(us, row)| {
                for (them, rec) in row.chunks_exact_mut(RECORD_LEN).enumerate() {
                    rec.copy_from_slice(&self.entry(us, them).encode());
                }
            });
    }

    /// Replaces the state with the records of a database or checkpoint
    /// (`bytes` = the whole file). Errors name what does not fit.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError> {
        check_file(bytes, self.chequers)?;
        self.swept = false;
        let variant = Variant::Hyper(self.chequers as u8);
        for (i, rec) in bytes[HEADER_LEN..].chunks_exact(RECORD_LEN).enumerate() {
            let mut e = Entry::decode(rec);
            if e.out.iter().any(|&p| p > 1.0) {
                return Err(RestoreError::Probability { record: i });
            }
            // gnubg rewrites finished games with exact values when its sweep
            // reaches them; ours never revisits them, so do it here.
            let b = pair_board(i / self.n, i % self.n, self.chequers);
            if classify(&b) == Class::Over {
                e = over(eval_over(&b, variant).expect("a side is off"));
            }
            let slot = self.slot_of[i] as usize;
            self.hot[slot] = Hot::new(&e);
            self.eq[slot] = e.eq;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_record_encoding() {
        let rec = Entry::default().encode();
        assert_eq!(&rec[..15], &[0u8; 15]);
        assert_eq!(&rec[15..27], &[0xFF, 0xFF, 0x7F].repeat(4)[..]);
        assert_eq!(rec[27], 0);
    }

    #[test]
    fn encode_decode_round_trip() {
        let e = over([1.0, 1.0, 0.0, 0.0, 0.0]);
        let d = Entry::decode(&e.encode());
        assert_eq!(d.out, e.out);
        for k in 0..5 {
            assert!(
                (d.eq[k] - e.eq[k]).abs() < 1e-6,
                "{k}: {} vs {}",
                d.eq[k],
                e.eq[k]
            );
        }
    }

    #[test]
    fn one_chequer_converges_to_sane_values() {
        let mut s = HyperSolver::new(1);
        let mut sweeps = 0;
        while s.sweep(|_| {}) > 1e-6 {
            sweeps += 1;
            assert!(sweeps < 100);
        }
        // A chequer on the ace point against one in our home board (its
        // index 20 is our 4-point): the roller bears off with any roll.
        let us = rank(&{
            let mut a = [0u8; 25];
            a[0] = 1;
            a
        });
        let them = rank(&{
            let mut a = [0u8; 25];
            a[20] = 1;
            a
        });
        let e = s.entry(us, them);
        assert_eq!(e.out[0], 1.0);
        assert_eq!(e.out[1], 1.0);
        assert_eq!(
            e.out[2], 1.0,
            "opponent's chequer is in our home board: backgammon"
        );
    }
}
