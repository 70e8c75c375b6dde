//! A value written in `data/published.toml` (TOML) against a param recorded in a result
//! document (JSON): the one comparison every selector of a figure or a check makes.

/// Whether the TOML value `t` is the JSON value `j` (a string, a number or a boolean).
pub(crate) fn toml_eq_json(t: &toml::Value, j: &serde_json::Value) -> bool {
    match (t, j) {
        (toml::Value::String(a), serde_json::Value::String(b)) => a == b,
        (toml::Value::Integer(a), serde_json::Value::Number(b)) => b.as_f64() == Some(*a as f64),
        (toml::Value::Float(a), serde_json::Value::Number(b)) => b.as_f64() == Some(*a),
        (toml::Value::Boolean(a), serde_json::Value::Bool(b)) => a == b,
        _ => false,
    }
}
