//! The evaluations of one n-ply search, by position. Different rolls often
//! reach the same position (4-1 and 3-2 can both move one chequer five
//! pips): in a 2-ply search about a third of the contact candidates and
//! two thirds of the race candidates are met again. A position's
//! evaluation depends only on the position and the evaluator, so a cached
//! value has the bits a new evaluation would have; the cache is emptied at
//! the start of every search, so an evaluator whose nets change between
//! searches (training) never meets a stale value.

use crate::classify::Class;
use board::{Board, Probabilities};

/// log2 of the entries of one cache.
const BITS: u32 = 14;

#[derive(Clone, Copy, Debug)]
struct Entry {
    board: Board,
    generation: u32,
    class: Class,
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
                    board: Board::default(),
                    generation: 0,
                    class: Class::Over,
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

    fn slot(board: &Board) -> usize {
        let mut h: u64 = 0;
        for side in &board.sides {
            for chunk in side.chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                h = (h.rotate_left(5) ^ u64::from_le_bytes(word))
                    .wrapping_mul(0x517c_c1b7_2722_0a95);
            }
        }
        (h >> (64 - BITS)) as usize
    }

    /// The cached evaluation of `board`, during a search.
    pub(crate) fn get(&self, board: &Board) -> Option<(Class, Probabilities)> {
        if self.generation == 0 {
            return None;
        }
        let e = &self.entries[Self::slot(board)];
        (e.generation == self.generation && e.board == *board).then_some((e.class, e.outputs))
    }

    /// Keeps the evaluation of `board`, during a search.
    pub(crate) fn put(&mut self, board: &Board, class: Class, outputs: Probabilities) {
        if self.generation == 0 {
            return;
        }
        self.entries[Self::slot(board)] = Entry {
            board: *board,
            generation: self.generation,
            class,
            outputs,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
