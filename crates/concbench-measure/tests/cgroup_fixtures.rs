//! cgroup detection and limits on recorded trees: the v1 hybrid of the development VM (v1
//! controllers, an empty cgroup2 beside them), a pure v2 systemd host, a container that
//! bind-mounts its own group, and a machine without cgroups. Each tree is written into a
//! temporary directory with the kernel's file formats.

use concbench_measure::cgroup::limits::{self, PidsRoom};
use concbench_measure::cgroup::{Controller, Hierarchy, Version};
use concbench_measure::idle::Root;
use std::path::Path;

fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const HYBRID_MOUNTINFO: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

/// The development VM: at the root of cpu, cpuset and pids, in /process_api/abc of memory.
fn hybrid(root: &Path) {
    put(root, "proc/self/mountinfo", HYBRID_MOUNTINFO);
    put(
        root,
        "proc/self/cgroup",
        "8:pids:/\n4:memory:/process_api/abc\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n",
    );
    put(root, "sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
    put(root, "sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    put(
        root,
        "sys/fs/cgroup/cpu/cpu.stat",
        "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
    );
    put(root, "sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-1\n");
    put(
        root,
        "sys/fs/cgroup/memory/memory.limit_in_bytes",
        "9223372036854771712\n",
    );
    put(
        root,
        "sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
        "8589934592\n",
    );
    put(
        root,
        "sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes",
        "9223372036854771712\n",
    );
    // The root of the pids hierarchy has no pids.max; the unified mount offers nothing.
    put(root, "sys/fs/cgroup/pids/pids.current", "700\n");
    put(root, "sys/fs/cgroup/unified/cgroup.controllers", "");
}

#[test]
fn the_v1_hybrid_puts_every_controller_in_v1_and_finds_a_parents_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    hybrid(dir.path());
    let h = Hierarchy::detect(&Root::new(dir.path()));
    for c in Controller::ALL {
        assert_eq!(h.place(c).unwrap().version, Version::V1, "{c:?}");
    }
    assert_eq!(h.version_label(), "v1");
    assert_eq!(h.describe(), "cgroup v1 (cpu, cpuset, memory, pids)");
    let memory = h.place(Controller::Memory).unwrap();
    assert!(memory.own.ends_with("sys/fs/cgroup/memory/process_api/abc"));
    // No quota anywhere; the memory limit is the parent's, named as such.
    assert_eq!(limits::cpu_quota(&h), None);
    let m = limits::memory_max(&h).unwrap();
    assert_eq!(m.value, 8 << 30);
    assert!(m.at.ends_with("memory/process_api"), "{}", m.at.display());
    assert_eq!(limits::cpuset(&h).unwrap().value, vec![0, 1]);
    assert_eq!(limits::pids(&h), None, "no pids.max at the root");
    assert!(h.v2().is_some(), "the empty cgroup2 is still seen");
}

#[test]
fn a_v1_quota_in_a_child_group_is_read_in_cpus() {
    let dir = tempfile::tempdir().unwrap();
    hybrid(dir.path());
    put(
        dir.path(),
        "proc/self/cgroup",
        "1:cpu:/box\n3:cpuset:/box\n",
    );
    put(
        dir.path(),
        "sys/fs/cgroup/cpu/box/cpu.cfs_quota_us",
        "150000\n",
    );
    put(
        dir.path(),
        "sys/fs/cgroup/cpu/box/cpu.cfs_period_us",
        "100000\n",
    );
    put(
        dir.path(),
        "sys/fs/cgroup/cpuset/box/cpuset.effective_cpus",
        "1\n",
    );
    let h = Hierarchy::detect(&Root::new(dir.path()));
    let q = limits::cpu_quota(&h).unwrap();
    assert!((q.value.cpus() - 1.5).abs() < 1e-9);
    assert!(q.at.ends_with("cpu/box"));
    assert_eq!(limits::cpuset(&h).unwrap().value, vec![1]);
}

/// A systemd host on pure v2: the process in a session scope, a quota on its slice.
fn pure_v2(root: &Path) {
    put(
        root,
        "proc/self/mountinfo",
        "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
    );
    put(
        root,
        "proc/self/cgroup",
        "0::/user.slice/user-1000.slice/session-3.scope\n",
    );
    let fs = "sys/fs/cgroup";
    put(
        root,
        &format!("{fs}/cgroup.controllers"),
        "cpuset cpu io memory pids\n",
    );
    put(
        root,
        &format!("{fs}/cgroup.subtree_control"),
        "cpu io memory pids\n",
    );
    let slice = format!("{fs}/user.slice/user-1000.slice");
    put(
        root,
        &format!("{slice}/cgroup.controllers"),
        "cpu memory pids\n",
    );
    put(
        root,
        &format!("{slice}/cgroup.subtree_control"),
        "cpu memory pids\n",
    );
    put(root, &format!("{slice}/cpu.max"), "200000 100000\n");
    put(root, &format!("{slice}/memory.max"), "max\n");
    put(root, &format!("{slice}/pids.max"), "10000\n");
    put(root, &format!("{slice}/pids.current"), "9000\n");
    let scope = format!("{slice}/session-3.scope");
    put(
        root,
        &format!("{scope}/cgroup.controllers"),
        "cpu memory pids\n",
    );
    put(root, &format!("{scope}/cpu.max"), "max 100000\n");
    put(root, &format!("{scope}/memory.max"), "1073741824\n");
    put(root, &format!("{scope}/pids.max"), "max\n");
    put(root, &format!("{scope}/pids.current"), "12\n");
    put(
        root,
        &format!("{scope}/cpu.stat"),
        "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 50\nnr_throttled 7\n\
         throttled_usec 9000\n",
    );
}

#[test]
fn pure_v2_finds_a_parents_quota_and_the_tightest_pids_room() {
    let dir = tempfile::tempdir().unwrap();
    pure_v2(dir.path());
    let h = Hierarchy::detect(&Root::new(dir.path()));
    assert_eq!(h.version_label(), "v2");
    // cpuset is offered at the root but not to this group.
    assert_eq!(h.place(Controller::Cpuset), None);
    assert_eq!(h.describe(), "cgroup v2 (cpu, memory, pids)");
    // Go before 1.25 read only its own group's cpu.max ("max") and missed this.
    let q = limits::cpu_quota(&h).unwrap();
    assert!((q.value.cpus() - 2.0).abs() < 1e-9);
    assert!(q.at.ends_with("user-1000.slice"));
    assert_eq!(limits::memory_max(&h).unwrap().value, 1 << 30);
    let p = limits::pids(&h).unwrap();
    assert_eq!(
        p.value,
        PidsRoom {
            max: 10_000,
            current: 9_000
        }
    );
    assert_eq!(p.value.free(), 1_000);
    let own = &h.place(Controller::Cpu).unwrap().own;
    let stat = limits::cpu_stat(own).unwrap();
    assert_eq!((stat.throttled_periods, stat.throttled_us), (7, 9000));
}

#[test]
fn a_container_that_mounts_its_own_group_reads_it_at_the_mount() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "proc/self/mountinfo",
        "40 30 0:26 /docker/f00 /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n",
    );
    put(dir.path(), "proc/self/cgroup", "0::/docker/f00\n");
    put(
        dir.path(),
        "sys/fs/cgroup/cgroup.controllers",
        "cpu memory pids\n",
    );
    put(dir.path(), "sys/fs/cgroup/cpu.max", "100000 100000\n");
    let h = Hierarchy::detect(&Root::new(dir.path()));
    let place = h.place(Controller::Cpu).unwrap();
    assert_eq!(place.own, place.mount);
    assert!((limits::cpu_quota(&h).unwrap().value.cpus() - 1.0).abs() < 1e-9);
}

#[test]
fn no_cgroup_mounted_means_no_controllers_and_no_limits() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "proc/self/mountinfo",
        "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
    );
    put(dir.path(), "proc/self/cgroup", "");
    let h = Hierarchy::detect(&Root::new(dir.path()));
    assert_eq!(h.version_label(), "none");
    assert_eq!(h.describe(), "no cgroup controllers");
    assert_eq!(limits::cpu_quota(&h), None);
    assert_eq!(limits::memory_max(&h), None);
}

#[test]
fn this_machine_is_read_without_error() {
    let h = Hierarchy::live();
    // Whatever the machine: the description names a version or says there is none.
    let d = h.describe();
    assert!(
        d.starts_with("cgroup v") || d == "no cgroup controllers",
        "{d}"
    );
}

#[test]
fn a_v1_cell_takes_one_directory_per_hierarchy_beside_the_own_groups() {
    use concbench_measure::cgroup::{Cell, CellSpec, CpuLimit};
    let dir = tempfile::tempdir().unwrap();
    hybrid(dir.path());
    let h = Hierarchy::detect(&Root::new(dir.path()));
    let spec = CellSpec {
        purpose: "capacity".into(),
        cpu: Some(CpuLimit::Quota(1.0)),
        memory_max: Some(1 << 30),
        pids_max: Some(1000),
    };
    let dirs = Cell::plan(&h, &spec).unwrap();
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    assert!(dirs[0].parent().unwrap().ends_with("sys/fs/cgroup/cpu"));
    // Memory nests under this process's own memory group, inside its limits.
    assert!(dirs[1]
        .parent()
        .unwrap()
        .ends_with("sys/fs/cgroup/memory/process_api/abc"));
    assert!(dirs[2].parent().unwrap().ends_with("sys/fs/cgroup/pids"));
    assert!(dirs.iter().all(|d| d
        .file_name()
        .unwrap()
        .to_string_lossy()
        .ends_with("-capacity")));
}

#[test]
fn a_v2_cell_goes_under_the_nearest_ancestor_that_delegates_its_controllers() {
    use concbench_measure::cgroup::{Cell, CellSpec, CpuLimit};
    let dir = tempfile::tempdir().unwrap();
    pure_v2(dir.path());
    let h = Hierarchy::detect(&Root::new(dir.path()));
    let spec = CellSpec {
        purpose: "run".into(),
        cpu: Some(CpuLimit::Quota(1.0)),
        ..CellSpec::default()
    };
    let dirs = Cell::plan(&h, &spec).unwrap();
    assert_eq!(dirs.len(), 1);
    // Not under the session scope (a v2 group with processes has no children with
    // controllers): under its slice, which delegates cpu.
    assert!(dirs[0].parent().unwrap().ends_with("user-1000.slice"));
    // A cpuset: the root offers it but no group delegates it; the refusal says how.
    let spec = CellSpec {
        purpose: "run".into(),
        cpu: Some(CpuLimit::Cpuset(vec![0])),
        ..CellSpec::default()
    };
    let refusal = Cell::plan(&h, &spec).unwrap_err();
    assert!(refusal.reason.contains("cpuset"), "{refusal}");
}
