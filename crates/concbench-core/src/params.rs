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

    /// Whether every `KEY=VALUE` of `wanted` is among these params, values compared as
    /// printed (`files=10`): the rule of `run --where` and `compare --where`.
    pub fn matches(&self, wanted: &[(String, String)]) -> bool {
        wanted.iter().all(|(k, v)| {
            self.get(k).is_some_and(|p| match p {
                Value::String(s) => s == v,
                // Printed first: `Value == String` would compare as a JSON string, never a
                // number.
                other => {
                    let printed = other.to_string();
                    printed == *v
                }
            })
        })
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

    #[test]
    fn where_matches_values_as_printed() {
        let p = Params::new()
            .with("placement", "same-cpu")
            .with("files", 10);
        let w = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert!(
            p.matches(&w("files", "10")),
            "a number matches its printed form"
        );
        assert!(p.matches(&w("placement", "same-cpu")));
        assert!(!p.matches(&w("placement", "cross-cpu")));
        assert!(
            !p.matches(&w("threads", "10")),
            "a missing key never matches"
        );
        assert!(p.matches(&[]), "no condition keeps everything");
    }
}
