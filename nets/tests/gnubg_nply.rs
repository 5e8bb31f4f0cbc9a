//! n-ply evaluation (gnubg's `EvaluatePositionFull`, cubeless) against the
//! installed gnubg 1.07 on this machine's CPU, with `--native-rcp`: at 2
//! plies 2,000 positions of each class (contact, crashed, race, bearoff)
//! with and without pruning, at 3 plies 100 positions. Every output must
//! have gnubg's bits, with one known exception ([`known_exception`]).

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

/// How far an output of the known exception may be off.
const EXCEPTION_TOLERANCE: f32 = 1e-5;

/// The known exception, not yet understood: in races without pruning, a
/// few positions (2 of the 2,000 race positions on the test machine, off by
/// 6e-6 in the gammon output) get another 2-ply value from gnubg. What was
/// ruled out: every candidate's 0-ply evaluation and the 1-ply value of
/// every move bgkit chooses have gnubg's bits, the moves bgkit plays are the
/// best under gnubg's score formula too, and no choice among moves of equal
/// 0-ply score reproduces gnubg's sum. So gnubg's search plays, for some
/// roll, a move whose own 0-ply score is lower than the best; gnubg's
/// evaluation cache or its incremental forward pass inside its move scoring
/// are the suspects. Pruned searches (gnubg's analysis setting) and every
/// other class agree bit for bit.
fn known_exception(class: &str, d: &common::Difference) -> bool {
    let close = d
        .ours
        .iter()
        .zip(&d.gnubg)
        .all(|(a, b)| (a - b).abs() <= EXCEPTION_TOLERANCE);
    class == "race" && !d.prune && close
}

#[test]
fn native_rcp_equals_the_installed_gnubg_at_2_plies_in_every_class() {
    let classes = positions(2_000);
    assert_eq!(classes.len(), 4, "{:?}", classes.keys());
    for (class, ids) in &classes {
        assert_eq!(ids.len(), 2_000, "{class}: too few reference positions");
        let rows = both_ways(ids);
        let differ = common::native_differences(&rows, 2);
        let cpu = nets::cpu::detected();
        for d in &differ {
            assert!(
                known_exception(class, d),
                "{class} at 2 plies on this CPU ({cpu}): {d:?}"
            );
        }
        assert!(
            differ.len() * 1000 <= rows.len(),
            "{class}: {} of {} evaluations differ at 2 plies on this CPU ({cpu})",
            differ.len(),
            rows.len()
        );
        println!(
            "{class}: {} of {} evaluations at 2 plies have gnubg's bits; the known exception (race, no pruning, within {EXCEPTION_TOLERANCE}): {differ:?}",
            rows.len() - differ.len(),
            rows.len()
        );
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
