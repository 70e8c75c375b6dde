//! The scheduler's own account of a sample: every `sched_switch` and `sched_wakeup` on the
//! variant's CPUs, recorded by per-CPU perf samplers, then filtered to the measured tasks.
//!
//! * switches per operation: switches *out* of a measured task, counted by the kernel (rusage
//!   counts them too, but for the whole process; this counts only the pair);
//! * wake-up latency: from `sched_wakeup` of a measured task to the `sched_switch` that puts it
//!   on a CPU — the time a woken task waits before it runs, as a distribution.

use super::tracepoint::{read_int, Field, Tracepoint};
use super::{access, Unavailable};
use perf_event::data::Record;
use perf_event::events::Tracepoint as TracepointEvent;
use perf_event::{Builder, Clock, SampleFlag, Sampler};

/// Bytes of ring buffer per CPU and event: a sample's records must fit (a record is ~100 bytes,
/// so 1 MiB holds about 10,000 events; experiments size their samples below that).
pub const RING_BYTES: usize = 1 << 20;

/// One scheduler event, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedEvent {
    /// `prev` stopped running and `next` started, at `time` ns.
    Switch { time: u64, prev: i32, next: i32 },
    /// `pid` was woken at `time` ns.
    Wakeup { time: u64, pid: i32 },
}

impl SchedEvent {
    fn time(&self) -> u64 {
        match *self {
            SchedEvent::Switch { time, .. } | SchedEvent::Wakeup { time, .. } => time,
        }
    }
}

/// What a traced sample says about the measured tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchedSummary {
    /// Switches out of a measured task.
    pub switches: u64,
    /// Nanoseconds from each wake-up of a measured task to its next switch in.
    pub wakeup_latencies_ns: Vec<u64>,
    /// Records the kernel dropped (ring buffer full): the counts are then lower bounds.
    pub lost: u64,
}

impl SchedSummary {
    /// Why the wake-up latencies are missing although the tasks were seen sleeping: on the
    /// development VM, the tracepoints on its second vCPU record switches out of a task but never
    /// its wake-up nor the switch back in from idle, so "no latencies" must not read as "none".
    pub fn wakeups_unseen(&self) -> Option<String> {
        (self.switches > 0 && self.wakeup_latencies_ns.is_empty()).then(|| {
            format!(
                "the scheduler tracepoints recorded {} switches out of the measured tasks but none \
                 of their wake-ups: wake-up latencies are not available on these CPUs",
                self.switches
            )
        })
    }
}

/// Filter `events` (any order) to the tasks in `pids` and measure them.
pub fn summarize(events: &[SchedEvent], pids: &[i32]) -> SchedSummary {
    let mut ordered = events.to_vec();
    ordered.sort_by_key(SchedEvent::time);
    let mut woken_at: std::collections::BTreeMap<i32, u64> = Default::default();
    let mut out = SchedSummary::default();
    for e in ordered {
        match e {
            SchedEvent::Wakeup { time, pid } if pids.contains(&pid) => {
                // A second wake-up before it ran (already runnable) keeps the first.
                woken_at.entry(pid).or_insert(time);
            }
            SchedEvent::Switch { time, prev, next } => {
                if pids.contains(&prev) {
                    out.switches += 1;
                }
                if let Some(woken) = woken_at.remove(&next) {
                    out.wakeup_latencies_ns.push(time.saturating_sub(woken));
                }
            }
            SchedEvent::Wakeup { .. } => {}
        }
    }
    out
}

/// Decode a raw `sched_switch` / `sched_wakeup` record with the kernel's field offsets.
#[derive(Debug, Clone, Copy)]
pub struct Decoder {
    switch_prev: Field,
    switch_next: Field,
    wakeup_pid: Field,
}

impl Decoder {
    pub fn new(switch: &Tracepoint, wakeup: &Tracepoint) -> Result<Self, Unavailable> {
        Ok(Self {
            switch_prev: switch.field("prev_pid")?,
            switch_next: switch.field("next_pid")?,
            wakeup_pid: wakeup.field("pid")?,
        })
    }

    pub fn switch(&self, time: u64, raw: &[u8]) -> Option<SchedEvent> {
        Some(SchedEvent::Switch {
            time,
            prev: read_int(raw, self.switch_prev)? as i32,
            next: read_int(raw, self.switch_next)? as i32,
        })
    }

    pub fn wakeup(&self, time: u64, raw: &[u8]) -> Option<SchedEvent> {
        Some(SchedEvent::Wakeup {
            time,
            pid: read_int(raw, self.wakeup_pid)? as i32,
        })
    }
}

/// Per-CPU samplers of `sched_switch` and `sched_wakeup` on a variant's CPUs.
pub struct SchedTracer {
    decoder: Decoder,
    /// (sampler, is_switch)
    samplers: Vec<(Sampler, bool)>,
}

const WHAT: &str = "scheduler tracepoints";

impl SchedTracer {
    /// Open (disabled) samplers on `cpus`, or say why it is not possible here.
    pub fn open(cpus: &[usize]) -> Result<Self, Unavailable> {
        if cpus.is_empty() {
            return Err(Unavailable(format!(
                "{WHAT}: the variant is not pinned, so there are no CPUs to watch"
            )));
        }
        let switch = Tracepoint::lookup("sched", "sched_switch")?;
        let wakeup = Tracepoint::lookup("sched", "sched_wakeup")?;
        let decoder = Decoder::new(&switch, &wakeup)?;
        let paranoid = access::paranoid_level();
        let mut samplers = Vec::new();
        for &cpu in cpus {
            for (tp, is_switch) in [(&switch, true), (&wakeup, false)] {
                let sampler = Builder::new(TracepointEvent::with_id(tp.id))
                    .one_cpu(cpu)
                    .any_pid()
                    // Tracepoints fire in the kernel, which perf-event2 excludes by default.
                    .include_kernel()
                    .sample_period(1)
                    .sample(SampleFlag::TIME | SampleFlag::RAW)
                    // The default perf clock is per-CPU: a wake-up recorded on one CPU can carry a
                    // later time than the switch-in it caused on another, and the pair is lost
                    // (seen under CI load). CLOCK_MONOTONIC orders events across CPUs.
                    .clockid(Clock::MONOTONIC)
                    .enabled(false)
                    .build()
                    .and_then(|c| c.sampled(RING_BYTES))
                    .map_err(|e| access::open_failure(WHAT, e.raw_os_error(), paranoid))?;
                samplers.push((sampler, is_switch));
            }
        }
        Ok(Self { decoder, samplers })
    }

    /// Drop what the rings hold, then start recording.
    pub fn start(&mut self) -> std::io::Result<()> {
        for (s, _) in &mut self.samplers {
            while s.next_record().is_some() {}
            s.enable()?;
        }
        Ok(())
    }

    /// Stop recording and decode everything recorded since [`SchedTracer::start`].
    pub fn stop(&mut self) -> std::io::Result<(Vec<SchedEvent>, u64)> {
        for (s, _) in &mut self.samplers {
            s.disable()?;
        }
        let mut events = Vec::new();
        let mut lost = 0;
        for (sampler, is_switch) in &mut self.samplers {
            while let Some(record) = sampler.next_record() {
                match record.parse_record() {
                    Ok(Record::Sample(sample)) => {
                        let (Some(time), Some(raw)) = (sample.time(), sample.raw()) else {
                            continue;
                        };
                        let event = if *is_switch {
                            self.decoder.switch(time, raw)
                        } else {
                            self.decoder.wakeup(time, raw)
                        };
                        events.extend(event);
                    }
                    Ok(Record::Lost(l)) => lost += l.lost,
                    _ => {}
                }
            }
        }
        Ok((events, lost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::tracepoint::parse_format;

    fn decoder() -> Decoder {
        let tp = |text: &str| Tracepoint {
            id: 1,
            fields: parse_format(text),
        };
        Decoder::new(
            &tp(include_str!(
                "../../tests/fixtures/tracefs/sched_switch.format"
            )),
            &tp(include_str!(
                "../../tests/fixtures/tracefs/sched_wakeup.format"
            )),
        )
        .unwrap()
    }

    /// A raw record as the kernel lays it out: common header, then the fields at their offsets.
    fn raw_switch(prev: i32, next: i32) -> Vec<u8> {
        let mut raw = vec![0u8; 64];
        raw[24..28].copy_from_slice(&prev.to_ne_bytes());
        raw[56..60].copy_from_slice(&next.to_ne_bytes());
        raw
    }

    #[test]
    fn raw_records_decode_with_the_recorded_formats() {
        let d = decoder();
        assert_eq!(
            d.switch(5, &raw_switch(10, 11)),
            Some(SchedEvent::Switch {
                time: 5,
                prev: 10,
                next: 11
            })
        );
        let mut wake = vec![0u8; 36];
        wake[24..28].copy_from_slice(&77i32.to_ne_bytes());
        assert_eq!(
            d.wakeup(9, &wake),
            Some(SchedEvent::Wakeup { time: 9, pid: 77 })
        );
        assert_eq!(
            d.switch(5, &[0u8; 30]),
            None,
            "a short record is not decoded"
        );
    }

    #[test]
    fn switches_and_wakeup_latencies_of_the_pair_only() {
        use SchedEvent::*;
        // Out of order, as per-CPU rings deliver them; pid 99 is someone else.
        let events = [
            Switch {
                time: 1300,
                prev: 1,
                next: 2,
            },
            Wakeup { time: 1000, pid: 2 },
            Wakeup { time: 2000, pid: 1 },
            Wakeup { time: 2100, pid: 1 },
            Switch {
                time: 2500,
                prev: 2,
                next: 99,
            },
            Switch {
                time: 2600,
                prev: 99,
                next: 1,
            },
            Wakeup {
                time: 3000,
                pid: 99,
            },
            Switch {
                time: 3050,
                prev: 1,
                next: 99,
            },
        ];
        let s = summarize(&events, &[1, 2]);
        assert_eq!(s.switches, 3);
        // 2 waited 300 ns; 1 waited from its first wake-up (2000) to 2600.
        assert_eq!(s.wakeup_latencies_ns, [300, 600]);
    }

    #[test]
    fn wakeups_unseen_is_said_only_when_switches_were_seen() {
        let blind = SchedSummary {
            switches: 10,
            ..Default::default()
        };
        assert!(blind.wakeups_unseen().unwrap().contains("10 switches"));
        let seen = SchedSummary {
            switches: 10,
            wakeup_latencies_ns: vec![300],
            lost: 0,
        };
        assert_eq!(seen.wakeups_unseen(), None);
        assert_eq!(SchedSummary::default().wakeups_unseen(), None);
    }

    #[test]
    fn on_this_machine_the_tracer_sees_a_sleeping_thread_or_says_why_not() {
        let allowed = concbench_sys::allowed_cpus().unwrap();
        let cpu = *allowed.last().unwrap();
        let _pin = concbench_sys::AffinityGuard::pin(&[cpu]).unwrap();
        let unpinned = SchedTracer::open(&[]).err().expect("nothing to watch");
        assert!(unpinned.0.contains("not pinned"), "{unpinned}");
        // Every allowed CPU: the timer that wakes the sleeper may fire on another one (timer
        // migration), and its wake-up is recorded where it fires.
        let mut tracer = match SchedTracer::open(&allowed) {
            Ok(t) => t,
            Err(why) => {
                assert!(why.0.starts_with("scheduler tracepoints: "), "{why}");
                return;
            }
        };
        // SAFETY: gettid has no preconditions.
        let me = unsafe { libc::gettid() };
        tracer.start().unwrap();
        for _ in 0..10 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let (events, _lost) = tracer.stop().unwrap();
        let s = summarize(&events, &[me]);
        assert!(s.switches >= 10, "{s:?}");
        // The wake-ups are not seen on every CPU (this VM's second vCPU): the summary then
        // says so, which `wakeups_unseen_is_said_only_when_switches_were_seen` pins down.
        if let Some(why) = s.wakeups_unseen() {
            eprintln!("{why}");
        }
    }
}
