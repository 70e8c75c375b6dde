//! What each runtime sizes itself for under the CPUs it may use: Go's GOMAXPROCS, each JDK's
//! `availableProcessors()`, Python's `os.cpu_count()`, tokio's worker threads and std's
//! `available_parallelism`, Swoole's `swoole_cpu_num()` and PHP-FPM's pool — each asked of the
//! runtime itself (its probe's `detect`, started in the run's group so it sees the group's
//! limits), set against the parallelism the limit allows, and a runtime that sizes for more is
//! said in words.

use concbench_core::container::{CpuLimit, Detected};
use concbench_core::CancelToken;
use concbench_probes::build::{self, Addon, Launch, Recipe};
use concbench_probes::process::ProbeProcess;
use concbench_probes::protocol::{Request, VERSION};
use concbench_probes::swoole;
use concbench_probes::toolchain::{self, discover, Runtime, Search, Toolchain};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::path::Path;

/// What detection needs from the command.
pub struct Asking<'a> {
    /// concbench's own holder (`concbench __holder`): tokio and std.
    pub own: &'a Launch,
    pub search: &'a Search,
    /// The `cgroup.procs` files of the group to ask in (empty: where concbench itself is).
    pub procs: &'a [CString],
    pub cancel: &'a CancelToken,
    pub scratch: &'a Path,
    pub say: &'a mut dyn FnMut(&str),
}

/// One runtime's answer: its version and metrics, or why it could not be asked.
type Asked = Result<(String, BTreeMap<String, f64>), String>;

fn ask(label: &str, launch: &Launch, a: &mut Asking<'_>) -> Asked {
    let stderr = a
        .scratch
        .join(format!("detect-{}.stderr", label.replace(' ', "-")));
    let mut probe = ProbeProcess::start_in(label, launch, &[], a.procs, stderr, a.cancel)
        .map_err(|e| format!("{e:#}"))?;
    let answer = probe
        .request(
            &Request {
                v: VERSION,
                id: "detect",
                iterations: 1,
                args: &serde_json::Map::new(),
            },
            a.cancel,
        )
        .map_err(|e| format!("{e:#}"));
    let version = probe.hello.version.clone();
    let _ = probe.stop();
    answer.map(|ans| (version, ans.metrics))
}

/// A probe of `tc` (with `addon` and `flags`), built on first use, asked to detect.
fn ask_probe(
    label: &str,
    tc: &Toolchain,
    addon: Addon,
    flags: &[&str],
    a: &mut Asking<'_>,
) -> Asked {
    let recipe = Recipe {
        toolchain: tc,
        addon,
        maven: None,
    };
    let built = build::prepare(&recipe, flags, a.say).map_err(|e| format!("{e:#}"))?;
    ask(label, &built.launch, a)
}

/// A detected value, its facts, and the note against the limit.
struct Said {
    runtime: String,
    what: &'static str,
    metric: &'static str,
    rule: &'static str,
}

fn record(said: Said, asked: Asked, limit: &CpuLimit, host_cpus: usize) -> Detected {
    match asked {
        Ok((version, mut facts)) => {
            let value = facts.remove(said.metric);
            let (oversized, note) = match value {
                Some(v) => judge(&said.runtime, said.what, v, limit, host_cpus),
                None => (
                    false,
                    format!("{} did not report {}", said.runtime, said.metric),
                ),
            };
            Detected {
                runtime: said.runtime,
                version,
                what: said.what.into(),
                value,
                rule: said.rule.into(),
                facts,
                oversized,
                note,
            }
        }
        Err(why) => Detected {
            runtime: said.runtime,
            version: String::new(),
            what: said.what.into(),
            value: None,
            rule: said.rule.into(),
            facts: BTreeMap::new(),
            oversized: false,
            note: format!("not asked: {why}"),
        },
    }
}

/// Whether `value` (the CPUs a runtime sizes for) is more than `limit` lets it use, in words.
pub fn judge(
    runtime: &str,
    what: &str,
    value: f64,
    limit: &CpuLimit,
    host_cpus: usize,
) -> (bool, String) {
    let allowed = limit.parallelism(host_cpus) as f64;
    let v = value.round() as u64;
    if limit.mode == "none" {
        return (
            false,
            format!("{runtime}: {what} = {v} with no limit ({host_cpus} CPUs online)"),
        );
    }
    if value > allowed {
        let share = if limit.mode == "quota" {
            format!("share {allowed:.0} CPU's worth of time and wait out each period's quota")
        } else {
            format!("take turns on {allowed:.0} CPU")
        };
        (
            true,
            format!(
                "{runtime} sizes for {v} CPUs but may use {allowed:.0}: {what} = {v} under {}; \
                 its {v} workers {share}",
                limit.phrase()
            ),
        )
    } else if value < allowed {
        (
            false,
            format!("{runtime} sizes for {v}, fewer than the {allowed:.0} the limit allows"),
        )
    } else {
        (
            false,
            format!("{runtime} sizes for {v}: it follows {}", limit.phrase()),
        )
    }
}

/// Every runtime found, asked under `limit`.
pub fn all(a: &mut Asking<'_>, limit: &CpuLimit, host_cpus: usize) -> Vec<Detected> {
    let mut out = Vec::new();
    let own = a.own.clone();
    let rust = ask("concbench's holder", &own, a);
    out.push(record(
        Said {
            runtime: "tokio".into(),
            what: "worker threads (the multi-thread runtime's default)",
            metric: "tokio_workers",
            rule: "TOKIO_WORKER_THREADS, else std::thread::available_parallelism()",
        },
        rust.clone(),
        limit,
        host_cpus,
    ));
    out.push(record(
        Said {
            runtime: "Rust std".into(),
            what: "available_parallelism()",
            metric: "available_parallelism",
            rule: "the affinity mask, lowered to the cgroup's CPU quota (v1 and v2, rounded down, at least 1)",
        },
        rust.map(|(v, mut m)| {
            m.remove("tokio_workers");
            (v, m)
        }),
        limit,
        host_cpus,
    ));
    let go = discover(Runtime::Go, a.search)
        .map_err(|e| format!("go probe: {e}"))
        .and_then(|tc| ask_probe("the go probe", &tc, Addon::None, &[], a));
    out.push(record(
        Said {
            runtime: "Go".into(),
            what: "GOMAXPROCS",
            metric: "gomaxprocs",
            rule: "the affinity mask (NumCPU), lowered to the CPU quota of its group and every parent, rounded up and never below 2 (Go 1.25 and later; before, no quota)",
        },
        go,
        limit,
        host_cpus,
    ));
    let jdks = toolchain::jdks(a.search);
    if jdks.is_empty() {
        out.push(record(
            java_said("Java".into()),
            Err("no JDK found".into()),
            limit,
            host_cpus,
        ));
    }
    for tc in &jdks {
        let name = format!("Java {}", tc.java_feature.unwrap_or(0));
        let flags = crate::model::runtime_flags(Runtime::Java);
        let asked = ask_probe(&format!("the {name} probe"), tc, Addon::None, flags, a);
        out.push(record(java_said(name), asked, limit, host_cpus));
    }
    let python = discover(Runtime::Python, a.search)
        .map_err(|e| format!("python probe: {e}"))
        .and_then(|tc| ask_probe("the python probe", &tc, Addon::None, &[], a));
    out.push(record(
        Said {
            runtime: "Python".into(),
            what: "os.cpu_count() (ProcessPoolExecutor's default)",
            metric: "cpu_count",
            rule: "every CPU online, whatever the quota or the affinity (os.process_cpu_count(), Python 3.13, reads the affinity but not a quota)",
        },
        python,
        limit,
        host_cpus,
    ));
    out.push(record(
        Said {
            runtime: "Swoole".into(),
            what: "swoole_cpu_num() (reactor_num and worker_num's default)",
            metric: "swoole_cpu_num",
            rule: "sysconf(_SC_NPROCESSORS_ONLN): every CPU online, whatever the quota or the affinity",
        },
        swoole_asked(a),
        limit,
        host_cpus,
    ));
    out.push(php_fpm(a.search));
    out
}

fn java_said(runtime: String) -> Said {
    Said {
        runtime,
        what: "availableProcessors()",
        metric: "available_processors",
        rule: "the affinity mask, lowered to the container's CPU quota rounded up (JDK 11 and later; -XX:ActiveProcessorCount overrides); the common pool and the virtual-thread scheduler size from it",
    }
}

/// Swoole's own answer, when its extension is built (a build takes minutes: only a cached one).
fn swoole_asked(a: &mut Asking<'_>) -> Asked {
    let php = discover(Runtime::Php, a.search).map_err(|e| format!("php probe: {e}"))?;
    let located = swoole::locate(a.search)?;
    let flag = swoole::cached_extension(&located)?.map(|so| format!("extension={}", so.display()));
    let flags: Vec<&str> = match &flag {
        Some(f) => vec!["-d", f.as_str()],
        None => Vec::new(),
    };
    ask_probe("the php probe with swoole", &php, Addon::None, &flags, a)
}

/// PHP-FPM's pool size, read from its own configuration (`php-fpm -tt`): a fixed number, never
/// derived from the CPUs.
fn php_fpm(search: &Search) -> Detected {
    let rule = "pm.max_children from its pool configuration (pm = dynamic by default); never from the CPUs";
    let names: Vec<String> = std::iter::once("php-fpm".to_string())
        .chain((1..=5).rev().map(|minor| format!("php-fpm8.{minor}")))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let base = Detected {
        runtime: "PHP-FPM".into(),
        version: String::new(),
        what: "pm.max_children".into(),
        value: None,
        rule: rule.into(),
        facts: BTreeMap::new(),
        oversized: false,
        note: String::new(),
    };
    let Some(fpm) = search.program(&names, &["/usr/sbin", "/usr/local/sbin"]) else {
        return Detected {
            note: "not asked: no php-fpm found (apt-get install php-fpm)".into(),
            ..base
        };
    };
    let out = std::process::Command::new(&fpm).arg("-tt").output();
    let text = out
        .map(|o| {
            String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout)
        })
        .unwrap_or_default();
    let setting = |key: &str| -> Option<String> {
        text.lines().find_map(|l| {
            let (_, rest) = l.split_once(&format!("{key} = "))?;
            Some(rest.trim().to_string())
        })
    };
    match setting("pm.max_children").and_then(|v| v.parse::<f64>().ok()) {
        Some(children) => Detected {
            version: fpm.display().to_string(),
            value: Some(children),
            note: format!(
                "PHP-FPM runs pm.max_children = {children:.0} (pm = {}) whatever the CPUs: its \
                 size comes from its configuration, so a limit changes only how much CPU time \
                 those children share",
                setting("pm").unwrap_or_else(|| "?".into())
            ),
            ..base
        },
        None => Detected {
            note: format!(
                "not asked: {} -tt printed no pm.max_children",
                fpm.display()
            ),
            ..base
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(cpus: f64) -> CpuLimit {
        CpuLimit {
            mode: "quota".into(),
            cpus: Some(cpus),
            period_us: Some(100_000),
            cpuset: vec![],
            cgroup: "v1".into(),
            groups: vec![],
            set_by: "test".into(),
        }
    }

    #[test]
    fn a_runtime_sizing_past_the_quota_is_said_in_words() {
        let (over, note) = judge("Python", "os.cpu_count()", 2.0, &quota(1.0), 2);
        assert!(over);
        assert!(note.contains("sizes for 2 CPUs but may use 1"), "{note}");
        let (over, note) = judge("Go", "GOMAXPROCS", 1.0, &quota(1.0), 2);
        assert!(!over);
        assert!(note.contains("follows a quota of 1.00 CPU"), "{note}");
        // A quota of 1.5 CPUs allows two at once.
        assert!(!judge("Java 25", "availableProcessors()", 2.0, &quota(1.5), 4).0);
    }

    #[test]
    fn a_cpuset_allows_its_cpus_and_no_limit_judges_nothing() {
        let set = CpuLimit {
            mode: "cpuset".into(),
            cpus: None,
            cpuset: vec![1],
            ..quota(1.0)
        };
        assert!(judge("Python", "os.cpu_count()", 2.0, &set, 2).0);
        let none = CpuLimit {
            mode: "none".into(),
            cpus: None,
            ..quota(1.0)
        };
        let (over, note) = judge("Go", "GOMAXPROCS", 2.0, &none, 2);
        assert!(!over);
        assert!(note.contains("no limit"), "{note}");
    }
}
