//! The capacity table and the CPU-limit section in every renderer, on a SYNTHETIC document (test
//! data, not a measurement): `capacity`'s own short screen, `--all` with every limit, the
//! markdown, the page; and a plain run's first screen without them.

use concbench_core::capacity::{
    Budget, Capacity, CellNote, HostState, Limit, ModelCapacity, Stop, StopKind,
};
use concbench_core::container::{Container, CpuLimit, Detected, Throttling};
use concbench_core::{Host, ResultDoc};
use concbench_report::{Exporter, Html, Markdown, Terminal};

fn model(name: &str, units: u64, kib: f64, stop: Stop) -> ModelCapacity {
    ModelCapacity {
        model: name.into(),
        runtime: "synthetic".into(),
        unit: "a synthetic unit".into(),
        units,
        stopped_by: Some(stop),
        kib_per_unit: Some(kib),
        kib_per_unit_ci95: Some([kib * 0.99, kib * 1.01]),
        pss_kib_per_unit: Some(kib / 2.0),
        kernel_kib_per_unit: Some(kib / 2.0),
        charge_kib_per_unit: None,
        create_ns_per_unit: Some(25_000.0),
        per_gib: Some((1048576.0 / kib) as u64),
        steps: Vec::new(),
        skipped: None,
        warnings: Vec::new(),
        seconds: 1.0,
    }
}

fn stop(kind: StopKind, limit: &str, value: &str) -> Stop {
    Stop {
        kind,
        limit: limit.into(),
        value: (!value.is_empty()).then(|| value.into()),
        set_at: None,
        detail: format!("stopped by {limit}"),
    }
}

fn capacity_doc() -> ResultDoc {
    let host = Host {
        hostname: "synthetic".into(),
        logical_cpus: 2,
        cpus_allowed: vec![0, 1],
        cpu_quota: Some(1.0),
        ..Host::default()
    };
    let mut doc = ResultDoc::new(host, "2026-11-28T00:00:00Z".into());
    let state = HostState {
        mem_available_kib: 22 << 20,
        tasks: 900,
        cells: 0,
    };
    let mut skipped = model("PHP Fiber", 0, 1.0, stop(StopKind::Cap, "x", "1"));
    skipped.stopped_by = None;
    skipped.skipped = Some("php probe: no php found (apt-get install php-cli)".into());
    doc.capacity = Some(Capacity {
        budget: Budget {
            bytes: 5 << 30,
            mem_available_kib: 22 << 20,
            source: "25% of MemAvailable (the default)".into(),
        },
        cell: CellNote {
            made: Some("cgroup v1: /sys/fs/cgroup/pids/concbench-1-2-capacity".into()),
            missing: None,
        },
        limits: vec![Limit {
            name: "kernel.pid_max".into(),
            value: 32768,
            counts: "process and thread ids".into(),
            scope: "machine".into(),
            set_at: "/proc/sys/kernel/pid_max (sysctl kernel.pid_max)".into(),
            free: Some(31_000),
        }],
        models: vec![
            model(
                "thread",
                27_900,
                29.6,
                stop(StopKind::Margin, "kernel.pid_max 32768", ""),
            ),
            model(
                "coroutine",
                32_700,
                4.2,
                stop(StopKind::Reached, "vm.max_map_count", "65530"),
            ),
            skipped,
        ],
        before: state,
        after: Some(state),
        max_units: None,
    });
    doc.container = Some(Container {
        limit: CpuLimit {
            mode: "quota".into(),
            cpus: Some(1.0),
            period_us: Some(100_000),
            cpuset: vec![],
            cgroup: "v1".into(),
            groups: vec!["/sys/fs/cgroup/cpu/concbench-1-2-capacity".into()],
            set_by: "concbench capacity --cpus 1".into(),
        },
        host_cpus: 2,
        runtimes: vec![Detected {
            runtime: "Python".into(),
            version: "CPython 3.11".into(),
            what: "os.cpu_count()".into(),
            value: Some(2.0),
            rule: "every CPU online".into(),
            facts: Default::default(),
            oversized: true,
            note: "Python sizes for 2 CPUs but may use 1".into(),
        }],
        throttling: Some(Throttling {
            periods: 1000,
            throttled_periods: 410,
            throttled_s: 12.3,
        }),
    });
    doc
}

#[test]
fn capacity_alone_prints_its_table_the_budget_and_the_limit_in_one_short_screen() {
    let doc = capacity_doc();
    let wide = Terminal {
        width: Some(200),
        ..Terminal::default()
    };
    let text = wide.render(&doc).unwrap();
    for needle in [
        "How many idle units fit here, and what stops them first:",
        "27,900",
        "kernel.pid_max 32768 (a margin kept free)",
        "vm.max_map_count 65530",
        "29.6 KiB [29.3, 29.9]",
        "skipped: php probe: no php found",
        "Budget: 5.00 GiB per model (25% of MemAvailable (the default)",
        "Under a CPU limit:",
        "throttled in 41% of 1,000 periods",
        "Python 2 (more than it may use)",
        "Python sizes for 2 CPUs but may use 1",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    assert!(text.lines().count() < 40, "{text}");
    assert!(
        !text.contains("The limits read"),
        "the limits are for --all"
    );
    let all = Terminal { all: true, ..wide }.render(&doc).unwrap();
    assert!(all.contains("The limits read (never raised):"), "{all}");
    assert!(all.contains("sysctl kernel.pid_max"), "{all}");
    assert!(all.contains("stopped by vm.max_map_count"), "{all}");
}

#[test]
fn markdown_and_the_page_have_the_capacity_table_and_the_cpu_limit() {
    let doc = capacity_doc();
    let md = Markdown.render(&doc).unwrap();
    assert!(md.contains("## How many idle units fit here"), "{md}");
    assert!(
        md.contains("| thread | 27,900 | kernel.pid_max 32768 (a margin kept free) |"),
        "{md}"
    );
    assert!(md.contains("## Under a CPU limit"), "{md}");
    assert!(
        !md.contains("## Results"),
        "a capacity document has no results table"
    );
    let html = Html.render(&doc).unwrap();
    assert!(html.contains(r#"<section id="capacity">"#));
    assert!(html.contains("vm.max_map_count 65530"));
    assert!(html.contains(r#"<section id="container">"#));
}

#[test]
fn a_plain_runs_first_screen_has_no_capacity_or_cpu_limit_section() {
    let mut doc = capacity_doc();
    doc.capacity = None;
    doc.container = None;
    let text = Terminal::default().render(&doc).unwrap();
    assert!(!text.contains("Under a CPU limit"), "{text}");
    assert!(!text.contains("idle units fit"), "{text}");
    let html = Html.render(&doc).unwrap();
    assert!(!html.contains(r#"<section id="capacity">"#));
}
