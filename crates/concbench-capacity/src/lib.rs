//! How many idle units of each model of concurrency fit here, and which limit stops each
//! (`concbench capacity`); and what a CPU limit does to each runtime (`run --cpus`,
//! `capacity --cpus`).
//!
//! Capacity, model by model (process, thread, stackful coroutine, tokio task, goroutine, Java
//! platform and virtual thread, PHP Fiber): a holder program ([`model`]: concbench's own
//! [`holder`] or a probe) is started in a cell — a control group with a memory limit and a task
//! limit, where the machine allows one — and asked to hold more and more idle units ([`grow`])
//! until a limit refuses one, the units hold the memory budget ([`budget`], 25% of MemAvailable
//! unless told), or a limit the whole machine shares is near (never reached: [`limits`]). Memory
//! per unit is the slope of what the holder holds over the units held; creation time is the
//! holder's own timing. Safe by construction: limits are read, never raised; the cell caps what a
//! model may take whatever goes wrong; every holder dies with concbench, and concbench adopts and
//! reaps its orphans; the cell is removed on every way out.
//!
//! CPU limits ([`container`]): a cell with a quota or a cpuset, and the record of what each
//! runtime detected in it ([`detect`]) and how often the quota throttled.

pub mod budget;
pub mod container;
pub mod detect;
pub mod grow;
pub mod holder;
pub mod limits;
pub mod model;

use anyhow::Result;
use concbench_core::capacity::{Capacity, CellNote, HostState, ModelCapacity};
use concbench_core::container::Container;
use concbench_core::{CancelToken, UsageError};
use concbench_measure::cgroup::{self, Cell, CellSpec, Hierarchy};
use concbench_probes::build::Launch;
use concbench_probes::toolchain::Search;
use model::Model;
use std::path::PathBuf;

/// What a capacity command asks for.
pub struct Options {
    pub models: Vec<Model>,
    pub budget: budget::Asked,
    /// Whether `--memory-budget` was given (the default is said to be one).
    pub budget_given: bool,
    pub max_units: Option<u64>,
    /// A CPU limit for the cell, and the command line that asked for it.
    pub cpu: Option<(cgroup::CpuLimit, String)>,
    /// How to start concbench's own holder (`concbench __holder`).
    pub own: Launch,
    pub search: Search,
    pub cancel: CancelToken,
    /// Where holders write their stderr.
    pub scratch: PathBuf,
}

/// What a capacity command found.
pub struct Outcome {
    pub capacity: Capacity,
    /// With a CPU limit: the limit, the runtimes' detection, the throttling.
    pub container: Option<Container>,
    pub interrupted: bool,
}

/// The memory a cell allows beyond the budget: the budget stops a model by concbench's
/// readings; the cell's limit is the backstop when a step overshoots.
fn backstop(budget: u64) -> u64 {
    budget + budget / 4 + (64 << 20)
}

fn host_state(h: &Hierarchy) -> HostState {
    HostState {
        mem_available_kib: concbench_measure::headroom::memory_available_kib().unwrap_or(0),
        tasks: limits::system_tasks().unwrap_or(0),
        cells: cgroup::cell::existing(h).len() as u64,
    }
}

/// Every model asked for, in order, then the runtimes' detection when a CPU limit applies.
pub fn run(opts: &Options, say: &mut dyn FnMut(&str)) -> Result<Outcome> {
    // Orphans of a killed holder (its forked units) come to concbench to be reaped.
    let _ = concbench_sys::reaper::become_subreaper();
    let h = Hierarchy::live();
    for dir in cgroup::cell::sweep_leftovers(&h) {
        say(&format!(
            "removed {} left behind by a killed run",
            dir.display()
        ));
    }
    let available = concbench_measure::headroom::memory_available_kib().unwrap_or(0);
    let budget =
        budget::choose(opts.budget, available, opts.budget_given).map_err(UsageError::new)?;
    let readings = limits::Readings::read();
    let before = host_state(&h);
    let spec = CellSpec {
        purpose: "capacity".into(),
        cpu: opts.cpu.as_ref().map(|(l, _)| l.clone()),
        memory_max: Some(backstop(budget.bytes)),
        pids_max: limits::task_room(&readings).map(|r| r.units),
    };
    let (mut cell, note) = match Cell::create(&h, &spec) {
        Ok(c) => {
            let made = Some(c.describe());
            (
                Some(c),
                CellNote {
                    made,
                    missing: None,
                },
            )
        }
        Err(refusal) if opts.cpu.is_some() => {
            return Err(UsageError::new(container::refusal_message("--cpus", &refusal)).into())
        }
        Err(refusal) => {
            say(&format!(
                "capacity: no cell ({refusal}): the budget and the margins are kept by \
                 concbench's own readings"
            ));
            let missing = Some(refusal.reason);
            (
                None,
                CellNote {
                    made: None,
                    missing,
                },
            )
        }
    };
    let budget_text = budget.source.clone();
    let mut models = Vec::new();
    let mut interrupted = false;
    // CPU time the models' cells were throttled, summed (each cell starts at zero).
    let mut throttled: Option<cgroup::CpuStat> = None;
    for (i, &m) in opts.models.iter().enumerate() {
        if opts.cancel.is_cancelled() {
            interrupted = true;
            break;
        }
        // A fresh cell per model: its charge is this model's alone, not what the one before
        // still has to give back.
        if i > 0 && cell.is_some() {
            cell = fresh(cell.take(), &h, &spec);
        }
        let entry = one_model(m, opts, &mut cell, budget.bytes, &budget_text, say);
        throttled = add(throttled, cell.as_ref().and_then(Cell::cpu_stat));
        interrupted |= entry
            .stopped_by
            .as_ref()
            .is_some_and(|s| s.kind == concbench_core::capacity::StopKind::Interrupted);
        models.push(entry);
    }
    if cell.is_some() && opts.cpu.is_some() {
        cell = fresh(cell.take(), &h, &spec);
    }
    let container = match (&opts.cpu, &cell, interrupted) {
        (Some((_, set_by)), Some(c), false) => {
            let limit = container::limit_of(c, set_by);
            let host_cpus = concbench_measure::host::collect().logical_cpus;
            let procs = c.procs_files();
            let mut asking = detect::Asking {
                own: &opts.own,
                search: &opts.search,
                procs: &procs,
                cancel: &opts.cancel,
                scratch: &opts.scratch,
                say,
            };
            let runtimes = detect::all(&mut asking, &limit, host_cpus);
            Some(container::record_with(
                limit, throttled, runtimes, host_cpus,
            ))
        }
        _ => None,
    };
    if let Some(mut c) = cell.take() {
        if let Err(e) = c.remove() {
            say(&format!("capacity: removing the cell: {e}"));
        }
    }
    concbench_sys::reaper::reap_orphans(std::time::Duration::from_secs(5));
    let after = (!interrupted).then(|| host_state(&h));
    Ok(Outcome {
        capacity: Capacity {
            budget,
            cell: note,
            limits: limits::table(&readings),
            models,
            before,
            after,
            max_units: opts.max_units,
        },
        container,
        interrupted,
    })
}

/// The cell `old` is replaced by a new one of `spec` (`None` when that cannot be made now).
fn fresh(old: Option<Cell>, h: &Hierarchy, spec: &CellSpec) -> Option<Cell> {
    drop(old);
    Cell::create(h, spec).ok()
}

/// Two cells' throttling, summed.
fn add(a: Option<cgroup::CpuStat>, b: Option<cgroup::CpuStat>) -> Option<cgroup::CpuStat> {
    match (a, b) {
        (Some(a), Some(b)) => Some(cgroup::CpuStat {
            periods: a.periods + b.periods,
            throttled_periods: a.throttled_periods + b.throttled_periods,
            throttled_us: a.throttled_us + b.throttled_us,
            usage_us: a.usage_us.zip(b.usage_us).map(|(x, y)| x + y),
        }),
        (a, b) => a.or(b),
    }
}

/// One model: its holder, or why it is skipped; its capacity, or the error that ended it.
fn one_model(
    m: Model,
    opts: &Options,
    cell: &mut Option<Cell>,
    budget_bytes: u64,
    budget_text: &str,
    say: &mut dyn FnMut(&str),
) -> ModelCapacity {
    let holder = match m.holder(&opts.own, &opts.search, &mut |s| say(s)) {
        Ok(h) => h,
        Err(why) => {
            say(&format!("capacity: {}: skipped: {why}", m.name()));
            let mut e = grow::entry(m, String::new());
            e.skipped = Some(why);
            return e;
        }
    };
    say(&format!(
        "capacity: {}: {}",
        m.name(),
        m.unit(concbench_measure::host::default_thread_stack() / 1024)
    ));
    let mut ctx = grow::Context {
        cell: cell.as_mut(),
        budget_bytes,
        budget_text: budget_text.to_string(),
        max_units: opts.max_units,
        cancel: &opts.cancel,
        scratch: &opts.scratch,
        say,
    };
    match grow::measure(m, &holder, &mut ctx) {
        Ok(entry) => entry,
        Err(e) => {
            let mut entry = grow::entry(m, String::new());
            entry.skipped = Some(format!("its holder failed: {e:#}"));
            entry
        }
    }
}
