//! `memory.process`: K idle forked processes. Each child reports in through a pipe and sleeps in
//! `pause()` until it is killed; what it holds is what fork copied and what it touched since —
//! a few stack pages, plus page tables in the kernel.

use super::per_unit::Units;
use crate::support::fd::{pipe, read_full, write_all};
use anyhow::{ensure, Result};
use concbench_core::{Meta, Params};
use concbench_sys::Child;
use rustix::fd::AsFd;

const META: Meta = Meta {
    id: "memory.process",
    family: "memory",
    title: "Memory held by one idle process (fork)",
    op: "K forked processes idle at once; PSS increase of the process tree per process (KiB)",
    unit: "KiB",
    expected_switches_per_op: None,
};

pub struct Processes;

impl Units for Processes {
    fn meta(&self) -> &'static Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
    }

    fn is_task(&self) -> bool {
        true
    }

    fn kib_each_estimate(&self) -> u64 {
        512
    }

    fn hold(&self, k: u64, measure: &mut dyn FnMut(&[i32]) -> Result<()>) -> Result<()> {
        let (ready_r, ready_w) = pipe()?;
        // Dropping `children` (also on error) kills and reaps every one.
        let mut children: Vec<Child> = Vec::with_capacity(k as usize);
        for _ in 0..k {
            children.push(concbench_sys::fork_child(|| {
                if write_all(ready_w.as_fd(), b"r").is_err() {
                    return 1;
                }
                loop {
                    // SAFETY: pause has no preconditions; it sleeps until a signal (SIGKILL).
                    unsafe { libc::pause() };
                }
            })?);
        }
        drop(ready_w);
        let mut ready = vec![0u8; k as usize];
        let got = read_full(ready_r.as_fd(), &mut ready)?;
        ensure!(got as u64 == k, "only {got} of {k} processes started");
        let pids: Vec<i32> = children.iter().map(Child::pid).collect();
        measure(&pids)
    }
}
