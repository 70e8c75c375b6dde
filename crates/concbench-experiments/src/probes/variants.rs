//! The probe variants: which runtime, which probe experiment, with which arguments, and how the
//! harness sizes each sample. Every argument sent to the probe is also a recorded param, so a
//! result says exactly what was asked.

use concbench_core::{Meta, Placement, Plan, RunContext};
use concbench_probes::toolchain::Runtime;

/// A probe argument value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    Str(&'static str),
    Int(i64),
}

/// How many operations one sample performs.
#[derive(Debug, Clone, Copy)]
pub enum Size {
    /// Calibrated by the harness to the target sample time.
    Calibrated,
    /// A fixed batch: `full` operations, `quick` with `--quick`, `smoke` in tests.
    Batch { full: u64, quick: u64, smoke: u64 },
}

impl Size {
    pub fn plan(self, ctx: &RunContext) -> Plan {
        match self {
            Size::Calibrated => Plan::Calibrated,
            Size::Batch { full, quick, smoke } => Plan::Fixed(if ctx.smoke {
                smoke
            } else if ctx.quick {
                quick
            } else {
                full
            }),
        }
    }

    /// Operations of a small untimed warm-up batch (the smoke size).
    pub fn warmup_batch(self) -> Option<u64> {
        match self {
            Size::Calibrated => None,
            Size::Batch { smoke, .. } => Some(smoke),
        }
    }
}

/// One probe variant.
#[derive(Debug, Clone)]
pub struct Variant {
    pub runtime: Runtime,
    pub meta: Meta,
    /// The experiment id inside the probe.
    pub what: &'static str,
    pub args: Vec<(&'static str, Arg)>,
    pub placement: Placement,
    pub size: Size,
    pub in_quick: bool,
    /// The fewest operations a calibrated sample may have: a job split over workers needs
    /// enough chunks that the workers' wake-ups are a small part of it.
    pub min_iterations: u64,
    /// Runtime options for this variant's probe process (JVM flags).
    pub flags: &'static [&'static str],
}

/// Long batches (a second or more per sample): one per round (a fresh worker and probe process);
/// the rounds are the replicates.
pub const BATCH_REPETITIONS: usize = 1;

const fn meta(
    id: &'static str,
    title: &'static str,
    op: &'static str,
    unit: &'static str,
    switches: Option<f64>,
) -> Meta {
    Meta {
        id,
        family: "probes",
        title,
        op,
        unit,
        expected_switches_per_op: switches,
    }
}

fn v(
    runtime: Runtime,
    meta: Meta,
    what: &'static str,
    args: &[(&'static str, Arg)],
    placement: Placement,
    size: Size,
) -> Variant {
    Variant {
        runtime,
        meta,
        what,
        args: args.to_vec(),
        placement,
        size,
        in_quick: true,
        min_iterations: 1,
        flags: &[],
    }
}

use Arg::{Int, Str};
use Placement::{CrossCpu, SameCpu};
use Runtime::{CSharp, Go, Java, Python, C};
use Size::Calibrated;

/// A fixed batch of `full` operations (`quick` with --quick, `smoke` in tests).
const fn batch(full: u64, quick: u64, smoke: u64) -> Size {
    Size::Batch { full, quick, smoke }
}

/// The seed's 100,000 creations, spread over a full run's rounds as `create.*_100k` does.
const SEED_100K: Size = batch(crate::create::SEED_UNITS_PER_ROUND, 10_000, 200);

fn go() -> Vec<Variant> {
    const CREATE: Meta = meta(
        "probes.go.create",
        "Go: goroutine create + join",
        "go func(){ wg.Done() }() then wg.Wait()",
        "ns",
        None,
    );
    const PINGPONG: Meta = meta(
        "probes.go.pingpong",
        "Go: goroutine ping-pong over unbuffered channels",
        "one one-way hand-over of a value on an unbuffered channel (a round trip is two)",
        "ns",
        None,
    );
    const LOCKED: Meta = meta(
        "probes.go.pingpong_locked",
        "Go: ping-pong between goroutines locked to OS threads",
        "one one-way hand-over between goroutines pinned by runtime.LockOSThread",
        "ns",
        Some(1.0),
    );
    const MEMORY: Meta = meta(
        "probes.go.memory",
        "Go: memory per blocked goroutine (100,000 at once)",
        "one goroutine blocked on a channel: stack in use + live heap, by the Go runtime",
        "KiB",
        None,
    );
    vec![
        v(
            Go,
            CREATE,
            "create",
            &[("gomaxprocs", Int(1))],
            SameCpu,
            Calibrated,
        ),
        v(
            Go,
            PINGPONG,
            "pingpong",
            &[("gomaxprocs", Int(1))],
            SameCpu,
            Calibrated,
        ),
        v(
            Go,
            PINGPONG,
            "pingpong",
            &[("gomaxprocs", Int(2))],
            CrossCpu,
            Calibrated,
        ),
        v(
            Go,
            LOCKED,
            "pingpong_locked",
            &[("gomaxprocs", Int(1))],
            SameCpu,
            Calibrated,
        ),
        v(
            Go,
            MEMORY,
            "memory",
            &[("batch", Str("100k"))],
            SameCpu,
            batch(100_000, 20_000, 1_000),
        ),
    ]
}

/// The JVM for the memory variant: a fixed, pre-touched heap, so heap growth does not show in
/// RSS and RSS growth is native memory only.
const JAVA_MEMORY_FLAGS: &[&str] = &["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"];

fn java_kind(kind: &'static str) -> Vec<Variant> {
    const CREATE: Meta = meta(
        "probes.java.create",
        "Java: thread create + start + join",
        "factory.newThread(empty).start(); join()",
        "ns",
        None,
    );
    const PINGPONG_PLATFORM: Meta = meta(
        "probes.java.pingpong",
        "Java: thread ping-pong with park/unpark",
        "one one-way hand-over of a turn with LockSupport.unpark + park (a round trip is two)",
        "ns",
        Some(1.0),
    );
    const PINGPONG_VIRTUAL: Meta = Meta {
        expected_switches_per_op: None,
        ..PINGPONG_PLATFORM
    };
    const THREAD_100K: Meta = meta(
        "probes.java.thread_100k",
        "S0.create's Java program: 100,000 threads created, started and joined",
        "one thread created, started and joined, within a batch",
        "ns",
        None,
    );
    const PRINT: Meta = meta(
        "probes.java.print",
        "S0.scale's Java program: 1000 threads x 1000 prints",
        "one line: printf to a System.out-like stream (on /dev/null) + a write to a log file",
        "ns",
        None,
    );
    const MEMORY: Meta = meta(
        "probes.java.memory",
        "Java: memory per parked thread (1000 at once)",
        "one parked thread: RSS growth (native) + live heap growth",
        "KiB",
        None,
    );
    let pingpong = if kind == "platform" {
        PINGPONG_PLATFORM
    } else {
        PINGPONG_VIRTUAL
    };
    let kind_arg = [("thread_kind", Str(kind))];
    let print_args = [("thread_kind", Str(kind)), ("workers", Int(1000))];
    let batch_args = [("thread_kind", Str(kind)), ("batch", Str("100k"))];
    let memory_args = [("thread_kind", Str(kind)), ("batch", Str("1000"))];
    vec![
        v(Java, CREATE, "create", &kind_arg, SameCpu, Calibrated),
        v(Java, pingpong, "pingpong", &kind_arg, SameCpu, Calibrated),
        v(Java, THREAD_100K, "create", &batch_args, SameCpu, SEED_100K),
        // One op is one line; 1000 threads print `iterations / 1000` lines each.
        v(
            Java,
            PRINT,
            "print",
            &print_args,
            SameCpu,
            batch(1_000_000, 10_000, 1_000),
        ),
        Variant {
            flags: JAVA_MEMORY_FLAGS,
            ..v(
                Java,
                MEMORY,
                "memory",
                &memory_args,
                SameCpu,
                batch(1_000, 1_000, 50),
            )
        },
    ]
}

fn python() -> Vec<Variant> {
    const CREATE: Meta = meta(
        "probes.python.create",
        "Python: create + join (threading, multiprocessing, asyncio)",
        "Thread(target=noop).start(); join() | fork-context Process ... | await create_task(noop())",
        "ns",
        None,
    );
    const PINGPONG_OS: Meta = meta(
        "probes.python.pingpong",
        "Python: ping-pong (threads over SimpleQueue, processes over pipes, asyncio queues)",
        "one one-way hand-over of a token (a round trip is two)",
        "ns",
        Some(1.0),
    );
    const PINGPONG_ASYNC: Meta = Meta {
        expected_switches_per_op: None,
        ..PINGPONG_OS
    };
    const CPU: Meta = meta(
        "probes.python.cpu",
        "Python: a CPU-bound job over threads or processes (the GIL)",
        "one chunk of 1000 pure-Python additions, the job split over `workers` units",
        "ns",
        None,
    );
    let create = |model| {
        v(
            Python,
            CREATE,
            "create",
            &[("model", Str(model))],
            SameCpu,
            Calibrated,
        )
    };
    let pingpong = |meta, model| {
        v(
            Python,
            meta,
            "pingpong",
            &[("model", Str(model))],
            SameCpu,
            Calibrated,
        )
    };
    // 200 chunks (~7 ms of work): waking the workers on two CPUs stays a small part of it.
    let cpu = |model, workers| Variant {
        min_iterations: 200,
        ..v(
            Python,
            CPU,
            "cpu",
            &[("model", Str(model)), ("workers", Int(workers))],
            CrossCpu,
            Calibrated,
        )
    };
    vec![
        create("thread"),
        create("process"),
        create("asyncio"),
        pingpong(PINGPONG_OS, "thread"),
        pingpong(PINGPONG_OS, "process"),
        pingpong(PINGPONG_ASYNC, "asyncio"),
        cpu("thread", 1),
        cpu("thread", 2),
        cpu("process", 1),
        cpu("process", 2),
    ]
}

fn c() -> Vec<Variant> {
    const PRINT: Meta = meta(
        "probes.c.print",
        "S0.print's fork.c / thread.c: 255 workers each printf COUNT lines",
        "one batch: fork or pthread_create 255 workers, each printf COUNT lines, wait for all",
        "s",
        None,
    );
    const PROCESS_100K: Meta = meta(
        "probes.c.process_100k",
        "S0.create's forkcreat.c: 100,000 forks, reaped by a SIGCHLD handler",
        "one fork(), child exit(0), reaped in a SIGCHLD handler, within a batch",
        "ns",
        None,
    );
    const THREAD_100K: Meta = meta(
        "probes.c.thread_100k",
        "S0.create's pthreadcreat.c: 100,000 threads created and joined",
        "one pthread_create of an empty function + pthread_join, within a batch",
        "ns",
        None,
    );
    const PIPE_TOKEN: Meta = meta(
        "probes.c.pipe_token",
        "S3's pipe token: two processes pass a 1-byte token through two pipes",
        "one one-way pass of the token: write, the partner wakes and reads (a round trip is two)",
        "ns",
        Some(1.0),
    );
    const RING: Meta = meta(
        "probes.c.ring",
        "S3's ring: 20 threads pass a 10-byte token around a ring of pipes",
        "one hop: a thread reads the token from its pipe and writes it to the next",
        "ns",
        Some(1.0),
    );
    let print = |model, count, quick| {
        let args = [
            ("model", Str(model)),
            ("workers", Int(255)),
            ("count", Int(count)),
            ("line_bytes", Int(12)),
            ("sink", Str("devnull")),
        ];
        let one_batch = batch(1, 1, 1);
        Variant {
            in_quick: quick,
            ..v(C, PRINT, "print", &args, SameCpu, one_batch)
        }
    };
    // fork.c / thread.c at P=255, every COUNT of the seed's table (S0.print: which model leads
    // at each end of the sweep; S0.print.same: the same speed at each COUNT), so the article's
    // own program decides wherever the workload stand-in measures: --quick's 10 to 5000 too.
    let prints = PRINT_COUNTS.iter().flat_map(|&(count, quick)| {
        [
            print("process", count, quick),
            print("thread", count, quick),
        ]
    });
    prints
        .chain([
            v(
                C,
                PROCESS_100K,
                "process_100k",
                &[("batch", Str("100k"))],
                SameCpu,
                // Forks cost ~0.1-0.2 ms: 1,000 keep a quick round near a tenth of a second.
                batch(crate::create::SEED_UNITS_PER_ROUND, 1_000, 100),
            ),
            v(
                C,
                THREAD_100K,
                "thread_100k",
                &[("batch", Str("100k"))],
                SameCpu,
                SEED_100K,
            ),
            v(C, PIPE_TOKEN, "pipe_token", &[], SameCpu, Calibrated),
            v(C, RING, "ring", &[], SameCpu, Calibrated),
        ])
        .collect()
}

/// fork.c / thread.c's COUNTs (the seed's table), and whether `--quick` runs each: the quick
/// sweep of `workload.print` (10 to 5000). Printing to /dev/null is buffered, so even COUNT
/// 10000 is a batch of about a tenth of a second: the forks and thread creations dominate.
const PRINT_COUNTS: [(i64, bool); 8] = [
    (5, false),
    (10, true),
    (50, false),
    (100, true),
    (500, false),
    (1000, true),
    (5000, true),
    (10000, false),
];

/// Seed S1's C# program on Mono. Unpinned, as the article ran it (Windows on a multi-core
/// machine); `.NET` on Windows is not available here.
fn csharp() -> Vec<Variant> {
    const SINGLE: Meta = meta(
        "probes.csharp.single",
        "S1's C# program on Mono: one thread counts to N (SingleThreadTester)",
        "one increment of a shared counter (the article counted to 1e8; .NET on Windows is not available here)",
        "ns",
        None,
    );
    const ALTERNATE: Meta = meta(
        "probes.csharp.alternate",
        "S1's C# program on Mono: two threads alternate through one AutoResetEvent (TwoThreadSwitchTester)",
        "one increment, the turn passed through the one shared AutoResetEvent as the article wrote it (a thread may take its own Set)",
        "ns",
        None,
    );
    const LOCK: Meta = meta(
        "probes.csharp.lock",
        "S1's C# program on Mono: T threads increment under one lock (MultiThreadTester)",
        "one increment inside lock(counterLock), T threads contending",
        "ns",
        None,
    );
    let counted = |meta, what, args: &[(&'static str, Arg)], min, quick| Variant {
        min_iterations: min,
        in_quick: quick,
        ..v(CSharp, meta, what, args, Placement::Unpinned, Calibrated)
    };
    // Enough increments per sample that starting the threads (100 of them) stays a small part.
    vec![
        counted(SINGLE, "single", &[], 1_000_000, true),
        counted(ALTERNATE, "alternate", &[], 10_000, true),
        counted(LOCK, "lock", &[("threads", Int(2))], 1_000_000, true),
        counted(LOCK, "lock", &[("threads", Int(100))], 2_000_000, false),
    ]
}

/// Every probe variant, in run order: C (the seeds' own programs) first, then Go, Java, Python,
/// and S1's C# program. `--quick` keeps the seeds' own programs (C, and C# where its variant
/// asks) and one creation and one hand-over per other runtime: a runtime's start-up (a JVM's
/// above all) is paid again in every round.
pub fn all() -> Vec<Variant> {
    let mut out = c();
    out.extend(go());
    out.extend(java_kind("platform"));
    out.extend(java_kind("virtual"));
    out.extend(python());
    out.extend(csharp());
    for v in &mut out {
        v.in_quick &= quick_subset(v);
    }
    out
}

/// The runtimes' variants worth their start-up cost in `--quick`.
fn quick_subset(v: &Variant) -> bool {
    let arg = |k: &str| v.args.iter().find(|(name, _)| *name == k).map(|(_, a)| *a);
    match v.runtime {
        C => true,
        Go => matches!(v.what, "create" | "pingpong") && arg("gomaxprocs") != Some(Int(2)),
        // A JVM starts in every round: one creation figure is worth it in --quick.
        Java => v.meta.id == "probes.java.create" && arg("thread_kind") == Some(Str("platform")),
        Python => v.what == "pingpong" && arg("model") == Some(Str("thread")),
        // S1's own program: the counting and the alternation the S1 claim is about.
        CSharp => matches!(v.what, "single" | "alternate"),
        Runtime::Php => false,
    }
}
