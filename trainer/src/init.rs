//! New nets with random weights, as gnubg-nn creates them
//! (docs/trainer.md#new-weights).

use nets::{Net, NetKind, NetShape, Nets, WeightsError};
use rand_mt::Mt;

/// Hidden units of gnubg's shipped nets: contact, race, crashed (the main
/// nets, 128 by default) and the three pruning nets.
pub const GNUBG_HIDDEN: [usize; 6] = [128, 128, 128, 16, 16, 8];

/// Largest hidden layer `trainer new` makes (gnubg itself has no limit; a
/// bound keeps a mistyped size from allocating gigabytes).
pub const MAX_HIDDEN: usize = 4096;

/// Why a set of nets cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The hidden size is not one gnubg 1.07 evaluates correctly.
    #[error(
        "hidden size {0}: must be a multiple of 4 between 4 and {MAX_HIDDEN} \
         (gnubg 1.07's SSE evaluator works on four hidden units at a time)"
    )]
    Hidden(usize),
    /// The hidden slope is out of range.
    #[error("hidden-layer slope {0}: must be in (0, 100]")]
    Beta(f32),
    /// The nets could not be assembled.
    #[error(transparent)]
    Weights(#[from] WeightsError),
}

/// Checks that gnubg 1.07 can evaluate a net with `hidden` hidden units.
pub fn check_hidden(hidden: usize) -> Result<(), InitError> {
    if hidden == 0 || !hidden.is_multiple_of(4) || hidden > MAX_HIDDEN {
        return Err(InitError::Hidden(hidden));
    }
    Ok(())
}

/// One value as gnubg-nn draws it: uniform on −0.25 … 0.25 − 1/131072 in
/// steps of 1/131072.
fn draw(rng: &mut Mt) -> f32 {
    let r = (rng.next_u32() & 0xFFFF) as i32 - 0x8000;
    r as f32 / 131_072.0
}

/// A net of `shape` with every weight and bias drawn in file order.
pub fn random_net(shape: NetShape, rng: &mut Mt) -> Result<Net, WeightsError> {
    let values = (0..shape.values()).map(|_| draw(rng)).collect();
    Net::from_values(shape, values)
}

/// gnubg-nn's hidden-layer slope β_h.
pub const GNUBG_BETA_HIDDEN: f32 = 0.1;

/// gnubg's six nets with random weights: `hidden` units and hidden slope
/// `beta_hidden` (gnubg-nn: [`GNUBG_BETA_HIDDEN`]) in the contact, race and
/// crashed nets, gnubg's sizes and slope in the pruning nets, β_o = 1, all from
/// one Mersenne Twister seeded with `seed` (the nets in file order).
pub fn new_nets(hidden: usize, beta_hidden: f32, seed: u32) -> Result<Nets, InitError> {
    check_hidden(hidden)?;
    if !(beta_hidden > 0.0 && beta_hidden <= 100.0) {
        return Err(InitError::Beta(beta_hidden));
    }
    let mut rng = Mt::new(seed);
    let mut nets = Vec::with_capacity(6);
    for (k, kind) in NetKind::ALL.into_iter().enumerate() {
        let main = k < 3;
        let shape = NetShape {
            inputs: kind.inputs(),
            hidden: if main { hidden } else { GNUBG_HIDDEN[k] },
            outputs: board::NUM_OUTPUTS,
            beta_hidden: if main { beta_hidden } else { GNUBG_BETA_HIDDEN },
            beta_output: 1.0,
        };
        nets.push(random_net(shape, &mut rng)?);
    }
    let nets: [Net; 6] = nets.try_into().expect("six nets");
    Ok(Nets::new(nets)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_on_gnubg_nn_grid_and_seeded() {
        let a = new_nets(8, GNUBG_BETA_HIDDEN, 1).unwrap();
        let b = new_nets(8, GNUBG_BETA_HIDDEN, 1).unwrap();
        let c = new_nets(8, GNUBG_BETA_HIDDEN, 2).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let values: Vec<f32> = a.all().iter().flat_map(|n| n.values()).collect();
        assert!(values.iter().all(|&v| (-0.25..0.25).contains(&v)));
        assert!(values.iter().all(|&v| (v * 131_072.0).fract() == 0.0));
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert_eq!(a.get(NetKind::Contact).hidden(), 8);
        assert_eq!(a.get(NetKind::PruneRace).hidden(), 8);
        assert_eq!(a.get(NetKind::PruneContact).hidden(), 16);
    }

    #[test]
    fn hidden_sizes_gnubg_cannot_use_are_refused() {
        for bad in [0, 3, 30, 4100] {
            assert!(
                matches!(
                    new_nets(bad, GNUBG_BETA_HIDDEN, 1),
                    Err(InitError::Hidden(_))
                ),
                "{bad}"
            );
        }
    }
}
