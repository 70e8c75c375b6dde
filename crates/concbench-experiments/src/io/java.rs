//! `io.read.java`: seed S4's own reader — Java's `BufferedInputStream.read()`, one byte per call
//! behind its default 8 KiB buffer — on the same data files and the same verified cold cache as
//! `io.read` (the Rust byte reader is `io.read` with `reader=byte`, `read_kib=8`).
//!
//! The Java probe (`probes/java/Probe.java`, experiment `read`) does the reading and times it
//! from the release of its readers to the last one's end; concbench makes the files, drops their
//! pages before each repetition and checks the drop, and reads the probe process's own device
//! reads (`/proc/<pid>/io`) to label each repetition cold, partial or warm, and its CPU time
//! (`/proc/<pid>/stat`) over the request's wall time: S4's guard withholds a one-thread reader
//! bound by its own CPU, the article's reader having run at 4% user CPU.

use super::cache::{make_cold, CacheJudge};
use super::config::{Cache, Config, Model, Reader, MIB};
use super::dataset::DataSet;
use super::dir::data_dir;
use super::metrics::Around;
use super::read::file_bytes;
use anyhow::{bail, Context, Result};
use concbench_core::{
    Host, Meta, Params, Placement, Plan, RunContext, RunOutput, SampleTimer, Staged, Stages,
    Support,
};
use concbench_measure::usage::{pid_usage, system_cpu};
use concbench_probes::build;
use concbench_probes::process::ProbeProcess;
use concbench_probes::protocol::{Request, VERSION};
use concbench_probes::toolchain::{discover, Runtime, Search};
use serde_json::Value;
use std::collections::BTreeMap;

const META: Meta = Meta {
    id: "io.read.java",
    family: "io",
    title: "S4's Java program: BufferedInputStream.read() byte by byte, one thread or a thread per file",
    op: "one configuration: every file read to its end by the Java probe (wall time from the \
         readers' release to the last one's end)",
    unit: "ms",
    expected_switches_per_op: None,
};

/// `BufferedInputStream`'s default buffer, which the seed used.
const JAVA_BUFFER_KIB: u64 = 8;
const SEED_FILE_MIB: u64 = 50;
/// The seed's headline: ten files, one thread in turn vs a thread each.
const SEED_FILES: usize = 10;
/// The seed's file counts ("then 10, 20, 50 and 100 threads", a file each) up to 20, each read
/// by a thread per file and by one thread in turn (S4's contrast: one thread's time per file
/// does not grow with the files, the threads' does). No further: at 50 and 100 files one round
/// of its byte-at-a-time reader takes 13-20 s here; concbench's own readers (`io.read`, the
/// same files) carry the sweep to 100.
const FILE_COUNTS: [usize; 2] = [SEED_FILES, 20];

/// The configurations: one thread in turn and a thread per file, over 10 and 20 files.
pub fn configs() -> Vec<Config> {
    let point = |model, files| Config {
        model,
        files,
        file_mib: SEED_FILE_MIB,
        read_kib: JAVA_BUFFER_KIB,
        reader: Reader::Byte,
        cache: Cache::Cold,
        quick: false,
    };
    FILE_COUNTS
        .iter()
        .flat_map(|&n| {
            [
                point(Model::OneThreadSequential, n),
                point(Model::Threads, n),
            ]
        })
        .collect()
}

pub struct JavaRead {
    cfg: Config,
    version: Option<String>,
    build_note: Option<String>,
    resident_before: f64,
    judge: CacheJudge,
    /// Whether `setup` created data files (see [`Staged::prepared_for_later`]).
    prepared: bool,
}

impl JavaRead {
    pub fn new(cfg: Config) -> Stages<Self> {
        Stages::new(Self {
            cfg,
            version: None,
            build_note: None,
            resident_before: 0.0,
            judge: CacheJudge::new(cfg.cache),
            prepared: false,
        })
    }

    fn request_args(&self, data: &DataSet) -> serde_json::Map<String, Value> {
        let paths: Vec<Value> = (0..self.cfg.files)
            .map(|i| data.path(i).to_string_lossy().into_owned().into())
            .collect();
        let mut args = serde_json::Map::new();
        args.insert("model".into(), self.cfg.model.as_str().into());
        args.insert("paths".into(), paths.into());
        args
    }
}

/// What `setup` prepared: the data files and the running Java probe that reads them.
pub struct Live {
    data: DataSet,
    probe: ProbeProcess,
}

/// The Java probe's build (made now on first use, `say` told before), and how to start it.
fn prepare_probe(say: &mut dyn FnMut(&str)) -> Result<build::Prepared> {
    let tc = discover(Runtime::Java, &Search::from_env())
        .map_err(|why| anyhow::anyhow!("java probe: {why}"))?;
    build::prepare(&build::Recipe::plain(&tc), &[], say)
}

/// Bytes a process fetched from the device so far (`/proc/<pid>/io` `read_bytes`; its exited
/// threads included), `None` without IO accounting.
fn process_read_bytes(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

/// The reader process's CPU time (user + system, every thread of the JVM) between two readings
/// over the wall time between them, as `io.read`'s `reader_cpu_share`; `None` when either
/// reading failed (the process gone) or no time passed.
fn reader_cpu_share(
    before: Option<concbench_core::Usage>,
    after: Option<concbench_core::Usage>,
    wall: std::time::Duration,
) -> Option<f64> {
    let (b, a) = (before?, after?);
    let wall_ns = wall.as_secs_f64() * 1e9;
    let cpu = (a.user_ns + a.sys_ns) - (b.user_ns + b.sys_ns);
    (wall_ns > 0.0).then(|| cpu.max(0.0) / wall_ns)
}

impl Staged for JavaRead {
    type State = Live;

    fn meta(&self) -> &Meta {
        &META
    }

    fn params(&self) -> Params {
        self.cfg.params().with("runtime", "java")
    }

    fn placement(&self) -> Placement {
        // As io.read and the seed: readers go wherever the scheduler puts them.
        Placement::Unpinned
    }

    fn in_quick(&self) -> bool {
        // A JVM per variant and seconds of byte-by-byte reading: full runs only.
        false
    }

    fn supported(&self, _host: &Host) -> Support {
        match discover(Runtime::Java, &Search::from_env()) {
            Ok(_) => Support::Yes,
            Err(why) => Support::No(format!("java probe: {why}")),
        }
    }

    /// A batch of whole files per sample: the round (a fresh worker) is the replicate.
    fn plan(&self, _ctx: &RunContext) -> Plan {
        Plan::Once
    }

    fn build_ahead(&self, say: &mut dyn FnMut(&str)) -> Result<()> {
        prepare_probe(say).map(|_| ())
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<Live> {
        let data = DataSet::new(&data_dir(ctx)?, file_bytes(&self.cfg, ctx));
        self.prepared = data
            .ensure(self.cfg.files, &ctx.cancel)
            .context("creating the data files")?;
        let built = prepare_probe(&mut |_| {})?;
        self.build_note = built.note;
        let stderr = ctx
            .scratch_dir
            .join(format!("probe-java-read-{}.stderr", std::process::id()));
        let probe = ProbeProcess::start(
            "the java probe",
            &built.launch,
            &ctx.cpus,
            stderr,
            &ctx.cancel,
        )?;
        self.version = Some(probe.hello.version.clone());
        Ok(Live { data, probe })
    }

    fn before_sample(&mut self, live: &mut Live, _ctx: &RunContext) -> Result<()> {
        let files = live.data.open(self.cfg.files)?;
        self.resident_before = make_cold(&files)?;
        Ok(())
    }

    fn run(
        &mut self,
        live: &mut Live,
        ctx: &RunContext,
        _iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        let args = self.request_args(&live.data);
        let expected = self.cfg.files as u64 * live.data.file_bytes();
        let probe = &mut live.probe;
        let pid = probe.pid().context("the java probe is not running")?;
        let request = Request {
            v: VERSION,
            id: "read",
            iterations: 1,
            args: &args,
        };
        let cpu0 = system_cpu();
        let device0 = process_read_bytes(pid);
        let reader0 = pid_usage(pid);
        let begun = std::time::Instant::now();
        timer.restart();
        let answer = probe.request(&request, &ctx.cancel)?;
        timer.stop();
        let wall = begun.elapsed();
        let reader1 = pid_usage(pid);
        let device1 = process_read_bytes(pid);
        let cpu1 = system_cpu();
        let bytes = answer.metrics.get("bytes").copied().unwrap_or(0.0) as u64;
        if bytes != expected {
            bail!("the java probe read {bytes} bytes where the files hold {expected}");
        }
        let around = Around {
            device_bytes: device1.zip(device0).map(|(b, a)| b.saturating_sub(a)),
            iowait_share: cpu1.zip(cpu0).map(|(b, a)| b.iowait_share_since(&a)),
            resident_before: self.resident_before,
            // The device facts are io.read's (same files, same device); the Java reader's rows
            // carry the bytes its own process fetched.
            disk: None,
            rotational: None,
            switches_per_s: None,
        };
        let wall_ms = answer.ns_per_op / 1e6;
        let mut out = RunOutput {
            value: Some(wall_ms),
            extra_usage: answer.usage.as_ref().map(|u| u.scaled(1.0)),
            warnings: self.build_note.iter().cloned().collect(),
            ..RunOutput::default()
        };
        if wall_ms > 0.0 {
            out = out.metric("mib_per_s", bytes as f64 / MIB as f64 / (wall_ms / 1e3));
        }
        out = out.metric("resident_share_before", around.resident_before);
        if let Some(share) = reader_cpu_share(reader0, reader1, wall) {
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
        self.judge
            .judge(ctx, &around, expected, wall_ms, &mut out)?;
        Ok(out)
    }

    fn info(&self) -> BTreeMap<String, String> {
        concbench_probes::runtime_info(self.version.as_deref())
    }

    fn prepared_for_later(&self) -> bool {
        self.prepared
    }

    fn teardown(&mut self, live: Live, _ctx: &RunContext) -> Result<()> {
        live.probe.stop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_headline_and_the_start_of_its_thread_sweep_with_its_one_thread_control() {
        let c = configs();
        for model in [Model::OneThreadSequential, Model::Threads] {
            let files: Vec<usize> = c
                .iter()
                .filter(|c| c.model == model)
                .map(|c| c.files)
                .collect();
            assert_eq!(files, [10, 20], "{model:?}");
        }
        assert!(c
            .iter()
            .all(|c| c.reader == Reader::Byte && c.read_kib == 8 && c.file_mib == 50));
    }

    #[test]
    fn the_readers_cpu_share_is_its_cpu_time_over_the_wall() {
        let at = |user_ms: f64, sys_ms: f64| concbench_core::Usage {
            user_ns: user_ms * 1e6,
            sys_ns: sys_ms * 1e6,
            ..concbench_core::Usage::default()
        };
        let s = std::time::Duration::from_secs(2);
        // 1.5 s user + 0.3 s system over 2 s: a CPU-bound reader.
        let share = reader_cpu_share(Some(at(100.0, 50.0)), Some(at(1600.0, 350.0)), s);
        assert!((share.unwrap() - 0.9).abs() < 1e-9, "{share:?}");
        // The article's reader: 4% of the wall on the CPU.
        let share = reader_cpu_share(Some(at(0.0, 0.0)), Some(at(60.0, 20.0)), s);
        assert!((share.unwrap() - 0.04).abs() < 1e-9, "{share:?}");
        assert_eq!(reader_cpu_share(None, Some(at(1.0, 1.0)), s), None);
        assert_eq!(
            reader_cpu_share(Some(at(0.0, 0.0)), Some(at(1.0, 1.0)), Default::default()),
            None
        );
    }

    #[test]
    fn reads_a_process_io_counter() {
        let own = process_read_bytes(std::process::id() as i32);
        // Kernels without task IO accounting have no /proc/<pid>/io: then None, never a zero.
        if std::path::Path::new("/proc/self/io").exists() {
            assert!(own.is_some());
        }
        assert_eq!(process_read_bytes(-1), None);
    }
}
