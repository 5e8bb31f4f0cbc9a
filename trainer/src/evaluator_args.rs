//! The command-line options that choose an evaluator (weights, bearoff
//! databases, arithmetic), shared by every tool that evaluates positions
//! (`trainer eval`, `calibrate`).

use crate::defaults::{self, NoWeights};
use nets::{Arithmetic, BearoffDatabases, BearoffError, EvalError, Evaluator, Simd, WeightsError};
use std::path::PathBuf;

/// Weights, databases and arithmetic of an evaluator.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EvaluatorArgs {
    /// Weights file, text (gnubg.weights) or binary (gnubg.wd).
    /// Default: $BGKIT_WEIGHTS, else /usr/lib/gnubg/gnubg.wd.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Bearoff database (repeatable): one one-sided and optionally one
    /// two-sided file. Default: gnubg's installed gnubg_os0.bd and gnubg_ts0.bd.
    #[arg(long, value_name = "FILE")]
    pub bearoff: Vec<PathBuf>,
    /// Debian's gnubg 1.07 arithmetic (fast-math build, portable emulation of
    /// the reference CPU's approximate reciprocal). This is the default; the
    /// flag is accepted for explicitness.
    #[arg(long, conflicts_with_all = ["ieee", "reference"])]
    pub gnubg_fastmath: bool,
    /// Use this CPU's own `rcpps` instruction (x86-64) instead of the
    /// emulation, i.e. what Debian's gnubg computes on this CPU.
    #[arg(long, conflicts_with_all = ["ieee", "reference"])]
    pub native_rcp: bool,
    /// Portable IEEE f32 arithmetic (true division) instead of gnubg's
    /// fast-math build; differs from gnubg by up to ~1e-3 on ~2 % of positions.
    #[arg(long, conflicts_with = "reference")]
    pub ieee: bool,
    /// The scalar IEEE reference arithmetic (slower).
    #[arg(long)]
    pub reference: bool,
    /// Vector instructions of the net's hidden layer: every level computes
    /// the same bits; only the speed differs.
    #[arg(long, value_enum, default_value_t = SimdLevel::Auto)]
    pub simd: SimdLevel,
}

/// `--simd`: the vector instructions to use.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SimdLevel {
    /// The widest this CPU has.
    #[default]
    Auto,
    /// AVX-512F for a roll's batched candidates, else AVX2.
    Avx512,
    /// AVX2.
    Avx2,
    /// SSE2, the x86-64 baseline.
    Sse2,
    /// Scalar code, one hidden unit at a time (any architecture).
    Portable,
}

impl From<SimdLevel> for Simd {
    fn from(level: SimdLevel) -> Simd {
        match level {
            SimdLevel::Auto => Simd::Auto,
            SimdLevel::Avx512 => Simd::Avx512,
            SimdLevel::Avx2 => Simd::Avx2,
            SimdLevel::Sse2 => Simd::Sse2,
            SimdLevel::Portable => Simd::Portable,
        }
    }
}

/// Why the evaluator could not be built.
#[derive(Debug, thiserror::Error)]
pub enum EvaluatorError {
    /// No weights file given or installed.
    #[error(transparent)]
    NoWeights(#[from] NoWeights),
    /// The weights file cannot be used.
    #[error("{}", weights_message(path, error))]
    Weights {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: WeightsError,
    },
    /// The bearoff databases cannot be used.
    #[error(transparent)]
    Bearoff(#[from] BearoffError),
    /// The arithmetic is not available here.
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// "cannot load weights FILE: why", naming the file once (an I/O error
/// already names it).
fn weights_message(path: &std::path::Path, error: &WeightsError) -> String {
    match error {
        WeightsError::Io { .. } => format!("cannot load weights {error}"),
        _ => format!("cannot load weights {}: {error}", path.display()),
    }
}

impl EvaluatorArgs {
    /// The arithmetic the flags select (gnubg 1.07's by default).
    pub fn arithmetic(&self) -> Arithmetic {
        if self.native_rcp {
            Arithmetic::GnubgFastMathNative
        } else if self.ieee {
            Arithmetic::Ieee
        } else if self.reference {
            Arithmetic::Reference
        } else {
            Arithmetic::GnubgFastMath
        }
    }

    /// The files the evaluator reads: its weights (if any is given or
    /// installed) and bearoff databases, for the claim of a run's files
    /// (`support::claim`).
    pub fn input_files(&self) -> Vec<PathBuf> {
        let mut files = defaults::bearoff(&self.bearoff);
        files.extend(defaults::weights(self.weights.as_deref()).ok());
        files
    }

    /// Loads the weights and databases and builds the evaluator.
    pub fn build(&self) -> Result<Evaluator, EvaluatorError> {
        let path = defaults::weights(self.weights.as_deref())?;
        let nets = nets::weights::load(&path).map_err(|error| EvaluatorError::Weights {
            path: path.clone(),
            error,
        })?;
        let bearoff = BearoffDatabases::open(&defaults::bearoff(&self.bearoff))?;
        Ok(Evaluator::new(nets, bearoff, self.arithmetic())?.with_simd(self.simd.into())?)
    }
}
