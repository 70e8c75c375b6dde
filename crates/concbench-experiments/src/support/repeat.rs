//! The inner loop of an experiment: `n` operations, stopping promptly on Ctrl-C.

use anyhow::Result;
use concbench_core::RunContext;

/// How often the loop polls for Ctrl-C: a power of two minus one, so the check is a mask and
/// costs nothing measurable next to a system call.
const CANCEL_POLL_MASK: u64 = 1023;

/// Run `op` `n` times (with the iteration number), returning its first error, and checking for
/// cancellation every 1024 iterations.
#[inline]
pub fn repeat(ctx: &RunContext, n: u64, mut op: impl FnMut(u64) -> Result<()>) -> Result<()> {
    for i in 0..n {
        if i & CANCEL_POLL_MASK == 0 {
            ctx.cancel.check()?;
        }
        op(i)?;
    }
    Ok(())
}
