//! What one repetition yields: when the readers started and ended, and what each cost.
//!
//! Times are offsets from a reference instant taken before any reader exists, so forked
//! readers can report theirs too (CLOCK_MONOTONIC is the same clock in every process).

use super::config::Config;
use super::reader::read_to_end;
use concbench_core::{CancelToken, Usage};
use concbench_measure::clock;
use concbench_measure::usage::{device_read_bytes, thread_usage, IoScope};
use std::fs::File;
use std::time::{Duration, Instant};

/// What every model is handed: the open files (each at offset 0), the variant, and Ctrl-C.
pub struct Job<'a> {
    pub files: Vec<File>,
    pub cfg: &'a Config,
    pub cancel: &'a CancelToken,
}

/// One reader's account: when it finished, its CPU and switches, and its device reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WorkerReport {
    pub end: Duration,
    pub usage: Usage,
    /// Bytes this reader caused to be fetched from the device; `None` without IO accounting.
    pub device_bytes: Option<u64>,
    /// Bytes delivered to the application.
    pub bytes: u64,
}

/// One repetition.
#[derive(Debug, Clone, Default)]
pub struct Sample {
    /// When the readers were released.
    pub start: Duration,
    /// When each concurrently read file (or the single sequential reader) finished.
    pub ends: Vec<Duration>,
    /// One report per OS reader (thread or process).
    pub workers: Vec<WorkerReport>,
}

impl Sample {
    pub fn bytes(&self) -> u64 {
        self.workers.iter().map(|w| w.bytes).sum()
    }

    /// Wall time from the release to the last reader's end.
    pub fn wall(&self) -> Duration {
        self.ends
            .iter()
            .max()
            .map_or(Duration::ZERO, |e| e.saturating_sub(self.start))
    }
}

/// Time since `t0` (a reference instant every reader shares).
pub fn since(t0: Instant) -> Duration {
    clock::now().saturating_duration_since(t0)
}

/// Read `files` one after the other on the calling thread, accounting it as one reader.
pub fn read_files_measured(
    files: &mut [File],
    cfg: &Config,
    t0: Instant,
    cancel: &CancelToken,
) -> std::io::Result<WorkerReport> {
    let usage0 = thread_usage();
    let device0 = device_read_bytes(IoScope::Thread);
    let mut bytes = 0;
    for f in files.iter_mut() {
        bytes += read_to_end(f, cfg.reader, cfg.read_kib, cancel)?;
    }
    let end = since(t0);
    let device = device_read_bytes(IoScope::Thread);
    Ok(WorkerReport {
        end,
        usage: thread_usage().since(&usage0),
        device_bytes: device.zip(device0).map(|(b, a)| b.saturating_sub(a)),
        bytes,
    })
}

impl WorkerReport {
    /// A fixed-size record, for a forked reader to send through a pipe in one atomic write.
    pub fn to_record(self) -> [u8; RECORD_BYTES] {
        let fields = [
            self.end.as_nanos() as u64,
            self.usage.user_ns.to_bits(),
            self.usage.sys_ns.to_bits(),
            self.usage.voluntary_switches.to_bits(),
            self.usage.involuntary_switches.to_bits(),
            self.device_bytes.unwrap_or(u64::MAX),
            self.bytes,
        ];
        let mut out = [0u8; RECORD_BYTES];
        for (chunk, v) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_record(rec: &[u8; RECORD_BYTES]) -> Self {
        let f: Vec<u64> = rec
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunk")))
            .collect();
        WorkerReport {
            end: Duration::from_nanos(f[0]),
            usage: Usage {
                user_ns: f64::from_bits(f[1]),
                sys_ns: f64::from_bits(f[2]),
                voluntary_switches: f64::from_bits(f[3]),
                involuntary_switches: f64::from_bits(f[4]),
                ..Usage::default()
            },
            device_bytes: (f[5] != u64::MAX).then_some(f[5]),
            bytes: f[6],
        }
    }
}

/// Size of a [`WorkerReport`] record: far below PIPE_BUF, so one write is atomic.
pub const RECORD_BYTES: usize = 7 * 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips() {
        let w = WorkerReport {
            end: Duration::from_nanos(123_456_789),
            usage: Usage {
                user_ns: 1.5e6,
                sys_ns: 2.5e6,
                voluntary_switches: 3.0,
                involuntary_switches: 4.0,
                ..Usage::default()
            },
            device_bytes: Some(42),
            bytes: 7,
        };
        assert_eq!(WorkerReport::from_record(&w.to_record()), w);
        let none = WorkerReport {
            device_bytes: None,
            ..w
        };
        assert_eq!(WorkerReport::from_record(&none.to_record()), none);
    }

    #[test]
    fn wall_is_release_to_last_end() {
        let s = Sample {
            start: Duration::from_millis(10),
            ends: vec![Duration::from_millis(30), Duration::from_millis(50)],
            workers: vec![],
        };
        assert_eq!(s.wall(), Duration::from_millis(40));
    }
}
