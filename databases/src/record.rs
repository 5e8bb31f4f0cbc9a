//! One database record as stored, and its values decoded the way gnubg's
//! reader decodes them (docs/formats.md#decoding-stored-values).

use crate::decode::{self, RollDistribution, Scale};
use crate::distribution::Distribution;

/// A record exactly as stored in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Record {
    /// One-sided exact: the bearoff distribution and, if the file has them,
    /// the gammon (first chequer off) distribution, in units of 1/65535.
    OneSided {
        /// Probability of bearing off all chequers in exactly `r` rolls.
        bearoff: Distribution,
        /// Probability of bearing off the first chequer in exactly `r` rolls.
        gammon: Option<Distribution>,
    },
    /// One-sided normal distribution: mean and standard deviation of the
    /// rolls to bear off, then of the rolls to save the gammon.
    Normal([f32; 4]),
    /// Two-sided: u16 equities (cubeless, owned, centred, opponent owns);
    /// only the first is stored when the file is not cubeful.
    TwoSided {
        /// The stored values (unused ones are 0).
        values: [u16; 4],
        /// Whether all four are stored.
        cubeful: bool,
    },
    /// Hypergammon: u24 probabilities and cubeful equities.
    Hyper {
        /// Win, win gammon, win backgammon, lose gammon, lose backgammon.
        probabilities: [u32; 5],
        /// Cube owned, centred, centred with Jacoby, opponent owns.
        equities: [u32; 4],
        /// The padding byte (0 in valid files).
        padding: u8,
    },
}

/// A one-sided record's distributions as probabilities with their moments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneSidedValues {
    /// Rolls to bear off all chequers.
    pub bearoff: RollDistribution,
    /// Rolls to bear off the first chequer (files with gammons).
    pub gammon: Option<RollDistribution>,
}

/// Two-sided equities from the view of the side on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoSidedValues {
    /// Cubeless, cube owned, cube centred, opponent owns cube.
    pub equities: [f32; 4],
    /// Whether the three cubeful values are present.
    pub cubeful: bool,
}

impl TwoSidedValues {
    /// Names of the values, in storage order.
    pub const NAMES: [&'static str; 4] = [
        "Cubeless equity",
        "Owned cube",
        "Centered cube",
        "Opponent owns cube",
    ];

    /// The values the file stores.
    pub fn stored(&self) -> &[f32] {
        &self.equities[..if self.cubeful { 4 } else { 1 }]
    }
}

/// Hypergammon probabilities and equities from the view of the side on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyperValues {
    /// Win, win gammon, win backgammon, lose gammon, lose backgammon.
    pub probabilities: [f32; 5],
    /// Cube owned, centred, centred with Jacoby rule, opponent owns.
    pub equities: [f32; 4],
}

impl HyperValues {
    /// Names of the probabilities, in storage order.
    pub const PROBABILITY_NAMES: [&'static str; 5] = [
        "Win",
        "Win gammon",
        "Win backgammon",
        "Lose gammon",
        "Lose backgammon",
    ];
    /// Names of the equities, in storage order (as gnubg's bearoffdump).
    pub const EQUITY_NAMES: [&'static str; 4] = [
        "Owned cube",
        "Centered cube",
        "Centered cube (Jacoby rule)",
        "Opponent owns cube",
    ];

    /// Cubeless money equity, recomputed from the probabilities.
    pub fn cubeless(&self) -> f32 {
        board::cubeless_equity(&self.probabilities)
    }
}

/// A record's decoded values.
// Decoded per record in tight loops: one-sided values stay inline rather
// than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Values {
    /// One-sided exact or normal-distribution.
    OneSided(OneSidedValues),
    /// Two-sided.
    TwoSided(TwoSidedValues),
    /// Hypergammon.
    Hyper(HyperValues),
}

impl Record {
    /// Decodes the record; `scale` chooses how integers become f32
    /// ([`Scale::Reciprocal`] reproduces Debian's gnubg 1.07 bit for bit).
    pub fn values(&self, scale: Scale) -> Values {
        match *self {
            Record::OneSided { bearoff, gammon } => Values::OneSided(OneSidedValues {
                bearoff: decode::roll_distribution(&bearoff, scale),
                gammon: gammon.map(|g| decode::roll_distribution(&g, scale)),
            }),
            Record::Normal([mean, sd, gmean, gsd]) => Values::OneSided(OneSidedValues {
                bearoff: decode::normal_distribution(mean, sd),
                gammon: Some(decode::normal_distribution(gmean, gsd)),
            }),
            Record::TwoSided { values, cubeful } => Values::TwoSided(TwoSidedValues {
                equities: std::array::from_fn(|k| {
                    if cubeful || k == 0 {
                        decode::two_sided_equity_with(values[k], scale)
                    } else {
                        0.0
                    }
                }),
                cubeful,
            }),
            Record::Hyper {
                probabilities,
                equities,
                ..
            } => Values::Hyper(HyperValues {
                probabilities: probabilities.map(|u| decode::hyper_probability_with(u, scale)),
                equities: equities.map(|u| decode::hyper_equity_with(u, scale)),
            }),
        }
    }
}

impl Values {
    /// The one-sided values, if this is a one-sided record.
    pub fn one_sided(&self) -> Option<&OneSidedValues> {
        match self {
            Values::OneSided(v) => Some(v),
            _ => None,
        }
    }
}

/// Win and gammon probabilities of a race between the side on roll
/// (`player`) and its opponent, from their one-sided records
/// (docs/formats.md#bearoff-evaluation). Gammons count only when `gammons_possible` (either
/// side still has all 15 chequers) and both records have gammon
/// distributions. Returns win, win gammon, 0, lose gammon, 0.
pub fn race(
    player: &OneSidedValues,
    opponent: &OneSidedValues,
    gammons_possible: bool,
) -> [f32; 5] {
    let zero = [0f32; 32];
    let (g1, g0, gammons) = match (&player.gammon, &opponent.gammon) {
        (Some(g1), Some(g0)) => (&g1.p, &g0.p, gammons_possible),
        _ => (&zero, &zero, false),
    };
    decode::race_probabilities(&player.bearoff.p, g1, &opponent.bearoff.p, g0, gammons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::DONE;

    #[test]
    fn decodes_each_kind() {
        let mut two = [0u16; 32];
        two[2] = 65535;
        let os = Record::OneSided {
            bearoff: two,
            gammon: Some(DONE),
        };
        let Values::OneSided(v) = os.values(Scale::Reciprocal) else {
            panic!()
        };
        assert_eq!((v.bearoff.mean, v.bearoff.sd), (2.0, 0.0));
        assert_eq!(v.gammon.unwrap().mean, 0.0);
        let off = Record::OneSided {
            bearoff: DONE,
            gammon: Some(DONE),
        }
        .values(Scale::Divide);
        // The side on roll needs two rolls, the opponent is already off.
        let race_out = race(&v, off.one_sided().unwrap(), true);
        assert_eq!(race_out, [0.0; 5]);

        let ts = Record::TwoSided {
            values: [0xFFFF, 0, 0, 0],
            cubeful: false,
        };
        let Values::TwoSided(t) = ts.values(Scale::Divide) else {
            panic!()
        };
        assert_eq!(t.stored(), &[1.0]);

        let hyper = Record::Hyper {
            probabilities: [0xFF_FFFF, 0xFF_FFFF, 0, 0, 0],
            equities: [0; 4],
            padding: 0,
        };
        let Values::Hyper(h) = hyper.values(Scale::Reciprocal) else {
            panic!()
        };
        assert_eq!(h.cubeless(), 2.0);
        assert_eq!(h.equities, [-3.0; 4]);
    }
}
