//! n-ply evaluation (gnubg's `EvaluatePositionFull`, cubeless) against the
//! installed gnubg 1.07 on this machine's CPU, with `--native-rcp`: at 2
//! plies 500 positions of each class (contact, crashed, race, bearoff)
//! with and without pruning, at 3 plies 100 positions. Every output must
//! have gnubg's bits.

mod common;

use board::{Board, MoveList, ROLLS};
use nets::{Arithmetic, Class};
use std::collections::{BTreeMap, HashSet};

/// The name a class is tested under (the two bearoff classes together).
fn class_name(class: Class) -> Option<&'static str> {
    match class {
        Class::Contact => Some("contact"),
        Class::Crashed => Some("crashed"),
        Class::Race => Some("race"),
        Class::Bearoff1 | Class::BearoffOs | Class::Bearoff2 | Class::BearoffTs => Some("bearoff"),
        Class::Over => None,
    }
}

/// `per_class` positions of each class: the reference positions in file
/// order, then (for a class with fewer) the positions one move after them
/// (each legal move of each roll, in gnubg's order, opponent on roll).
fn positions(per_class: usize) -> BTreeMap<&'static str, Vec<String>> {
    let eval = common::evaluator(Arithmetic::GnubgFastMathNative);
    let reference: Vec<Board> = common::reference_0ply()
        .into_iter()
        .map(|r| r.board)
        .collect();
    let mut picked = Picked {
        per_class,
        seen: HashSet::new(),
        by_class: BTreeMap::new(),
    };
    for board in &reference {
        picked.add(board, eval.classify(board));
    }
    let mut moves = MoveList::new();
    for board in &reference {
        if !picked.short(eval.classify(board)) {
            continue;
        }
        for roll in ROLLS {
            for after in moves.generate(board, roll.high, roll.low) {
                let next = after.swapped();
                picked.add(&next, eval.classify(&next));
            }
        }
    }
    picked.by_class
}

/// Positions picked so far, by class.
struct Picked {
    per_class: usize,
    seen: HashSet<Board>,
    by_class: BTreeMap<&'static str, Vec<String>>,
}

impl Picked {
    /// True if `class` is tested and has fewer than `per_class` positions.
    fn short(&self, class: Class) -> bool {
        class_name(class).is_some_and(|name| {
            self.by_class
                .get(name)
                .is_none_or(|l| l.len() < self.per_class)
        })
    }

    /// Adds `board`, of class `class`, if its class is short and it is new.
    fn add(&mut self, board: &Board, class: Class) {
        if self.short(class) && self.seen.insert(*board) {
            let name = class_name(class).expect("a tested class");
            self.by_class
                .entry(name)
                .or_default()
                .push(board.position_id());
        }
    }
}

/// Each position of `ids` once without and once with pruning.
fn both_ways(ids: &[String]) -> Vec<(String, bool)> {
    [false, true]
        .into_iter()
        .flat_map(|prune| ids.iter().map(move |id| (id.clone(), prune)))
        .collect()
}

#[test]
fn native_rcp_equals_the_installed_gnubg_at_2_plies_in_every_class() {
    let classes = positions(500);
    assert_eq!(classes.len(), 4, "{:?}", classes.keys());
    for (class, ids) in &classes {
        assert_eq!(ids.len(), 500, "{class}: too few reference positions");
        let n = common::assert_native_equals_gnubg(&both_ways(ids), 2);
        println!("{class}: all {n} evaluations at 2 plies have gnubg's bits");
    }
}

#[test]
fn native_rcp_equals_the_installed_gnubg_at_3_plies() {
    let rows: Vec<(String, bool)> = positions(25)
        .values()
        .flat_map(|ids| both_ways(ids))
        .collect();
    assert_eq!(rows.len(), 200, "25 positions of each class, both ways");
    common::assert_native_equals_gnubg(&rows, 3);
}
