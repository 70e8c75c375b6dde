//! The command line (see DESIGN.md: the command set is a contract).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "concbench",
    version,
    about = "What concurrency really costs on this machine: processes vs threads vs coroutines, measured with confidence intervals."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure: print the answer (every table with --all; progress on stderr) and write the
    /// result document.
    Run(RunArgs),
    /// Every experiment id, one line each, with a one-line description; with IDs or --variants,
    /// each variant with its params and the run modes that include it.
    List(ListArgs),
    /// Re-render a stored result document without measuring again: the answer on the terminal
    /// (every table with --all), or the files --html, --markdown, --csv ask for.
    Report(ReportArgs),
    /// Run the seed articles' experiments and print published vs measured side by side.
    Replicate(ReplicateArgs),
    /// Runs stored in the local history database, newest first.
    History(HistoryArgs),
    /// Compare runs (files or stored run ids): B/A per result with a 95% interval, and every
    /// run's verdicts side by side with the changed ones flagged.
    Compare(CompareArgs),
    /// Which model (processes, threads, coroutines) costs least for a workload, on this machine.
    Advise(AdviseArgs),
    /// Run one server design in the foreground (Ctrl-C stops it).
    Serve(ServeArgs),
    /// Send load to a server and report requests/s, latency (corrected and not), errors.
    Load(LoadArgs),
    /// A server's warm-up from its first request: requests/s per window for --seconds, its JIT's
    /// activity and GC pauses, and where it levelled by the steady-state criterion a run uses.
    Warmup(WarmupArgs),
    /// Print a shell completion script on stdout, e.g. `concbench completions bash >
    /// ~/.local/share/bash-completion/completions/concbench`.
    #[command(hide = true)]
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout, or write one page per command into --dir.
    #[command(hide = true)]
    Man(ManArgs),
    /// Store result documents written elsewhere (a machine without network to the database
    /// copies its files) in the history, e.g. `push run.json --db postgresql://user@host/db`.
    Push(PushArgs),
    /// One report across machines: each host's verdicts (hosts x claims), headline figures with
    /// intervals, and what differs between the hosts.
    Fleet(FleetArgs),
    /// Every setting of this machine that bends the figures (idle states, frequency, SMT, THP,
    /// perf access, steal, cgroup limits...), with why and how to change it. Exit code 1 when
    /// one does, 0 when none does.
    Check(CheckArgs),
    /// How many idle units of each model (process, thread, coroutine, tokio task, goroutine,
    /// Java platform and virtual thread, PHP Fiber) fit here, the limit that stops each, memory
    /// and creation time per unit — within a memory budget, in a control group of its own.
    Capacity(CapacityArgs),
    /// Where a thread or process pool, or an event loop that blocks, stops keeping up with
    /// coroutines: servers swept over the blocking time (0, 0.1, 1, 10 ms) and CPU (0, 100 µs)
    /// per request under 1000 keep-alive connections, each point beside `advise`'s prediction.
    Crossover(CrossoverArgs),
    /// Internal: measure one variant for `run` (reads a job on stdin). Not for direct use.
    #[command(name = "__worker", hide = true)]
    Worker,
    /// Internal: hold idle units for `capacity` (the probe protocol on stdin). Not for direct use.
    #[command(name = "__holder", hide = true)]
    Holder,
}

/// `--cpus N|all` and `--cpus-mode`: what `run` and `capacity` run under.
#[derive(Debug, Clone, clap::Args)]
pub struct CpuLimitArgs {
    /// Run in a control group of its own with N CPUs' worth of time (a quota, as `docker run
    /// --cpus`; 1.5 is allowed), or with `--cpus-mode cpuset` on N whole CPUs; `all` makes the
    /// group without a limit (the baseline beside a limited run). Every worker, server and probe
    /// runs in it; the document records the limit, what each runtime detected and how often the
    /// quota throttled. Needs root (or a delegated cgroup); refused otherwise, saying why.
    #[arg(long, value_name = "N|all", value_parser = parse_cpu_count)]
    pub cpus: Option<CpuCount>,
    /// How --cpus limits: `quota` (CPU time per 100 ms period on any CPU) or `cpuset` (only the
    /// last N of the CPUs this process may use).
    #[arg(long, value_enum, value_name = "MODE", default_value_t = CpusMode::Quota, requires = "cpus")]
    pub cpus_mode: CpusMode,
}

/// `--cpus`'s value: CPUs (`Some`) or `all` (`None`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuCount(pub Option<f64>);

fn parse_cpu_count(s: &str) -> Result<CpuCount, String> {
    concbench_capacity::container::parse_cpus(s).map(CpuCount)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CpusMode {
    /// CPU time per period (cpu.max, cpu.cfs_quota_us), on any CPU.
    Quota,
    /// Only N whole CPUs (cpuset.cpus).
    Cpuset,
}

#[derive(Debug, clap::Args)]
pub struct CapacityArgs {
    /// Only these models (comma-separated): process, thread, coroutine, tokio-task, goroutine,
    /// java-platform, java-virtual, php-fiber (default: every one).
    #[arg(long, value_delimiter = ',', value_name = "MODEL")]
    pub models: Vec<String>,
    /// The memory one model's units may hold: a share of MemAvailable (25%, the default) or a
    /// size (2GiB, 512MiB); at most 90% of MemAvailable.
    #[arg(long, value_name = "SIZE|PCT")]
    pub memory_budget: Option<String>,
    /// Stop each model at N units if nothing stops it before.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_units: Option<u64>,
    #[command(flatten)]
    pub cpu: CpuLimitArgs,
    /// Where to write the result document (default: `concbench-results/capacity-<time>.json`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the report as markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print every table (each model's readings, every limit read) before the summary.
    #[arg(long, short = 'v')]
    pub all: bool,
    /// Run even when another concbench run is measuring on this machine (thousands of units
    /// disturb its figures).
    #[arg(long)]
    pub allow_concurrent: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Pin {
    /// Pin as each experiment asks (same CPU for single-unit experiments).
    Auto,
    /// Pin nothing: the scheduler decides.
    None,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Only these families or experiment ids (comma-separated), e.g. `create,switch.pipe`.
    #[arg(long, value_delimiter = ',', value_name = "FAMILY|ID")]
    pub only: Vec<String>,
    /// Also write the report as markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page (charts included).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Only variants whose params include KEY=VALUE (repeatable; all must match), e.g.
    /// `--only io.read --where files=4 --where file_mib=128`.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = parse_where)]
    pub where_params: Vec<(String, String)>,
    /// Tag the run (repeatable), e.g. `--label instance=c6i.large --label rack=b`: `fleet`
    /// shows each machine once per set of labels and filters on them.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Hold the CPUs out of deep idle for the whole run, so a wake-up on another CPU costs the
    /// same in every round: /dev/cpu_dma_latency at 0 (root, with a cpuidle driver), else a
    /// SCHED_IDLE spinner on each CPU. Released at the end, on errors and on Ctrl-C; recorded
    /// in the document and shown in the header.
    #[arg(long, conflicts_with = "cpus")]
    pub hold_awake: bool,
    /// Judge the claims on this run only. By default they are also judged over this run and the
    /// compatible runs of this machine in the history (same build and mode class, finished; the
    /// newest 20), shown beside this run's own verdicts.
    #[arg(long)]
    pub alone: bool,
    #[command(flatten)]
    pub cpu: CpuLimitArgs,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// What every measuring command (`run`, `replicate`) accepts.
#[derive(Debug, Clone, clap::Args)]
pub struct MeasureArgs {
    /// Short samples (>= 1 ms), fewer rounds, smaller sweeps: the whole suite in about a minute.
    #[arg(long)]
    pub quick: bool,
    /// Where to write the result document (default: `concbench-results/<command>-<time>.json`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Print every table (every result with its notes, published vs measured, the verdicts in
    /// full, skipped, failed and invalid variants) before the summary.
    #[arg(long, short = 'v')]
    pub all: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    /// CPU pinning policy.
    #[arg(long, value_enum, default_value_t = Pin::Auto)]
    pub pin: Pin,
    /// Samples per round (default 5, or 3 with --quick; long batches take 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: Option<u32>,
    /// Rounds every variant gets at least, within the budget — each a fresh worker process,
    /// interleaved with the variants it is compared with. The unit of evidence: intervals and verdicts are across
    /// rounds (default: 6 for variants a verdict uses, more while a verdict is undecided; 1 for
    /// the others, topped up to 6 when a round is cheap and the budget allows).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: Option<u32>,
    /// How long the run's rounds may take: 540s, 9m, or plain seconds (default 540s; 55s with
    /// --quick). No round starts past it: a round of every variant a verdict uses first, the
    /// rest of their six for the checks that fit in a share of what is left (0.9 quick, 0.75 full), then each
    /// other variant's round, cheapest first, and extra rounds for undecided verdicts. A
    /// variant it leaves without a round is listed as skipped.
    #[arg(long, value_name = "DURATION", value_parser = parse_budget)]
    pub budget: Option<std::time::Duration>,
    /// How long to wait, at most, for other processes to leave the CPUs before measuring: 30s,
    /// or plain seconds (default 30s; 10s with --quick; 0: do not wait).
    #[arg(long, value_name = "DURATION", value_parser = parse_settle)]
    pub settle: Option<std::time::Duration>,
    /// Measure even when another concbench run is measuring on this machine (refused by
    /// default: two runs disturb each other's figures). Both documents record the overlap.
    #[arg(long)]
    pub allow_concurrent: bool,
    /// Directory (on a disk, not tmpfs) for the io family's data files (default: a new directory
    /// in $TMPDIR, /var/tmp or the current directory, whichever is disk-backed).
    #[arg(long, value_name = "DIR")]
    pub io_dir: Option<PathBuf>,
    /// Keep the io family's data files after the run (with --io-dir, the next run reuses them).
    #[arg(long)]
    pub keep_io_files: bool,
    /// Prove every experiment runs: one repetition of a few iterations. For tests; not a measurement.
    #[arg(long, hide = true)]
    pub smoke: bool,
}

/// `KEY=VALUE` for `--label`.
fn parse_label(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!(
            "'{s}' is not KEY=VALUE; for example --label instance=c6i.large"
        )),
    }
}

/// `KEY=VALUE` for `--where`.
fn parse_where(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!(
            "'{s}' is not KEY=VALUE; for example --where files=10 (keys are the params shown by a run)"
        )),
    }
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Families or ids (as `run --only`) whose variants to list, e.g. `list server.keepalive`.
    #[arg(value_name = "FAMILY|ID")]
    pub names: Vec<String>,
    /// List every variant (of every family, or of the names given).
    #[arg(long)]
    pub variants: bool,
}

/// A format another tool reads, for `report --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// The Bencher Metric Format (JSON for `bencher run --adapter json`).
    Bencher,
    /// Go's benchmark text, one line per round, for `benchstat`.
    Benchstat,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A result document written by `concbench run` (with --fleet: any number, or none to read
    /// the history database).
    #[arg(required_unless_present_any = ["fleet", "runs"], value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Re-judge the newest stored run without measuring, over the newest N runs of its machine
    /// in the history that are compatible with it (itself included; same build and mode class,
    /// finished): the verdicts over the host's history beside that run's own.
    #[arg(
        long,
        value_name = "N",
        group = "fleet_or_runs",
        conflicts_with = "files"
    )]
    pub runs: Option<usize>,
    /// One report across machines from the FILEs, or from the history's runs (see `fleet`).
    #[arg(long, group = "fleet_or_runs")]
    pub fleet: bool,
    /// With --fleet and no FILE, or with --runs: the history database to read.
    #[arg(long, value_name = "PATH|URL", requires = "fleet_or_runs")]
    pub db: Option<String>,
    /// With --fleet: only runs matching (see `fleet --where`).
    #[arg(long = "where", value_name = "FILTER", value_parser = parse_fleet_filter, requires = "fleet")]
    pub filters: Vec<FleetFilter>,
    /// Write markdown here.
    #[arg(long, value_name = "OUT")]
    pub markdown: Option<PathBuf>,
    /// Write CSV here.
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
    /// Write one self-contained HTML page here (charts inline; opens offline in any browser).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    /// Print the document on stdout in a format another tool reads: `bencher` (Bencher Metric
    /// Format JSON) or `benchstat` (Go benchmark text).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["fleet", "markdown", "csv", "html"])]
    pub format: Option<ExportFormat>,
    /// Print every table (every result with its notes, published vs measured, the verdicts in
    /// full, skipped, failed and invalid variants) before the summary.
    #[arg(long, short = 'v')]
    pub all: bool,
    /// Judge the claims again from the stored samples with this build's rules, instead of
    /// showing the verdicts the document was written with (for documents from older builds);
    /// a crossover sweep's check is redone with this build's model and crossing rule too.
    #[arg(long)]
    pub rejudge: bool,
}

/// Where the run history lives.
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Do not store this run in the history database.
    #[arg(long, conflicts_with = "db")]
    pub no_store: bool,
}

#[derive(Debug, clap::Args)]
pub struct CrossoverArgs {
    /// Also write the report as markdown.
    #[arg(long, value_name = "OUT")]
    pub markdown: Option<PathBuf>,
    /// Also write the report as a self-contained HTML page (with the crossover chart).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    /// The measuring flags. Here --rounds defaults to 6 a point (3 with --quick), the fewest for
    /// a 95% interval, and --budget to none: the sweep is what was asked for (a full sweep, 48
    /// points, takes about 10 minutes on 2 CPUs; --quick, 12 points, about 25 s).
    #[command(flatten)]
    pub measure: MeasureArgs,
}

#[derive(Debug, clap::Args)]
pub struct ReplicateArgs {
    /// Seeds to replicate (comma-separated), e.g. `S0.print,S1`; a prefix such as `S0` takes all
    /// of its parts. Default: every seed.
    #[arg(value_delimiter = ',', value_name = "SEED")]
    pub seeds: Vec<String>,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The baseline: a result document (FILE.json) or a stored run id (see `concbench history`).
    #[arg(value_name = "A")]
    pub a: String,
    /// The runs compared with A: files or stored run ids. Ratios are B/A, for each B.
    #[arg(value_name = "B", required = true, num_args = 1..)]
    pub b: Vec<String>,
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Exit 1 when a comparison breaks this threshold (repeatable): 'slower>X%' (a time or rate
    /// whose whole 95% interval is more than X% worse, significant after Benjamini-Hochberg),
    /// 'faster>X%', or 'verdict-changed'. Each breach is named on stderr.
    #[arg(long = "fail-if", value_name = "EXPR", value_parser = parse_gate)]
    pub fail_if: Vec<concbench_analysis::gate::Gate>,
    /// Only these families or experiment ids (comma-separated), as `run --only`.
    #[arg(long, value_delimiter = ',', value_name = "FAMILY|ID")]
    pub only: Vec<String>,
    /// Only results whose params include KEY=VALUE (repeatable; all must match), as `run --where`.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = parse_where)]
    pub where_params: Vec<(String, String)>,
    /// Also write the comparison as JSON (schema/compare-v1.schema.json); `-` for stdout.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the changed results and verdicts as markdown (for a review comment); `-` for
    /// stdout.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Print every result and claim, not only the changed ones.
    #[arg(long, short = 'v')]
    pub all: bool,
}

/// A `compare --fail-if` expression.
fn parse_gate(s: &str) -> Result<concbench_analysis::gate::Gate, String> {
    s.parse()
}

#[derive(Debug, clap::Args)]
pub struct AdviseArgs {
    /// Units (requests, tasks, connections) created per second.
    #[arg(long, value_name = "N")]
    pub units_per_sec: f64,
    /// Share of each unit's life spent blocked (waiting on IO, a lock, a remote call), 0 to 1.
    #[arg(long, value_name = "SHARE", default_value_t = 0.0)]
    pub blocked: f64,
    /// CPU time each unit needs for its own work, in microseconds: what fits in a share of a CPU
    /// counts it with the model's overhead (100 µs of work fits at most 1,000/s in 10% of one
    /// CPU), and the overhead is said as a share of it.
    #[arg(long, value_name = "US", default_value_t = 0.0)]
    pub cpu_us: f64,
    /// Units must be isolated from each other (a crash or memory corruption in one must not take
    /// down the others).
    #[arg(long)]
    pub isolation: bool,
    /// Use this result document instead of the latest stored run.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct PushArgs {
    /// Result documents written by `concbench run --json` (or the default
    /// concbench-results/*.json).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Print the settings as JSON (for tools); the exit code is the same.
    #[arg(long)]
    pub json: bool,
    /// Say why every setting matters and how to change it, not only the ones that bend.
    #[arg(long, short = 'v')]
    pub all: bool,
    /// Show the wake-up figures of this result document (default: the newest document in
    /// concbench-results/ that measured switch.wake.thread).
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Read the machine's files below this directory instead of / (recorded trees, for tests).
    #[arg(long, value_name = "DIR", hide = true)]
    pub root: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct FleetArgs {
    /// Result documents to read (any number); without any, the history database's runs.
    #[arg(value_name = "FILE", conflicts_with = "db")]
    pub files: Vec<PathBuf>,
    /// The history database: a file, or a PostgreSQL URL (postgresql://user@host/db). Default:
    /// $CONCBENCH_DB, else $XDG_DATA_HOME/concbench/history.sqlite.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Only runs matching (repeatable; all must match): `host=NAME` (hostname or the start of a
    /// machine id), `kernel=PREFIX` (e.g. kernel=6.1), `label=KEY=VALUE`.
    #[arg(long = "where", value_name = "FILTER", value_parser = parse_fleet_filter)]
    pub filters: Vec<FleetFilter>,
    /// Also write the fleet report as one self-contained HTML page (dot plots inline).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    /// Also write the fleet report as markdown.
    #[arg(long, value_name = "OUT")]
    pub markdown: Option<PathBuf>,
}

/// A `fleet --where` filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetFilter {
    /// The hostname, or the start of the machine id.
    Host(String),
    /// The start of the kernel release (`6.1` matches `6.1.0-18-amd64`).
    Kernel(String),
    Label(String, String),
}

fn parse_fleet_filter(s: &str) -> Result<FleetFilter, String> {
    let bad = || {
        format!(
            "'{s}' is not host=NAME, kernel=PREFIX or label=KEY=VALUE; for example \
             --where label=rack=b"
        )
    };
    match s.split_once('=') {
        Some(("host", v)) if !v.is_empty() => Ok(FleetFilter::Host(v.into())),
        Some(("kernel", v)) if !v.is_empty() => Ok(FleetFilter::Kernel(v.into())),
        Some(("label", kv)) => match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok(FleetFilter::Label(k.into(), v.into())),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The design: iterative, fork-per-connection, prefork, prefork-flock, prefork-mutex,
    /// prefork-fdpass, thread-per-connection, prethread-mutex, prethread-acceptor, epoll,
    /// epoll-naive-blocking, epoll-per-cpu, io_uring, tokio-current, tokio-multi.
    pub design: String,
    /// TCP port (0 picks a free one and prints it).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Address to listen on (loopback by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// A blocking call of N milliseconds before each response (seed S2 used 10).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub blocking_ms: u64,
    /// A blocking call of N microseconds before each response, for calls under a millisecond
    /// (the crossover sweep's 100); instead of --blocking-ms.
    #[arg(long, value_name = "N", conflicts_with = "blocking_ms")]
    pub blocking_us: Option<u64>,
    /// N microseconds of CPU burned per request on the serving thread, before the blocking call
    /// (the crossover sweep's 100).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub cpu_us: u64,
    /// Pool size of prefork and prethread designs (Stevens used 15).
    #[arg(long, value_name = "N", default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub workers: u32,
    /// CPUs to run the server on (comma-separated); per-CPU designs run one reactor per CPU.
    #[arg(long, value_delimiter = ',', value_name = "CPU")]
    pub cpus: Vec<usize>,
    /// Honour the crash request (`GET /crash` or `crash\n`): the worker that reads it faults.
    #[arg(long)]
    pub allow_crash: bool,
}

#[derive(Debug, clap::Args)]
pub struct WarmupArgs {
    /// The server: an article's system (netty, swoole, php-fpm, netty-business-pool,
    /// go-net-http, java-virtual-threads, php-fibers) or one of concbench's designs (see
    /// `concbench serve --help`).
    pub server: String,
    /// Netty's worker event loops: 4 (the article's printed code, Netty's default for its 2
    /// CPUs) or 2 (its prose).
    #[arg(long, value_name = "N")]
    pub event_loops: Option<u64>,
    /// A blocking call of N milliseconds before each response (seed S2's scenario B: 10).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub blocking_ms: u64,
    /// How long to load it from the first request, in whole seconds.
    #[arg(long, value_name = "N", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// Also write the series (the warm-up record a run keeps) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct LoadArgs {
    /// Target, e.g. http://127.0.0.1:8080/ (loopback only unless --allow-remote).
    pub url: String,
    /// Concurrent connections.
    #[arg(long, short = 'c', default_value_t = 100)]
    pub connections: usize,
    /// Load threads, each an event loop pinned to one of --cpus.
    #[arg(long, short = 't', default_value_t = 1)]
    pub threads: usize,
    /// CPUs for the load threads (comma-separated; default: unpinned).
    #[arg(long, value_delimiter = ',', value_name = "CPU")]
    pub cpus: Vec<usize>,
    /// Measured duration, e.g. 10s, 500ms (more than 0: it is the window the rate is over).
    #[arg(long, short = 'd', default_value = "10s", value_parser = parse_window)]
    pub duration: std::time::Duration,
    /// Warm-up before the measured window, excluded from the statistics.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub warmup: std::time::Duration,
    /// Open loop at this many requests/s in total (default: closed loop).
    #[arg(long, short = 'R', value_name = "REQ_PER_S")]
    pub rate: Option<f64>,
    /// With --rate: exponential gaps between requests (a Poisson process).
    #[arg(long, requires = "rate")]
    pub poisson: bool,
    /// Requests in flight per keep-alive connection.
    #[arg(long, default_value_t = 1)]
    pub pipeline: usize,
    /// Stevens's protocol: one connection per request asking for N bytes ("N\n").
    #[arg(long, value_name = "N", conflicts_with = "close")]
    pub stevens: Option<usize>,
    /// HTTP with one connection per request (Connection: close).
    #[arg(long)]
    pub close: bool,
    /// Stop after this many measured requests (the warm-up does not count toward them; -d is
    /// then the time limit).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub requests: Option<u64>,
    /// Fewest measured requests that make a figure (default 100, or --requests if fewer):
    /// a run that measures fewer fails (exit 1) instead of printing a rate from a handful.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub min_requests: Option<u64>,
    /// Allow a target that is not on this machine (never the default).
    #[arg(long)]
    pub allow_remote: bool,
    /// Write the full report (percentile spectrum, timeline, errors) as JSON.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write concbench.1 and a page per command (concbench-run.1, ...) into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// A duration that must be longer than zero (a measured window).
pub fn parse_window(s: &str) -> Result<std::time::Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err(format!(
            "'{s}': the measured window must be longer than 0 (e.g. 10s, 500ms)"
        )),
        d => Ok(d),
    }
}

/// A duration of at most `max` (a day for a budget, an hour for settling).
fn parse_bounded(s: &str, max: std::time::Duration) -> Result<std::time::Duration, String> {
    match parse_duration(s)? {
        d if d > max => Err(format!("'{s}' is longer than {} s", max.as_secs())),
        d => Ok(d),
    }
}

/// `--budget`: 0 to a day.
fn parse_budget(s: &str) -> Result<std::time::Duration, String> {
    parse_bounded(s, std::time::Duration::from_secs(86_400))
}

/// `--settle`: 0 to an hour.
fn parse_settle(s: &str) -> Result<std::time::Duration, String> {
    parse_bounded(s, std::time::Duration::from_secs(3_600))
}

/// "10s", "500ms", "2m", "1.5s", or plain seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration (e.g. 10s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => v / 1e3,
        "s" => v,
        "m" => v * 60.0,
        _ => return Err(format!("'{s}': unknown unit (use ms, s or m)")),
    };
    if !(secs.is_finite() && secs >= 0.0) {
        return Err(format!("'{s}' must be a non-negative duration"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}
