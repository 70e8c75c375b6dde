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

/// Start `n` partners, the `i`th by `spawn(i)`. When one fails to start, `abandon` stops the ones
/// already running (a failed `setup` has no teardown to do it) and the error is returned.
pub fn spawn_each(
    n: usize,
    mut spawn: impl FnMut(usize) -> Result<Partner>,
    abandon: impl FnOnce(Vec<Partner>),
) -> Result<Vec<Partner>> {
    let mut started = Vec::with_capacity(n);
    for i in 0..n {
        match spawn(i) {
            Ok(p) => started.push(p),
            Err(e) => {
                abandon(started);
                return Err(e);
            }
        }
    }
    Ok(started)
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

    #[test]
    fn a_partner_that_fails_to_start_hands_the_started_ones_to_abandon() {
        let mut abandoned = None;
        let err = spawn_each(
            3,
            |i| match i {
                2 => Err(anyhow!("the third could not start")),
                _ => Partner::spawn("t", || Ok(()), || Ok(())),
            },
            |started| abandoned = Some(started),
        )
        .err()
        .expect("the third failed");
        assert_eq!(err.to_string(), "the third could not start");
        let started = abandoned.expect("abandon was called");
        assert_eq!(started.len(), 2);
        started.into_iter().for_each(|p| p.join().unwrap());
        let all = spawn_each(
            2,
            |_| Partner::spawn("t", || Ok(()), || Ok(())),
            |_| panic!(),
        );
        assert_eq!(
            all.unwrap().len(),
            2,
            "abandon is not called when all start"
        );
    }
}
