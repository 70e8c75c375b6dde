//! One model's capacity: its holder started in the cell, units added in growing steps, the
//! holder's memory read after each, until a limit refuses a unit, the units hold the budget,
//! a shared limit's margin is reached, or `--max-units`.
//!
//! Steps double (64, 128, 256, ...) while they fit: each is planned from the memory each unit
//! took so far and what is left of the budget, and from the room the shared task limits leave,
//! so the last step lands on the budget or the margin rather than past it. After each, PSS of
//! the holder's process tree, the kernel's stacks and page tables and the cell's charge are read;
//! memory per unit is the slope over those readings (what one more unit adds, whatever the
//! runtime itself holds).

use crate::limits::{self, Readings, Refused, TaskRoom};
use crate::model::{Holder, Model};
use anyhow::Result;
use concbench_core::capacity::{ModelCapacity, Step, Stop, StopKind};
use concbench_core::CancelToken;
use concbench_measure::cgroup::{Cell, Controller};
use concbench_measure::memory::process_footprint;
use concbench_probes::process::ProbeProcess;
use concbench_probes::protocol::{Request, VERSION};
use std::path::Path;
use std::time::Instant;

/// The first step's units.
pub const FIRST_STEP: u64 = 64;
/// The largest step (a tokio task takes well under a KiB: millions fit a budget).
pub const MAX_STEP: u64 = 1 << 20;
/// Share of the budget left that a step may plan to use (the per-unit estimate is a mean).
const STEP_SHARE: f64 = 0.9;
/// Units per GiB are said for this many KiB.
const GIB_KIB: f64 = 1024.0 * 1024.0;

/// Where a model stands before its next step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub held: u64,
    /// Memory the units added so far, KiB.
    pub used_kib: f64,
    pub budget_kib: f64,
    /// The most units the shared task limits allow (task models only).
    pub task_room: Option<u64>,
    pub max_units: Option<u64>,
}

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Grow(u64),
    StopBudget,
    StopMargin,
    StopCap,
}

/// The next step (pure: tests give the standing). Doubling, cut to what the budget, the task
/// room and the cap leave; the budget counts as held once the units left to it are fewer than
/// a 64th of those held.
pub fn next(s: &Standing) -> Next {
    let mut step = s.held.clamp(FIRST_STEP, MAX_STEP);
    if s.used_kib >= s.budget_kib {
        return Next::StopBudget;
    }
    if s.held > 0 && s.used_kib > 0.0 {
        let per_unit = s.used_kib / s.held as f64;
        let fit = ((s.budget_kib - s.used_kib) * STEP_SHARE / per_unit) as u64;
        if fit < (s.held / 64).max(1) {
            return Next::StopBudget;
        }
        step = step.min(fit);
    }
    if let Some(room) = s.task_room {
        if s.held >= room {
            return Next::StopMargin;
        }
        step = step.min(room - s.held);
    }
    if let Some(cap) = s.max_units {
        if s.held >= cap {
            return Next::StopCap;
        }
        step = step.min(cap - s.held);
    }
    Next::Grow(step)
}

/// What one model needs from the command.
pub struct Context<'a> {
    pub cell: Option<&'a mut Cell>,
    pub budget_bytes: u64,
    pub budget_text: String,
    pub max_units: Option<u64>,
    pub cancel: &'a CancelToken,
    pub scratch: &'a Path,
    pub say: &'a mut dyn FnMut(&str),
}

/// A reading of the holder's memory.
#[derive(Debug, Clone, Copy)]
struct Reading {
    pss_kib: f64,
    kernel_kib: Option<f64>,
    charge_kib: Option<f64>,
}

impl Reading {
    /// The tree under `root`: PSS summed, and the kernel's part — page tables (each process's
    /// `VmPTE`) and a kernel stack per task (`stack_kib`) — counted for this tree alone, so that
    /// other programs starting or ending tasks meanwhile add nothing to it.
    fn take(root: i32, stack_kib: f64, cell: Option<&Cell>) -> Reading {
        let (mut pss_kib, mut kernel_kib) = (0.0, 0.0);
        for pid in concbench_measure::tree::descendants(root) {
            let (Ok(f), Some((pte, tasks))) = (process_footprint(pid), pte_and_tasks(pid)) else {
                continue;
            };
            pss_kib += f.pss_kib;
            kernel_kib += pte + tasks * stack_kib;
        }
        Reading {
            pss_kib,
            kernel_kib: Some(kernel_kib),
            charge_kib: cell
                .and_then(Cell::memory_charge)
                .map(|b| b as f64 / 1024.0),
        }
    }

    /// Memory added since `base`: PSS plus the kernel's share, or the cell's charge when that
    /// is more (it also sees what PSS cannot, such as the kernel's task structures).
    fn used_since(&self, base: &Reading) -> f64 {
        let own = self.pss_kib - base.pss_kib
            + match (self.kernel_kib, base.kernel_kib) {
                (Some(a), Some(b)) => a - b,
                _ => 0.0,
            };
        match (self.charge_kib, base.charge_kib) {
            (Some(a), Some(b)) => own.max(a - b),
            _ => own,
        }
    }
}

/// A process's page tables (`VmPTE`, KiB) and its threads, from `/proc/<pid>/status`.
fn pte_and_tasks(pid: i32) -> Option<(f64, f64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<f64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Some((field("VmPTE:")?, field("Threads:")?))
}

/// The kernel stack one task takes, KiB: the machine's `KernelStack` over its tasks, to the
/// nearest KiB (16 KiB on x86-64 kernels); `None` when either cannot be read.
pub fn kernel_stack_kib() -> Option<f64> {
    let stacks = concbench_measure::memory::kernel_stack_kib()?;
    let tasks = limits::system_tasks()? as f64;
    (tasks > 0.0).then(|| (stacks / tasks).round())
}

/// The holder's memory maps now (what `vm.max_map_count` counts).
fn maps_of(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    Some(text.lines().count() as u64)
}

/// The model's entry before it ran: its name, runtime and unit.
pub fn entry(model: Model, runtime: String) -> ModelCapacity {
    let stack_kib = concbench_measure::host::default_thread_stack() / 1024;
    ModelCapacity {
        model: model.name().into(),
        runtime,
        unit: model.unit(stack_kib),
        units: 0,
        stopped_by: None,
        kib_per_unit: None,
        kib_per_unit_ci95: None,
        pss_kib_per_unit: None,
        kernel_kib_per_unit: None,
        charge_kib_per_unit: None,
        create_ns_per_unit: None,
        per_gib: None,
        steps: Vec::new(),
        skipped: None,
        warnings: Vec::new(),
        seconds: 0.0,
    }
}

/// Hold `model`'s units with `holder` until something stops them.
pub fn measure(model: Model, holder: &Holder, ctx: &mut Context<'_>) -> Result<ModelCapacity> {
    let started = Instant::now();
    let readings = Readings::read();
    let room = limits::task_room(&readings);
    if let (Some(cell), Some(r)) = (ctx.cell.as_deref_mut(), &room) {
        if cell.limits(Controller::Pids) {
            let _ = cell.set_pids_max(r.units);
        }
    }
    let procs = ctx
        .cell
        .as_deref()
        .map(Cell::procs_files)
        .unwrap_or_default();
    let label = format!("the {} holder", model.name());
    let stderr = ctx.scratch.join(format!("holder-{}.stderr", model.key()));
    let mut probe =
        ProbeProcess::start_in(&label, &holder.launch, &[], &procs, stderr, ctx.cancel)?;
    let mut out = entry(model, probe.hello.version.clone());
    if let Some(note) = &holder.note {
        out.warnings.push(note.clone());
    }
    let heap_mib = ask(&mut probe, "detect", 1, &serde_json::Map::new(), ctx.cancel)
        .ok()
        .and_then(|a| a.metrics.get("max_heap_mib").copied());
    let root = probe.pid().unwrap_or(0);
    let oom_before = ctx.cell.as_deref().and_then(Cell::oom_kills).unwrap_or(0);
    let stack_kib = kernel_stack_kib().unwrap_or(0.0);
    let base = Reading::take(root, stack_kib, ctx.cell.as_deref());
    let mut held = 0u64;
    let mut last_maps = None;
    let mut used_kib = 0.0;
    let mut created_ns = 0.0;
    let stop = loop {
        let standing = Standing {
            held,
            used_kib,
            budget_kib: ctx.budget_bytes as f64 / 1024.0,
            task_room: room.as_ref().filter(|_| model.is_task()).map(|r| r.units),
            max_units: ctx.max_units,
        };
        let n = match next(&standing) {
            Next::Grow(n) => n,
            Next::StopBudget => break budget_stop(held, &standing, ctx),
            Next::StopMargin => break margin_stop(held, room.as_ref()),
            Next::StopCap => break cap_stop(held),
        };
        if ctx.cancel.is_cancelled() {
            break interrupted(held);
        }
        if held > 0 {
            last_maps = maps_of(root).map(|m| (held, m));
        }
        let answer = ask(&mut probe, "hold", n, &holder.args, ctx.cancel);
        let refused = match answer {
            Err(_) if ctx.cancel.is_cancelled() => break interrupted(held),
            Err(e) => Some(Refused {
                died: Some(format!("{e:#}")),
                ..Refused::default()
            }),
            Ok(a) => {
                let created = a.metrics.get("created").copied().unwrap_or(0.0) as u64;
                held += created;
                created_ns += a.ns_per_op * created as f64;
                if created > 0 {
                    let r = Reading::take(root, stack_kib, ctx.cell.as_deref());
                    out.steps.push(Step {
                        units: held,
                        create_ns_per_unit: a.ns_per_op,
                        pss_kib: r.pss_kib,
                        kernel_kib: r.kernel_kib,
                        charge_kib: r.charge_kib,
                    });
                    used_kib = r.used_since(&base);
                    (ctx.say)(&progress(model, held, used_kib, a.ns_per_op));
                }
                match (a.stopped, created < n) {
                    (Some(error), _) => Some(Refused {
                        error,
                        ..Refused::default()
                    }),
                    (None, true) => Some(Refused::default()),
                    (None, false) => None,
                }
            }
        };
        if let Some(mut why) = refused {
            why.maps = maps_of(root);
            why.last_maps = last_maps;
            why.asked = n;
            why.heap_mib = heap_mib;
            why.task_room = room.clone();
            if let Some(cell) = ctx.cell.as_deref() {
                why.cell_pids = cell.spec().pids_max.zip(cell.pids_current());
                why.cell_ooms = cell.oom_kills().unwrap_or(0).saturating_sub(oom_before);
                why.cell_memory = cell.spec().memory_max;
            }
            break limits::attribute(held, &why, &Readings::read());
        }
    };
    let _ = probe.stop();
    concbench_sys::reaper::reap_orphans(std::time::Duration::from_secs(30));
    out.units = held;
    out.stopped_by = Some(stop);
    summarize(&mut out, base, created_ns);
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

fn ask(
    probe: &mut ProbeProcess,
    id: &str,
    n: u64,
    args: &serde_json::Map<String, serde_json::Value>,
    cancel: &CancelToken,
) -> Result<concbench_probes::protocol::Answer> {
    probe.request(
        &Request {
            v: VERSION,
            id,
            iterations: n,
            args,
        },
        cancel,
    )
}

fn progress(model: Model, held: u64, used_kib: f64, ns: f64) -> String {
    format!(
        "capacity: {}: {held} held, {:.1} KiB each so far, {}",
        model.name(),
        used_kib / held.max(1) as f64,
        concbench_core::human::nanos(ns)
    )
}

fn budget_stop(held: u64, s: &Standing, ctx: &Context<'_>) -> Stop {
    Stop {
        kind: StopKind::Budget,
        limit: "the memory budget".into(),
        value: Some(format!("{} MiB", ctx.budget_bytes >> 20)),
        set_at: Some(ctx.budget_text.clone()),
        detail: format!(
            "{held} units held {:.0} MiB of the {} MiB budget; another step would pass it",
            s.used_kib / 1024.0,
            ctx.budget_bytes >> 20
        ),
    }
}

fn margin_stop(held: u64, room: Option<&TaskRoom>) -> Stop {
    let (limit, free, kept) = room.map_or(("a shared task limit".to_string(), 0, 0), |r| {
        (r.limit.clone(), r.free, r.free.saturating_sub(r.units))
    });
    Stop {
        kind: StopKind::Margin,
        limit,
        value: None,
        set_at: None,
        detail: format!(
            "stopped at {held} units, keeping {kept} of the {free} it left free for the \
             machine's other programs ({:.0}%, at least 64): the limit itself would allow about \
             {} units",
            limits::MARGIN * 100.0,
            held + kept
        ),
    }
}

fn cap_stop(held: u64) -> Stop {
    Stop {
        kind: StopKind::Cap,
        limit: "--max-units".into(),
        value: Some(held.to_string()),
        set_at: Some("the command line".into()),
        detail: format!("stopped at --max-units {held}: no limit was reached"),
    }
}

fn interrupted(held: u64) -> Stop {
    Stop {
        kind: StopKind::Interrupted,
        limit: "Ctrl-C".into(),
        value: None,
        set_at: None,
        detail: format!("interrupted at {held} units"),
    }
}

/// Slopes, creation time and units per GiB from the steps.
fn summarize(out: &mut ModelCapacity, base: Reading, created_ns: f64) {
    let at = |f: &dyn Fn(&Step) -> Option<f64>, b: Option<f64>| -> Vec<(f64, f64)> {
        let mut pts: Vec<(f64, f64)> = b.map(|v| (0.0, v)).into_iter().collect();
        pts.extend(
            out.steps
                .iter()
                .filter_map(|s| Some((s.units as f64, f(s)?))),
        );
        pts
    };
    let fit = |pts: Vec<(f64, f64)>| concbench_stats::linear_fit(&pts);
    let pss = fit(at(&|s| Some(s.pss_kib), Some(base.pss_kib)));
    let kernel = fit(at(&|s| s.kernel_kib, base.kernel_kib));
    let both = fit(at(
        &|s| Some(s.pss_kib + s.kernel_kib?),
        base.kernel_kib.map(|k| base.pss_kib + k),
    ))
    .or(pss);
    let charge = fit(at(&|s| s.charge_kib, base.charge_kib));
    // A part of a unit's memory that fell as units were added is no cost at all: it is left
    // out, never shown negative (regression: "pss_kib_per_unit": -0.47 for 400 tokio tasks).
    out.pss_kib_per_unit = pss.map(|f| f.slope).filter(|s| *s > 0.0);
    out.kernel_kib_per_unit = kernel.map(|f| f.slope).filter(|s| *s > 0.0);
    // The group's charge can fall while units are added (pages of what ran before it are
    // reclaimed): then it says nothing about the units.
    out.charge_kib_per_unit = charge.map(|f| f.slope).filter(|s| *s > 0.0);
    if charge.is_some_and(|f| f.slope <= 0.0) {
        out.warnings.push(
            "the group's charge fell while units were added (memory of what ran before was \
             reclaimed meanwhile): no charge per unit"
                .into(),
        );
    }
    if let Some(f) = both.filter(|f| f.slope > 0.0) {
        out.kib_per_unit = Some(f.slope);
        // A unit cannot hold less than nothing: the interval is bounded at zero.
        out.kib_per_unit_ci95 = f.ci95.map(|(lo, hi)| [lo.max(0.0), hi]);
        out.per_gib = Some((GIB_KIB / f.slope) as u64);
    } else if both.is_some() {
        out.warnings.push(
            "invalid: the memory held fell as units were added (a slope of zero or less cannot \
             be a unit's cost): no memory per unit; raise --max-units or --memory-budget so the \
             units hold more than the memory's noise"
                .into(),
        );
    } else if out.units > 0 {
        out.warnings.push(
            "too few readings for a memory slope (two steps or more are needed); run with a \
             larger budget or --max-units"
                .into(),
        );
    }
    if out.units > 0 && created_ns > 0.0 {
        out.create_ns_per_unit = Some(created_ns / out.units as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(held: u64, used_kib: f64) -> Standing {
        Standing {
            held,
            used_kib,
            budget_kib: 64.0 * 1024.0,
            task_room: None,
            max_units: None,
        }
    }

    fn step(units: u64, pss_kib: f64) -> Step {
        Step {
            units,
            create_ns_per_unit: 1000.0,
            pss_kib,
            kernel_kib: Some(117.0),
            charge_kib: None,
        }
    }

    #[test]
    fn memory_that_falls_as_units_are_added_is_invalid_never_a_negative_cost() {
        // The readings of 400 tokio tasks in the CI run that failed: PSS fell between steps.
        let mut out = entry(Model::TokioTask, "test".into());
        out.steps = vec![
            step(64, 2883.0),
            step(128, 2746.0),
            step(256, 2703.0),
            step(400, 2742.0),
        ];
        out.units = 400;
        let base = Reading {
            pss_kib: 2900.0,
            kernel_kib: Some(117.0),
            charge_kib: None,
        };
        summarize(&mut out, base, 1000.0);
        assert_eq!(out.kib_per_unit, None);
        assert_eq!(out.pss_kib_per_unit, None);
        assert_eq!(out.kernel_kib_per_unit, None);
        assert!(out.warnings.iter().any(|w| w.starts_with("invalid:")));
    }

    #[test]
    fn a_units_memory_interval_is_bounded_at_zero() {
        let mut out = entry(Model::TokioTask, "test".into());
        out.steps = vec![step(64, 2000.0), step(128, 1990.0), step(256, 2100.0)];
        out.units = 256;
        let base = Reading {
            pss_kib: 2010.0,
            kernel_kib: Some(117.0),
            charge_kib: None,
        };
        summarize(&mut out, base, 1000.0);
        let per_unit = out.kib_per_unit.expect("a positive slope");
        assert!(per_unit > 0.0);
        let [lo, hi] = out.kib_per_unit_ci95.expect("four points give an interval");
        assert!(lo >= 0.0 && hi >= per_unit, "{lo} {hi}");
    }

    #[test]
    fn steps_double_from_the_first() {
        assert_eq!(next(&standing(0, 0.0)), Next::Grow(FIRST_STEP));
        assert_eq!(next(&standing(64, 64.0)), Next::Grow(64));
        assert_eq!(next(&standing(1024, 1024.0)), Next::Grow(1024));
        assert_eq!(next(&standing(1 << 24, 1.0)), Next::Grow(MAX_STEP));
    }

    #[test]
    fn the_last_step_lands_inside_the_budget_and_then_stops() {
        // 16 KiB a unit, 48 of 64 MiB used: room for 1024 more, 90% of it planned.
        let s = standing(3072, 48.0 * 1024.0);
        assert_eq!(next(&s), Next::Grow(921));
        // Nearly full: fewer units left than a 64th of those held.
        assert_eq!(next(&standing(4000, 63.9 * 1024.0)), Next::StopBudget);
        assert_eq!(next(&standing(10, 65.0 * 1024.0)), Next::StopBudget);
    }

    #[test]
    fn the_task_room_and_the_cap_cut_the_step_and_then_stop() {
        let mut s = standing(1000, 100.0);
        s.task_room = Some(1500);
        assert_eq!(next(&s), Next::Grow(500));
        s.held = 1500;
        assert_eq!(next(&s), Next::StopMargin);
        let mut s = standing(100, 10.0);
        s.max_units = Some(150);
        assert_eq!(next(&s), Next::Grow(50));
        s.held = 150;
        assert_eq!(next(&s), Next::StopCap);
    }
}
