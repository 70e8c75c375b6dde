//! `syscall.getppid`: one raw system call that does almost nothing (as `perf bench syscall
//! basic`): the price of entering and leaving the kernel on this machine.

use anyhow::Result;
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};
use std::hint::black_box;

const META: Meta = Meta {
    id: "syscall.getppid",
    family: "syscall",
    title: "One raw system call (getppid)",
    op: "syscall(SYS_getppid)",
    unit: "ns",
    expected_switches_per_op: None,
};

pub struct Getppid;

impl Experiment for Getppid {
    fn meta(&self) -> &Meta {
        &META
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        for _ in 0..iterations {
            // SAFETY: SYS_getppid takes no arguments and cannot fail. Called through syscall(2)
            // rather than a possibly caching wrapper, as perf bench does.
            black_box(unsafe { libc::syscall(libc::SYS_getppid) });
        }
        Ok(RunOutput::default())
    }
}
