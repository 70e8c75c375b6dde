//! The safe cap of `limits.threads`: the most threads it may create, so that it reports "at
//! least N" instead of finding the system's real limit by exhausting it (which would make
//! every other program of the user fail to fork or start a thread meanwhile).
//!
//! The cap is the smallest of: a configured ceiling; each task limit (RLIMIT_NPROC,
//! threads-max, pid_max, cgroup pids.max) minus a margin; the memory maps left (two per thread:
//! stack and guard page); half the memory available at a generous per-thread cost; and, when
//! they apply, the address space left under RLIMIT_AS and the commit left under strict
//! overcommit (each thread's whole stack counts against both).

use concbench_measure::headroom::Headroom;

/// What bounds the cap and how many threads it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub what: String,
    pub threads: u64,
}

/// Everything the cap depends on, read live by [`Inputs::read`].
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub ceiling: u64,
    pub stack_bytes: u64,
    /// The tightest task limit, margin already kept.
    pub tasks: Option<Headroom>,
    /// vm.max_map_count headroom of this process.
    pub maps: Option<Headroom>,
    pub memory_available_kib: Option<u64>,
    /// Bytes of address space left under RLIMIT_AS, when it is set.
    pub address_space_left: Option<u64>,
    /// Bytes of commit left under vm.overcommit_memory = 2, when strict accounting is on.
    pub commit_left: Option<u64>,
}

/// Memory one idle thread takes beyond its stack reservation (kernel stack, task struct, the
/// touched top of its stack, TLS), rounded up generously.
const KIB_PER_THREAD: u64 = 64;
/// Share of the maps, memory, address space and commit left that the threads may use.
const SHARE: f64 = 0.5;

fn share(v: u64) -> u64 {
    (v as f64 * SHARE) as u64
}

/// Every bound that applies; the cap is the smallest.
pub fn bounds(i: &Inputs) -> Vec<Bound> {
    let mut out = vec![Bound {
        what: "the configured ceiling".into(),
        threads: i.ceiling,
    }];
    let mut push = |what: String, threads: u64| out.push(Bound { what, threads });
    if let Some(t) = &i.tasks {
        push(t.limit.clone(), t.free);
    }
    if let Some(m) = &i.maps {
        push(m.limit.clone(), share(m.free) / 2);
    }
    if let Some(kib) = i.memory_available_kib {
        push(
            format!("half of the {} MiB of available memory", kib / 1024),
            share(kib) / KIB_PER_THREAD,
        );
    }
    let per_thread = i.stack_bytes.max(1);
    if let Some(left) = i.address_space_left {
        push("RLIMIT_AS (ulimit -v)".into(), share(left) / per_thread);
    }
    if let Some(left) = i.commit_left {
        push(
            "the commit limit (vm.overcommit_memory = 2)".into(),
            share(left) / per_thread,
        );
    }
    out
}

/// The smallest bound.
pub fn cap(i: &Inputs) -> Bound {
    bounds(i)
        .into_iter()
        .min_by_key(|b| b.threads)
        .expect("the ceiling is always a bound")
}

impl Inputs {
    /// Read every input now, for threads of `stack_bytes`.
    pub fn read(host: &concbench_core::Host, ceiling: u64, stack_bytes: u64) -> Inputs {
        Inputs {
            ceiling,
            stack_bytes,
            tasks: crate::support::capacity::task_room(host),
            maps: concbench_measure::headroom::map_headroom(),
            memory_available_kib: concbench_measure::headroom::memory_available_kib(),
            address_space_left: address_space_left(),
            commit_left: commit_left(),
        }
    }
}

fn address_space_left() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let vm_size_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(r.rlim_cur.saturating_sub(vm_size_kib * 1024))
}

fn commit_left() -> Option<u64> {
    let mode = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").ok()?;
    if mode.trim() != "2" {
        return None;
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        meminfo
            .lines()
            .find_map(|l| l.strip_prefix(name))?
            .split_whitespace()
            .next()?
            .parse::<u64>()
            .ok()
    };
    Some(
        field("CommitLimit:")?
            .saturating_sub(field("Committed_AS:")?)
            .saturating_mul(1024),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> Inputs {
        Inputs {
            ceiling: 10_000,
            stack_bytes: 8 << 20,
            tasks: Some(Headroom {
                limit: "RLIMIT_NPROC (ulimit -u) of 4096".into(),
                free: 3_000,
            }),
            maps: Some(Headroom {
                limit: "vm.max_map_count of 65530".into(),
                free: 65_000,
            }),
            memory_available_kib: Some(16 << 20),
            address_space_left: None,
            commit_left: None,
        }
    }

    #[test]
    fn the_tightest_limit_sets_the_cap_and_is_named() {
        let c = cap(&inputs());
        assert_eq!(c.threads, 3_000);
        assert!(c.what.contains("RLIMIT_NPROC"));
    }

    #[test]
    fn the_ceiling_applies_when_the_system_allows_more() {
        let mut i = inputs();
        i.tasks = None;
        assert_eq!(cap(&i).what, "the configured ceiling");
    }

    #[test]
    fn a_32_bit_like_address_space_caps_big_stacks_as_in_the_seed() {
        // The seed's 3 GB of user address space with 8 MiB stacks fitted ~384 threads; we use
        // at most half of what is left.
        let mut i = inputs();
        i.address_space_left = Some(3 << 30);
        let c = cap(&i);
        assert_eq!(c.threads, 192);
        assert!(c.what.contains("RLIMIT_AS"));
    }

    #[test]
    fn maps_count_two_per_thread() {
        let mut i = inputs();
        i.tasks = None;
        i.maps = Some(Headroom {
            limit: "vm.max_map_count of 1000".into(),
            free: 800,
        });
        assert_eq!(cap(&i).threads, 200);
    }
}
