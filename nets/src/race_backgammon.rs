//! Race backgammons (docs/formats.md#race-backgammon-override): the escape table E and the
//! override of the race net's backgammon outputs, and the first-off table F
//! for one-sided databases without gammon distributions. Both tables are
//! regenerated from their definitions at first use.

use crate::arith::Arithmetic;
use crate::bearoff_eval::BearoffDatabases;
use board::Board;
use board::Probabilities;
use std::sync::OnceLock;

/// The 21 rolls with their weights, as dice lists.
fn rolls() -> impl Iterator<Item = (Vec<u8>, u64)> {
    board::ROLLS.iter().map(|r| {
        if r.is_double() {
            (vec![r.high; 4], 1)
        } else {
            (vec![r.high, r.low], 2)
        }
    })
}

// ---------------------------------------------------------------- table E

/// Escape distributions `E[c] = (q0..q4)`, indexed by the 5-point bearoff
/// index of `c = (c1..c5)` (men needing d pips to leave the zone).
struct EscapeTable {
    q: Vec<[u64; 5]>,
}

fn e_score(q: &[u64; 5]) -> u64 {
    (0..5)
        .map(|k| (k as u64 + 1) * q[k] * 36u64.pow(4 - k as u32))
        .sum()
}

/// Every state reachable by giving each die, in turn, to a man in the zone
/// (dice are not wasted while a man remains); men are counts by distance.
fn escape_successors(c: [u8; 5], dice: &[u8], out: &mut Vec<[u8; 5]>) {
    if dice.is_empty() || c.iter().all(|&n| n == 0) {
        if !out.contains(&c) {
            out.push(c);
        }
        return;
    }
    for d in 1..=5usize {
        if c[d - 1] == 0 {
            continue;
        }
        let mut next = c;
        next[d - 1] -= 1;
        let v = usize::from(dice[0]);
        if v < d {
            next[d - v - 1] += 1;
        }
        escape_successors(next, &dice[1..], out);
    }
}

impl EscapeTable {
    fn build() -> EscapeTable {
        let mut states: Vec<[u8; 5]> = Vec::new();
        let mut c = [0u8; 5];
        // All layouts with 1..=6 men.
        fn gen(c: &mut [u8; 5], d: usize, left: u8, out: &mut Vec<[u8; 5]>) {
            if d == 5 {
                if c.iter().any(|&n| n > 0) {
                    out.push(*c);
                }
                return;
            }
            for n in 0..=left {
                c[d] = n;
                gen(c, d + 1, left - n, out);
            }
            c[d] = 0;
        }
        gen(&mut c, 0, 6, &mut states);
        let pips = |c: &[u8; 5]| -> u32 { (0..5).map(|d| (d as u32 + 1) * u32::from(c[d])).sum() };
        states.sort_by_key(pips);
        let mut q = vec![[0u64; 5]; 462];
        let mut done = vec![false; 462];
        let mut succ = Vec::new();
        for c in &states {
            let mut acc = [0u64; 5];
            for (dice, w) in rolls() {
                let mut orders = vec![dice.clone()];
                if dice.len() == 2 {
                    orders.push(vec![dice[1], dice[0]]);
                }
                succ.clear();
                for order in &orders {
                    escape_successors(*c, order, &mut succ);
                }
                if succ.contains(&[0; 5]) {
                    acc[0] += w;
                    continue;
                }
                let best = succ
                    .iter()
                    .map(|s| {
                        let id = board::rank(s);
                        debug_assert!(done[id], "successor computed first");
                        q[id]
                    })
                    .min_by_key(e_score)
                    .expect("a roll always moves some man");
                for k in 0..4 {
                    acc[k + 1] += w * best[k];
                }
                acc[4] += w * (best[4] / 36);
            }
            let id = board::rank(c);
            q[id] = acc;
            done[id] = true;
        }
        EscapeTable { q }
    }

    fn get(&self, c: &[u8; 5]) -> [u64; 5] {
        self.q[board::rank(c)]
    }
}

fn escape_table() -> &'static EscapeTable {
    static TABLE: OnceLock<EscapeTable> = OnceLock::new();
    TABLE.get_or_init(EscapeTable::build)
}

/// Probability that `side` wins a backgammon in a race (docs/formats.md#race-backgammon-override).
fn race_bg_prob(board: &Board, side: usize, db: &BearoffDatabases, arith: Arithmetic) -> f32 {
    let o = 1 - side;
    let home: i32 = board.sides[side][..6].iter().map(|&c| i32::from(c)).sum();
    let c: [u8; 5] = std::array::from_fn(|d| board.sides[o][18 + d]);
    let pips: i32 = (0..5).map(|d| (d as i32 + 1) * i32::from(c[d])).sum();
    let bonus = i32::from(side == 1);
    if (home + 3) / 4 - bonus > (pips + 2) / 3 {
        return 0.0;
    }
    let men: u32 = c.iter().map(|&n| u32::from(n)).sum();
    let p = if (1..=6).contains(&men) {
        let e = escape_table().get(&c);
        let (dist, _) = db.one_sided_distribution(&board.sides[side]);
        let mut acc = 0f32;
        let s = side;
        for j in (1 - s)..=4 {
            let sum: u32 = dist[1..=j + s].iter().map(|&v| u32::from(v)).sum();
            let scale = 36u64.pow(j as u32 + 1) as f32;
            acc += (e[j] as f32 / scale) * sum as f32;
        }
        arith.division().div(acc, 65535.0)
    } else {
        // More than 6 men in the zone: a bearoff race against the escapees
        // treated as men on the first six points.
        let mut pseudo = Board::EMPTY;
        pseudo.sides[side] = board.sides[side];
        pseudo.sides[o][..6].copy_from_slice(&board.sides[o][18..24]);
        let win = db.evaluate_one_sided(&pseudo, arith)[0];
        if side == 1 {
            win
        } else {
            1.0 - win
        }
    };
    p.min(1.0)
}

/// Replaces the race net's backgammon output by the race backgammon
/// probability (docs/formats.md#race-backgammon-override). Runs before the sanity check, RACE class only.
pub fn race_backgammon_override(
    board: &Board,
    out: &mut Probabilities,
    db: &BearoffDatabases,
    arith: Arithmetic,
) {
    let men = |s: usize| -> u32 { board.sides[s][..24].iter().map(|&c| u32::from(c)).sum() };
    let in_zone = |s: usize| board.sides[s][18..24].iter().any(|&c| c > 0);
    let bg_on_roll = men(0) == 15 && in_zone(0);
    let bg_opponent = men(1) == 15 && in_zone(1);
    if !bg_on_roll && !bg_opponent {
        return;
    }
    let side = usize::from(bg_on_roll);
    let p = race_bg_prob(board, side, db, arith);
    let (bg, g) = if side == 1 { (2, 1) } else { (4, 3) };
    if p > 0.0 {
        out[bg] = p;
        if out[g] < p {
            out[g] = p;
        }
    } else {
        out[bg] = 0.0;
    }
}

// ---------------------------------------------------------------- table F

/// First-off distributions `F[b] = (p0..p3)` for 6-point layouts of exactly
/// 15 men, indexed by bearoff index − 38 760.
struct FirstOffTable {
    p: Vec<[u64; 4]>,
}

const FIRST_FULL_INDEX: usize = 38_760;

fn f_score(p: &[u64; 4]) -> u64 {
    (0..4)
        .map(|k| (k as u64 + 1) * p[k] * 36u64.pow(3 - k as u32))
        .sum()
}

/// Plays every die in turn under the bearoff rules; reports whether some
/// play bears a man off, and collects the layouts of the plays that do not.
fn first_off_successors(b: [u8; 6], dice: &[u8], bore_off: &mut bool, out: &mut Vec<[u8; 6]>) {
    if dice.is_empty() {
        if !out.contains(&b) {
            out.push(b);
        }
        return;
    }
    let v = usize::from(dice[0]);
    let highest = b.iter().rposition(|&n| n > 0).expect("15 men on the board");
    for idx in 0..6 {
        if b[idx] == 0 {
            continue;
        }
        let point = idx + 1;
        if point > v {
            let mut next = b;
            next[idx] -= 1;
            next[idx - v] += 1;
            first_off_successors(next, &dice[1..], bore_off, out);
        } else if point == v || idx == highest {
            *bore_off = true;
        }
    }
}

impl FirstOffTable {
    fn build() -> FirstOffTable {
        let n = board::bearoff_index::position_count(6, 15) - FIRST_FULL_INDEX;
        let mut p = vec![[0u64; 4]; n];
        let mut b = [0u8; 6];
        let mut succ = Vec::new();
        for k in 0..n {
            board::unrank(FIRST_FULL_INDEX + k, 15, &mut b);
            let o: [bool; 6] = std::array::from_fn(|i| b[i] > 0);
            // gnubg's four occupancy patterns, as docs/formats.md#first-off-table lists them.
            #[allow(clippy::nonminimal_bool)]
            let shortcut = (o[4] && o[3] && o[2])
                || (!o[5] && !o[4] && o[3] && o[2])
                || (!o[5] && !o[4] && !o[3] && o[2])
                || (!o[5] && !o[4] && !o[3] && !o[2]);
            if shortcut {
                p[k] = [36, 0, 0, 0];
                continue;
            }
            let mut acc = [0u64; 4];
            for (dice, w) in rolls() {
                let mut orders = vec![dice.clone()];
                if dice.len() == 2 {
                    orders.push(vec![dice[1], dice[0]]);
                }
                succ.clear();
                let mut bore_off = false;
                for order in &orders {
                    first_off_successors(b, order, &mut bore_off, &mut succ);
                }
                if bore_off {
                    acc[0] += w;
                    continue;
                }
                let best = succ
                    .iter()
                    .map(|s| p[board::rank(s) - FIRST_FULL_INDEX])
                    .min_by_key(f_score)
                    .expect("every die is playable with 15 men at home");
                for i in 0..3 {
                    acc[i + 1] += w * best[i];
                }
                acc[3] += w * (best[3] / 36);
            }
            p[k] = acc;
        }
        FirstOffTable { p }
    }
}

fn first_off_table() -> &'static FirstOffTable {
    static TABLE: OnceLock<FirstOffTable> = OnceLock::new();
    TABLE.get_or_init(FirstOffTable::build)
}

/// The first-off distribution of a side with 15 men on its first six
/// points, or `None` otherwise.
fn first_off(side: &[u8; 25]) -> Option<[u64; 4]> {
    let men: u32 = side.iter().map(|&c| u32::from(c)).sum();
    if men != 15 || side[6..].iter().any(|&c| c > 0) {
        return None;
    }
    Some(first_off_table().p[board::rank(&side[..6]) - FIRST_FULL_INDEX])
}

/// (WG, LG) of a one-sided evaluation without gammon distributions
/// (docs/formats.md#first-off-table, in f64): from F of the side that still has 15 men at home.
pub(crate) fn first_off_gammons(board: &Board, p1: &[f32; 32], p0: &[f32; 32]) -> (f32, f32) {
    let cumulative = |f: [u64; 4]| {
        let m0 = f[0] as f64 / 36.0;
        let m1 = m0 + f[1] as f64 / 1296.0;
        let m2 = m1 + f[2] as f64 / 46_656.0;
        (m0, m1, m2)
    };
    let p = |x: &[f32; 32], i: usize| f64::from(x[i]);
    let wg = first_off(&board.sides[0]).map_or(0.0, |f| {
        let (m0, m1, m2) = cumulative(f);
        p(p1, 1) + (1.0 - m0) * p(p1, 2) + (1.0 - m1) * p(p1, 3) + (1.0 - m2) * p(p1, 4)
    });
    let lg = first_off(&board.sides[1]).map_or(0.0, |f| {
        let (m0, m1, m2) = cumulative(f);
        (1.0 - m0) * p(p0, 1) + (1.0 - m1) * p(p0, 2) + (1.0 - m2) * p(p0, 3)
    });
    (wg as f32, lg as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_table_examples() {
        let t = escape_table();
        assert_eq!(t.get(&[3, 0, 0, 0, 0]), [6, 1080, 0, 0, 0]);
        assert_eq!(t.get(&[0, 2, 0, 0, 0]), [26, 360, 0, 0, 0]);
        assert_eq!(t.get(&[2, 0, 1, 0, 0]), [5, 1116, 0, 0, 0]);
        assert_eq!(t.get(&[1, 1, 0, 0, 0]), [36, 0, 0, 0, 0]);
        assert_eq!(t.get(&[0, 0, 0, 0, 6]), [0, 18, 6042, 425_561, 36_475_740]);
        let states = t.q.iter().filter(|q| q.iter().any(|&v| v > 0)).count();
        assert_eq!(states, 461);
        for q in t.q.iter().skip(1) {
            let total: u64 = (0..5).map(|k| q[k] * 36u64.pow(4 - k as u32)).sum();
            assert_eq!(total, 36u64.pow(5));
        }
    }

    #[test]
    fn first_off_table_examples() {
        let t = first_off_table();
        let at = |b: [u8; 6]| t.p[board::rank(&b) - FIRST_FULL_INDEX];
        assert_eq!(at([0, 0, 0, 15, 0, 0]), [31, 175, 173, 252]);
        assert_eq!(at([0, 0, 0, 0, 0, 15]), [17, 583, 3203, 15588]);
        assert_eq!(at([11, 0, 4, 0, 0, 0]), [36, 0, 0, 0]);
        assert_eq!(t.p.len(), 15_504);
        for p in &t.p {
            let total: u64 = (0..4).map(|k| p[k] * 36u64.pow(3 - k as u32)).sum();
            assert_eq!(total, 36u64.pow(4));
        }
    }

    #[test]
    fn escape_successors_leave_the_zone() {
        let mut out = Vec::new();
        escape_successors([1, 0, 0, 0, 1], &[6, 1], &mut out);
        // 6 takes either man out; the 1 then moves the other.
        assert!(out.contains(&[0, 0, 0, 1, 0]));
        assert!(out.contains(&[0, 0, 0, 0, 0]));
        assert_eq!(out.len(), 2);
    }
}
