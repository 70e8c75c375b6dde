//! The clock and the CPU counters the run reads: the real machine, or a scripted one in tests.

use std::time::Duration;

/// The machine's CPU time since boot, in seconds summed over CPUs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTimes {
    /// Time spent running anything (user, nice, system, irq, softirq).
    pub busy: f64,
    /// Time the hypervisor ran something else while this guest wanted the CPU.
    pub steal: f64,
    /// Everything, idle included.
    pub total: f64,
}

/// What the run needs from the machine besides the worker processes.
pub trait Machine {
    /// Time since an arbitrary fixed point (monotonic).
    fn now(&self) -> Duration;
    /// The whole machine's CPU times; `None` where `/proc/stat` cannot be read.
    fn cpu(&self) -> Option<CpuTimes>;
    /// CPU seconds this process and its reaped children (the workers) have used.
    fn own_cpu(&self) -> f64;
    fn sleep(&self, d: Duration);
}

/// The real machine: `/proc/stat`, `getrusage`, the monotonic clock.
pub struct SystemMachine {
    start: std::time::Instant,
    ticks_per_second: f64,
}

impl Default for SystemMachine {
    fn default() -> Self {
        Self {
            start: concbench_measure::clock::now(),
            ticks_per_second: procfs::ticks_per_second() as f64,
        }
    }
}

impl Machine for SystemMachine {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn cpu(&self) -> Option<CpuTimes> {
        let t = concbench_measure::usage::system_cpu()?;
        let s = |ticks: u64| ticks as f64 / self.ticks_per_second;
        Some(CpuTimes {
            busy: s(t.busy),
            steal: s(t.steal),
            total: s(t.total),
        })
    }

    fn own_cpu(&self) -> f64 {
        let u = concbench_measure::usage::process_usage();
        (u.user_ns + u.sys_ns) / 1e9
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}
