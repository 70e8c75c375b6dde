//! `switch.wake.thread`: what one cross-CPU hand-over costs depending on how deeply the woken
//! CPU sleeps — the pipe ping-pong between two threads on two CPUs, with the CPUs
//! * `free` to enter any idle state,
//! * held awake by `/dev/cpu_dma_latency` at 0 (`cpu_dma_latency`; root; measured also where
//!   no cpuidle driver reads the request, with a note, so the figure shows it does nothing there),
//! * held awake by a `SCHED_IDLE` thread spinning on each of the two CPUs (`spinner`; no
//!   privilege: any woken thread preempts it at once),
//! * with every state deeper than one disabled in turn (`max_<state>`; root and cpuidle).
//!
//! Each sample counts the entries into the idle states per hand-over (see
//! [`super::pingpong`]), so a figure comes with the residency that explains it. A condition this
//! machine cannot make (no root, no cpuidle states, one CPU) is skipped with its reason.

use super::pingpong::{PingPong, ThreadPartner};
use super::sched::Sched;
use super::setting::Setting;
use crate::support::handover::{pipe_pair, PipeEnd};
use anyhow::{Context, Result};
use concbench_core::{
    Experiment, Host, Meta, Params, Placement, RunContext, RunOutput, SampleTimer, Stages, Support,
};
use concbench_measure::awake::{self, Held, HoldMethod, StatesDisabled};
use concbench_measure::idle::{self, Root};

const META: Meta = Meta {
    id: "switch.wake.thread",
    family: "switch",
    title: "Cross-CPU thread hand-over by how deeply the woken CPU sleeps",
    op: "one one-way hand-over through a pipe to a thread on the other CPU",
    unit: "ns",
    expected_switches_per_op: Some(1.0),
};

/// The idle condition of the two CPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Free,
    Held(HoldMethod),
    /// Every state deeper than this one disabled.
    Shallowest(String),
}

impl Condition {
    /// The `idle` param.
    pub fn label(&self) -> String {
        match self {
            Condition::Free => "free".into(),
            Condition::Held(m) => m.as_str().into(),
            Condition::Shallowest(name) => format!("max_{}", name.to_ascii_lowercase()),
        }
    }
}

/// Every condition for the live machine: free, both holds, and one per sleeping state that has
/// a deeper one (the deepest needs no variant: it is `free`).
pub fn conditions(root: &Root) -> Vec<Condition> {
    let mut out = vec![
        Condition::Free,
        Condition::Held(HoldMethod::DmaLatency),
        Condition::Held(HoldMethod::Spinner),
    ];
    let states = idle::read(root);
    let sleeping: Vec<&str> = states
        .states()
        .iter()
        .filter(|s| !s.is_poll())
        .map(|s| s.name.as_str())
        .collect();
    if let Some((_, shallower)) = sleeping.split_last() {
        out.extend(
            shallower
                .iter()
                .map(|n| Condition::Shallowest(n.to_string())),
        );
    }
    out
}

pub fn variants() -> Vec<Box<dyn Experiment>> {
    conditions(&Root::default())
        .into_iter()
        .map(|c| Box::new(Wake::new(c)) as Box<dyn Experiment>)
        .collect()
}

/// The ping-pong plus the condition held around it.
pub struct Wake {
    condition: Condition,
    inner: Stages<PingPong<PipeEnd, ThreadPartner>>,
    held: Option<Holding>,
    /// Whether a cpuidle driver publishes states (and so reads PM QoS requests).
    reaches_idle_loop: bool,
}

/// The note on `idle=cpu_dma_latency` where no cpuidle driver reads the request.
const NO_DRIVER: &str = "idle=cpu_dma_latency: this machine has no cpuidle driver, so the PM QoS \
     request does not reach the idle loop and the CPUs still halt; idle=spinner holds them awake";

/// Whatever keeps the condition; dropped (restored) at teardown, on error and on panic.
#[allow(dead_code)] // held for its Drop
enum Holding {
    Awake(Held),
    States(StatesDisabled),
}

impl Wake {
    fn new(condition: Condition) -> Self {
        let setting = Setting {
            placement: Placement::CrossCpu,
            sched: Sched::Other,
            working_set_kib: 0,
            in_quick: false,
        };
        Wake {
            condition,
            inner: PingPong::new(&META, pipe_pair, setting),
            held: None,
            reaches_idle_loop: true,
        }
    }

    /// The states deeper than `name`, by name.
    fn deeper_than(root: &Root, cpu: usize, name: &str) -> Vec<String> {
        let states = idle::states_of(root, cpu);
        let Some(pos) = states.iter().position(|s| s.name == name) else {
            return Vec::new();
        };
        states[pos + 1..].iter().map(|s| s.name.clone()).collect()
    }

    fn hold(&self, ctx: &RunContext) -> Result<Option<Holding>, String> {
        match &self.condition {
            Condition::Free => Ok(None),
            Condition::Held(m) => awake::hold(*m, &ctx.cpus).map(|h| Some(Holding::Awake(h))),
            Condition::Shallowest(name) => {
                let root = Root::default();
                let cpu = *ctx.cpus.first().ok_or("no CPU assigned")?;
                let deeper = Self::deeper_than(&root, cpu, name);
                let names: Vec<&str> = deeper.iter().map(String::as_str).collect();
                StatesDisabled::disable(&root, &ctx.cpus, &names).map(|g| Some(Holding::States(g)))
            }
        }
    }
}

impl Experiment for Wake {
    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        self.inner.params().with("idle", self.condition.label())
    }

    fn placement(&self) -> Placement {
        Placement::CrossCpu
    }

    fn in_quick(&self) -> bool {
        false
    }

    fn supported(&self, host: &Host) -> Support {
        let needs_root = match &self.condition {
            Condition::Free | Condition::Held(HoldMethod::Spinner) => false,
            Condition::Held(HoldMethod::DmaLatency) | Condition::Shallowest(_) => true,
        };
        if needs_root && !host.is_root {
            return Support::No(concbench_sys::users::fit_root_commands(&format!(
                "idle={} needs root (`sudo concbench run --only {}`)",
                self.condition.label(),
                META.id
            )));
        }
        Support::Yes
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        // Held before the partner starts, so warm-up and calibration already see the condition.
        let held = self
            .hold(ctx)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("holding idle={}", self.condition.label()))?;
        self.held = held;
        self.reaches_idle_loop = idle::read(&Root::default()).has_states();
        self.inner.setup(ctx)
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let mut out = self.inner.run(ctx, iterations, timer)?;
        if self.condition == Condition::Held(HoldMethod::DmaLatency) && !self.reaches_idle_loop {
            // Measured anyway: the figure beside idle=free shows what the request does here.
            out.warnings.push(NO_DRIVER.to_string());
        }
        Ok(out)
    }

    fn teardown(&mut self, ctx: &RunContext) -> Result<()> {
        let stopped = self.inner.teardown(ctx);
        // Restored after the partner stopped, and whatever the teardown said.
        self.held = None;
        stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> Root {
        Root::new(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../concbench-measure/tests/fixtures/sysfs")
                .join(name),
        )
    }

    #[test]
    fn intel_gets_one_variant_per_state_with_a_deeper_one() {
        let labels: Vec<String> = conditions(&fixture("intel"))
            .iter()
            .map(Condition::label)
            .collect();
        assert_eq!(
            labels,
            ["free", "cpu_dma_latency", "spinner", "max_c1", "max_c1e"]
        );
        assert_eq!(Wake::deeper_than(&fixture("intel"), 0, "C1"), ["C1E", "C6"]);
    }

    #[test]
    fn a_machine_without_cpuidle_gets_free_and_the_two_holds() {
        assert_eq!(conditions(&fixture("container")).len(), 3);
        assert_eq!(conditions(&fixture("haltpoll_vm")).len(), 3);
    }

    #[test]
    fn an_ordinary_user_is_told_which_conditions_need_root() {
        let host = Host {
            is_root: false,
            ..Host::default()
        };
        let held = Wake::new(Condition::Held(HoldMethod::DmaLatency));
        assert!(matches!(held.supported(&host), Support::No(r) if r.contains("needs root")));
        let spin = Wake::new(Condition::Held(HoldMethod::Spinner));
        assert_eq!(spin.supported(&host), Support::Yes);
    }
}
