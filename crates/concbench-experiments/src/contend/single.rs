//! `contend.single`: seed S1's SingleThreadTester — one thread increments a counter to N. The
//! counter lives in memory (read and written through a pointer the compiler cannot see through,
//! as the seed's field behind a virtual call), so every increment is a real load and store.

use anyhow::Result;
use concbench_core::{Experiment, Meta, RunContext, RunOutput, SampleTimer};
use std::hint::black_box;

const META: Meta = Meta {
    id: "contend.single",
    family: "contend",
    title: "S1: one thread increments a counter",
    op: "one increment of a counter in memory",
    unit: "ns",
    expected_switches_per_op: None,
};

#[derive(Default)]
pub struct Single {
    counter: u64,
}

impl Experiment for Single {
    fn meta(&self) -> &Meta {
        &META
    }

    fn run(
        &mut self,
        _ctx: &RunContext,
        iterations: u64,
        _timer: &mut dyn SampleTimer,
    ) -> Result<RunOutput> {
        self.counter = 0;
        while *black_box(&self.counter) < iterations {
            *black_box(&mut self.counter) += 1;
        }
        let mut out = RunOutput::default();
        out.warnings.push(super::scaled_warning(iterations));
        Ok(out)
    }
}
