//! A run under a CPU limit (`run --cpus N`, `capacity --cpus N`): the limit asked for, checked
//! against the machine; the cell made for it; and the `container` record once the run is done —
//! the limit as the kernel holds it, the throttling over the run, what each runtime detected.
//!
//! `run --cpus` moves concbench itself into the cell before it collects the host's facts and
//! starts a worker, so every worker, server and probe runs under the limit (as in a container
//! that holds the whole benchmark: the load generator too). Crossover sweeps and servers that
//! need only the server limited can make their own cell and start the server in it
//! (`Cell::procs_files` with `concbench_sys::spawn_tied_in`).

use concbench_core::container::{Container, CpuLimit, Detected, Throttling};
use concbench_core::UsageError;
use concbench_measure::cgroup::{self, Cell, CellSpec, CpuStat, Hierarchy, Refusal};

/// How `--cpus N` limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// CPU time per period (`cpu.max`, `cpu.cfs_quota_us`): Docker's `--cpus`.
    Quota,
    /// Only N of the CPUs (`cpuset.cpus`): Docker's `--cpuset-cpus`.
    Cpuset,
}

/// What `--cpus` asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// `None`: `--cpus all`, a group without a limit (the baseline beside limited runs).
    pub cpus: Option<f64>,
    pub mode: Mode,
}

/// `--cpus`'s value: a number of CPUs (`1`, `1.5`) or `all`.
pub fn parse_cpus(text: &str) -> Result<Option<f64>, String> {
    if text == "all" {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.01 => Ok(Some(n)),
        _ => Err(format!(
            "'{text}' is not a number of CPUs (e.g. --cpus 1, --cpus 1.5) or 'all'"
        )),
    }
}

/// The cell's CPU limit for `req` on a process allowed `allowed` CPUs, or a usage error saying
/// what fits. A cpuset takes the last N allowed CPUs (the first usually takes more interrupts).
pub fn limit_for(req: &Request, allowed: &[usize]) -> Result<cgroup::CpuLimit, UsageError> {
    let Some(n) = req.cpus else {
        return Ok(cgroup::CpuLimit::Unlimited);
    };
    let have = allowed.len();
    if n > have as f64 {
        return Err(UsageError::new(format!(
            "--cpus {n}: this process may use {have} CPU{} ({}); ask for at most {have}",
            if have == 1 { "" } else { "s" },
            cgroup::files::format_cpu_list(allowed)
        )));
    }
    match req.mode {
        Mode::Quota => Ok(cgroup::CpuLimit::Quota(n)),
        Mode::Cpuset if n.fract() != 0.0 => Err(UsageError::new(format!(
            "--cpus {n} --cpus-mode cpuset: a cpuset holds whole CPUs; ask for {} or {}, or use \
             --cpus-mode quota",
            n.floor().max(1.0),
            n.ceil()
        ))),
        Mode::Cpuset => Ok(cgroup::CpuLimit::Cpuset(
            allowed[have - n as usize..].to_vec(),
        )),
    }
}

/// The refusal of a cell as the user should read it: what stood in the way and what to do.
pub fn refusal_message(flag: &str, refusal: &Refusal) -> String {
    let systemd = std::path::Path::new("/run/systemd/system").is_dir();
    let outside = if systemd {
        "or start concbench inside a limited group and let it read the limit it finds: \
         `systemd-run --user --scope -p CPUQuota=100% concbench run` (a quota of 1 CPU; \
         --user needs cgroup v2 delegation)"
    } else {
        "or start concbench inside a limited container (`docker run --cpus 1 ...`) and let it \
         read the limit it finds"
    };
    let root = if refusal.needs_root {
        "run it as root (sudo concbench ...), "
    } else {
        ""
    };
    format!(
        "{flag}: cannot make a control group here: {}; {root}{outside}; the run then records the \
         quota in its document",
        refusal.reason
    )
}

/// The cell of a `run --cpus`: made, and this process moved into it.
pub struct Limited {
    pub cell: Cell,
    before: Option<CpuStat>,
    set_by: String,
}

impl Limited {
    /// Make the cell for `limit` and move this process into it. `set_by` is the command line.
    pub fn enter(limit: cgroup::CpuLimit, set_by: String) -> Result<Limited, Refusal> {
        let h = Hierarchy::live();
        cgroup::cell::sweep_leftovers(&h);
        let spec = CellSpec {
            purpose: "run".into(),
            cpu: Some(limit),
            ..CellSpec::default()
        };
        let mut cell = Cell::create(&h, &spec)?;
        cell.join_self().map_err(|e| Refusal {
            reason: format!("moving concbench into {}: {e}", cell.describe()),
            needs_root: true,
        })?;
        let before = cell.cpu_stat();
        Ok(Limited {
            cell,
            before,
            set_by,
        })
    }

    /// The record of the run: the limit, the throttling since [`Limited::enter`], `runtimes`.
    /// The cell stays until this value is dropped (or [`Cell::remove`]).
    pub fn record(&self, runtimes: Vec<Detected>, host_cpus: usize) -> Container {
        record(&self.cell, self.before, &self.set_by, runtimes, host_cpus)
    }
}

/// The limit of `cell` as a document says it.
pub fn limit_of(cell: &Cell, set_by: &str) -> CpuLimit {
    let (mode, cpus, period, cpuset) = match &cell.spec().cpu {
        Some(cgroup::CpuLimit::Quota(_)) => {
            let q = cell.quota();
            (
                "quota",
                q.map(|q| q.cpus()),
                q.map(|q| q.period_us),
                Vec::new(),
            )
        }
        Some(cgroup::CpuLimit::Cpuset(c)) => ("cpuset", None, None, c.clone()),
        _ => ("none", None, None, Vec::new()),
    };
    CpuLimit {
        mode: mode.into(),
        cpus,
        period_us: period,
        cpuset,
        cgroup: cell.version().into(),
        groups: cell
            .dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        set_by: set_by.into(),
    }
}

/// The `container` record of `cell` since `before`.
pub fn record(
    cell: &Cell,
    before: Option<CpuStat>,
    set_by: &str,
    runtimes: Vec<Detected>,
    host_cpus: usize,
) -> Container {
    let stat = cell
        .cpu_stat()
        .map(|now| before.map_or(now, |b| now.since(&b)));
    record_with(limit_of(cell, set_by), stat, runtimes, host_cpus)
}

/// The `container` record of `limit`, throttled as `stat` counts.
pub fn record_with(
    limit: CpuLimit,
    stat: Option<CpuStat>,
    runtimes: Vec<Detected>,
    host_cpus: usize,
) -> Container {
    Container {
        limit,
        host_cpus,
        runtimes,
        throttling: stat.map(|d| Throttling {
            periods: d.periods,
            throttled_periods: d.throttled_periods,
            throttled_s: d.throttled_us as f64 / 1e6,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_parse_as_numbers_or_all() {
        assert_eq!(parse_cpus("1"), Ok(Some(1.0)));
        assert_eq!(parse_cpus("1.5"), Ok(Some(1.5)));
        assert_eq!(parse_cpus("all"), Ok(None));
        assert!(parse_cpus("0").is_err());
        assert!(parse_cpus("two").is_err());
    }

    #[test]
    fn a_limit_must_fit_the_cpus_this_process_has() {
        let q = Request {
            cpus: Some(1.0),
            mode: Mode::Quota,
        };
        assert_eq!(
            limit_for(&q, &[0, 1]).unwrap(),
            cgroup::CpuLimit::Quota(1.0)
        );
        let too_many = Request {
            cpus: Some(3.0),
            ..q
        };
        let e = limit_for(&too_many, &[0, 1]).unwrap_err().to_string();
        assert!(e.contains("--cpus 3") && e.contains("at most 2"), "{e}");
        let set = Request {
            cpus: Some(1.0),
            mode: Mode::Cpuset,
        };
        assert_eq!(
            limit_for(&set, &[0, 1]).unwrap(),
            cgroup::CpuLimit::Cpuset(vec![1])
        );
        let half = Request {
            cpus: Some(1.5),
            mode: Mode::Cpuset,
        };
        assert!(limit_for(&half, &[0, 1, 2])
            .unwrap_err()
            .to_string()
            .contains("whole CPUs"));
        let all = Request {
            cpus: None,
            mode: Mode::Quota,
        };
        assert_eq!(limit_for(&all, &[0]).unwrap(), cgroup::CpuLimit::Unlimited);
    }

    #[test]
    fn a_refusal_says_what_to_do() {
        let r = Refusal {
            reason: "creating /sys/fs/cgroup/cpu/x: Permission denied".into(),
            needs_root: true,
        };
        let m = refusal_message("--cpus", &r);
        assert!(
            m.starts_with("--cpus: cannot make a control group here"),
            "{m}"
        );
        assert!(m.contains("as root"), "{m}");
    }
}
