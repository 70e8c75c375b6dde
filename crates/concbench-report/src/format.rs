//! Numbers for people, for the renderers: the durations and sizes come from the one formatter,
//! `concbench_core::human` (which the verdicts, the advice and the load generator use too);
//! what only tables need (counters) is here.

pub use concbench_core::human::{
    at_most, display_unit, interval, kib, measured, seconds, sig3, value,
};

/// A per-operation counter, or "-" when absent.
pub fn counter(v: Option<&f64>) -> String {
    match v {
        Some(v) => sig3(*v),
        None => "-".to_string(),
    }
}
