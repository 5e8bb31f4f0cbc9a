//! The vector instructions this CPU offers the evaluator, detected once: the
//! one place bgkit asks the CPU what it has.
//!
//! The environment variable `BGKIT_SIMD` (`avx512`, `avx2`, `sse2` or
//! `portable`) caps the level reported, so that a CPU with AVX-512 can run
//! the code paths of an older CPU (the test suite runs once so capped). It
//! can only lower the level: naming a level the CPU lacks changes nothing.
//! An unrecognised value is ignored; [`cap_from_env`] reports it.

use std::str::FromStr;
use std::sync::OnceLock;

/// The environment variable that caps [`level`].
pub const CAP_VARIABLE: &str = "BGKIT_SIMD";

/// The vector instruction levels the evaluator has code for, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// No vector instructions assumed (any architecture).
    Portable,
    /// SSE2, the x86-64 baseline.
    Sse2,
    /// AVX2 (with SSE2).
    Avx2,
    /// AVX-512F (with AVX2).
    Avx512,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Portable, Level::Sse2, Level::Avx2, Level::Avx512];

    /// The name `BGKIT_SIMD` and the command lines use.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of [`Level::ALL`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown vector instruction level {0:?} (expected avx512, avx2, sse2 or portable)")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

/// The highest level this CPU has, whatever `BGKIT_SIMD` says.
pub fn detected() -> Level {
    static DETECTED: OnceLock<Level> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Level {
    if !std::arch::is_x86_feature_detected!("avx2") {
        Level::Sse2
    } else if std::arch::is_x86_feature_detected!("avx512f") {
        Level::Avx512
    } else {
        Level::Avx2
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Level {
    Level::Portable
}

/// The cap `BGKIT_SIMD` sets: `None` when unset, an error when it names no
/// level (then no cap applies).
pub fn cap_from_env() -> Option<Result<Level, UnknownLevel>> {
    std::env::var_os(CAP_VARIABLE).map(|v| v.to_string_lossy().parse())
}

/// The level the evaluator uses: [`detected`], lowered to `BGKIT_SIMD`'s
/// cap if one is set. Read once per process.
pub fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| match cap_from_env() {
        Some(Ok(cap)) => detected().min(cap),
        _ => detected(),
    })
}

/// True if [`level`] includes AVX2.
#[inline]
pub fn has_avx2() -> bool {
    level() >= Level::Avx2
}

/// True if [`level`] includes AVX-512F.
#[inline]
pub fn has_avx512() -> bool {
    level() >= Level::Avx512
}

/// For tests that compare an AVX2 path with its scalar twin: true if AVX2
/// is in use, else says so on stderr (nothing to compare).
#[cfg(test)]
pub(crate) fn avx2_to_compare() -> bool {
    let on = has_avx2();
    if !on {
        eprintln!("NOTE: AVX2 not in use (CPU or BGKIT_SIMD); nothing to compare");
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for l in Level::ALL {
            assert_eq!(l.name().parse::<Level>(), Ok(l));
            assert_eq!(l.name().to_uppercase().parse::<Level>(), Ok(l));
        }
        assert!("avx3".parse::<Level>().is_err());
    }

    #[test]
    fn the_level_in_use_is_the_detected_one_capped_by_the_environment() {
        match cap_from_env() {
            None => assert_eq!(level(), detected()),
            Some(Ok(cap)) => assert_eq!(level(), detected().min(cap)),
            Some(Err(e)) => panic!("{CAP_VARIABLE}: {e}"),
        }
        if cfg!(target_arch = "x86_64") {
            assert!(detected() >= Level::Sse2);
        }
        let untested: Vec<&str> = Level::ALL
            .into_iter()
            .filter(|&l| l > level())
            .map(Level::name)
            .collect();
        eprintln!(
            "vector level: this CPU has {}, the tests use {}; levels they cannot check here: {}",
            detected(),
            level(),
            if untested.is_empty() {
                "none".to_string()
            } else {
                untested.join(", ")
            }
        );
    }
}
