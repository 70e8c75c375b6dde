//! What the experiments' integration tests share: a harness in smoke mode (quick, a few
//! iterations, the default repetitions, pinned as a run pins) on this host.

use concbench_core::CancelToken;
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::path::Path;
use std::sync::Arc;

/// A smoke-mode harness whose scratch files go to `scratch`.
pub fn smoke_harness(scratch: &Path) -> Harness {
    Harness {
        config: HarnessConfig {
            quick: true,
            smoke: true,
            repetitions: None,
            pin: PinMode::Auto,
        },
        host: Arc::new(concbench_measure::host::collect()),
        cancel: CancelToken::new(),
        scratch_dir: scratch.to_path_buf(),
        options: Default::default(),
    }
}
