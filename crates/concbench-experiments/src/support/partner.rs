//! Partner threads: started, prepared (pinned, scheduling policy set) and confirmed ready before
//! the measurement begins, so a partner that could not be placed is a setup error rather than a
//! hang or a silently unpinned result.

use anyhow::{anyhow, Context, Result};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// Stack for partner threads: they run a small loop, and 100 of them must stay cheap.
pub const PARTNER_STACK_BYTES: usize = 256 * 1024;

/// A running partner thread. Stop it the way its body expects (close its endpoint, set a flag),
/// then [`Partner::join`]; dropping it without joining detaches it.
pub struct Partner {
    handle: JoinHandle<Result<()>>,
}

impl Partner {
    /// Start `body` on a new thread after `prepare` has run there; return once `prepare`
    /// succeeded, or its error.
    pub fn spawn(
        name: &str,
        prepare: impl FnOnce() -> Result<()> + Send + 'static,
        body: impl FnOnce() -> Result<()> + Send + 'static,
    ) -> Result<Self> {
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .stack_size(PARTNER_STACK_BYTES)
            .spawn(move || {
                let prepared = prepare();
                let ok = prepared.is_ok();
                let _ = ready_tx.send(prepared);
                if ok {
                    body()
                } else {
                    Ok(())
                }
            })
            .with_context(|| format!("starting partner thread {name}"))?;
        let ready = ready_rx
            .recv()
            .map_err(|_| anyhow!("partner thread {name} died while starting"));
        match ready.and_then(|r| r) {
            Ok(()) => Ok(Self { handle }),
            Err(e) => {
                let _ = handle.join();
                Err(e.context(format!("preparing partner thread {name}")))
            }
        }
    }

    /// Wait for the partner to finish and return its body's result.
    pub fn join(self) -> Result<()> {
        self.handle
            .join()
            .map_err(|_| anyhow!("a partner thread panicked"))?
    }
}

/// The usual preparation: pin to `cpu` when given.
pub fn pin_to(cpu: Option<usize>) -> Result<()> {
    match cpu {
        Some(c) => concbench_sys::pin_current_thread(c),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_preparation_is_reported_and_the_body_never_runs() {
        let (tx, rx) = mpsc::channel::<()>();
        let err = Partner::spawn(
            "t",
            || Err(anyhow!("cannot pin")),
            move || {
                tx.send(()).unwrap();
                Ok(())
            },
        )
        .err()
        .expect("preparation failed");
        assert!(format!("{err:#}").contains("cannot pin"), "{err:#}");
        assert!(rx.recv().is_err(), "the body ran");
    }

    #[test]
    fn the_body_result_comes_back_on_join() {
        let p = Partner::spawn("t", || Ok(()), || Err(anyhow!("body failed"))).unwrap();
        assert!(p.join().is_err());
    }
}
