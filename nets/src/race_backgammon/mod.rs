//! Race backgammons (docs/formats.md#race-backgammon-override): the escape table E and the
//! override of the race net's backgammon outputs. The table is stored
//! (`escape_table.rs`); a test builds it again from its definition.

use crate::arith::Arithmetic;
use crate::bearoff_eval::BearoffDatabases;
use board::Board;
use board::Probabilities;

mod escape_table;

// ---------------------------------------------------------------- table E

/// Escape distributions `E[c] = (q0..q4)`, indexed by the 5-point bearoff
/// index of `c = (c1..c5)` (men needing d pips to leave the zone): the
/// definition, which the stored table must equal.
#[cfg(test)]
struct EscapeTable {
    q: Vec<[u64; 5]>,
}

#[cfg(test)]
fn e_score(q: &[u64; 5]) -> u64 {
    (0..5)
        .map(|k| (k as u64 + 1) * q[k] * 36u64.pow(4 - k as u32))
        .sum()
}

/// Every state reachable by giving each die, in turn, to a man in the zone
/// (dice are not wasted while a man remains); men are counts by distance.
#[cfg(test)]
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

#[cfg(test)]
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
            for roll in board::ROLLS {
                let (orders, w) = (roll.play_orders(), u64::from(roll.weight()));
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

/// `E[c]` from the stored table.
fn escapes(c: &[u8; 5]) -> [u64; 5] {
    escape_table::ESCAPES[board::rank(c)].map(u64::from)
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
        let e = escapes(&c);
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

/// For each side, whether it could be backgammoned: all 15 men on points
/// 0–23 (the bar left out) and one or more on points 18–23; from each
/// side's occupancy (a few vector instructions).
fn backgammon_sides(board: &Board) -> [bool; 2] {
    std::array::from_fn(|s| {
        let side = &board.sides[s];
        let o = crate::occupancy::Occupancy::of(side);
        o.men - u32::from(side[24]) == 15 && o.occupied & 0x00FC_0000 != 0
    })
}

/// Replaces the race net's backgammon output by the race backgammon
/// probability (docs/formats.md#race-backgammon-override). Runs before the sanity check, RACE class only.
pub fn race_backgammon_override(
    board: &Board,
    out: &mut Probabilities,
    db: &BearoffDatabases,
    arith: Arithmetic,
) {
    let [bg_on_roll, bg_opponent] = backgammon_sides(board);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_table_is_the_built_one() {
        let built = EscapeTable::build();
        assert_eq!(built.q.len(), escape_table::ESCAPES.len());
        for (id, (q, stored)) in built.q.iter().zip(&escape_table::ESCAPES).enumerate() {
            assert_eq!(*q, stored.map(u64::from), "state {id}");
        }
        // Through the lookup the override uses, by state.
        let mut c = [0u8; 5];
        for id in 0..built.q.len() {
            board::unrank(id, 6, &mut c);
            assert_eq!(escapes(&c), built.get(&c), "{c:?}");
        }
    }

    #[test]
    fn escape_table_examples() {
        let t = EscapeTable::build();
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
    fn backgammon_sides_follow_their_definition() {
        let mut next = crate::test_rng::xorshift(23);
        for _ in 0..20_000 {
            let mut board = Board::EMPTY;
            for side in &mut board.sides {
                // Fifteen men mostly, some on the bar or in the zone.
                for _ in 0..(13 + next() % 3) {
                    side[(next() % 25) as usize] += 1;
                }
            }
            let want: [bool; 2] = std::array::from_fn(|s| {
                let side = &board.sides[s];
                side[..24].iter().map(|&c| u32::from(c)).sum::<u32>() == 15
                    && side[18..24].iter().any(|&c| c > 0)
            });
            assert_eq!(backgammon_sides(&board), want, "{board:?}");
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
