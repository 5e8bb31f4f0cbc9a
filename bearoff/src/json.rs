//! JSON helpers.

use serde_json::Value;

/// An f32 as the shortest decimal that reads back as the same f32 (`null`
/// for non-finite values, which JSON cannot express).
pub fn num(x: f32) -> Value {
    if x.is_finite() {
        x.to_string()
            .parse::<f64>()
            .map(Value::from)
            .unwrap_or(Value::Null)
    } else {
        Value::Null
    }
}

/// A list of f32.
pub fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

/// Prints a value, pretty.
pub fn print(v: &Value) -> std::io::Result<()> {
    support::outln!(
        "{}",
        serde_json::to_string_pretty(v).expect("JSON values always serialise")
    )
}
