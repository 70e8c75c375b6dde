//! The parameters that distinguish variants of one experiment id.
//!
//! One id (`create.thread`) can appear several times in a result document with different params
//! (`stack_kib`, `placement`, worker counts). Params are an ordered JSON object so two runs can be
//! matched result by result.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Params(pub BTreeMap<String, Value>);

impl Params {
    pub fn new() -> Self {
        Self::default()
    }

    /// Builder-style insert: `Params::new().with("stack_kib", 64)`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.to_string(), value.into());
        self
    }

    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.to_string(), value.into());
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn get_f64(&self, key: &str) -> Option<f64> {
        self.0.get(key).and_then(Value::as_f64)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A compact one-line form for tables and progress messages: `placement=same-cpu stack_kib=64`.
    pub fn compact(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_is_sorted_and_unquoted() {
        let p = Params::new().with("placement", "same-cpu").with("b", 2);
        assert_eq!(p.compact(), "b=2 placement=same-cpu");
    }
}
