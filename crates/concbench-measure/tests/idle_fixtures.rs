//! The idle-state readers and `check`'s settings on recorded trees (tests/fixtures/sysfs): a
//! bare-metal Intel, an AMD desktop, a haltpoll VM, a container without cpuidle, and the
//! development VM whose idle driver is `none`.

use concbench_measure::idle::{self, Root, UsageSnapshot};
use concbench_measure::tuning::{self, Effect, Reader, Setting};
use std::path::{Path, PathBuf};

fn tree(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysfs")
        .join(name)
}

fn root(name: &str) -> Root {
    Root::new(tree(name))
}

fn settings(name: &str, is_root: bool) -> Vec<Setting> {
    tuning::read(
        &root(name),
        Reader {
            is_root,
            hypervisor: None,
        },
    )
}

fn get<'a>(s: &'a [Setting], key: &str) -> &'a Setting {
    s.iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("no {key} in {s:#?}"))
}

#[test]
fn intel_states_are_read_in_order_with_latencies_and_counters() {
    let info = idle::read(&root("intel"));
    assert_eq!(info.driver.as_deref(), Some("intel_idle"));
    assert_eq!(info.governor.as_deref(), Some("menu"));
    assert_eq!(info.cpus.len(), 2);
    let names: Vec<&str> = info.states().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["POLL", "C1", "C1E", "C6"]);
    let c6 = &info.states()[3];
    assert_eq!(
        (c6.latency_us, c6.residency_us, c6.usage),
        (85, 200, 401122)
    );
    assert!(info.states()[0].is_poll() && !c6.is_poll());
    // CPU 1's counters are its own.
    assert_eq!(info.cpus[1].states[3].usage, 401129);
    assert_eq!(info.deepest_latency_us(), Some(85));
    assert!(info.guest_halt_poll_ns.is_none() && info.cmdline.is_empty());
}

#[test]
fn intel_desktop_bends_through_c6_powersave_and_turbo() {
    let s = settings("intel", false);
    assert_eq!(get(&s, "idle.driver").effect, Effect::Bends);
    assert!(get(&s, "idle.driver").value.contains("85 µs"));
    assert!(get(&s, "idle.states").value.contains("C1E 10µs"));
    assert_eq!(get(&s, "cpufreq.governor").effect, Effect::Bends);
    assert!(get(&s, "cpufreq.governor").value.contains("intel_pstate"));
    assert_eq!(get(&s, "cpufreq.boost").value, "turbo on (intel_pstate)");
    assert_eq!(get(&s, "smt").value, "on");
    assert_eq!(get(&s, "irqbalance").value, "running");
    assert_eq!(get(&s, "pmu").effect, Effect::Fine);
    assert_eq!(get(&s, "hypervisor").value, "bare metal");
    assert_eq!(get(&s, "thp").value, "madvise");
    assert_eq!(get(&s, "swap").effect, Effect::Info);
    assert_eq!(get(&s, "perf_event_paranoid").effect, Effect::Limits);
    assert!(tuning::any_bends(&s));
    // Every line says why it matters, and every bending one how to change it.
    assert!(s.iter().all(|x| !x.why.is_empty()), "{s:#?}");
    assert!(s
        .iter()
        .filter(|x| x.effect == Effect::Bends)
        .all(|x| !x.how.is_empty()));
}

#[test]
fn amd_desktop_shows_its_deep_acpi_state_boost_and_thp_always() {
    let info = idle::read(&root("amd"));
    assert_eq!(info.driver.as_deref(), Some("acpi_idle"));
    assert_eq!(info.deepest_latency_us(), Some(350));
    let s = settings("amd", true);
    assert_eq!(get(&s, "cpufreq.boost").value, "boost on");
    assert_eq!(get(&s, "cpufreq.boost").effect, Effect::Bends);
    assert_eq!(get(&s, "thp").effect, Effect::Bends);
    assert_eq!(get(&s, "irqbalance").effect, Effect::Fine);
    assert_eq!(get(&s, "swap").value, "off");
    // Root reads perf counters whatever the paranoia level.
    assert_eq!(get(&s, "perf_event_paranoid").effect, Effect::Fine);
}

#[test]
fn haltpoll_vm_names_the_halt_poll_setting_from_the_kernel_command_line() {
    let info = idle::read(&root("haltpoll_vm"));
    assert_eq!(info.driver.as_deref(), Some("haltpoll"));
    assert_eq!(info.guest_halt_poll_ns, Some(0));
    // The init's own arguments after `--` are not kernel parameters.
    assert_eq!(info.cmdline, ["haltpoll.guest_halt_poll_ns=0"]);
    let s = settings("haltpoll_vm", false);
    let hp = get(&s, "idle.halt_poll");
    assert_eq!(hp.effect, Effect::Bends);
    assert!(hp.value.contains("guest_halt_poll_ns=0"), "{}", hp.value);
    assert!(hp.value.contains("kernel command line"), "{}", hp.value);
    // Both states exit in at most 1 µs, but halting at once bends the wake-ups anyway.
    assert_eq!(get(&s, "idle.driver").effect, Effect::Bends);
    assert_eq!(get(&s, "steal").effect, Effect::Bends);
    assert_eq!(get(&s, "hypervisor").value, "virtualized (Firecracker)");
    assert_eq!(get(&s, "pmu").effect, Effect::Limits);
    assert_eq!(get(&s, "cpufreq.governor").effect, Effect::Info);
}

#[test]
fn container_without_cpuidle_is_unknown_not_failed_and_its_quota_bends() {
    let info = idle::read(&root("container"));
    assert!(info.driver.is_none() && !info.has_states());
    assert!(UsageSnapshot::read(&root("container"), &[0, 1]).is_empty());
    let s = settings("container", false);
    assert_eq!(get(&s, "idle.driver").effect, Effect::Unknown);
    assert!(s.iter().all(|x| x.key != "idle.states"));
    let q = get(&s, "cgroup.cpu");
    assert_eq!(q.effect, Effect::Bends);
    assert!(q.value.starts_with("1.50 CPUs"), "{}", q.value);
    assert_eq!(get(&s, "cgroup.memory").value, "2048 MiB");
    assert_eq!(get(&s, "hypervisor").value, "virtualized (xen)");
    assert_eq!(get(&s, "cpufreq.boost").effect, Effect::Unknown);
}

#[test]
fn vm_whose_idle_driver_is_none_halts_at_once_and_says_haltpoll_is_unused() {
    let s = settings("vm_no_driver", false);
    let d = get(&s, "idle.driver");
    assert_eq!(d.effect, Effect::Bends);
    assert!(d.value.contains("halt"), "{}", d.value);
    assert!(d.how.contains("--hold-awake"), "{}", d.how);
    // Regression: the advice did not say that a run without --quick is a full one, nor how long.
    assert!(
        d.how.contains("about a minute") && d.how.contains("about 9 minutes"),
        "{}",
        d.how
    );
    let hp = get(&s, "idle.halt_poll");
    assert_eq!(hp.effect, Effect::Info);
    assert!(hp.value.contains("200000") && hp.value.contains("not the one in use"));
}

#[test]
fn usage_deltas_count_entries_per_state_across_an_interval() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("t");
    copy_tree(&tree("intel"), &copy);
    let r = Root::new(&copy);
    let before = UsageSnapshot::read(&r, &[1]);
    let c6 = copy.join("sys/devices/system/cpu/cpu1/cpuidle/state3/usage");
    std::fs::write(&c6, "401139\n").unwrap();
    let poll = copy.join("sys/devices/system/cpu/cpu1/cpuidle/state0/usage");
    std::fs::write(&poll, "1217\n").unwrap();
    let d = before.delta(&UsageSnapshot::read(&r, &[1]));
    assert_eq!(d.per_state["C6"].0, 10);
    assert_eq!(d.per_state["POLL"].0, 10);
    assert_eq!(d.per_state["C1"].0, 0);
    assert_eq!(d.sleeping_entries(), 10);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}
