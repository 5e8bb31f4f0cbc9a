//! The first-off table F (docs/formats.md#first-off-table): for a side with
//! all 15 men on its first six points, the distribution of the turn on which
//! it bears its first man off. One-sided databases without gammon
//! distributions take gammon chances from it. Regenerated from its
//! definition at first use.

use board::Board;
use std::sync::OnceLock;

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
            for roll in board::ROLLS {
                let (orders, w) = (roll.play_orders(), u64::from(roll.weight()));
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
pub(crate) fn gammons(board: &Board, p1: &[f32; 32], p0: &[f32; 32]) -> (f32, f32) {
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
}
