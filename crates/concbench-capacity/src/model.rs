//! The models of concurrency whose idle units `capacity` counts, and the program that holds
//! each: concbench's own holder (`concbench __holder`, see [`crate::holder`]) for processes,
//! threads, stackful coroutines and tokio tasks; the probes for goroutines, Java's platform and
//! virtual threads and PHP's Fibers. Every holder speaks the probe protocol's `hold` request.

use concbench_probes::build::{self, Launch};
use concbench_probes::toolchain::{discover, Runtime, Search, Toolchain};

/// The first Java release with virtual threads.
const JAVA_VIRTUAL_FEATURE: u32 = 21;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Process,
    Thread,
    Coroutine,
    TokioTask,
    Goroutine,
    JavaPlatform,
    JavaVirtual,
    PhpFiber,
}

/// A model's holder: how to start it and what to send with each `hold`.
#[derive(Debug, Clone)]
pub struct Holder {
    pub launch: Launch,
    pub args: serde_json::Map<String, serde_json::Value>,
    /// What the build wants the user to know (a probe cache that had to move).
    pub note: Option<String>,
}

impl Model {
    pub const ALL: [Model; 8] = [
        Model::Process,
        Model::Thread,
        Model::Coroutine,
        Model::TokioTask,
        Model::Goroutine,
        Model::JavaPlatform,
        Model::JavaVirtual,
        Model::PhpFiber,
    ];

    /// The name in tables and in `--models`.
    pub const fn key(self) -> &'static str {
        match self {
            Model::Process => "process",
            Model::Thread => "thread",
            Model::Coroutine => "coroutine",
            Model::TokioTask => "tokio-task",
            Model::Goroutine => "goroutine",
            Model::JavaPlatform => "java-platform",
            Model::JavaVirtual => "java-virtual",
            Model::PhpFiber => "php-fiber",
        }
    }

    /// The name in sentences.
    pub const fn name(self) -> &'static str {
        match self {
            Model::Process => "process",
            Model::Thread => "thread",
            Model::Coroutine => "coroutine",
            Model::TokioTask => "tokio task",
            Model::Goroutine => "goroutine",
            Model::JavaPlatform => "Java platform thread",
            Model::JavaVirtual => "Java virtual thread",
            Model::PhpFiber => "PHP Fiber",
        }
    }

    pub fn from_key(key: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.key() == key)
    }

    /// Each unit is a kernel task (counts against pid_max, threads-max, RLIMIT_NPROC, pids.max).
    pub const fn is_task(self) -> bool {
        matches!(self, Model::Process | Model::Thread | Model::JavaPlatform)
    }

    /// What one idle unit is.
    pub fn unit(self, stack_kib: u64) -> String {
        match self {
            Model::Process => "a forked process asleep in pause()".into(),
            Model::Thread => format!(
                "an OS thread asleep in pause(), pthread's default attributes: {stack_kib} KiB \
                 stack reserved (RLIMIT_STACK) and a guard page"
            ),
            Model::Coroutine => format!(
                "a stackful coroutine (corosensei) suspended at its first yield, on a {} KiB \
                 mapped stack with a guard page",
                crate::holder::COROUTINE_STACK_KIB
            ),
            Model::TokioTask => "a tokio task waiting on a Notify (current-thread runtime)".into(),
            Model::Goroutine => "a goroutine blocked on a channel".into(),
            Model::JavaPlatform => "a platform thread parked (LockSupport.park)".into(),
            Model::JavaVirtual => "a virtual thread parked (LockSupport.park)".into(),
            Model::PhpFiber => "a Fiber suspended at its first Fiber::suspend()".into(),
        }
    }

    /// The holder for this model, or the one-line reason it cannot run here. `own` is how to
    /// start concbench's own holder (`concbench __holder`); probes are built on first use,
    /// `say` told before.
    pub fn holder(
        self,
        own: &Launch,
        search: &Search,
        say: &mut dyn FnMut(&str),
    ) -> Result<Holder, String> {
        let mut args = serde_json::Map::new();
        let own_kind = |kind: &str, mut args: serde_json::Map<String, serde_json::Value>| {
            args.insert("unit".into(), kind.into());
            Ok(Holder {
                launch: own.clone(),
                args,
                note: None,
            })
        };
        match self {
            Model::Process => own_kind("process", args),
            Model::Thread => own_kind("thread", args),
            Model::Coroutine => own_kind("coroutine", args),
            Model::TokioTask => own_kind("tokio_task", args),
            Model::Goroutine => probe(Runtime::Go, search, args, say),
            Model::JavaPlatform | Model::JavaVirtual => {
                let kind = if self == Model::JavaVirtual {
                    "virtual"
                } else {
                    "platform"
                };
                args.insert("thread_kind".into(), kind.into());
                probe(Runtime::Java, search, args, say)
            }
            Model::PhpFiber => probe(Runtime::Php, search, args, say),
        }
    }
}

/// Flags a holder's runtime starts with: the JVM's own warnings ("Failed to start thread ... -
/// pthread_create failed (EAGAIN)", which a thread limit makes it print) go to stderr, not to
/// the protocol's stdout, where unified logging writes them by default.
pub fn runtime_flags(runtime: Runtime) -> &'static [&'static str] {
    match runtime {
        Runtime::Java => &["-Xlog:disable", "-Xlog:all=warning:stderr"],
        _ => &[],
    }
}

/// A probe's holder, built (first use) and ready to start.
fn probe(
    runtime: Runtime,
    search: &Search,
    args: serde_json::Map<String, serde_json::Value>,
    say: &mut dyn FnMut(&str),
) -> Result<Holder, String> {
    let tc = discover(runtime, search).map_err(|why| format!("{} probe: {why}", runtime.name()))?;
    check_version(&tc, &args)?;
    let built = build::prepare(&build::Recipe::plain(&tc), runtime_flags(runtime), say)
        .map_err(|e| format!("{} probe: {e:#}", runtime.name()))?;
    Ok(Holder {
        launch: built.launch,
        args,
        note: built.note,
    })
}

/// Virtual threads need Java 21 (Fibers need PHP 8.1: the PHP probe refuses older ones itself).
fn check_version(
    tc: &Toolchain,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), String> {
    let feature = tc.java_feature.unwrap_or(0);
    let wants_virtual = args.get("thread_kind").and_then(|v| v.as_str()) == Some("virtual");
    if tc.runtime == Runtime::Java && wants_virtual && feature < JAVA_VIRTUAL_FEATURE {
        return Err(format!(
            "java probe: virtual threads need Java {JAVA_VIRTUAL_FEATURE} or later; the newest JDK \
             found is {feature}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_tasks_are_the_kernels() {
        for m in Model::ALL {
            assert_eq!(Model::from_key(m.key()), Some(m));
        }
        assert_eq!(Model::from_key("fibre"), None);
        let tasks: Vec<Model> = Model::ALL.into_iter().filter(|m| m.is_task()).collect();
        assert_eq!(tasks, [Model::Process, Model::Thread, Model::JavaPlatform]);
    }

    #[test]
    fn a_missing_toolchain_is_a_reason_not_an_error() {
        let empty = tempfile::tempdir().unwrap();
        let search = Search::only(&[empty.path()]);
        let own = Launch::default();
        let why = Model::Goroutine
            .holder(&own, &search, &mut |_| {})
            .unwrap_err();
        assert!(why.starts_with("go probe: no go found"), "{why}");
        assert!(Model::Thread.holder(&own, &search, &mut |_| {}).is_ok());
    }
}
