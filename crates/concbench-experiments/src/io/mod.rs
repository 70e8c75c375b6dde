//! Family `io`: does reading files with more threads help? (seed S4)
//!
//! One experiment, `io.read`, swept over the reading model (one thread in turn, a thread or a
//! process per file, one io_uring), the number and size of the files, the read size, the
//! application's reader (block reads, the seed's one byte per call behind a buffer, or direct IO
//! past the page cache) and the cache state (cold, verified; or warm). Each repetition records
//! what the block device did and what it is (`device.rs`), so a verdict can tell a disk from a
//! cache. See `read.rs` for how a cold read is made and checked, `dir.rs` for where the data
//! files live and who removes them. `io.read.java` (`java.rs`) runs the seed's own Java reader on
//! the same files under the same cold-cache protocol.

mod cache;
mod config;
mod dataset;
mod device;
pub mod dir;
mod direct;
mod gate;
mod java;
mod metrics;
mod processes;
mod read;
mod reader;
mod sample;
mod sequential;
mod sweep;
mod threads;
mod uring;

pub use cache::{CacheState, COLD_AT_LEAST, WARM_BELOW};
pub use dir::RunData;

use concbench_core::Experiment;

pub fn all() -> Vec<Box<dyn Experiment>> {
    let rust = sweep::configs()
        .into_iter()
        .map(|c| Box::new(read::Read::new(c)) as Box<dyn Experiment>);
    let java = java::configs()
        .into_iter()
        .map(|c| Box::new(java::JavaRead::new(c)) as Box<dyn Experiment>);
    rust.chain(java).collect()
}
