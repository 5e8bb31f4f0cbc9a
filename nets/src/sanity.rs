//! gnubg 1.07's sanity check of net outputs (docs/formats.md#sanity-check).

use crate::bearoff_eval::BearoffDatabases;
use board::Board;
use board::Probabilities;

/// Per-side counts the checks use.
struct SideCounts {
    /// Highest occupied index (0 if none).
    back: i32,
    /// Men on the board.
    men: i32,
    /// Crossovers needed to get home.
    cross: i32,
    /// Crossovers that save the gammon (plus one).
    gammon_cross: i32,
}

fn counts(side: &[u8; 25]) -> SideCounts {
    let mut c = SideCounts {
        back: 0,
        men: 0,
        cross: 0,
        gammon_cross: 1,
    };
    for (zone, range) in [(1, 0..6), (2, 6..12), (3, 12..18), (4, 18..24), (5, 24..25)] {
        let mut n = 0;
        for i in range {
            if side[i] > 0 {
                c.back = i as i32;
                n += i32::from(side[i]);
            }
        }
        c.men += n;
        c.cross += zone * n;
        c.gammon_cross += (zone - 1) * n;
    }
    c
}

/// Clamps impossible or certain outcomes and orders the cumulative outputs.
/// Applied to race, crashed and contact evaluations (not to bearoff classes).
pub fn sanity_check(board: &Board, out: &mut Probabilities, db: &BearoffDatabases) {
    let s = [counts(&board.sides[0]), counts(&board.sides[1])];
    let contact = s[0].back + s[1].back >= 24;
    let mut max_turns = [0i32; 2];
    if !contact {
        for (i, side) in board.sides.iter().enumerate() {
            max_turns[i] = if s[i].back < 6 && (s[i].back as usize) < db.one_sided_points() {
                db.max_turns(side)
            } else {
                2 * s[i].cross
            };
        }
        if max_turns[1] == 0 {
            max_turns[1] = 1;
        }
    }
    let [win, wg, wbg, lg, lbg] = [0, 1, 2, 3, 4];
    if !contact && s[0].cross > 4 * (max_turns[1] - 1) {
        out[win] = 1.0;
    }
    if s[0].men < 15 {
        out[wg] = 0.0;
        out[wbg] = 0.0;
    } else if !contact {
        if s[1].cross > 8 * s[0].gammon_cross {
            out[wg] = 0.0;
        } else if s[0].gammon_cross > 4 * (max_turns[1] - 1) {
            out[wg] = 1.0;
        }
        if s[0].back < 18 {
            out[wbg] = 0.0;
        }
    }
    if !contact && s[1].cross > 4 * max_turns[0] {
        out[win] = 0.0;
    }
    if s[1].men < 15 {
        out[lg] = 0.0;
        out[lbg] = 0.0;
    } else if !contact {
        if s[0].cross > 8 * s[1].gammon_cross - 4 {
            out[lg] = 0.0;
        } else if s[1].gammon_cross > 4 * max_turns[0] {
            out[lg] = 1.0;
        }
        if s[1].back < 18 {
            out[lbg] = 0.0;
        }
    }
    if out[wg] > out[win] {
        out[wg] = out[win];
    }
    let lose = 1.0 - out[win];
    if out[lg] > lose {
        out[lg] = lose;
    }
    if out[wbg] > out[wg] {
        out[wbg] = out[wg];
    }
    if out[lbg] > out[lg] {
        out[lbg] = out[lg];
    }
    if contact {
        for v in &mut out[1..] {
            if *v < 1e-4 {
                *v = 0.0;
            }
        }
    }
}
