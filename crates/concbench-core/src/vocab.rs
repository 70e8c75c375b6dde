//! The experiment ids and param keys that code outside the experiments names: the answer table,
//! the advice, the charts, the verdicts' context. One home, so a rename is one edit — and a test
//! (`crates/concbench/tests/vocabulary.rs`) fails when an id here is no longer registered or a
//! key no longer appears in any variant's params, instead of a row, a chart or a verdict
//! silently disappearing. The claims' selectors in `data/published.toml` are checked the same
//! way (`concbench_analysis::verdicts::unmatched_selectors`).

/// Experiment ids (`family.what[.variant]`).
pub mod id {
    pub const SYSCALL_GETPPID: &str = "syscall.getppid";
    pub const CREATE_FORK: &str = "create.fork";
    pub const CREATE_THREAD: &str = "create.thread";
    pub const CREATE_COROUTINE: &str = "create.coroutine";
    pub const CREATE_ASYNC_TASK: &str = "create.async_task";
    pub const SWITCH_PIPE_PROCESS: &str = "switch.pipe.process";
    pub const SWITCH_PIPE_THREAD: &str = "switch.pipe.thread";
    pub const SWITCH_FUTEX_THREAD: &str = "switch.futex.thread";
    pub const SWITCH_COROUTINE: &str = "switch.coroutine";
    pub const SWITCH_ASYNC_TASK: &str = "switch.async_task";
    pub const SWITCH_CHANNEL_COROUTINE: &str = "switch.channel.coroutine";
    pub const SWITCH_ALONE_PROCESS: &str = "switch.alone.process";
    pub const SWITCH_ALONE_THREAD: &str = "switch.alone.thread";
    pub const SWITCH_YIELD_ASYNC_TASK: &str = "switch.yield.async_task";
    pub const MEMORY_PROCESS: &str = "memory.process";
    pub const MEMORY_THREAD: &str = "memory.thread";
    pub const MEMORY_COROUTINE: &str = "memory.coroutine";
    pub const MEMORY_ASYNC_TASK: &str = "memory.async_task";
    pub const WORKLOAD_PRINT: &str = "workload.print";
    pub const PROBES_C_PROCESS_100K: &str = "probes.c.process_100k";
    pub const PROBES_C_THREAD_100K: &str = "probes.c.thread_100k";
    pub const PROBES_C_PIPE_TOKEN: &str = "probes.c.pipe_token";
    pub const PROBES_C_RING: &str = "probes.c.ring";
    pub const PROBES_GO_CREATE: &str = "probes.go.create";
    pub const PROBES_GO_PINGPONG: &str = "probes.go.pingpong";
    pub const PROBES_GO_PINGPONG_LOCKED: &str = "probes.go.pingpong_locked";
    pub const PROBES_GO_MEMORY: &str = "probes.go.memory";
    pub const PROBES_JAVA_CREATE: &str = "probes.java.create";
    pub const PROBES_JAVA_PINGPONG: &str = "probes.java.pingpong";
    pub const PROBES_JAVA_MEMORY: &str = "probes.java.memory";
    pub const PROBES_PYTHON_CREATE: &str = "probes.python.create";
    pub const PROBES_PYTHON_PINGPONG: &str = "probes.python.pingpong";
    pub const PROBES_PYTHON_CPU: &str = "probes.python.cpu";
    pub const SERVER_KEEPALIVE: &str = "server.keepalive";
    pub const SERVER_BLOCKING: &str = "server.blocking";
    pub const SERVER_STEVENS: &str = "server.stevens";
    pub const SERVER_CRASH: &str = "server.crash";
    pub const SWITCH_RING_THREAD: &str = "switch.ring.thread";
    pub const ANATOMY_TRANSPORT: &str = "anatomy.transport";
    pub const ANATOMY_VICTIM: &str = "anatomy.victim";
    pub const ANATOMY_FORK: &str = "anatomy.fork";
    pub const ANATOMY_VFORK: &str = "anatomy.vfork";
    pub const ANATOMY_POSIX_SPAWN: &str = "anatomy.posix_spawn";
    pub const ANATOMY_HANDOVER: &str = "anatomy.handover";

    /// Every id above.
    pub const ALL: &[&str] = &[
        SYSCALL_GETPPID,
        CREATE_FORK,
        CREATE_THREAD,
        CREATE_COROUTINE,
        CREATE_ASYNC_TASK,
        SWITCH_PIPE_PROCESS,
        SWITCH_PIPE_THREAD,
        SWITCH_FUTEX_THREAD,
        SWITCH_COROUTINE,
        SWITCH_ASYNC_TASK,
        SWITCH_CHANNEL_COROUTINE,
        SWITCH_ALONE_PROCESS,
        SWITCH_ALONE_THREAD,
        SWITCH_YIELD_ASYNC_TASK,
        MEMORY_PROCESS,
        MEMORY_THREAD,
        MEMORY_COROUTINE,
        MEMORY_ASYNC_TASK,
        WORKLOAD_PRINT,
        PROBES_C_PROCESS_100K,
        PROBES_C_THREAD_100K,
        PROBES_C_PIPE_TOKEN,
        PROBES_C_RING,
        PROBES_GO_CREATE,
        PROBES_GO_PINGPONG,
        PROBES_GO_PINGPONG_LOCKED,
        PROBES_GO_MEMORY,
        PROBES_JAVA_CREATE,
        PROBES_JAVA_PINGPONG,
        PROBES_JAVA_MEMORY,
        PROBES_PYTHON_CREATE,
        PROBES_PYTHON_PINGPONG,
        PROBES_PYTHON_CPU,
        SERVER_KEEPALIVE,
        SERVER_BLOCKING,
        SERVER_STEVENS,
        SERVER_CRASH,
        SWITCH_RING_THREAD,
        ANATOMY_TRANSPORT,
        ANATOMY_VICTIM,
        ANATOMY_FORK,
        ANATOMY_VFORK,
        ANATOMY_POSIX_SPAWN,
        ANATOMY_HANDOVER,
    ];
}

/// Param keys.
pub mod key {
    pub const PLACEMENT: &str = "placement";
    pub const PARENT: &str = "parent";
    pub const STACK: &str = "stack";
    pub const STACK_ALLOC: &str = "stack_alloc";
    pub const UNITS: &str = "units";
    pub const MODEL: &str = "model";
    pub const THREAD_KIND: &str = "thread_kind";
    pub const GOMAXPROCS: &str = "gomaxprocs";
    pub const WORKING_SET_KIB: &str = "working_set_kib";
    pub const SCHED: &str = "sched";
    pub const COUNT: &str = "count";
    pub const WORKERS: &str = "workers";
    pub const LINE_BYTES: &str = "line_bytes";
    pub const FILES: &str = "files";
    pub const FILE_MIB: &str = "file_mib";
    pub const THREADS: &str = "threads";
    pub const DESIGN: &str = "design";
    /// The servers' worker event loops (Netty's two readings of seed S2: 4 and 2).
    pub const EVENT_LOOPS: &str = "event_loops";
    /// The runtime an article's system runs on (`java`, `php`, `go`): concbench's own designs
    /// have none.
    pub const RUNTIME: &str = "runtime";
    /// `workload.print`: `write` (one write(2) per line) or `stdio` (libc's locked stream).
    pub const WRITER: &str = "writer";

    /// Every key above.
    pub const ALL: &[&str] = &[
        PLACEMENT,
        PARENT,
        STACK,
        STACK_ALLOC,
        UNITS,
        MODEL,
        THREAD_KIND,
        GOMAXPROCS,
        WORKING_SET_KIB,
        SCHED,
        COUNT,
        WORKERS,
        LINE_BYTES,
        FILES,
        FILE_MIB,
        THREADS,
        DESIGN,
        EVENT_LOOPS,
        RUNTIME,
        WRITER,
    ];
}
