//! The command-line options that choose an evaluator (weights, bearoff
//! databases, arithmetic), shared by every tool that evaluates positions
//! (`trainer eval`, `calibrate`).

use crate::defaults::{self, NoWeights};
use nets::{Arithmetic, BearoffDatabases, BearoffError, EvalError, Evaluator, Simd, WeightsError};
use serde::{Deserialize, Serialize};
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
    /// The nets' arithmetic (every level of --simd computes the same bits
    /// in each).
    #[arg(long, value_enum, default_value_t = ArithmeticArg::GnubgFastmath)]
    pub arithmetic: ArithmeticArg,
    /// The former flags of `--arithmetic` (hidden, still accepted).
    #[command(flatten)]
    pub arithmetic_flags: ArithmeticFlags,
    /// Vector instructions of the net's hidden layer: every level computes
    /// the same bits; only the speed differs.
    #[arg(long, value_enum, default_value_t = SimdLevel::Auto)]
    pub simd: SimdLevel,
}

/// `--arithmetic`: how the nets compute.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArithmeticArg {
    /// Debian's gnubg 1.07 (fast-math build), with a portable emulation of
    /// the reference CPU's approximate reciprocal.
    #[default]
    GnubgFastmath,
    /// The same with this CPU's own `rcpps` instruction (x86-64): what
    /// Debian's gnubg computes on this CPU.
    NativeRcp,
    /// Portable IEEE f32 arithmetic (true division); differs from gnubg by
    /// up to ~1e-3 on ~2 % of positions.
    Ieee,
    /// The scalar IEEE reference arithmetic (slower).
    Reference,
}

impl From<ArithmeticArg> for Arithmetic {
    fn from(arithmetic: ArithmeticArg) -> Arithmetic {
        match arithmetic {
            ArithmeticArg::GnubgFastmath => Arithmetic::GnubgFastMath,
            ArithmeticArg::NativeRcp => Arithmetic::GnubgFastMathNative,
            ArithmeticArg::Ieee => Arithmetic::Ieee,
            ArithmeticArg::Reference => Arithmetic::Reference,
        }
    }
}

/// The flags `--arithmetic` replaces, hidden and kept so that former
/// command lines still work: `--native-rcp` is `--arithmetic native-rcp`,
/// and so on.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct ArithmeticFlags {
    /// `--arithmetic gnubg-fastmath`.
    #[arg(long, hide = true, conflicts_with_all = ["arithmetic", "ieee", "reference"])]
    pub gnubg_fastmath: bool,
    /// `--arithmetic native-rcp`.
    #[arg(long, hide = true, conflicts_with_all = ["arithmetic", "ieee", "reference"])]
    pub native_rcp: bool,
    /// `--arithmetic ieee`.
    #[arg(long, hide = true, conflicts_with_all = ["arithmetic", "reference"])]
    pub ieee: bool,
    /// `--arithmetic reference`.
    #[arg(long, hide = true, conflicts_with = "arithmetic")]
    pub reference: bool,
}

/// `--simd`: the vector instructions to use.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SimdLevel {
    /// The widest this CPU has.
    #[default]
    Auto,
    /// AVX-512F for the hidden sums (16-float registers), else AVX2.
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

/// What an evaluator's results depend on besides its weights: the
/// arithmetic and the contents of the bearoff databases (a path says
/// nothing about what a file holds). Part of every fingerprint and
/// checkpoint, so that work is never continued or combined with work of
/// another evaluator. `--simd` is not part of it: every level computes the
/// same bits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvaluatorId {
    /// The arithmetic, named as its flag is (`gnubg-fastmath`,
    /// `native-rcp`, `ieee`, `reference`).
    pub arithmetic: String,
    /// The MD5 of each bearoff database, the one-sided one first.
    pub bearoff_md5: Vec<String>,
}

impl EvaluatorId {
    /// The identity of `eval` (reads its bearoff database files).
    pub fn of(eval: &Evaluator) -> std::io::Result<EvaluatorId> {
        Ok(EvaluatorId {
            arithmetic: arithmetic_name(eval.arithmetic()).into(),
            bearoff_md5: bearoff_md5(eval.bearoff())?,
        })
    }

    /// What differs from `now` ("the arithmetic ieee, now gnubg-fastmath"),
    /// or `None`.
    pub fn difference(&self, now: &EvaluatorId) -> Option<String> {
        if self.arithmetic != now.arithmetic {
            Some(format!(
                "the arithmetic {}, now {}",
                self.arithmetic, now.arithmetic
            ))
        } else if self.bearoff_md5 != now.bearoff_md5 {
            Some(format!(
                "the bearoff databases' MD5 {}, now {}",
                self.bearoff_md5.join(" "),
                now.bearoff_md5.join(" ")
            ))
        } else {
            None
        }
    }
}

/// The flag that selects `arithmetic`, without its dashes.
pub fn arithmetic_name(arithmetic: Arithmetic) -> &'static str {
    match arithmetic {
        Arithmetic::GnubgFastMath => "gnubg-fastmath",
        Arithmetic::GnubgFastMathNative => "native-rcp",
        Arithmetic::Ieee => "ieee",
        Arithmetic::Reference => "reference",
    }
}

/// The MD5 of each of `bearoff`'s files, the one-sided one first (the
/// files hashed in parallel: a few megabytes every command reads at its
/// start, before its parallel work begins).
pub fn bearoff_md5(bearoff: &BearoffDatabases) -> std::io::Result<Vec<String>> {
    use rayon::prelude::*;
    bearoff
        .paths()
        .into_par_iter()
        .map(|path| {
            std::fs::File::open(path)
                .and_then(support::digest::md5_hex)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        })
        .collect()
}

impl EvaluatorArgs {
    /// The arithmetic `--arithmetic` (or a former flag) selects, gnubg
    /// 1.07's by default.
    pub fn arithmetic(&self) -> Arithmetic {
        let flags = &self.arithmetic_flags;
        if flags.native_rcp {
            Arithmetic::GnubgFastMathNative
        } else if flags.ieee {
            Arithmetic::Ieee
        } else if flags.reference {
            Arithmetic::Reference
        } else {
            self.arithmetic.into()
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
