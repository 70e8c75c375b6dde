//! Before measuring, the rig (`rig.rs`) removes what earlier runs left behind when they were
//! killed (`kill -9`, an out-of-memory kill): their io data and scratch directories, which a
//! clean end, Ctrl-C or a closed terminal would have removed, and their control groups. Only
//! directories a concbench process claimed and whose owner has ended are touched
//! (`concbench_sys::owner`; a control group's name holds its owner's pid and start time).

use crate::stdout::errln;
use concbench_sys::owner::{self, Removed};
use std::path::PathBuf;

/// The name every run directory starts with: the scratch directory (`concbench-XXXXXX`, see
/// `rig.rs`) and the io data (`concbench-io-PID`, `concbench-io-data`).
const PREFIX: &str = "concbench-";

/// Sweep the places run directories go (the io family's default bases; the scratch directory is
/// in the first, `$TMPDIR`) and say what was removed.
pub fn sweep_before_measuring() {
    let removed: Vec<Removed> = bases()
        .iter()
        .flat_map(|base| owner::sweep(base, PREFIX))
        .collect();
    if let Some(note) = describe(&removed) {
        errln!("concbench: {note}");
    }
    // And the control groups of killed `run --cpus` and `capacity` runs (docs/CAPACITY.md).
    let hierarchy = concbench_measure::cgroup::Hierarchy::live();
    for cell in concbench_measure::cgroup::cell::sweep_leftovers(&hierarchy) {
        errln!(
            "concbench: removed the control group {} left behind by a killed run",
            cell.display()
        );
    }
}

/// Each folder once, however it is spelled (`$TMPDIR` may be `/var/tmp`).
fn bases() -> Vec<PathBuf> {
    let mut seen = Vec::new();
    for base in concbench_experiments::io::dir::default_bases() {
        let canonical = base.canonicalize().unwrap_or(base);
        if !seen.contains(&canonical) {
            seen.push(canonical);
        }
    }
    seen
}

fn describe(removed: &[Removed]) -> Option<String> {
    if removed.is_empty() {
        return None;
    }
    let total: u64 = removed.iter().map(|r| r.bytes).sum();
    let each: Vec<String> = removed
        .iter()
        .map(|r| {
            format!(
                "{} ({}, process {} is gone)",
                r.path.display(),
                size(r.bytes),
                r.owner_pid
            )
        })
        .collect();
    Some(format!(
        "removed {} left behind by killed runs, {} in all: {}",
        match removed.len() {
            1 => "1 directory".to_string(),
            n => format!("{n} directories"),
        },
        size(total),
        each.join(", ")
    ))
}

/// Bytes for people, in binary units.
fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB * KIB {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    } else if b >= KIB * KIB {
        format!("{:.0} MiB", b / (KIB * KIB))
    } else {
        format!("{:.0} KiB", (b / KIB).ceil())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_removed_says_nothing() {
        assert_eq!(describe(&[]), None);
    }

    #[test]
    fn removals_are_listed_with_sizes_and_owners() {
        let removed = [
            Removed {
                path: "/tmp/concbench-io-41".into(),
                bytes: 801 << 20,
                owner_pid: 41,
            },
            Removed {
                path: "/tmp/concbench-ab12".into(),
                bytes: 100,
                owner_pid: 41,
            },
        ];
        let text = describe(&removed).unwrap();
        assert!(text.starts_with("removed 2 directories left behind by killed runs, 801 MiB in all: /tmp/concbench-io-41 (801 MiB, process 41 is gone)"), "{text}");
        assert!(text.contains("/tmp/concbench-ab12 (1 KiB"), "{text}");
        assert_eq!(size(3 << 30), "3.0 GiB");
    }
}
