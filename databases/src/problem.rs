//! What is wrong with a file or a record, as one sentence.

/// A description of what is wrong with a database file, a record or a
/// request (for example "gammon distribution sums to 65534, not 65535").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Problem(pub String);

/// `Err(Problem(msg))`.
pub(crate) fn fail<T>(msg: impl Into<String>) -> Result<T, Problem> {
    Err(Problem(msg.into()))
}

impl From<String> for Problem {
    fn from(s: String) -> Problem {
        Problem(s)
    }
}

impl From<&str> for Problem {
    fn from(s: &str) -> Problem {
        Problem(s.to_owned())
    }
}
