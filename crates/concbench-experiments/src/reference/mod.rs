//! Family `reference` (opt-in: runs only when named, `concbench run --only reference`): C loops
//! linked into concbench and run in a worker where an experiment's own loop runs, so that a
//! fidelity benchmark can tell what concbench's harness adds around an operation from what the
//! process it runs in adds. Not a result a run reports on its own: `bench/fidelity/create.py`
//! pairs `reference.fork_c` with `create.fork`, round by round.
//!
//! Why in the worker: `create.fork` forks from concbench's worker, whose shape (RssAnon, page
//! tables, mappings, a larger binary's file mappings) a standalone C program can only
//! approximate; on the development VM the standalone loop grown to the worker's RssAnon and
//! mapping count still forked ~13% slower than `create.fork` (docs/FIDELITY.md). Here the C loop
//! forks from the very process `create.fork` forks from.

pub(crate) mod fork_c;

use concbench_core::Experiment;

pub const FAMILY: &str = "reference";

pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![Box::new(crate::create::Fork::c_loop())]
}

/// `--only reference` also measures the loops each reference stands beside: `create.fork` from
/// a parent that never had a second thread, as the C loop's parent.
pub fn is_input(e: &dyn Experiment) -> bool {
    e.meta().id == concbench_core::vocab::id::CREATE_FORK
        && e.params().get_str("parent") == Some("single-threaded")
}
