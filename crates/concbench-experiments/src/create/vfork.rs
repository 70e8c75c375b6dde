//! `create.vfork`: the child shares the parent's memory and the parent sleeps until it exits —
//! no page tables copied. Done with `clone(CLONE_VM | CLONE_VFORK)` on a child stack of our own,
//! because calling `vfork()` from Rust lets the child return into frames the compiler does not
//! know are shared.

use crate::support::repeat;
use anyhow::{bail, Result};
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};

const META: Meta = Meta {
    id: "create.vfork",
    family: "create",
    title: "Process: vfork (clone CLONE_VM|CLONE_VFORK) + exit + waitpid",
    op: "clone(CLONE_VM|CLONE_VFORK|SIGCHLD), child returns 0, parent waitpid()",
    unit: "ns",
    expected_switches_per_op: None,
};

/// Bytes of stack for the child, which only returns.
pub(crate) const CHILD_STACK: usize = 64 * 1024;

#[derive(Default)]
pub struct Vfork {
    stack: Vec<u8>,
}

extern "C" fn child_body(_arg: *mut libc::c_void) -> libc::c_int {
    0
}

/// One `clone(CLONE_VM | CLONE_VFORK)` whose child returns at once on `stack`, reaped.
pub(crate) fn vfork_and_reap(stack: &mut [u8]) -> Result<()> {
    // Stacks grow down on every architecture Linux runs concbench on; keep 16-byte alignment.
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    // SAFETY: `top` points just past a live, exclusively borrowed buffer that no one else uses
    // while the child runs (CLONE_VFORK suspends us until it exits); `child_body` touches no
    // shared state and returns at once.
    let pid = unsafe {
        libc::clone(
            child_body,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::null_mut(),
        )
    };
    if pid < 0 {
        bail!(
            "clone(CLONE_VM|CLONE_VFORK): {}",
            std::io::Error::last_os_error()
        );
    }
    concbench_sys::child::wait_pid(pid)?;
    Ok(())
}

impl Experiment for Vfork {
    fn meta(&self) -> &Meta {
        &META
    }

    fn setup(&mut self, _ctx: &RunContext) -> Result<()> {
        self.stack = vec![0u8; CHILD_STACK];
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &RunContext,
        iterations: u64,
        _t: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        repeat(ctx, iterations, |_| vfork_and_reap(&mut self.stack))?;
        Ok(RunOutput::default())
    }

    fn teardown(&mut self, _ctx: &RunContext) -> Result<()> {
        self.stack = Vec::new();
        Ok(())
    }
}
