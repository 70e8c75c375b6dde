//! The block device behind the data files, and what it did during a repetition — so a verdict on
//! "reading a disk" can say whether a disk was read, and what kind.
//!
//! Facts (once per variant, from sysfs): whether the device rotates (seeks cost milliseconds),
//! its IO scheduler and its read-ahead. Per repetition (from `/proc/diskstats`): the read
//! requests the device completed, the bytes it delivered, and the milliseconds it spent on them —
//! the average service time per request, and the MiB per second of request time (one request at
//! a time, the device's streaming rate: above what a disk that seeks can stream, a cache served
//! the reads). And, for the whole machine like the seed's `vmstat`,
//! the context switches per second (`/proc/stat` `ctxt`).
//!
//! A file system with no block device of its own (overlay on some kernels, a network or FUSE
//! file system) has no facts: the counters are then absent, never zero.

use procfs::{Current, CurrentSI};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Sector size in `/proc/diskstats` (always 512 bytes, whatever the device's own).
const SECTOR_BYTES: u64 = 512;

/// The device a directory's files live on.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// `major:minor` of the device holding the files (a partition, or the disk itself).
    pub major: i32,
    pub minor: i32,
    /// The whole disk's name (`vda`, `nvme0n1`).
    pub disk: String,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub read_ahead_kib: Option<u64>,
}

impl Device {
    /// The device under `dir`, or `None` when its file system has no block device in sysfs.
    pub fn of(dir: &Path) -> Option<Device> {
        let dev = std::fs::metadata(dir).ok()?.dev();
        let (major, minor) = (rustix::fs::major(dev) as i32, rustix::fs::minor(dev) as i32);
        let node = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
        Some(Self::from_sysfs(major, minor, &node))
    }

    /// The facts from the device's sysfs directory `node`; a partition's are its disk's.
    pub fn from_sysfs(major: i32, minor: i32, node: &Path) -> Device {
        let disk_dir: PathBuf = if node.join("partition").exists() {
            node.parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| node.to_path_buf())
        } else {
            node.to_path_buf()
        };
        let read = |f: &str| std::fs::read_to_string(disk_dir.join("queue").join(f)).ok();
        Device {
            major,
            minor,
            disk: disk_dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            rotational: read("rotational").map(|s| s.trim() == "1"),
            scheduler: read("scheduler").and_then(|s| active_scheduler(&s)),
            read_ahead_kib: read("read_ahead_kb").and_then(|s| s.trim().parse().ok()),
        }
    }

    /// The facts as the result's `info` (strings, shown, never matched on).
    pub fn info(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        out.insert(
            "device".into(),
            format!("{} ({}:{})", self.disk, self.major, self.minor),
        );
        if let Some(r) = self.rotational {
            out.insert("device_rotational".into(), (r as u8).to_string());
        }
        if let Some(s) = &self.scheduler {
            out.insert("device_scheduler".into(), s.clone());
        }
        if let Some(k) = self.read_ahead_kib {
            out.insert("device_read_ahead_kib".into(), k.to_string());
        }
        out
    }

    /// This device's read counters now.
    pub fn reads(&self) -> Option<DiskReads> {
        let all = procfs::DiskStats::current().ok()?.0;
        let s = all
            .iter()
            .find(|d| d.major == self.major && d.minor == self.minor)?;
        Some(DiskReads {
            requests: s.reads,
            bytes: s.sectors_read * SECTOR_BYTES,
            ms: s.time_reading,
        })
    }
}

/// The bracketed entry of a sysfs `scheduler` file ("none [mq-deadline] kyber" -> mq-deadline).
pub fn active_scheduler(line: &str) -> Option<String> {
    let start = line.find('[')? + 1;
    let end = start + line[start..].find(']')?;
    Some(line[start..end].to_string())
}

/// A device's cumulative read counters (`/proc/diskstats`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DiskReads {
    pub requests: u64,
    pub bytes: u64,
    pub ms: u64,
}

impl DiskReads {
    /// The counters' growth since `earlier`.
    pub fn since(&self, earlier: &DiskReads) -> DiskReads {
        DiskReads {
            requests: self.requests.saturating_sub(earlier.requests),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            ms: self.ms.saturating_sub(earlier.ms),
        }
    }

    /// Average milliseconds the device spent per read request (`None` without a request).
    pub fn ms_per_request(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.ms as f64 / self.requests as f64)
    }

    /// MiB delivered per second of request time: a request at a time, the device's streaming
    /// rate (a disk that seeks streams 100-300 MB/s at best; memory, several GB/s).
    pub fn mib_per_request_second(&self) -> Option<f64> {
        (self.ms > 0).then(|| self.bytes as f64 / (1u64 << 20) as f64 / (self.ms as f64 / 1e3))
    }
}

/// The machine's context switches so far (`/proc/stat` `ctxt`).
pub fn machine_switches() -> Option<u64> {
    Some(procfs::KernelStats::current().ok()?.ctxt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_active_scheduler_is_the_bracketed_one() {
        assert_eq!(
            active_scheduler("none [mq-deadline] kyber bfq \n").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(
            active_scheduler("[none] mq-deadline").as_deref(),
            Some("none")
        );
        assert_eq!(active_scheduler("none"), None);
    }

    #[test]
    fn a_partitions_facts_are_its_disks() {
        // A recorded sysfs layout: vda rotates not, with a partition vda1.
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("vda");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::write(disk.join("queue/rotational"), "0\n").unwrap();
        std::fs::write(disk.join("queue/scheduler"), "none [mq-deadline] kyber\n").unwrap();
        std::fs::write(disk.join("queue/read_ahead_kb"), "128\n").unwrap();
        let part = disk.join("vda1");
        std::fs::create_dir_all(&part).unwrap();
        std::fs::write(part.join("partition"), "1\n").unwrap();
        let d = Device::from_sysfs(254, 1, &part);
        assert_eq!(d.disk, "vda");
        assert_eq!(d.rotational, Some(false));
        assert_eq!(d.scheduler.as_deref(), Some("mq-deadline"));
        assert_eq!(d.read_ahead_kib, Some(128));
        assert_eq!(d.info()["device_rotational"], "0");
        let whole = Device::from_sysfs(254, 0, &disk);
        assert_eq!(whole.disk, "vda");
    }

    #[test]
    fn deltas_and_service_time() {
        let a = DiskReads {
            requests: 10,
            bytes: 4096,
            ms: 5,
        };
        let b = DiskReads {
            requests: 30,
            bytes: 4096 + (1 << 20),
            ms: 45,
        };
        let d = b.since(&a);
        assert_eq!(d.requests, 20);
        assert_eq!(d.ms_per_request(), Some(2.0));
        assert_eq!(d.mib_per_request_second(), Some(1.0 / 0.04));
        assert_eq!(DiskReads::default().ms_per_request(), None);
    }

    #[test]
    fn the_device_of_this_machines_temp_dir_is_found_or_absent_never_invented() {
        let dir = tempfile::tempdir().unwrap();
        if let Some(d) = Device::of(dir.path()) {
            assert!(!d.disk.is_empty());
            assert!(
                d.reads().is_some(),
                "{d:?} has a sysfs node but no diskstats line"
            );
        }
        assert!(machine_switches().is_some_and(|n| n > 0));
    }
}
