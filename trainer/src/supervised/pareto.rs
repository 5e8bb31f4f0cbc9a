//! The Pareto policy of supervised training's saves: every net not beaten
//! on both the RMS and the maximum error is kept, as `OUT.save.E-M`.

/// A saved net's name: its errors rounded, `E` = round(10000·RMS error),
/// `M` = round(1000·max error).
pub type SaveName = (u64, u64);

/// The name of a net with RMS error `er` and maximum error `mx`.
pub fn save_name(er: f64, mx: f64) -> SaveName {
    ((0.5 + 10000.0 * er) as u64, (0.5 + 1000.0 * mx) as u64)
}

/// What admitting a net to the front does.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// The net is saved.
    pub save: bool,
    /// The saved nets it replaces or dominates, to remove.
    pub remove: Vec<SaveName>,
}

/// The saved nets, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParetoFront {
    saved: Vec<SaveName>,
}

impl ParetoFront {
    /// The front of the nets saved so far.
    pub fn new(saved: Vec<SaveName>) -> ParetoFront {
        ParetoFront { saved }
    }

    /// The names on the front.
    pub fn saved(&self) -> &[SaveName] {
        &self.saved
    }

    /// Offers the net named `(e, m)`: an existing net at least as good on
    /// both (and better on one) prevents the save; the new net removes
    /// those it is at least as good as on both; a net with the same name is
    /// replaced. The front follows.
    pub fn admit(&mut self, (e, m): SaveName) -> Admission {
        let mut admission = Admission {
            save: true,
            remove: Vec::new(),
        };
        for &(e2, m2) in &self.saved {
            if e2 == e && m2 == m {
                // The same name: the newer net replaces it.
                admission.remove.push((e2, m2));
            } else if e2 <= e && m2 <= m {
                // Beaten (or tied on one coordinate and beaten on the other).
                admission.save = false;
            } else if e <= e2 && m <= m2 {
                admission.remove.push((e2, m2));
            }
        }
        if !admission.save {
            admission.remove.clear();
            return admission;
        }
        self.saved.retain(|x| !admission.remove.contains(x));
        self.saved.push((e, m));
        admission
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front_after(sequence: &[SaveName]) -> Vec<SaveName> {
        let mut front = ParetoFront::default();
        for &name in sequence {
            front.admit(name);
        }
        let mut saved = front.saved().to_vec();
        saved.sort_unstable();
        saved
    }

    #[test]
    fn pareto_keeps_exactly_the_non_dominated() {
        let sequence = [
            (500, 90),
            (480, 95),
            (470, 85),
            (470, 88),
            (460, 100),
            (490, 80),
            (450, 70),
        ];
        assert_eq!(front_after(&sequence), vec![(450, 70)]);
        let sequence = [
            (500, 90),
            (480, 95),
            (470, 85),
            (490, 80),
            (470, 88),
            (460, 100),
        ];
        // (480, 95) and (500, 90) fall to (470, 85); (470, 88) is beaten by
        // (470, 85); (460, 100) and (490, 80) are not dominated.
        assert_eq!(
            front_after(&sequence),
            vec![(460, 100), (470, 85), (490, 80)]
        );
    }

    #[test]
    fn the_same_name_is_replaced_and_a_beaten_net_removes_nothing() {
        let mut front = ParetoFront::new(vec![(470, 85), (490, 80)]);
        assert_eq!(
            front.admit((470, 85)),
            Admission {
                save: true,
                remove: vec![(470, 85)]
            }
        );
        assert_eq!(front.admit((480, 90)), Admission::default());
        assert_eq!(front.saved().len(), 2);
    }
}
