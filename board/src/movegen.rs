//! Legal plays in exactly gnubg's `GenerateMoves` order (docs/formats.md#move-generation).
//!
//! The depth-first enumerator reports every "save" to a [`PlaySink`], applying
//! gnubg's maximum-dice/maximum-pips filter: `reset` is called whenever a play
//! using more dice (or pips) is found, so a sink sees exactly the saves that
//! survive, in gnubg's order. [`MoveList`] turns them into the deduplicated
//! list gnubg keeps; database kernels use cheaper sinks that keep only the
//! first best play, which is equivalent because duplicates come later.

use crate::{Board, BAR};

/// What the move generator needs to know about a position ([`Board`]).
/// Bearoff databases use the specialised [`crate::BearoffPlays`], which is
/// tested to produce the same plays in the same order.
pub trait Position: Copy {
    /// Roller's chequers on index `i` (0..=23, or [`BAR`]).
    fn count(&self, i: usize) -> u8;
    /// True if the opponent holds (two or more chequers on) our index `dst`.
    fn blocked(&self, dst: usize) -> bool;
    /// Highest index (bar excluded) that can hold a roller's chequer.
    fn scan_top(&self) -> usize;
    /// The roller's occupied indices 0..=23 as bits (bit `i` for index `i`).
    fn occupied(&self) -> u32;
    /// What [`Position::undo`] needs to take a move back.
    type Undo: Copy;
    /// Moves one chequer from `src` by `die` pips (bearing off below 0,
    /// hitting a blot on the landing point).
    fn apply(&mut self, src: usize, die: usize) -> Self::Undo;
    /// Takes back `apply(src, die)`, which returned `undo`.
    fn undo(&mut self, src: usize, die: usize, undo: Self::Undo);
}

impl Position for Board {
    /// Whether the move hit a blot.
    type Undo = bool;

    #[inline(always)]
    fn count(&self, i: usize) -> u8 {
        self.sides[1][i]
    }

    #[inline(always)]
    fn blocked(&self, dst: usize) -> bool {
        self.sides[0][23 - dst] >= 2
    }

    #[inline(always)]
    fn scan_top(&self) -> usize {
        23
    }

    #[inline(always)]
    fn occupied(&self) -> u32 {
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let side = &self.sides[1];
        (0..3).fold(0, |mask, k| {
            let w = u64::from_le_bytes(side[8 * k..8 * k + 8].try_into().expect("eight bytes"));
            // A byte's top bit set exactly when the byte is not 0 (its low
            // seven bits plus 0x7F carry into it, or it was set), no carry
            // between bytes; then the eight top bits gathered into one byte.
            let nonzero = (((w & LOW7) + LOW7) | w) & HIGH;
            let bits = ((nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
            mask | bits << (8 * k)
        })
    }

    #[inline(always)]
    fn apply(&mut self, src: usize, die: usize) -> bool {
        self.sides[1][src] -= 1;
        if src < die {
            return false;
        }
        let dst = src - die;
        let opp = 23 - dst;
        if self.sides[0][opp] == 1 {
            self.sides[0][opp] = 0;
            self.sides[0][BAR] += 1;
            self.sides[1][dst] = 1;
            true
        } else {
            self.sides[1][dst] += 1;
            false
        }
    }

    #[inline(always)]
    fn undo(&mut self, src: usize, die: usize, hit: bool) {
        self.sides[1][src] += 1;
        if src < die {
            return;
        }
        let dst = src - die;
        self.sides[1][dst] -= 1;
        if hit {
            self.sides[0][23 - dst] = 1;
            self.sides[0][BAR] -= 1;
        }
    }
}

/// Receives the plays of one roll in gnubg's order.
///
/// A sink that only counts what it is told (duplicates included, unlike
/// [`MoveList`]):
///
/// ```
/// use board::{generate_plays, Board, MoveList, PlaySink};
///
/// struct Count(usize);
///
/// impl PlaySink for Count {
///     fn reset(&mut self) {
///         self.0 = 0;
///     }
///     fn play(&mut self, _: &Board) {
///         self.0 += 1;
///     }
/// }
///
/// let start = Board::starting();
/// let mut count = Count(0);
/// generate_plays(&start, 6, 6, &mut count);
/// let distinct = MoveList::new().generate(&start, 6, 6).len();
/// assert!(distinct > 0 && count.0 >= distinct);
/// ```
pub trait PlaySink<P = Board> {
    /// Every play reported so far is superseded by one using more dice.
    fn reset(&mut self);
    /// A resulting position (before the sides are swapped). May repeat.
    fn play(&mut self, position: &P);
}

/// Generates the plays of `position` (side 1 on roll) for dice
/// `(first, second)`; gnubg's database tools pass the larger die first. If no
/// die can be played the sink sees nothing.
pub fn generate_plays<P: Position, S: PlaySink<P>>(
    position: &P,
    first: u8,
    second: u8,
    sink: &mut S,
) {
    debug_assert!((1..=6).contains(&first) && (1..=6).contains(&second));
    let double = first == second;
    let extra = if double { first } else { 0 };
    let mut search = Search {
        dice: [first, second, extra, extra],
        double,
        out: MostDice::new(sink),
        position: std::marker::PhantomData,
    };
    let mut pos = *position;
    let occupied = pos.occupied();
    search.sub(0, 23, 0, &mut pos, occupied);
    if !double {
        search.dice = [second, first, 0, 0];
        search.sub(0, 23, 0, &mut pos, occupied);
    }
}

struct Search<'a, P, S> {
    dice: [u8; 4],
    double: bool,
    out: MostDice<'a, S>,
    /// The position type the sink receives.
    position: std::marker::PhantomData<fn(&P)>,
}

/// Whether the roller may move a chequer from `src` by `d` (bar empty);
/// `back` is its rearmost chequer if every one is in the home board.
#[inline(always)]
fn legal<P: Position>(pos: &P, src: usize, d: usize, back: Option<usize>) -> bool {
    if src >= d {
        !pos.blocked(src - d)
    } else {
        // Bearing off needs every chequer in the home board; a die larger
        // than needed may only move the rearmost chequer.
        back.is_some_and(|back| src == back || src + 1 == d)
    }
}

impl<P: Position, S: PlaySink<P>> Search<'_, P, S> {
    /// Returns true when the caller must save its position (no die left or
    /// none usable). `occupied` is `pos.occupied()`, kept up to date move
    /// by move rather than computed again at every step.
    fn sub(&mut self, depth: usize, start: usize, pips: u8, pos: &mut P, occupied: u32) -> bool {
        if depth > 3 || self.dice[depth] == 0 {
            return true;
        }
        let die = self.dice[depth];
        let d = usize::from(die);
        if pos.count(BAR) > 0 {
            if pos.blocked(24 - d) {
                return true;
            }
            let undo = pos.apply(BAR, d);
            let next = occupied | 1 << (BAR - d);
            if self.last_die(depth) || self.sub(depth + 1, 23, pips + die, pos, next) {
                self.save(depth as u8 + 1, pips + die, pos);
            }
            pos.undo(BAR, d, undo);
            return false;
        }
        let mut used = false;
        // The bar is empty here, so the highest occupied point is the
        // rearmost chequer.
        debug_assert_eq!(occupied, pos.occupied());
        let highest = (occupied != 0).then(|| 31 - occupied.leading_zeros() as usize);
        let back = highest.filter(|&h| h <= 5);
        let top = start.min(pos.scan_top()).min(highest.unwrap_or(0));
        // The occupied sources from `top` down, from the mask rather than a
        // test of every point (the board is the same at every step: each
        // move is taken back before the next).
        let mut sources = occupied & (u32::MAX >> (31 - top));
        while sources != 0 {
            let src = 31 - sources.leading_zeros() as usize;
            sources &= !(1 << src);
            if !legal(pos, src, d, back) {
                continue;
            }
            let undo = pos.apply(src, d);
            let next_start = if self.double { src } else { 23 };
            // The source empties if it held one chequer; the landing point
            // (none when bearing off) is now occupied.
            let mut next = occupied;
            if pos.count(src) == 0 {
                next &= !(1 << src);
            }
            if src >= d {
                next |= 1 << (src - d);
            }
            if self.last_die(depth) || self.sub(depth + 1, next_start, pips + die, pos, next) {
                self.save(depth as u8 + 1, pips + die, pos);
            }
            pos.undo(src, d, undo);
            used = true;
        }
        !used
    }

    /// True when no die follows the one at `depth` (the recursion would
    /// return "save" at once; checked here to spare a call per leaf).
    #[inline(always)]
    fn last_die(&self, depth: usize) -> bool {
        depth >= 3 || self.dice[depth + 1] == 0
    }

    fn save(&mut self, n_dice: u8, n_pips: u8, pos: &P) {
        self.out.save(n_dice, n_pips, pos);
    }
}

/// gnubg's filter in front of a sink: only plays using the most dice (then
/// the most pips) survive; `reset` drops the plays a better one supersedes.
pub(crate) struct MostDice<'a, S> {
    sink: &'a mut S,
    max_dice: u8,
    max_pips: u8,
}

impl<'a, S> MostDice<'a, S> {
    pub(crate) fn new(sink: &'a mut S) -> Self {
        MostDice {
            sink,
            max_dice: 0,
            max_pips: 0,
        }
    }

    /// Offers a play using `n_dice` dice and `n_pips` pips.
    #[inline(always)]
    pub(crate) fn save<T>(&mut self, n_dice: u8, n_pips: u8, play: &T)
    where
        S: PlaySink<T>,
    {
        if n_dice < self.max_dice || n_pips < self.max_pips {
            return;
        }
        if n_dice > self.max_dice || n_pips > self.max_pips {
            self.sink.reset();
        }
        self.max_dice = n_dice;
        self.max_pips = n_pips;
        self.sink.play(play);
    }
}

/// gnubg's move list: distinct resulting positions, first occurrence keeps its
/// slot. Reuse one `MoveList` across calls to avoid allocation.
///
/// A chequer on the bar against a closed board cannot move: the list is
/// empty.
///
/// ```
/// use board::{Board, MoveList, BAR, POINTS};
///
/// let mut on_roll = [0u8; POINTS];
/// on_roll[BAR] = 1;
/// on_roll[5] = 14;
/// let mut opponent = [0u8; POINTS];
/// opponent[..6].fill(2); // every point of its home board made
/// opponent[12] = 3;
/// let closed = Board::new(opponent, on_roll);
///
/// let mut moves = MoveList::new();
/// for (first, second) in [(6, 5), (1, 1), (4, 2)] {
///     assert!(moves.generate(&closed, first, second).is_empty());
/// }
///
/// // With the bar chequer on the 6-point instead, 6-5 bears off two.
/// let mut open = closed;
/// open.sides[1][BAR] = 0;
/// open.sides[1][5] = 15;
/// assert!(!moves.generate(&open, 6, 5).is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct MoveList {
    boards: Vec<Board>,
    /// Open addressing by [`MoveList::hash`]: each slot holds the list's
    /// generation ([`GENERATION_BITS`] low bits) and the board's index plus
    /// one (the rest);
    /// a slot of another generation is empty, so starting a new list
    /// clears nothing.
    slots: Vec<u32>,
    /// The current list's generation, never 0 (the slots' initial value).
    generation: u32,
}

const SLOT_BITS: u32 = 13;

/// The low bits of a slot that hold its generation; the rest hold the
/// board's index plus one.
const GENERATION_BITS: u32 = 8;
const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            boards: Vec::with_capacity(64),
            slots: vec![0; 1 << SLOT_BITS],
            generation: 1,
        }
    }
}

impl MoveList {
    /// An empty, reusable move list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Generates the list for `board` and dice `(first, second)`.
    pub fn generate(&mut self, board: &Board, first: u8, second: u8) -> &[Board] {
        self.reset();
        generate_plays(board, first, second, self);
        &self.boards
    }

    /// The current list.
    pub fn boards(&self) -> &[Board] {
        &self.boards
    }

    /// The slot a board's search starts at: the mover's words, each
    /// rotated by its own amount, and both bars, folded by
    /// exclusive or and mixed by one multiplication. The plays of one roll
    /// differ in the mover's side; two with the same mover's side differ
    /// in the opponent's only where one hit a blot the other did not. Equal
    /// hashes only cost a probe, as the boards themselves are compared.
    fn hash(board: &Board) -> usize {
        let word = |side: &[u8; 25], k: usize| {
            u64::from_le_bytes(side[8 * k..8 * k + 8].try_into().expect("eight bytes"))
        };
        let [a, b] = &board.sides;
        let bars = u64::from(a[24]) | u64::from(b[24]) << 8;
        let folded = word(b, 0)
            ^ word(b, 1).rotate_left(21)
            ^ word(b, 2).rotate_left(42)
            ^ bars.rotate_left(27);
        (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize
    }
}

impl PlaySink for MoveList {
    fn reset(&mut self) {
        self.boards.clear();
        self.generation = (self.generation + 1) & GENERATION_MASK;
        if self.generation == 0 {
            // Every 255 lists: slots of the generation about to come again
            // are cleared.
            self.slots.fill(0);
            self.generation = 1;
        }
    }

    fn play(&mut self, board: &Board) {
        let mask = (1 << SLOT_BITS) - 1;
        let mut s = Self::hash(board);
        loop {
            let slot = self.slots[s];
            if slot & GENERATION_MASK != self.generation {
                self.boards.push(*board);
                let index = self.boards.len();
                // Far more than any position's moves (a few thousand).
                assert!(
                    index < 1 << (32 - GENERATION_BITS),
                    "a move list of {index} boards"
                );
                self.slots[s] = (index as u32) << GENERATION_BITS | self.generation;
                return;
            }
            if self.boards[(slot >> GENERATION_BITS) as usize - 1] == *board {
                return;
            }
            s = (s + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bearoff board from 1-based (point, count) pairs for the roller.
    fn bearoff(points: &[(usize, u8)]) -> Board {
        let mut b = Board::EMPTY;
        for &(p, c) in points {
            b.sides[1][p - 1] = c;
        }
        b
    }

    fn gen(b: &Board, d0: u8, d1: u8) -> Vec<Board> {
        MoveList::new().generate(b, d0, d1).to_vec()
    }

    #[test]
    fn example_a_four_two() {
        let list = gen(&bearoff(&[(5, 2), (3, 1)]), 4, 2);
        assert_eq!(
            list,
            vec![bearoff(&[(1, 1), (3, 2)]), bearoff(&[(1, 2), (5, 1)])]
        );
    }

    /// One list reused for thousands of generations (its slots' generation
    /// wraps several times) gives every position the list a fresh one
    /// gives: the positions and dice of random games.
    #[test]
    fn a_reused_list_gives_a_fresh_lists_moves() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut reused = MoveList::new();
        let mut board = Board::starting();
        for _ in 0..3_000 {
            let (d0, d1) = (next(6) as u8 + 1, next(6) as u8 + 1);
            let fresh = MoveList::new().generate(&board, d0, d1).to_vec();
            assert_eq!(
                reused.generate(&board, d0, d1),
                &fresh[..],
                "{board:?} {d0}-{d1}"
            );
            board = match fresh.len() {
                0 => board.swapped(),
                n => fresh[next(n as u64) as usize].swapped(),
            };
            if board.sides.iter().any(|s| s.iter().all(|&c| c == 0)) {
                board = Board::starting();
            }
        }
    }

    #[test]
    fn example_b_five_one() {
        let list = gen(&bearoff(&[(6, 1), (2, 1)]), 5, 1);
        assert_eq!(list, vec![bearoff(&[(1, 2)]), bearoff(&[(2, 1)])]);
    }

    #[test]
    fn example_c_double_twos() {
        assert_eq!(gen(&bearoff(&[(4, 2)]), 2, 2), vec![Board::EMPTY]);
    }

    #[test]
    fn example_d_six_one_pass_two_clears() {
        struct Trace(Vec<&'static str>);
        impl PlaySink for Trace {
            fn reset(&mut self) {
                self.0.push("reset");
            }
            fn play(&mut self, _: &Board) {
                self.0.push("play");
            }
        }
        let mut t = Trace(Vec::new());
        generate_plays(&bearoff(&[(3, 1)]), 6, 1, &mut t);
        assert_eq!(t.0, ["reset", "play", "reset", "play"]);
        assert_eq!(gen(&bearoff(&[(3, 1)]), 6, 1), vec![Board::EMPTY]);
    }

    #[test]
    fn example_e_larger_die() {
        let mut b = bearoff(&[(13, 1)]);
        b.sides[0][22] = 2;
        assert_eq!(
            gen(&b, 6, 5),
            vec![{
                let mut r = bearoff(&[(7, 1)]);
                r.sides[0][22] = 2;
                r
            }]
        );
    }

    #[test]
    fn reuse_gives_same_lists() {
        let mut ml = MoveList::new();
        let start = Board::starting();
        let first: Vec<Board> = ml.generate(&start, 1, 1).to_vec();
        ml.generate(&start, 6, 5);
        assert_eq!(ml.generate(&start, 1, 1), &first[..]);
        assert_eq!(first.len(), 42); // gnubg 1.07's list for 1-1 from the start
    }
}
