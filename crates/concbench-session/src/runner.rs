//! Measuring one round: a fresh worker process in production, anything in tests.

use crate::variant::Variant;
use concbench_core::{Host, Outcome};
use concbench_measure::isolate::{supervisor::Supervisor, Job};
use concbench_measure::{HarnessConfig, HarnessEvent};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Measures one round of one variant.
pub trait RoundRunner {
    fn run(&mut self, variant: &Variant, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome;
}

/// A round in a fresh `concbench __worker` process (see `concbench_measure::isolate`).
pub struct WorkerRunner {
    pub supervisor: Supervisor,
    pub config: HarnessConfig,
    pub host: Host,
    pub scratch_dir: PathBuf,
    pub options: BTreeMap<String, String>,
}

impl RoundRunner for WorkerRunner {
    fn run(&mut self, variant: &Variant, on_event: &mut dyn FnMut(HarnessEvent)) -> Outcome {
        let job = Job {
            index: variant.index,
            id: variant.meta.id.to_string(),
            config: self.config.clone(),
            host: self.host.clone(),
            scratch_dir: self.scratch_dir.clone(),
            options: self.options.clone(),
        };
        match self.supervisor.measure(&job, on_event) {
            Outcome::Measured(mut raw) => {
                // The static description does not cross the process boundary.
                raw.meta = variant.meta.clone();
                Outcome::Measured(raw)
            }
            Outcome::Failed(mut f) => {
                f.params = variant.params.clone();
                Outcome::Failed(f)
            }
            other => other,
        }
    }
}
