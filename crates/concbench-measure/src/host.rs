//! Collecting the machine's facts and confounders for the result document.
//!
//! Each fact is read from the place the kernel publishes it; a fact that cannot be read is left
//! empty rather than guessed.

use concbench_core::Host;
use procfs::Current;
use std::collections::BTreeMap;
use std::fs;

fn read_trim(path: &str) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Collect every fact; never fails (missing facts stay empty).
pub fn collect() -> Host {
    let uname = rustix_uname();
    let cpus_allowed = concbench_sys::allowed_cpus().unwrap_or_default();
    let meminfo = procfs::Meminfo::current().ok();
    let load = procfs::LoadAverage::current().ok();
    let (virtualized, hypervisor) = hypervisor();
    Host {
        machine_id: Some(crate::machine_id::collect(&uname.0)),
        hostname: uname.0,
        kernel: uname.1,
        os: os_pretty_name(),
        arch: std::env::consts::ARCH.to_string(),
        cpu_model: cpu_model(),
        logical_cpus: online_cpus().unwrap_or(cpus_allowed.len()),
        cpus_allowed,
        smt: smt_active(),
        virtualized,
        hypervisor,
        clocksource: read_trim("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap_or_default(),
        mitigations: mitigations(),
        governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        cpu_quota: cgroup_cpu_quota(),
        memory_total_kib: meminfo.as_ref().map(|m| m.mem_total / 1024).unwrap_or(0),
        memory_available_kib: meminfo
            .as_ref()
            .and_then(|m| m.mem_available)
            .map(|b| b / 1024)
            .unwrap_or(0),
        load_average: load
            .map(|l| [l.one as f64, l.five as f64, l.fifteen as f64])
            .unwrap_or([0.0; 3]),
        page_size: procfs::page_size() as usize,
        // SAFETY: geteuid has no preconditions.
        is_root: unsafe { libc::geteuid() } == 0,
        can_sched_fifo: concbench_sys::sched::can_use_fifo(),
        threads_max: read_trim("/proc/sys/kernel/threads-max").and_then(|s| s.parse().ok()),
        rlimit_nproc: soft_limit(libc::RLIMIT_NPROC),
        rlimit_nofile: soft_limit(libc::RLIMIT_NOFILE),
        default_stack_kib: default_thread_stack() / 1024,
    }
}

/// This machine's id, as [`collect`] records it in `host.machine_id`.
pub fn this_machine() -> String {
    crate::machine_id::collect(&rustix_uname().0)
}

fn rustix_uname() -> (String, String) {
    // SAFETY: an all-zero utsname is a valid value of this plain C struct.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: uname fills the struct it is given.
    if unsafe { libc::uname(&mut u) } != 0 {
        return (String::new(), String::new());
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (field(&u.nodename), field(&u.release))
}

fn os_pretty_name() -> Option<String> {
    let text = fs::read_to_string("/etc/os-release").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
}

fn cpu_model() -> String {
    let text = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
}

fn cpu_flags() -> Vec<String> {
    let text = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Count of CPUs in `/sys/devices/system/cpu/online` ("0-1,4").
fn online_cpus() -> Option<usize> {
    let list = read_trim("/sys/devices/system/cpu/online")?;
    let mut n = 0;
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => n += b.parse::<usize>().ok()? - a.parse::<usize>().ok()? + 1,
            None => n += 1,
        }
    }
    Some(n)
}

fn smt_active() -> bool {
    if let Some(v) = read_trim("/sys/devices/system/cpu/smt/active") {
        return v == "1";
    }
    read_trim("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
        .map(|s| s.contains(',') || s.contains('-'))
        .unwrap_or(false)
}

/// Whether a hypervisor is present (the CPUID "hypervisor" flag) and its name when visible.
pub fn hypervisor() -> (bool, Option<String>) {
    let flagged = cpu_flags().iter().any(|f| f == "hypervisor");
    let name = cpuid_hypervisor_vendor()
        .or_else(|| read_trim("/sys/hypervisor/type"))
        .or_else(|| read_trim("/sys/class/dmi/id/sys_vendor").filter(|_| flagged));
    (flagged || name.is_some(), name)
}

#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor_vendor() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    // Leaf 0x4000_0000 is the hypervisor vendor leaf; only meaningful when the hypervisor flag
    // (leaf 1, ECX bit 31) is set.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID is available on every x86_64 CPU and has no side effects.
    let leaf1 = unsafe { __cpuid(1) };
    if leaf1.ecx & (1 << 31) == 0 {
        return None;
    }
    #[allow(unused_unsafe)]
    // SAFETY: as above.
    let r = unsafe { __cpuid(0x4000_0000) };
    let bytes: Vec<u8> = [r.ebx, r.ecx, r.edx]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let vendor = String::from_utf8_lossy(&bytes)
        .trim_matches(char::from(0))
        .trim()
        .to_string();
    let known = match vendor.as_str() {
        "KVMKVMKVM" => "KVM",
        "Microsoft Hv" => "Hyper-V",
        "VMwareVMware" => "VMware",
        "XenVMMXenVMM" => "Xen",
        "TCGTCGTCGTCG" => "QEMU (TCG)",
        " lrpepyh  vr" | "lrpepyh  vr" => "Parallels",
        "VBoxVBoxVBox" => "VirtualBox",
        "ACRNACRNACRN" => "ACRN",
        _ => return (!vendor.is_empty()).then_some(vendor),
    };
    Some(known.to_string())
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_hypervisor_vendor() -> Option<String> {
    None
}

fn mitigations() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Ok(dir) = fs::read_dir("/sys/devices/system/cpu/vulnerabilities") {
        for entry in dir.flatten() {
            if let Ok(v) = fs::read_to_string(entry.path()) {
                out.insert(
                    entry.file_name().to_string_lossy().into_owned(),
                    v.trim().to_string(),
                );
            }
        }
    }
    out
}

/// The CPU quota of this process's control groups (v1 or v2, its own or an ancestor's), in
/// CPUs, when one is set.
fn cgroup_cpu_quota() -> Option<f64> {
    crate::cgroup::limits::cpu_quota(&crate::cgroup::Hierarchy::live()).map(|q| q.value.cpus())
}

/// A resource limit's soft value (`None`: unlimited or unreadable).
pub fn soft_limit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the valid pointer.
    if unsafe { libc::getrlimit(resource, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(r.rlim_cur)
}

/// The stack size a thread created with default attributes gets (glibc derives it from
/// RLIMIT_STACK), in bytes.
pub fn default_thread_stack() -> u64 {
    // SAFETY: an all-zero pthread_attr_t is valid storage for pthread_attr_init to initialise.
    let mut attr: libc::pthread_attr_t = unsafe { std::mem::zeroed() };
    let mut size: libc::size_t = 0;
    // SAFETY: attr is initialised before use and destroyed after; getstacksize writes one size_t.
    unsafe {
        if libc::pthread_attr_init(&mut attr) != 0 {
            return 8 << 20;
        }
        libc::pthread_attr_getstacksize(&attr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
    }
    size as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_the_basics() {
        let h = collect();
        assert!(!h.kernel.is_empty());
        assert!(h.logical_cpus >= 1);
        assert!(!h.cpus_allowed.is_empty());
        assert!(h.page_size >= 4096);
        assert!(h.default_stack_kib >= 16);
    }
}
