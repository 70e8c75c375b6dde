//! From one repetition's [`Sample`] and counters to the numbers a result reports.

use super::config::MIB;
use super::device::DiskReads;
use super::sample::Sample;
use concbench_core::RunOutput;

/// Counters read around the repetition besides the readers' own reports.
#[derive(Debug, Clone, Copy, Default)]
pub struct Around {
    /// Bytes the whole process (readers, io-wq workers, reaped children) fetched from the device.
    pub device_bytes: Option<u64>,
    /// Share of the machine's CPU time spent idle with IO outstanding (`/proc/stat`).
    pub iowait_share: Option<f64>,
    /// Share of the files' pages cached right before the repetition.
    pub resident_before: f64,
    /// What the files' block device did over the repetition (`/proc/diskstats`).
    pub disk: Option<DiskReads>,
    /// Whether that device rotates.
    pub rotational: Option<bool>,
    /// The whole machine's context switches per second over the repetition (the seed's vmstat).
    pub switches_per_s: Option<f64>,
}

impl Around {
    /// Device bytes over the bytes the application read.
    pub fn device_share(&self, bytes: u64) -> Option<f64> {
        let dev = self.device_bytes?;
        Some(if bytes == 0 {
            0.0
        } else {
            (dev as f64 / bytes as f64).min(1.0)
        })
    }
}

/// The sample value (wall milliseconds) and every metric of one repetition.
pub fn output(sample: &Sample, around: &Around, concurrent: bool) -> RunOutput {
    let wall_s = sample.wall().as_secs_f64();
    let bytes = sample.bytes();
    let mut out = RunOutput {
        value: Some(wall_s * 1e3),
        ..RunOutput::default()
    };
    if wall_s > 0.0 {
        out = out.metric("mib_per_s", bytes as f64 / MIB as f64 / wall_s);
    }
    if let Some(r) = straggler_ratio(sample).filter(|_| concurrent) {
        out = out.metric("straggler_ratio", r);
    }
    let n = sample.workers.len().max(1) as f64;
    let mean = |f: fn(&concbench_core::Usage) -> f64| {
        sample.workers.iter().map(|w| f(&w.usage)).sum::<f64>() / n
    };
    out = out
        .metric("worker_user_ms", mean(|u| u.user_ns) / 1e6)
        .metric("worker_sys_ms", mean(|u| u.sys_ns) / 1e6)
        .metric("worker_voluntary_switches", mean(|u| u.voluntary_switches))
        .metric(
            "worker_involuntary_switches",
            mean(|u| u.involuntary_switches),
        )
        .metric("resident_share_before", around.resident_before);
    if let Some(share) = cpu_share(sample) {
        out = out.metric("reader_cpu_share", share);
    }
    if let Some(share) = around.iowait_share {
        out = out.metric("iowait_share", share);
    }
    if let (Some(dev), Some(share)) = (around.device_bytes, around.device_share(bytes)) {
        out = out
            .metric("device_read_mib", dev as f64 / MIB as f64)
            .metric("device_read_share", share);
    }
    device_metrics(out, around)
}

/// The block device's side of the repetition, and the machine's switch rate.
fn device_metrics(mut out: RunOutput, around: &Around) -> RunOutput {
    if let Some(d) = around.disk {
        out = out
            .metric("disk_reads", d.requests as f64)
            .metric("disk_read_mib", d.bytes as f64 / MIB as f64);
        if let Some(ms) = d.ms_per_request() {
            out = out.metric("disk_ms_per_read", ms);
        }
        if let Some(rate) = d.mib_per_request_second() {
            out = out.metric("disk_mib_per_request_s", rate);
        }
    }
    if let Some(r) = around.rotational {
        out = out.metric("device_rotational", f64::from(u8::from(r)));
    }
    if let Some(s) = around.switches_per_s {
        out = out.metric("switches_per_s", s);
    }
    out
}

/// The readers' CPU time (user + system, all of them) over the repetition's wall time: near 1
/// for one reader bound by its own CPU, near 0 for one that waits on the device (the article's
/// reader ran at 4% user CPU). S4's verdicts withhold a one-thread reader above one half.
pub fn cpu_share(sample: &Sample) -> Option<f64> {
    let wall_ns = sample.wall().as_secs_f64() * 1e9;
    if wall_ns <= 0.0 || sample.workers.is_empty() {
        return None;
    }
    let cpu: f64 = sample
        .workers
        .iter()
        .map(|w| w.usage.user_ns + w.usage.sys_ns)
        .sum();
    Some(cpu / wall_ns)
}

/// Slowest over fastest reader, each timed from the common release; `None` with one reader.
pub fn straggler_ratio(sample: &Sample) -> Option<f64> {
    if sample.ends.len() < 2 {
        return None;
    }
    let spans: Vec<f64> = sample
        .ends
        .iter()
        .map(|e| e.saturating_sub(sample.start).as_secs_f64())
        .collect();
    let fastest = spans.iter().cloned().fold(f64::INFINITY, f64::min);
    let slowest = spans.iter().cloned().fold(0.0, f64::max);
    (fastest > 0.0).then(|| slowest / fastest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::sample::WorkerReport;
    use std::time::Duration;

    fn sample() -> Sample {
        let w = |ms, bytes| WorkerReport {
            end: Duration::from_millis(ms),
            bytes,
            ..WorkerReport::default()
        };
        Sample {
            start: Duration::from_millis(100),
            ends: vec![Duration::from_millis(200), Duration::from_millis(400)],
            workers: vec![w(200, 10 * MIB), w(400, 50 * MIB)],
        }
    }

    #[test]
    fn wall_throughput_and_stragglers() {
        let around = Around {
            device_bytes: Some(30 * MIB),
            iowait_share: Some(0.25),
            resident_before: 0.0,
            disk: Some(DiskReads {
                requests: 240,
                bytes: 30 * MIB,
                ms: 120,
            }),
            rotational: Some(false),
            switches_per_s: Some(550.0),
        };
        let out = output(&sample(), &around, true);
        let m = |k: &str| out.metrics.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
        assert!((out.value.unwrap() - 300.0).abs() < 1e-9);
        assert!((m("mib_per_s").unwrap() - 200.0).abs() < 1e-9);
        assert!((m("straggler_ratio").unwrap() - 3.0).abs() < 1e-9);
        assert!((m("device_read_share").unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(m("iowait_share"), Some(0.25));
        assert_eq!(m("disk_reads"), Some(240.0));
        assert_eq!(m("disk_read_mib"), Some(30.0));
        assert_eq!(m("disk_ms_per_read"), Some(0.5));
        assert_eq!(m("disk_mib_per_request_s"), Some(250.0));
        assert_eq!(m("device_rotational"), Some(0.0));
        assert_eq!(m("switches_per_s"), Some(550.0));
        // The readers report no CPU time here: a share of zero, not a missing one.
        assert_eq!(m("reader_cpu_share"), Some(0.0));
        let sequential = output(&sample(), &Around::default(), false);
        assert!(!sequential
            .metrics
            .iter()
            .any(|(n, _)| n == "straggler_ratio"));
        assert!(!sequential
            .metrics
            .iter()
            .any(|(n, _)| n == "device_read_share" || n == "device_rotational"));
    }

    #[test]
    fn cpu_share_is_the_readers_cpu_over_the_wall_time() {
        let mut s = sample();
        s.workers[0].usage.user_ns = 100e6;
        s.workers[1].usage.sys_ns = 50e6;
        // 150 ms of CPU over 300 ms of wall time.
        assert!((cpu_share(&s).unwrap() - 0.5).abs() < 1e-9);
        s.workers.clear();
        assert_eq!(cpu_share(&s), None);
    }
}
