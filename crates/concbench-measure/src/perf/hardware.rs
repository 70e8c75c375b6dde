//! Hardware counters on a variant's CPUs: cycles, instructions, last-level-cache misses, data
//! and instruction TLB misses — counted CPU-wide (kernel included: a switch is mostly kernel
//! work) and divided by the operations of the sample.
//!
//! A counter the CPU lacks is left out, never reported as zero; when even cycles cannot be
//! opened, the whole set is [`Unavailable`] with the reason (on a VM without a virtual PMU:
//! "hardware counters: unavailable (no PMU)").

use super::{access, Unavailable};
use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware};
use perf_event::{Builder, Counter};

const WHAT: &str = "hardware counters";

/// The counters concbench reads, by the metric name of their per-operation value.
pub const NAMES: [&str; 5] = [
    "cycles_per_op",
    "instructions_per_op",
    "llc_misses_per_op",
    "dtlb_misses_per_op",
    "itlb_misses_per_op",
];

/// A builder for the counter behind metric `name`.
fn builder(name: &str) -> Builder<'static> {
    let tlb = |which| Cache {
        which,
        operation: CacheOp::READ,
        result: CacheResult::MISS,
    };
    match name {
        "cycles_per_op" => Builder::new(Hardware::CPU_CYCLES),
        "instructions_per_op" => Builder::new(Hardware::INSTRUCTIONS),
        "llc_misses_per_op" => Builder::new(Hardware::CACHE_MISSES),
        "dtlb_misses_per_op" => Builder::new(tlb(CacheId::DTLB)),
        _ => Builder::new(tlb(CacheId::ITLB)),
    }
}

/// One counter's reading over a sample: the count, and the time it was enabled and running
/// (they differ when the kernel multiplexed more counters than the PMU has).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub count: u64,
    pub enabled_ns: u64,
    pub running_ns: u64,
}

/// The count scaled for multiplexing, per operation; `None` when the counter never ran.
pub fn per_op(readings: &[Reading], ops: u64) -> Option<f64> {
    let mut total = 0.0;
    for r in readings {
        if r.running_ns == 0 {
            return None;
        }
        total += r.count as f64 * r.enabled_ns as f64 / r.running_ns as f64;
    }
    (ops > 0).then(|| total / ops as f64)
}

/// The open counters: per name, one per CPU.
pub struct HardwareCounters {
    counters: Vec<(&'static str, Vec<Counter>)>,
    /// Counters this CPU lacks (left out).
    pub missing: Vec<&'static str>,
}

impl HardwareCounters {
    /// Open every counter CPU-wide on `cpus` (disabled), or say why none can be.
    pub fn open(cpus: &[usize]) -> Result<Self, Unavailable> {
        if cpus.is_empty() {
            return Err(Unavailable(format!(
                "{WHAT}: the variant is not pinned, so there are no CPUs to count on"
            )));
        }
        let paranoid = access::paranoid_level();
        let mut counters = Vec::new();
        let mut missing = Vec::new();
        for name in NAMES {
            let opened: std::io::Result<Vec<Counter>> = cpus
                .iter()
                .map(|&cpu| {
                    builder(name)
                        .one_cpu(cpu)
                        .any_pid()
                        .include_kernel()
                        .enabled(false)
                        .build()
                })
                .collect();
            match opened {
                Ok(c) => counters.push((name, c)),
                // Without cycles there is no PMU worth asking (or no permission): say why.
                Err(e) if name == NAMES[0] => {
                    return Err(access::open_failure(WHAT, e.raw_os_error(), paranoid))
                }
                Err(_) => missing.push(name),
            }
        }
        Ok(Self { counters, missing })
    }

    pub fn start(&mut self) -> std::io::Result<()> {
        for c in self.counters.iter_mut().flat_map(|(_, c)| c.iter_mut()) {
            c.reset()?;
            c.enable()?;
        }
        Ok(())
    }

    /// Stop and return each counter's readings (one per CPU).
    pub fn stop(&mut self) -> std::io::Result<Vec<(&'static str, Vec<Reading>)>> {
        let mut out = Vec::new();
        for (name, counters) in &mut self.counters {
            let mut readings = Vec::new();
            for c in counters.iter_mut() {
                c.disable()?;
                let data = c.read_full()?;
                let ns = |d: Option<std::time::Duration>| d.map_or(0, |d| d.as_nanos() as u64);
                readings.push(Reading {
                    count: data.count(),
                    enabled_ns: ns(data.time_enabled()),
                    running_ns: ns(data.time_running()),
                });
            }
            out.push((*name, readings));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_readings_become_per_operation_values_scaled_for_multiplexing() {
        // Two CPUs; the second counter ran half the time it was enabled (multiplexed).
        let readings = [
            Reading {
                count: 1_000_000,
                enabled_ns: 10_000_000,
                running_ns: 10_000_000,
            },
            Reading {
                count: 500_000,
                enabled_ns: 10_000_000,
                running_ns: 5_000_000,
            },
        ];
        assert_eq!(per_op(&readings, 1000), Some(2000.0));
        assert_eq!(per_op(&readings, 0), None);
        let never = Reading {
            count: 0,
            enabled_ns: 10,
            running_ns: 0,
        };
        assert_eq!(
            per_op(&[never], 10),
            None,
            "a counter that never ran is no zero"
        );
    }

    #[test]
    fn on_this_machine_counters_open_or_say_why_not() {
        match HardwareCounters::open(&[0]) {
            Ok(mut c) => {
                c.start().unwrap();
                let r = c.stop().unwrap();
                assert_eq!(r[0].0, "cycles_per_op");
            }
            Err(why) => assert!(why.0.starts_with("hardware counters: "), "{why}"),
        }
        let unpinned = HardwareCounters::open(&[]).err().unwrap();
        assert!(unpinned.0.contains("not pinned"));
    }
}
