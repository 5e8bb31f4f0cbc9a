//! The evaluations of one n-ply search, by position. Different rolls often
//! reach the same position (4-1 and 3-2 can both move one chequer five
//! pips): in a 2-ply search about a third of the contact candidates and
//! two thirds of the race candidates are met again. A position's
//! evaluation depends only on the position and the evaluator, so a cached
//! value has the bits a new evaluation would have; the cache is emptied at
//! the start of every search, so an evaluator whose nets change between
//! searches (training) never meets a stale value, unless its scratch keeps
//! its evaluations across searches (`Scratch::keep_evaluations`, for one
//! evaluator that does not change: the next position of a game meets many
//! of the positions the search of the one before it met).
//!
//! The same holds one level up: the n-ply value of a position depends
//! only on the position, n and the pruning, and a 2-ply search meets a
//! quarter (contact) to two fifths (crashed) of its 1-ply positions again,
//! so a search keeps those values too, tagged with n and the pruning.
//!
//! An entry is one 64-byte cache line: the position packed into 25 bytes
//! (a point's two counts in one byte's two halves, exact for counts up to
//! 15) with its tag, its class, the search it belongs to and its outputs. A batch
//! computes its positions' keys first and asks the CPU to fetch their
//! lines ([`SearchCache::prefetch`]), so that the lines of a whole batch
//! come from memory together rather than one after another.

use crate::classify::Class;
use board::{Board, Probabilities};

/// log2 of the entries of one cache.
const BITS: u32 = 14;

/// A position packed a point per byte: points 0–23 as three words of
/// eight bytes, point 24 (the bar) alone; side 0's count in each byte's
/// low half, side 1's in its high half. `tag` tells apart values of one
/// position that differ (an n-ply search's depth and pruning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    words: [u64; 3],
    bar: u8,
    tag: u8,
}

/// A position packed for the cache, with its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    packed: Packed,
    slot: u32,
}

impl Key {
    /// The key's slot in a cache (bits of its hash).
    pub(crate) fn slot(&self) -> u32 {
        self.slot
    }

    /// The key of `board`'s value of kind `tag` (0 for 0-ply evaluations),
    /// or `None` if a count exceeds 15 (no legal position has one; such a
    /// board is never cached).
    pub(crate) fn tagged(board: &Board, tag: u8) -> Option<Key> {
        let [low, high] = &board.sides;
        let word = |side: &[u8; 25], k: usize| {
            u64::from_le_bytes(side[8 * k..8 * k + 8].try_into().expect("eight bytes"))
        };
        let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
        let mut words = [0u64; 3];
        let mut over = (low[24] | high[24]) as u64;
        let mut h: u64 = u64::from(tag);
        for (k, w) in words.iter_mut().enumerate() {
            let (a, b) = (word(low, k), word(high, k));
            over |= a | b;
            // Each byte of `b` is at most 15 (checked below), so the shift
            // keeps it within its byte.
            *w = a | (b << 4);
            h = mix(h, *w);
        }
        if over & 0xf0f0_f0f0_f0f0_f0f0 != 0 {
            return None;
        }
        let bar = low[24] | (high[24] << 4);
        Some(Key {
            packed: Packed { words, bar, tag },
            slot: (mix(h, u64::from(bar)) >> (64 - BITS)) as u32,
        })
    }
}

/// One cached evaluation, a cache line to itself.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Entry {
    packed: Packed,
    class: Class,
    generation: u32,
    outputs: Probabilities,
}

/// A direct-mapped cache of evaluations, valid during one search.
#[derive(Clone, Debug, Default)]
pub(crate) struct SearchCache {
    entries: Vec<Entry>,
    /// The search under way (entries of other generations are empty);
    /// 0 when no search is under way (nothing is looked up or kept).
    generation: u32,
    /// The last generation used.
    last: u32,
}

impl SearchCache {
    /// Starts a search with an empty cache; returns false if one is already
    /// under way (the outer search keeps the cache).
    pub(crate) fn begin(&mut self) -> bool {
        if self.generation != 0 {
            return false;
        }
        if self.entries.is_empty() {
            self.entries = vec![
                Entry {
                    packed: Packed {
                        words: [0; 3],
                        bar: 0,
                        tag: 0,
                    },
                    class: Class::Over,
                    generation: 0,
                    outputs: [0.0; 5],
                };
                1 << BITS
            ];
        }
        self.last = self.last.checked_add(1).unwrap_or_else(|| {
            // After 2^32 searches: forget every entry once.
            self.entries.iter_mut().for_each(|e| e.generation = 0);
            1
        });
        self.generation = self.last;
        true
    }

    /// Ends the search begun by [`SearchCache::begin`].
    pub(crate) fn end(&mut self) {
        self.generation = 0;
    }

    /// The key of `board` if a search is under way and the board can be
    /// cached.
    pub(crate) fn key(&self, board: &Board) -> Option<Key> {
        self.tagged_key(board, 0)
    }

    /// The key of `board`'s value of kind `tag`, as [`SearchCache::key`].
    pub(crate) fn tagged_key(&self, board: &Board, tag: u8) -> Option<Key> {
        if self.generation == 0 {
            return None;
        }
        Key::tagged(board, tag)
    }

    /// [`SearchCache::key`], asking the CPU to fetch the key's entry
    /// meanwhile: a batch takes all its keys before looking any up.
    pub(crate) fn prefetch(&self, board: &Board) -> Option<Key> {
        let key = self.key(board)?;
        support::prefetch::prefetch(&self.entries[key.slot as usize]);
        Some(key)
    }

    /// The cached evaluation of the position with key `key`, during a search.
    pub(crate) fn get_key(&self, key: Option<&Key>) -> Option<(Class, Probabilities)> {
        let key = key.filter(|_| self.generation != 0)?;
        let e = &self.entries[key.slot as usize];
        (e.generation == self.generation && e.packed == key.packed).then_some((e.class, e.outputs))
    }

    /// Keeps the evaluation of the position with key `key`, during a search.
    pub(crate) fn put_key(&mut self, key: Option<&Key>, class: Class, outputs: Probabilities) {
        let Some(key) = key.filter(|_| self.generation != 0) else {
            return;
        };
        self.entries[key.slot as usize] = Entry {
            packed: key.packed,
            class,
            generation: self.generation,
            outputs,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl SearchCache {
        fn get(&self, board: &Board) -> Option<(Class, Probabilities)> {
            self.get_key(self.key(board).as_ref())
        }

        fn put(&mut self, board: &Board, class: Class, outputs: Probabilities) {
            let key = self.key(board);
            self.put_key(key.as_ref(), class, outputs);
        }
    }

    #[test]
    fn entries_live_for_one_search() {
        let mut c = SearchCache::default();
        let b = Board::from_position_id("MU/wATDgc+EBYA").unwrap();
        assert_ne!(b, b.swapped());
        c.put(&b, Class::Contact, [0.5; 5]);
        assert_eq!(c.get(&b), None, "nothing is kept outside a search");
        assert!(c.begin());
        assert!(!c.begin(), "an inner search keeps the outer one's cache");
        c.put(&b, Class::Contact, [0.5; 5]);
        assert_eq!(c.get(&b), Some((Class::Contact, [0.5; 5])));
        assert_eq!(c.get(&b.swapped()), None);
        c.end();
        assert_eq!(c.get(&b), None);
        assert!(c.begin());
        assert_eq!(c.get(&b), None, "a new search starts empty");
    }

    #[test]
    fn an_entry_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 64);
        assert_eq!(std::mem::align_of::<Entry>(), 64);
    }

    #[test]
    fn keys_tell_every_position_apart() {
        // Random pairs of boards, many of them one chequer apart (moved,
        // added, or the same point of the other side): equal keys exactly
        // when the boards are equal.
        let mut random = crate::test_rng::xorshift(0x9E37_79B9_7F4A_7C15);
        let mut next = move |n: u64| (random() % n) as usize;
        for _ in 0..20_000 {
            let mut a = Board::EMPTY;
            for side in 0..2 {
                for _ in 0..next(16) {
                    a.sides[side][next(25)] += 1;
                }
            }
            let mut b = a;
            match next(3) {
                0 => {
                    let (side, from) = (next(2), next(25));
                    if b.sides[side][from] > 0 {
                        b.sides[side][from] -= 1;
                        b.sides[side][next(25)] += 1;
                    }
                }
                1 => {
                    let point = next(25);
                    b.sides[0][point] = a.sides[1][point];
                    b.sides[1][point] = a.sides[0][point];
                }
                _ => b.sides[next(2)][next(25)] += 1,
            }
            let (ka, kb) = (Key::tagged(&a, 0).unwrap(), Key::tagged(&b, 0).unwrap());
            assert_eq!(ka.packed == kb.packed, a == b, "{a:?} {b:?}");
            let tagged = Key::tagged(&a, 3).unwrap();
            assert_ne!(ka.packed, tagged.packed, "a tag makes another key");
        }
        // A count above 15, on any point of either side, has no key.
        let b = Board::from_position_id("4HPwATDgc/ABMA").unwrap();
        for (side, point) in [(0, 0), (0, 24), (1, 5), (1, 24), (0, 23)] {
            let mut big = b;
            big.sides[side][point] = 16;
            assert_eq!(Key::tagged(&big, 0), None, "side {side} point {point}");
        }
        let mut big = b;
        big.sides[0][24] = 16;
        let mut c = SearchCache::default();
        c.begin();
        c.put(&big, Class::Contact, [0.5; 5]);
        assert_eq!(c.get(&big), None, "an uncacheable board is never kept");
    }
}
