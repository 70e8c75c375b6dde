//! `memory.async_task`: K tokio tasks on a current-thread runtime, each waiting on a shared
//! `Notify`: what an idle task costs is its heap allocation (the future's state and the task
//! header), plus its `JoinHandle`.

use super::per_unit::Units;
use anyhow::Result;
use concbench_core::{Meta, Params};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

const META: Meta = Meta {
    id: "memory.async_task",
    family: "memory",
    title: "Memory held by one idle async task (tokio)",
    op: "K tasks pending at once; PSS increase of the process per task (KiB)",
    unit: "KiB",
    expected_switches_per_op: None,
};

pub struct AsyncTasks;

impl Units for AsyncTasks {
    fn meta(&self) -> &'static Meta {
        &META
    }

    fn params(&self) -> Params {
        Params::new()
    }

    fn is_task(&self) -> bool {
        false
    }

    fn kib_each_estimate(&self) -> u64 {
        4
    }

    fn hold(&self, k: u64, measure: &mut dyn FnMut(&[i32]) -> Result<()>) -> Result<()> {
        let rt = crate::support::runtime::current_thread()?;
        rt.block_on(async {
            let wake = Arc::new(Notify::new());
            let waiting = Arc::new(AtomicU64::new(0));
            let mut handles = Vec::with_capacity(k as usize);
            for _ in 0..k {
                let (wake, waiting) = (wake.clone(), waiting.clone());
                handles.push(tokio::spawn(async move {
                    let notified = wake.notified();
                    tokio::pin!(notified);
                    // Registered before counting in, so the wake-up below cannot be missed.
                    notified.as_mut().enable();
                    waiting.fetch_add(1, Ordering::SeqCst);
                    notified.await;
                }));
            }
            while waiting.load(Ordering::SeqCst) < k {
                tokio::task::yield_now().await;
            }
            measure(&[])?;
            wake.notify_waiters();
            for h in handles {
                h.await?;
            }
            Ok(())
        })
    }
}
