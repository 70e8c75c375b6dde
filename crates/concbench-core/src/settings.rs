//! The run's settings as types: what kind of run it was ([`RunMode`]) and the plan's round caps
//! ([`RoundCaps`]), read from and written to the document's `settings` map in one place.
//!
//! Why a map underneath: the JSON contract (`concbench/result/v1`) keeps `settings` an open
//! object (`"quick": true`, `"smoke": false`, `"max_rounds": 20`, ...), and stored documents
//! of earlier builds must read back. What changes is who knows the keys: only this file, so a
//! renderer asks `doc.mode()` instead of comparing `"quick"` and `"smoke"` strings, and the
//! judge asks `doc.max_rounds()` instead of reading `"max_rounds"` back from the session.

use crate::ResultDoc;
use std::collections::BTreeMap;

/// The settings key of `--quick` (also true under `--smoke`, which implies the quick sizes).
const QUICK: &str = "quick";
/// The settings key of `--smoke`.
const SMOKE: &str = "smoke";
/// The settings key of the plan's cap of rounds per variant.
const MAX_ROUNDS: &str = "max_rounds";
/// The settings key of how long a full run takes (a quick run records it, for its closing
/// line): seconds of its budget of rounds and its longest settling.
const FULL_RUN_S: &str = "full_run_s";

/// What kind of run a document records: a full run, `--quick`, or `--smoke` (a test that every
/// experiment runs, not a measurement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    #[default]
    Full,
    Quick,
    Smoke,
}

impl RunMode {
    /// From the command line's flags: `--smoke` wins over `--quick`.
    pub fn from_flags(quick: bool, smoke: bool) -> Self {
        match (quick, smoke) {
            (_, true) => RunMode::Smoke,
            (true, false) => RunMode::Quick,
            (false, false) => RunMode::Full,
        }
    }

    /// Whether the quick sizes apply (`--quick`, and `--smoke`, which implies them).
    pub fn is_quick(self) -> bool {
        self != RunMode::Full
    }

    pub fn is_smoke(self) -> bool {
        self == RunMode::Smoke
    }

    /// How fleet tables and the history name it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunMode::Full => "full",
            RunMode::Quick => "quick",
            RunMode::Smoke => "smoke",
        }
    }

    /// How long a run of this mode may measure by default, in seconds (`--budget` changes it):
    /// the plan's budget, and what a suggestion to run again says it takes. A smoke run has no
    /// budget of its own (it runs every variant once): its is the quick one.
    pub fn default_budget_s(self) -> u64 {
        match self {
            RunMode::Full => 540,
            RunMode::Quick | RunMode::Smoke => 55,
        }
    }

    /// The most rounds the plan gives any variant in this mode (`--rounds N` raises it to N).
    /// A smoke run takes one round of each variant; a quick run's cap keeps its budget.
    pub fn max_rounds(self) -> usize {
        match self {
            RunMode::Smoke => 1,
            RunMode::Quick => 20,
            RunMode::Full => 30,
        }
    }

    /// The settings this mode records: `"quick"` and `"smoke"` as booleans, as every document
    /// since the first has them.
    pub fn write(self, settings: &mut BTreeMap<String, serde_json::Value>) {
        settings.insert(QUICK.into(), self.is_quick().into());
        settings.insert(SMOKE.into(), self.is_smoke().into());
    }

    /// The mode a document's settings record (a full run when they say nothing).
    pub fn read(settings: &BTreeMap<String, serde_json::Value>) -> Self {
        let flag = |k: &str| settings.get(k).and_then(|v| v.as_bool()) == Some(true);
        RunMode::from_flags(flag(QUICK), flag(SMOKE))
    }
}

/// The plan's caps that the judge reads back: they bound what more rounds could decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundCaps {
    /// The most rounds any variant of the run could get.
    pub max_rounds: usize,
}

impl RoundCaps {
    pub fn write(self, settings: &mut BTreeMap<String, serde_json::Value>) {
        settings.insert(MAX_ROUNDS.into(), self.max_rounds.into());
    }

    /// The caps a document's settings record, if it records them.
    pub fn read(settings: &BTreeMap<String, serde_json::Value>) -> Option<Self> {
        let max_rounds = settings.get(MAX_ROUNDS)?.as_u64()? as usize;
        Some(RoundCaps { max_rounds })
    }
}

impl ResultDoc {
    /// The kind of run this document records.
    pub fn mode(&self) -> RunMode {
        RunMode::read(&self.settings)
    }

    /// The plan's cap of rounds per variant; a document that does not record it (an earlier
    /// build's) is read as a quick run's.
    pub fn max_rounds(&self) -> usize {
        RoundCaps::read(&self.settings).map_or(RunMode::Quick.max_rounds(), |c| c.max_rounds)
    }

    /// Seconds a full run takes at least (its budget of rounds and its longest settling), as a
    /// quick run records it; `None` in other documents.
    pub fn full_run_s(&self) -> Option<f64> {
        self.settings.get(FULL_RUN_S)?.as_f64()
    }

    /// Record how long a full run takes (see [`ResultDoc::full_run_s`]).
    pub fn set_full_run_s(&mut self, seconds: f64) {
        self.settings.insert(FULL_RUN_S.into(), seconds.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_through_the_settings_as_the_old_booleans() {
        for mode in [RunMode::Full, RunMode::Quick, RunMode::Smoke] {
            let mut s = BTreeMap::new();
            mode.write(&mut s);
            assert_eq!(RunMode::read(&s), mode);
        }
        let mut s = BTreeMap::new();
        RunMode::Smoke.write(&mut s);
        assert_eq!(
            s.get("quick"),
            Some(&true.into()),
            "smoke implies the quick sizes"
        );
        assert_eq!(s.get("smoke"), Some(&true.into()));
        assert_eq!(RunMode::read(&BTreeMap::new()), RunMode::Full);
    }

    #[test]
    fn a_document_without_caps_reads_as_a_quick_run() {
        let mut doc = ResultDoc::new(crate::Host::default(), String::new());
        assert_eq!(doc.max_rounds(), 20);
        RoundCaps { max_rounds: 30 }.write(&mut doc.settings);
        assert_eq!(doc.max_rounds(), 30);
    }
}
