//! Tesauro's pubeval (docs/formats.md#pubeval): a public-domain linear move
//! scorer, the classic weak benchmark opponent.

use board::{Board, MoveList};

/// Contact weights (Tesauro's public-domain release, 1993).
#[rustfmt::skip]
static CONTACT: [f32; 122] = [
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
    -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
    -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
    -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
    1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
    -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
    -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
    0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
    -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
];

/// Race weights (Tesauro's public-domain release, 1993).
#[rustfmt::skip]
static RACE: [f32; 122] = [
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
    0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
    -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
    -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
    0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
    0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
    0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
    0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
    2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
    -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
];

/// Score of an immediate win (all the mover's men off).
pub const WIN_SCORE: f32 = 99_999_999.0;

/// pubeval's 28-entry board from the mover's view: `pos[1..=24]` the points
/// (mover positive, opponent negative), `pos[25]` mover's bar, `pos[0]`
/// −opponent's bar, `pos[26]` mover's men off, `pos[27]` −opponent's men off.
/// `after` is a position right after a move, before the sides are swapped:
/// `after.sides[1]` is the side that just moved.
pub fn pubeval_position(after: &Board) -> [i32; 28] {
    let (mover, opp) = (&after.sides[1], &after.sides[0]);
    let mut pos = [0i32; 28];
    for j in 0..24 {
        pos[j + 1] = if mover[j] > 0 {
            i32::from(mover[j])
        } else {
            -i32::from(opp[23 - j])
        };
    }
    pos[25] = i32::from(mover[24]);
    pos[0] = -i32::from(opp[24]);
    pos[26] = 15 - after.chequers(1) as i32;
    pos[27] = -(15 - after.chequers(0) as i32);
    pos
}

/// Tesauro's score of the position after a move (higher is better for the
/// mover). `race` says whether the position *before* the move was a race.
pub fn pubeval(race: bool, after: &Board) -> f32 {
    let pos = pubeval_position(after);
    if pos[26] == 15 {
        return WIN_SCORE;
    }
    let w = if race { &RACE } else { &CONTACT };
    let mut x = [0f32; 122];
    for (j, &n) in pos.iter().enumerate().take(25).skip(1) {
        let i = 5 * (24 - j);
        if n == -1 {
            x[i] = 1.0;
        }
        if n == 1 {
            x[i + 1] = 1.0;
        }
        if n >= 2 {
            x[i + 2] = 1.0;
        }
        if n == 3 {
            x[i + 3] = 1.0;
        }
        if n >= 4 {
            x[i + 4] = (n - 3) as f32 / 2.0;
        }
    }
    x[120] = -(pos[0] as f32) / 2.0;
    x[121] = pos[26] as f32 / 15.0;
    let mut score = 0f32;
    for (wi, xi) in w.iter().zip(&x) {
        score += wi * xi;
    }
    score
}

/// pubeval's move for a roll: the first legal play with the highest score,
/// as the board after the move (not swapped), or `None` without a legal play.
pub fn pubeval_move(board: &Board, d0: u8, d1: u8, moves: &mut MoveList) -> Option<Board> {
    let race = !crate::classify::is_contact(board);
    let mut best: Option<(f32, Board)> = None;
    for after in moves.generate(board, d0.max(d1), d0.min(d1)) {
        let s = pubeval(race, after);
        let better = match best {
            None => true,
            Some((b, _)) => s > b,
        };
        if better {
            best = Some((s, *after));
        }
    }
    best.map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_match_the_published_tables() {
        assert_eq!(
            CONTACT[..5],
            [0.25696, -0.66937, -1.66135, -2.02487, -2.53398]
        );
        assert_eq!(RACE[..5], [0.0, -0.17160, 0.27010, 0.29906, -0.08471]);
    }

    #[test]
    fn encodes_the_mover_positive() {
        let start = Board::starting();
        let pos = pubeval_position(&start);
        assert_eq!(pos[6], 5); // mover's 6-point
        assert_eq!(pos[24], 2);
        assert_eq!(pos[1], -2); // opponent's back men on our ace point
        assert_eq!(pos[19], -5);
        assert_eq!((pos[0], pos[25], pos[26], pos[27]), (0, 0, 0, 0));
    }

    #[test]
    fn prefers_bearing_off_to_win() {
        let mut b = Board::EMPTY;
        b.sides[1][0] = 1;
        b.sides[0][5] = 15;
        let mut moves = MoveList::new();
        let after = pubeval_move(&b, 6, 1, &mut moves).unwrap();
        assert_eq!(after.chequers(1), 0);
        assert_eq!(pubeval(true, &after), WIN_SCORE);
    }
}
