//! The net model (docs/formats.md#weights-files) and gnubg's set of six nets.

use crate::aligned::Aligned;
use crate::error::WeightsError;

/// A fully connected perceptron with one hidden layer, stored as gnubg stores
/// it: hidden weights input-major (`[i * hidden + j]`), output weights
/// output-major (`[k * hidden + j]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    inputs: usize,
    hidden: usize,
    outputs: usize,
    beta_hidden: f32,
    beta_output: f32,
    /// On a cache-line boundary, as are `output_weight` and `blocked`: a
    /// row's blocks then span whole lines.
    hidden_weight: Aligned,
    output_weight: Aligned,
    hidden_threshold: Vec<f32>,
    output_threshold: Vec<f32>,
    /// The hidden weights again, blocked for batched evaluation
    /// ([`Net::blocked_hidden_weights`]); equal to `hidden_weight` unless
    /// `blocked_stale`.
    blocked: Aligned,
    /// Set by training steps that leave the blocked copy behind
    /// ([`crate::train_net_deferred`]) until [`Net::refresh_blocked`].
    blocked_stale: bool,
}

/// Hidden units per block of [`Net::blocked_hidden_weights`].
pub const BLOCK_UNITS: usize = 16;

/// The four parameter arrays of a net, in file order, for updates.
pub struct Parameters<'a> {
    /// Hidden weights, input-major (`[i * hidden + j]`).
    pub hidden_weights: &'a mut [f32],
    /// Output weights, output-major (`[k * hidden + j]`).
    pub output_weights: &'a mut [f32],
    /// Hidden thresholds (biases).
    pub hidden_thresholds: &'a mut [f32],
    /// Output thresholds (biases).
    pub output_thresholds: &'a mut [f32],
}

/// The sizes and slopes of a net (the fields of a weights-file net header).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetShape {
    /// Inputs I.
    pub inputs: usize,
    /// Hidden units H.
    pub hidden: usize,
    /// Probabilities O (5 in every gnubg net).
    pub outputs: usize,
    /// Hidden-layer slope β_h.
    pub beta_hidden: f32,
    /// Output-layer slope β_o.
    pub beta_output: f32,
}

impl NetShape {
    /// Number of f32 values following the header: I·H + H·O + H + O.
    pub fn values(&self) -> usize {
        self.inputs * self.hidden + self.hidden * self.outputs + self.hidden + self.outputs
    }

    /// gnubg's header checks: every size ≥ 1, both slopes > 0 (and finite).
    pub fn validate(&self) -> Result<(), WeightsError> {
        if self.inputs < 1 || self.hidden < 1 || self.outputs < 1 {
            return Err(WeightsError::Invalid(format!(
                "net header has a zero size ({} inputs, {} hidden, {} outputs)",
                self.inputs, self.hidden, self.outputs
            )));
        }
        // Far above any real net; guards allocations (and the arithmetic of
        // `values`) against corrupt headers.
        const LIMIT: u64 = 1 << 28;
        let (i, h, o) = (self.inputs as u64, self.hidden as u64, self.outputs as u64);
        if i.max(h).max(o) > LIMIT || i * h + h * o + h + o > LIMIT {
            return Err(WeightsError::Invalid(format!(
                "net header sizes are implausibly large ({} inputs, {} hidden, {} outputs)",
                self.inputs, self.hidden, self.outputs
            )));
        }
        let positive = |b: f32| b > 0.0 && b.is_finite();
        if !positive(self.beta_hidden) || !positive(self.beta_output) {
            return Err(WeightsError::Invalid(format!(
                "net header has a slope that is not positive (beta_hidden {}, beta_output {})",
                self.beta_hidden, self.beta_output
            )));
        }
        Ok(())
    }
}

impl Net {
    /// Builds a net from a shape and its values in file order (hidden
    /// weights, output weights, hidden thresholds, output thresholds).
    /// Rejects NaN or infinite values.
    pub fn from_values(shape: NetShape, values: Vec<f32>) -> Result<Net, WeightsError> {
        shape.validate()?;
        if values.len() != shape.values() {
            return Err(WeightsError::Invalid(format!(
                "net needs {} values, got {}",
                shape.values(),
                values.len()
            )));
        }
        if let Some(pos) = values.iter().position(|v| !v.is_finite()) {
            return Err(WeightsError::Invalid(format!(
                "net value #{pos} is {} (weights must be finite)",
                values[pos]
            )));
        }
        let (i, h, o) = (shape.inputs, shape.hidden, shape.outputs);
        let mut rest = values;
        let output_threshold = rest.split_off(i * h + h * o + h);
        let hidden_threshold = rest.split_off(i * h + h * o);
        let output_weight = rest.split_off(i * h);
        let mut net = Net {
            inputs: i,
            hidden: h,
            outputs: o,
            beta_hidden: shape.beta_hidden,
            beta_output: shape.beta_output,
            hidden_weight: Aligned::from_slice(&rest),
            output_weight: Aligned::from_slice(&output_weight),
            hidden_threshold,
            output_threshold,
            blocked: Aligned::zeroed(0),
            blocked_stale: false,
        };
        net.rebuild_blocked();
        Ok(net)
    }

    /// Hidden units rounded up to whole blocks.
    pub fn padded_hidden(&self) -> usize {
        self.hidden.div_ceil(BLOCK_UNITS) * BLOCK_UNITS
    }

    /// The hidden weights blocked for batched evaluation: block `b` holds
    /// units `16b..16b+16` of every input row, row after row
    /// (`[(b * inputs + i) * 16 + u]`), padded with zeros past the last
    /// unit, so one block of every row is a contiguous 16·inputs floats.
    ///
    /// # Panics
    /// If training steps left the copy stale ([`crate::train_net_deferred`]
    /// without [`Net::refresh_blocked`] after it).
    pub fn blocked_hidden_weights(&self) -> &[f32] {
        assert!(
            !self.blocked_stale,
            "the blocked weights are stale: call Net::refresh_blocked after training"
        );
        &self.blocked
    }

    /// Brings the blocked copy up to date after
    /// [`crate::train_net_deferred`] steps (nothing to do otherwise).
    pub fn refresh_blocked(&mut self) {
        if self.blocked_stale {
            self.rebuild_blocked();
        }
    }

    /// Marks the blocked copy stale (hidden weights changed without it).
    pub(crate) fn mark_blocked_stale(&mut self) {
        self.blocked_stale = true;
    }

    /// The blocked copy made anew from the hidden weights.
    fn rebuild_blocked(&mut self) {
        let size = self.padded_hidden() / BLOCK_UNITS * self.inputs * BLOCK_UNITS;
        if self.blocked.len() != size {
            self.blocked = Aligned::zeroed(size);
        }
        self.blocked_stale = false;
        self.sync_blocked_rows(0..self.inputs);
    }

    /// Copies hidden-weight rows into the blocked layout.
    pub(crate) fn sync_blocked_rows(&mut self, rows: impl Iterator<Item = usize>) {
        let (n, inputs) = (self.hidden, self.inputs);
        for r in rows {
            let row = &self.hidden_weight[r * n..(r + 1) * n];
            let mut chunks = row.chunks_exact(BLOCK_UNITS);
            // Whole blocks as fixed-size copies (inlined, no call per block).
            for (b, chunk) in (&mut chunks).enumerate() {
                let at = (b * inputs + r) * BLOCK_UNITS;
                let to: &mut [f32; BLOCK_UNITS] = (&mut self.blocked[at..at + BLOCK_UNITS])
                    .try_into()
                    .expect("a block is BLOCK_UNITS long");
                *to = chunk.try_into().expect("chunks_exact");
            }
            let rest = chunks.remainder();
            if !rest.is_empty() {
                let at = ((n / BLOCK_UNITS) * inputs + r) * BLOCK_UNITS;
                self.blocked[at..at + rest.len()].copy_from_slice(rest);
            }
        }
    }

    /// Changes parameters with `f` (the blocked copy follows).
    pub fn update(&mut self, f: impl FnOnce(Parameters<'_>)) {
        f(self.parameters_mut());
        self.rebuild_blocked();
    }

    /// Changes parameters with `f` and leaves the blocked copy stale, for
    /// many updates in a row ([`Net::refresh_blocked`] once after them;
    /// batched evaluation panics until then).
    pub fn update_deferred(&mut self, f: impl FnOnce(Parameters<'_>)) {
        f(self.parameters_mut());
        self.mark_blocked_stale();
    }

    /// A net with every weight and bias 0 (a starting point for tests and tools).
    pub fn zeroed(shape: NetShape) -> Result<Net, WeightsError> {
        Net::from_values(shape, vec![0.0; shape.values()])
    }

    /// Sizes and slopes.
    pub fn shape(&self) -> NetShape {
        NetShape {
            inputs: self.inputs,
            hidden: self.hidden,
            outputs: self.outputs,
            beta_hidden: self.beta_hidden,
            beta_output: self.beta_output,
        }
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Hidden-layer slope.
    pub fn beta_hidden(&self) -> f32 {
        self.beta_hidden
    }

    /// Output-layer slope.
    pub fn beta_output(&self) -> f32 {
        self.beta_output
    }

    /// Input→hidden weights, `[i * hidden + j]`.
    pub fn hidden_weights(&self) -> &[f32] {
        &self.hidden_weight
    }

    /// Hidden→output weights, `[k * hidden + j]`.
    pub fn output_weights(&self) -> &[f32] {
        &self.output_weight
    }

    /// Hidden biases.
    pub fn hidden_thresholds(&self) -> &[f32] {
        &self.hidden_threshold
    }

    /// Output biases.
    pub fn output_thresholds(&self) -> &[f32] {
        &self.output_threshold
    }

    /// Mutable views of the parameters; the caller must bring the blocked
    /// copy up to date (`sync_blocked_rows`) for every hidden row it changes.
    pub(crate) fn parameters_mut(&mut self) -> Parameters<'_> {
        Parameters {
            hidden_weights: &mut self.hidden_weight,
            output_weights: &mut self.output_weight,
            hidden_thresholds: &mut self.hidden_threshold,
            output_thresholds: &mut self.output_threshold,
        }
    }

    /// All values in file order.
    pub fn values(&self) -> impl Iterator<Item = f32> + '_ {
        self.hidden_weight
            .iter()
            .chain(self.output_weight.iter())
            .chain(&self.hidden_threshold)
            .chain(&self.output_threshold)
            .copied()
    }
}

/// The six nets of a gnubg weights file, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetKind {
    /// Contact positions (250 inputs).
    Contact,
    /// Races (214 inputs).
    Race,
    /// Crashed positions (250 inputs).
    Crashed,
    /// Pruning net for contact positions (200 base inputs).
    PruneContact,
    /// Pruning net for crashed positions (200 base inputs).
    PruneCrashed,
    /// Pruning net for races (200 base inputs).
    PruneRace,
}

impl NetKind {
    /// The net that evaluates positions of `class` (its pruning net with
    /// `prune`); `None` for classes evaluated without a net.
    pub fn for_class(class: crate::Class, prune: bool) -> Option<NetKind> {
        use crate::Class;
        Some(match (class, prune) {
            (Class::Contact, false) => NetKind::Contact,
            (Class::Crashed, false) => NetKind::Crashed,
            (Class::Race, false) => NetKind::Race,
            (Class::Contact, true) => NetKind::PruneContact,
            (Class::Crashed, true) => NetKind::PruneCrashed,
            (Class::Race, true) => NetKind::PruneRace,
            _ => return None,
        })
    }

    /// File order.
    pub const ALL: [NetKind; 6] = [
        NetKind::Contact,
        NetKind::Race,
        NetKind::Crashed,
        NetKind::PruneContact,
        NetKind::PruneCrashed,
        NetKind::PruneRace,
    ];

    /// Inputs gnubg requires for this slot.
    pub fn inputs(self) -> usize {
        match self {
            NetKind::Contact | NetKind::Crashed => crate::inputs::CONTACT_INPUTS,
            NetKind::Race => crate::inputs::RACE_INPUTS,
            _ => crate::inputs::BASE_INPUTS,
        }
    }

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            NetKind::Contact => "contact",
            NetKind::Race => "race",
            NetKind::Crashed => "crashed",
            NetKind::PruneContact => "pruning contact",
            NetKind::PruneCrashed => "pruning crashed",
            NetKind::PruneRace => "pruning race",
        }
    }
}

/// gnubg's six nets. Immutable during evaluation, so an evaluator holding
/// them can be shared between threads.
#[derive(Clone, Debug, PartialEq)]
pub struct Nets {
    nets: [Net; 6],
}

impl Nets {
    /// Checks the sizes gnubg asserts at start-up (inputs per slot, 5
    /// outputs) and assembles the set in file order.
    pub fn new(nets: [Net; 6]) -> Result<Nets, WeightsError> {
        for (net, kind) in nets.iter().zip(NetKind::ALL) {
            if net.inputs() != kind.inputs() || net.outputs() != board::NUM_OUTPUTS {
                return Err(WeightsError::WrongSize {
                    net: kind.name(),
                    found: format!("{} inputs and {} outputs", net.inputs(), net.outputs()),
                    expected: format!(
                        "{} inputs and {} outputs",
                        kind.inputs(),
                        board::NUM_OUTPUTS
                    ),
                });
            }
        }
        Ok(Nets { nets })
    }

    /// The net in slot `kind`.
    pub fn get(&self, kind: NetKind) -> &Net {
        &self.nets[kind as usize]
    }

    /// Mutable access to one net (for training).
    pub fn get_mut(&mut self, kind: NetKind) -> &mut Net {
        &mut self.nets[kind as usize]
    }

    /// Each of the six nets, mutable, in file order ([`NetKind::ALL`]), so
    /// nets can be trained side by side.
    pub fn each_mut(&mut self) -> [&mut Net; 6] {
        self.nets.each_mut()
    }

    /// Brings every net's blocked copy up to date after deferred training
    /// steps ([`Net::refresh_blocked`]; nothing to do for a net whose copy
    /// is current).
    pub fn refresh_blocked(&mut self) {
        for net in &mut self.nets {
            net.refresh_blocked();
        }
    }

    /// All six in file order.
    pub fn all(&self) -> &[Net; 6] {
        &self.nets
    }

    /// Checks that every value of every net is finite (training that
    /// diverged leaves infinities or NaNs, which no weights file may hold).
    pub fn check_finite(&self) -> Result<(), WeightsError> {
        for (net, kind) in self.nets.iter().zip(NetKind::ALL) {
            if let Some((index, value)) = net.values().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(WeightsError::NotFinite {
                    net: kind.name(),
                    index,
                    value,
                });
            }
        }
        Ok(())
    }

    /// Largest hidden layer (scratch buffer size).
    pub fn max_hidden(&self) -> usize {
        self.nets.iter().map(Net::hidden).max().unwrap_or(0)
    }
}
