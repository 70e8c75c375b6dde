//! The shape of the process a fork copies: its anonymous memory, page tables and mappings.
//!
//! A fork copies the parent's mappings and, for every private page the parent dirtied, its
//! page-table entry; so the time of one fork grows with the parent's anonymous memory (a C
//! parent that touched 2 MiB forks ~1.5x slower than one that touched none, on the development
//! VM). `create.fork` records the shape it forked from in its counters, so that a reader (and
//! `bench/fidelity/create.py`, which runs a C reference of the same shape) sees what each round
//! copied.

use concbench_core::RunOutput;
use std::collections::BTreeMap;

/// What `/proc/self` says about the process's shape, in the units of the counters it becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    /// `RssAnon`: resident anonymous memory (heap, stacks, dirtied private file pages), KiB.
    pub anon_kib: f64,
    /// `VmPTE`: memory in page tables, KiB.
    pub pte_kib: f64,
    /// Mappings (lines of `/proc/self/maps`).
    pub vmas: f64,
}

impl Shape {
    /// The calling process's shape, or None where `/proc` does not say (not Linux, hidden).
    pub fn of_self() -> Option<Shape> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
        Self::parse(&status, &maps)
    }

    /// The shape from the text of `/proc/PID/status` and `/proc/PID/maps`.
    pub fn parse(status: &str, maps: &str) -> Option<Shape> {
        let kib = |field: &str| -> Option<f64> {
            let line = status.lines().find(|l| l.starts_with(field))?;
            let value = line[field.len()..].trim().strip_suffix("kB")?;
            value.trim().parse().ok()
        };
        Some(Shape {
            anon_kib: kib("RssAnon:")?,
            pte_kib: kib("VmPTE:")?,
            vmas: maps.lines().filter(|l| !l.trim().is_empty()).count() as f64,
        })
    }

    /// The counters it is recorded as (each round's median over its samples).
    pub fn counters(&self) -> BTreeMap<&'static str, f64> {
        BTreeMap::from([
            ("parent_anon_kib", self.anon_kib),
            ("parent_pte_kib", self.pte_kib),
            ("parent_vmas", self.vmas),
        ])
    }

    /// A sample's output: the counters of the shape it forked from (none when /proc did not say).
    pub fn output(shape: Option<Shape>) -> RunOutput {
        let counters = shape.map(|s| s.counters()).unwrap_or_default();
        counters
            .into_iter()
            .fold(RunOutput::default(), |out, (name, v)| out.metric(name, v))
    }
}

/// Give the heap's free pages back to the kernel (glibc's `malloc_trim`), so that a fork does
/// not copy the entries of pages the worker dirtied while starting (parsing its job, building
/// the registry) and no longer uses. A no-op where the C library has no such call.
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator to the kernel; it is
    // thread-safe and invalidates no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: &str = "Name:\tconcbench\nVmRSS:\t    8092 kB\nRssAnon:\t     392 kB\n\
                          RssFile:\t    7700 kB\nVmPTE:\t      68 kB\nThreads:\t1\n";
    const MAPS: &str = "00400000-00401000 r--p 00000000 fd:00 1 /bin/x\n\
                        7ffc0000-7ffc1000 rw-p 00000000 00:00 0 [stack]\n";

    #[test]
    fn shape_is_read_from_status_and_maps() {
        let s = Shape::parse(STATUS, MAPS).unwrap();
        assert_eq!(
            s,
            Shape {
                anon_kib: 392.0,
                pte_kib: 68.0,
                vmas: 2.0
            }
        );
        assert_eq!(s.counters()["parent_anon_kib"], 392.0);
        assert_eq!(s.counters()["parent_vmas"], 2.0);
    }

    #[test]
    fn a_status_without_the_fields_gives_no_shape() {
        assert_eq!(Shape::parse("Name:\tx\nVmPTE:\t4 kB\n", MAPS), None);
        assert_eq!(Shape::parse("RssAnon:\tmany\nVmPTE:\t4 kB\n", MAPS), None);
    }

    #[test]
    fn this_process_has_a_shape_on_linux() {
        if cfg!(target_os = "linux") {
            let s = Shape::of_self().expect("/proc/self readable");
            assert!(s.anon_kib > 0.0 && s.pte_kib > 0.0 && s.vmas > 1.0, "{s:?}");
        }
    }
}
