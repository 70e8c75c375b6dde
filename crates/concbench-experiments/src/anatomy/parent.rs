//! `anatomy.fork`, `anatomy.vfork`, `anatomy.posix_spawn`: what makes fork expensive — the
//! same creations as the `create` family, from parents of growing size.
//!
//! Before measuring, the parent maps `parent_mib` MiB of anonymous memory, aligned to 2 MiB,
//! advises the kernel to back it with transparent huge pages or not (`madvise(MADV_HUGEPAGE)` /
//! `MADV_NOHUGEPAGE`: `thp=on|off`), and writes every 4 KiB page, so the whole region is
//! resident. fork copies the parent's page tables (one entry per 4 KiB page, or one per 2 MiB
//! huge page) and marks every page copy-on-write; vfork and posix_spawn (glibc: `clone(CLONE_VM
//! | CLONE_VFORK)`) copy nothing. The cost per MiB of parent is the slope along `parent_mib`;
//! `parent_threads` adds idle threads to the parent (one fork variant), because a process that
//! has ever had threads forks slower (see `create.fork`).
//!
//! `counters.anon_huge_mib` is how much of the parent the kernel really backed with huge pages:
//! `thp=on` is a request, and a region under 2 MiB never gets one.

use super::FAMILY;
use crate::create;
use crate::support::{capacity, gate::Gate, repeat};
use anyhow::{bail, Context, Result};
use concbench_core::{Experiment, Host, Meta, Params, RunContext, RunOutput, SampleTimer, Support};
use concbench_measure::memory;
use std::ffi::CString;
use std::sync::Arc;

pub const FORK: &str = "anatomy.fork";
pub const VFORK: &str = "anatomy.vfork";
pub const POSIX_SPAWN: &str = "anatomy.posix_spawn";
/// `params` keys.
pub const PARENT_MIB: &str = "parent_mib";
pub const THP: &str = "thp";
pub const PARENT_THREADS: &str = "parent_threads";
/// Metric: MiB of the parent's region backed by huge pages.
pub const ANON_HUGE_MIB: &str = "anon_huge_mib";

const FORK_META: Meta = Meta {
    id: FORK,
    family: FAMILY,
    title: "fork + exit + waitpid from a parent of growing resident size",
    op: "fork(), child _exit(0), parent waitpid(), the parent holding parent_mib MiB written",
    unit: "ns",
    expected_switches_per_op: None,
};

const VFORK_META: Meta = Meta {
    id: VFORK,
    family: FAMILY,
    title: "vfork + exit + waitpid from a parent of growing resident size",
    op: "clone(CLONE_VM|CLONE_VFORK|SIGCHLD), child returns 0, parent waitpid(), the parent \
         holding parent_mib MiB written",
    unit: "ns",
    expected_switches_per_op: None,
};

const SPAWN_META: Meta = Meta {
    id: POSIX_SPAWN,
    family: FAMILY,
    title: "posix_spawn /bin/true + waitpid from a parent of growing resident size",
    op: "posix_spawn(\"/bin/true\"), waitpid(), the parent holding parent_mib MiB written",
    unit: "ns",
    expected_switches_per_op: None,
};

/// The three ways of creating a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Fork,
    Vfork,
    PosixSpawn,
}

const HUGE_PAGE: usize = 2 << 20;
const PAGE: usize = 4096;
/// `--smoke` proves the experiment runs; it does not need a gibibyte.
const SMOKE_MIB: usize = 8;

/// The parent's resident region: mapped, advised, written; unmapped on drop.
struct Region {
    map: *mut libc::c_void,
    map_len: usize,
}

// SAFETY: the region is plain private memory owned by this value; nothing else points into it.
unsafe impl Send for Region {}

impl Region {
    fn new(mib: usize, huge: bool) -> Result<Self> {
        let len = mib << 20;
        let map_len = len + HUGE_PAGE;
        // SAFETY: an anonymous private mapping with no address hint; checked for failure below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            bail!("mmap of {mib} MiB: {}", std::io::Error::last_os_error());
        }
        let region = Region { map, map_len };
        // Huge pages need 2 MiB-aligned ranges: start at the first boundary inside the mapping.
        let start = (map as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
        let advice = if huge {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        // SAFETY: [start, start + len) lies inside the mapping made above.
        if unsafe { libc::madvise(start.cast(), len, advice) } != 0 {
            bail!("madvise: {}", std::io::Error::last_os_error());
        }
        for offset in (0..len).step_by(PAGE) {
            // SAFETY: in bounds of the mapping; writing makes the page resident (and private).
            unsafe { start.add(offset).write_volatile(1) };
        }
        Ok(region)
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: map/map_len describe the mapping this value owns.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

/// The system-wide THP mode from `/sys/kernel/mm/transparent_hugepage/enabled` (the bracketed
/// word of `always [madvise] never`).
pub fn thp_mode(text: &str) -> Option<&str> {
    let open = text.find('[')?;
    let close = text[open..].find(']')?;
    Some(&text[open + 1..open + close])
}

const THP_ENABLED: &str = "/sys/kernel/mm/transparent_hugepage/enabled";

/// Idle threads of the parent, released on drop.
struct Threads {
    gate: Arc<Gate>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Threads {
    fn start(n: usize) -> Result<Self> {
        let mut t = Threads {
            gate: Arc::new(Gate::default()),
            handles: Vec::new(),
        };
        for _ in 0..n {
            let g = t.gate.clone();
            t.handles.push(
                std::thread::Builder::new()
                    .stack_size(crate::support::partner::PARTNER_STACK_BYTES)
                    .spawn(move || g.check_in_and_wait())
                    .context("starting an idle parent thread")?,
            );
        }
        t.gate.wait_for(n as u64);
        Ok(t)
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        self.gate.open();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

pub struct Parent {
    method: Method,
    mib: usize,
    huge: bool,
    threads: usize,
    in_quick: bool,
    region: Option<Region>,
    idle: Option<Threads>,
    stack: Vec<u8>,
    program: CString,
    warnings: Vec<String>,
}

impl Parent {
    fn new(method: Method, mib: usize, huge: bool, threads: usize, in_quick: bool) -> Self {
        Self {
            method,
            mib,
            huge,
            threads,
            in_quick,
            region: None,
            idle: None,
            stack: Vec::new(),
            program: CString::default(),
            warnings: Vec::new(),
        }
    }

    fn create_one(&mut self) -> Result<()> {
        match self.method {
            Method::Fork => create::fork_and_reap(),
            Method::Vfork => create::vfork_and_reap(&mut self.stack),
            Method::PosixSpawn => {
                let (argv, envp) = create::bare_args(&self.program);
                let pid = create::posix_spawn(&self.program, &argv, &envp)?;
                create::reap_ok(pid, &self.program)
            }
        }
    }
}

impl Experiment for Parent {
    /// The anatomy's layers are differences with its other variants, pass by pass.
    fn paired(&self) -> bool {
        true
    }

    fn meta(&self) -> &Meta {
        match self.method {
            Method::Fork => &FORK_META,
            Method::Vfork => &VFORK_META,
            Method::PosixSpawn => &SPAWN_META,
        }
    }

    fn params(&self) -> Params {
        Params::new()
            .with(PARENT_MIB, self.mib as u64)
            .with(THP, if self.huge { "on" } else { "off" })
            .with(PARENT_THREADS, self.threads as u64)
    }

    fn in_quick(&self) -> bool {
        self.in_quick
    }

    fn supported(&self, host: &Host) -> Support {
        let thp = std::fs::read_to_string(THP_ENABLED).unwrap_or_default();
        let thp_refused = match thp_mode(&thp) {
            None | Some("never") if self.huge => {
                Some(Support::No(concbench_sys::users::fit_root_commands(
                    "transparent huge pages are off (`never` or absent in \
                     /sys/kernel/mm/transparent_hugepage/enabled): `echo madvise | sudo tee \
                     /sys/kernel/mm/transparent_hugepage/enabled` to measure thp=on",
                )))
            }
            _ => None,
        };
        let program = match (self.method, create::true_path()) {
            (Method::PosixSpawn, None) => {
                Support::No("no /bin/true or /usr/bin/true to start".into())
            }
            _ => Support::Yes,
        };
        capacity::all(thp_refused.into_iter().chain([
            program,
            capacity::memory_fits(1, (self.mib * 1024) as u64),
            capacity::tasks_fit(host, self.threads as u64 + 1),
        ]))
    }

    fn setup(&mut self, ctx: &RunContext) -> Result<()> {
        let mib = if ctx.smoke {
            self.mib.min(SMOKE_MIB)
        } else {
            self.mib
        };
        if mib < self.mib {
            self.warnings.push(format!(
                "smoke run: the parent held {mib} MiB, not {} (a smoke run proves the code, not \
                 the cost)",
                self.mib
            ));
        }
        self.region = Some(Region::new(mib, self.huge)?);
        self.idle = Some(Threads::start(self.threads.saturating_sub(1))?);
        self.stack = vec![0u8; create::CHILD_STACK];
        if self.method == Method::PosixSpawn {
            self.program = CString::new(create::true_path().context("no /bin/true")?)?;
        }
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        repeat(ctx, iterations, |_| self.create_one())?;
        timer.stop();
        let mut out = RunOutput {
            warnings: self.warnings.clone(),
            ..Default::default()
        };
        let huge_kib = memory::anon_huge_kib(memory::own_pid());
        if let Some(kib) = huge_kib {
            out = out.metric(ANON_HUGE_MIB, kib / 1024.0);
            if self.huge && self.mib >= 2 && kib == 0.0 {
                out.warnings.push(
                    "thp=on, but the kernel backed none of the parent with huge pages (no free \
                     2 MiB pages? see /sys/kernel/mm/transparent_hugepage/defrag)"
                        .into(),
                );
            }
        }
        Ok(out)
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.region = None;
        self.idle = None;
        Ok(())
    }
}

/// Parent sizes (MiB). `--quick` keeps 1, 64 and 1024 MiB for fork, whose cost grows with the
/// parent, and 1 and 64 MiB for vfork and posix_spawn, whose cost should not: writing a 1 GiB
/// parent takes seconds on a small VM, and the quick suite has a minute.
const SIZES_MIB: [usize; 5] = [1, 4, 64, 256, 1024];
const QUICK_SIZES_MIB: [usize; 3] = [1, 64, 1024];
const LARGEST_MIB: usize = 1024;
/// Thread counts of the threaded-parent fork variants (`--quick`: the first).
const THREADS: [usize; 2] = [64, 256];

pub fn variants() -> Vec<Box<dyn Experiment>> {
    let mut v: Vec<Box<dyn Experiment>> = Vec::new();
    for method in [Method::Fork, Method::Vfork, Method::PosixSpawn] {
        for mib in SIZES_MIB {
            for huge in [false, true] {
                let quick =
                    QUICK_SIZES_MIB.contains(&mib) && (method == Method::Fork || mib < LARGEST_MIB);
                v.push(Box::new(Parent::new(method, mib, huge, 1, quick)));
            }
        }
    }
    for (i, threads) in THREADS.into_iter().enumerate() {
        v.push(Box::new(Parent::new(
            Method::Fork,
            1,
            false,
            threads,
            i == 0,
        )));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thp_mode_is_the_bracketed_word() {
        assert_eq!(thp_mode("always [madvise] never\n"), Some("madvise"));
        assert_eq!(thp_mode("always madvise [never]"), Some("never"));
        assert_eq!(thp_mode(""), None);
    }

    #[test]
    fn quick_keeps_small_middle_and_largest_parents_and_one_threaded_parent() {
        let quick: Vec<String> = variants()
            .into_iter()
            .filter(|e| e.in_quick())
            .map(|e| format!("{} {}", e.meta().id, e.params().compact()))
            .collect();
        assert_eq!(quick.len(), (3 + 2 + 2) * 2 + 1, "{quick:#?}");
        assert!(quick.contains(&"anatomy.fork parent_mib=1024 parent_threads=1 thp=on".into()));
        assert!(quick.contains(&"anatomy.fork parent_mib=1 parent_threads=64 thp=off".into()));
    }
}
