//! What a run is asked to do, typed: its mode, pinning, samples per round and plan, and the
//! settings its command records; and the policies that follow from them (how long a worker may
//! take, what the document records of the harness).

use crate::plan::RunPlan;
use concbench_core::{CancelToken, Experiment, Params, RoundCaps, RunMode};
use concbench_measure::isolate::supervisor::Supervisor;
use concbench_measure::{recorded_params, HarnessConfig, PinMode};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// A run as the command line asks for it.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub mode: RunMode,
    pub pin: PinMode,
    /// `--repeat`: samples per round, instead of the mode's.
    pub repetitions: Option<usize>,
    /// How many rounds, until when (see [`RunPlan`]).
    pub plan: RunPlan,
    /// The CPUs this process may use: placement labels depend on them.
    pub allowed_cpus: Vec<usize>,
    /// What the command records beside the harness settings (`only`, `where`, `seeds`, labels,
    /// how the CPUs were held awake, the io directory).
    pub settings: BTreeMap<String, serde_json::Value>,
}

impl RunRequest {
    /// A run in `mode` with the mode's plan; nothing else recorded yet.
    pub fn new(mode: RunMode, pin: PinMode, allowed_cpus: Vec<usize>) -> Self {
        RunRequest {
            mode,
            pin,
            repetitions: None,
            plan: RunPlan::new(mode),
            allowed_cpus,
            settings: BTreeMap::new(),
        }
    }

    /// How each worker measures its round.
    pub fn config(&self) -> HarnessConfig {
        HarnessConfig {
            quick: self.mode.is_quick(),
            smoke: self.mode.is_smoke(),
            repetitions: self.repetitions,
            pin: self.pin,
        }
    }

    /// The params a variant records under this request (placement included).
    pub fn params_of(&self, exp: &dyn Experiment) -> Params {
        recorded_params(exp, self.pin, &self.allowed_cpus)
    }

    /// How long one worker may measure one round before it is killed and recorded as failed.
    /// Why these: a quick round of the slowest variant (a server under load) takes well under
    /// a minute; a full-size one (a 100-thread cold read of 5 GiB) several.
    pub fn worker_time_limit(&self) -> Duration {
        Duration::from_secs(if self.mode.is_quick() { 180 } else { 900 })
    }

    /// The supervisor that starts each round's worker (`program args...`) under this request's
    /// time limit.
    pub fn supervisor(
        &self,
        program: PathBuf,
        args: Vec<String>,
        cancel: CancelToken,
    ) -> Supervisor {
        Supervisor {
            program,
            args,
            time_limit: self.worker_time_limit(),
            cancel,
        }
    }

    /// What the document records of the harness and the plan, beside the command's settings.
    pub fn harness_settings(&self) -> BTreeMap<String, serde_json::Value> {
        let mut s = BTreeMap::new();
        self.mode.write(&mut s);
        s.insert(
            "pin".into(),
            format!("{:?}", self.pin).to_lowercase().into(),
        );
        s.insert(
            "samples_per_round".into(),
            self.config().repetitions().into(),
        );
        s.insert("claim_rounds".into(), self.plan.claim_rounds.into());
        s.insert("other_rounds".into(), self.plan.other_rounds.into());
        self.plan.caps().write(&mut s);
        s.insert("budget_s".into(), self.plan.budget.as_secs().into());
        s.insert("order_seed".into(), self.plan.seed.into());
        s
    }
}

impl RunPlan {
    /// The caps the judge reads back from the document.
    pub fn caps(&self) -> RoundCaps {
        RoundCaps {
            max_rounds: self.max_rounds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_worker_gets_three_minutes_and_a_full_one_fifteen() {
        let quick = RunRequest::new(RunMode::Quick, PinMode::Auto, vec![0, 1]);
        assert_eq!(quick.worker_time_limit(), Duration::from_secs(180));
        let smoke = RunRequest::new(RunMode::Smoke, PinMode::Auto, vec![0, 1]);
        assert_eq!(smoke.worker_time_limit(), Duration::from_secs(180));
        let full = RunRequest::new(RunMode::Full, PinMode::None, vec![0, 1]);
        assert_eq!(full.worker_time_limit(), Duration::from_secs(900));
    }

    #[test]
    fn the_harness_settings_keep_the_documents_keys() {
        let s = RunRequest::new(RunMode::Smoke, PinMode::None, vec![0]).harness_settings();
        let keys: Vec<&str> = s.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "budget_s",
                "claim_rounds",
                "max_rounds",
                "order_seed",
                "other_rounds",
                "pin",
                "quick",
                "samples_per_round",
                "smoke"
            ]
        );
        assert_eq!(s["pin"], "none");
        assert_eq!(s["quick"], true);
        assert_eq!(s["max_rounds"], 1);
    }
}
