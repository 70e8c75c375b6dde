//! Control groups, in one place: where this process's groups are (v1, v2 or a hybrid of both),
//! the limits they set and where ([`limits`]), and cells — groups of concbench's own with a CPU
//! quota or cpuset, a memory and a task limit — that `run --cpus` and `capacity` run in
//! ([`cell`]).
//!
//! * [`files`] parses the kernel's texts (pure; tested on the kernel's formats).
//! * [`hierarchy`] finds each controller's hierarchy and this process's group in it, from
//!   `/proc/self/cgroup` and `/proc/self/mountinfo`, below a [`Root`](crate::idle::Root) so
//!   recorded trees can stand in for the machine.
//! * [`limits`] reads the tightest CPU quota, cpuset, memory and task limit over the process's
//!   group and its ancestors, with the group that sets each, and a group's `cpu.stat`.
//! * [`cell`] creates, fills, measures and removes a cell, and sweeps cells whose owner was
//!   killed.

pub mod cell;
pub mod files;
pub mod hierarchy;
pub mod limits;

pub use cell::{Cell, CellSpec, CpuLimit, Refusal};
pub use files::CpuStat;
pub use hierarchy::{Hierarchy, Place, Version};

/// The controllers concbench reads or limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Controller {
    Cpu,
    Cpuset,
    Memory,
    Pids,
}

impl Controller {
    pub const ALL: [Controller; 4] = [
        Controller::Cpu,
        Controller::Cpuset,
        Controller::Memory,
        Controller::Pids,
    ];

    /// The kernel's name (`cpu`, `cpuset`, `memory`, `pids`).
    pub const fn name(self) -> &'static str {
        match self {
            Controller::Cpu => "cpu",
            Controller::Cpuset => "cpuset",
            Controller::Memory => "memory",
            Controller::Pids => "pids",
        }
    }
}
