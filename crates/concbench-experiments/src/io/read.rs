//! `io.read`: read N files to their end — from one thread, N threads, N processes or one
//! io_uring — from a cold page cache that is verified, not assumed (seed S4).
//!
//! Before each repetition the files' pages are dropped (`posix_fadvise(POSIX_FADV_DONTNEED)`,
//! no root needed) and the drop is checked (`cachestat`, else `mincore`); after it, the bytes the
//! process really fetched from the device (`/proc/self/io` `read_bytes`, reaped children
//! included) label the repetition cold, partial or warm. A cold variant whose repetition was
//! warm fails instead of reporting a memory-speed figure as a disk one.

use super::cache::{make_cold, make_warm, CacheJudge};
use super::config::{Cache, Config, Model, Reader, MIB};
use super::dataset::DataSet;
use super::device::{machine_switches, Device};
use super::dir::data_dir;
use super::metrics::{output, Around};
use super::sample::{Job, Sample};
use super::{processes, sequential, threads, uring};
use anyhow::{bail, Context, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support,
};
use concbench_measure::usage::{device_read_bytes, system_cpu, IoScope};

const META: Meta = Meta {
    id: "io.read",
    family: "io",
    title: "S4: read N files to the end with one thread, N threads, N processes or io_uring",
    op: "one configuration: every file read to its end (wall time from the start barrier to the \
         last reader's end)",
    unit: "ms",
    expected_switches_per_op: None,
};

/// Smoke runs prove the code paths on tiny files.
pub(super) const SMOKE_FILE_BYTES: u64 = 64 << 10;

/// The size of each data file in this run (tiny in smoke runs).
pub(super) fn file_bytes(cfg: &Config, ctx: &RunContext) -> u64 {
    if ctx.smoke {
        SMOKE_FILE_BYTES
    } else {
        cfg.file_mib * MIB
    }
}
/// Descriptors and processes kept in reserve beyond one per file.
const HEADROOM: u64 = 64;

pub struct Read {
    cfg: Config,
    /// The block device under the data files, when its file system has one.
    device: Option<Device>,
    /// A smoke run on a file system without direct IO (tmpfs) reads buffered instead, and says so.
    direct_refused: Option<String>,
    resident_before: f64,
    judge: CacheJudge,
    /// Whether `setup` created data files (see [`Staged::prepared_for_later`]).
    prepared: bool,
}

impl Read {
    pub fn new(cfg: Config) -> Stages<Self> {
        Stages::new(Self {
            cfg,
            device: None,
            direct_refused: None,
            resident_before: 0.0,
            judge: CacheJudge::new(cfg.cache),
            prepared: false,
        })
    }

    /// Run the configured model on freshly opened files (each starts at offset 0).
    fn read_once(
        &self,
        data: &DataSet,
        ctx: &RunContext,
        timer: &mut dyn SampleTimer,
    ) -> Result<Sample> {
        let mut cfg = self.cfg;
        if self.direct_refused.is_some() {
            cfg.reader = Reader::Block;
        }
        let job = Job {
            files: data.open(self.cfg.files)?,
            cfg: &cfg,
            cancel: &ctx.cancel,
        };
        match self.cfg.model {
            Model::OneThreadSequential => sequential::run(job, timer),
            Model::Threads => threads::run(job, timer),
            Model::Processes => processes::run(job, timer),
            Model::IoUring => uring::run(job, timer),
        }
    }
}

impl Staged for Read {
    /// The data files (removed with their directory at the end of the run: see `dir.rs`).
    type State = DataSet;

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        self.cfg.params()
    }

    fn placement(&self) -> Placement {
        // Readers go wherever the scheduler puts them, as in the seed (24 cores, no pinning).
        Placement::Unpinned
    }

    fn in_quick(&self) -> bool {
        self.cfg.quick
    }

    fn supported(&self, host: &Host) -> Support {
        let needed = self.cfg.files as u64 + HEADROOM;
        if self.cfg.model == Model::IoUring {
            if let Err(reason) = uring::probe() {
                return Support::No(reason);
            }
        }
        if let Some(limit) = host.rlimit_nofile.filter(|l| *l < needed) {
            return Support::No(format!(
                "RLIMIT_NOFILE is {limit}, {needed} descriptors are needed: raise it (ulimit -n)"
            ));
        }
        if self.cfg.model == Model::Processes {
            if let Some(limit) = host.rlimit_nproc.filter(|l| *l < needed) {
                return Support::No(format!(
                    "RLIMIT_NPROC is {limit}, {needed} processes are needed: raise it (ulimit -u)"
                ));
            }
        }
        let free = host.memory_available_kib * 1024;
        if self.cfg.cache == Cache::Warm && free > 0 && self.cfg.total_bytes() > free / 2 {
            return Support::No(format!(
                "a warm read of {} MiB needs that much page cache, but only {} MiB of memory are \
                 available",
                self.cfg.total_bytes() / MIB,
                free / MIB
            ));
        }
        Support::Yes
    }

    /// A batch of whole files per sample: the round (a fresh worker) is the replicate; a smoke
    /// run takes its usual samples of one batch.
    fn plan(&self, ctx: &RunContext) -> Plan {
        if ctx.smoke {
            Plan::Fixed(1)
        } else {
            Plan::Once
        }
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<DataSet> {
        let dir = data_dir(ctx)?;
        let set = DataSet::new(&dir, file_bytes(&self.cfg, ctx));
        self.prepared = set
            .ensure(self.cfg.files, &ctx.cancel)
            .context("creating the data files")?;
        self.device = Device::of(&dir);
        if self.cfg.reader == Reader::Direct {
            let first = set.open(1)?;
            if let Err(e) = super::direct::probe(&first[0]) {
                if !ctx.smoke {
                    return Err(e).context("direct IO");
                }
                // Smoke runs prove the code paths on whatever scratch directory there is.
                self.direct_refused = Some(format!("smoke run read buffered: {e}"));
            }
        }
        Ok(set)
    }

    /// The device's facts, or why there are none.
    fn info(&self) -> std::collections::BTreeMap<String, String> {
        match &self.device {
            Some(d) => d.info(),
            None => [(
                "device".to_string(),
                "none found: the data directory's file system has no block device in sysfs"
                    .to_string(),
            )]
            .into(),
        }
    }

    fn prepared_for_later(&self) -> bool {
        self.prepared
    }

    fn before_sample(&mut self, data: &mut DataSet, _ctx: &RunContext) -> Result<()> {
        let mut files = data.open(self.cfg.files)?;
        self.resident_before = match self.cfg.cache {
            Cache::Cold => make_cold(&files)?,
            Cache::Warm => make_warm(&mut files)?,
        };
        Ok(())
    }

    fn run(
        &mut self,
        data: &mut DataSet,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let cpu0 = system_cpu();
        let device0 = device_read_bytes(IoScope::Process);
        let disk0 = self.device.as_ref().and_then(Device::reads);
        let switches0 = machine_switches();
        let t0 = std::time::Instant::now();
        let sample = self.read_once(data, ctx, timer)?;
        let window_s = t0.elapsed().as_secs_f64();
        let switches1 = machine_switches();
        let disk1 = self.device.as_ref().and_then(Device::reads);
        let device1 = device_read_bytes(IoScope::Process);
        let cpu1 = system_cpu();
        let expected = self.cfg.files as u64 * data.file_bytes();
        if sample.bytes() != expected {
            bail!(
                "read {} bytes where the files hold {expected}: a file changed during the run",
                sample.bytes()
            );
        }
        let around = Around {
            device_bytes: device1.zip(device0).map(|(b, a)| b.saturating_sub(a)),
            iowait_share: cpu1.zip(cpu0).map(|(b, a)| b.iowait_share_since(&a)),
            resident_before: self.resident_before,
            disk: disk1.zip(disk0).map(|(b, a)| b.since(&a)),
            rotational: self.device.as_ref().and_then(|d| d.rotational),
            switches_per_s: switches1
                .zip(switches0)
                .filter(|_| window_s > 0.0)
                .map(|(b, a)| b.saturating_sub(a) as f64 / window_s),
        };
        let mut out = output(&sample, &around, self.cfg.model.concurrent());
        out.warnings.extend(self.direct_refused.clone());
        let wall_ms = out.value.unwrap_or(0.0);
        self.judge
            .judge(ctx, &around, expected, wall_ms, &mut out)?;
        Ok(out)
    }
}
