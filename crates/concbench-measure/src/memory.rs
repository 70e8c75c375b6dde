//! What a set of processes holds in memory, read from `/proc`: proportional set size (PSS),
//! resident set size (RSS) and commit charge per process, and the kernel's own per-task memory.
//!
//! PSS divides every resident page by the number of processes mapping it, so summing it over a
//! process tree counts a page shared copy-on-write by a parent and 100 forked children once.
//! RSS counts that page in each of the 101: summed over a tree of forked processes it
//! overstates what the tree holds by the shared part times the number of children. Both are
//! reported so the difference shows.

use anyhow::{Context, Result};
use procfs::Current;

/// Memory one process (or a sum of processes) holds, in KiB.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Footprint {
    /// Proportional set size: resident pages, each divided by how many processes map it.
    pub pss_kib: f64,
    /// Resident set size: resident pages, shared ones counted in full.
    pub rss_kib: f64,
    /// Commit charge: the size of the mappings the kernel accounts against its overcommit limit
    /// (private writable memory), touched or not.
    pub committed_kib: f64,
}

impl Footprint {
    pub fn plus(&self, other: &Footprint) -> Footprint {
        Footprint {
            pss_kib: self.pss_kib + other.pss_kib,
            rss_kib: self.rss_kib + other.rss_kib,
            committed_kib: self.committed_kib + other.committed_kib,
        }
    }

    /// `self - earlier`, field by field.
    pub fn since(&self, earlier: &Footprint) -> Footprint {
        Footprint {
            pss_kib: self.pss_kib - earlier.pss_kib,
            rss_kib: self.rss_kib - earlier.rss_kib,
            committed_kib: self.committed_kib - earlier.committed_kib,
        }
    }

    /// Every field divided by `n` (per unit).
    pub fn per(&self, n: f64) -> Footprint {
        Footprint {
            pss_kib: self.pss_kib / n,
            rss_kib: self.rss_kib / n,
            committed_kib: self.committed_kib / n,
        }
    }
}

/// One process's footprint: PSS and RSS from `/proc/<pid>/smaps_rollup`, the commit charge from
/// `/proc/<pid>/maps`.
///
/// Both parsed by hand, reading only the fields used: the full `smaps` (which has each
/// mapping's flags) costs the kernel a page walk and a page of text per mapping, and procfs's
/// parser a hash map per mapping; for 10,000 forked processes that took longer than forking
/// them.
pub fn process_footprint(pid: i32) -> Result<Footprint> {
    let read = |name: &str| {
        let path = format!("/proc/{pid}/{name}");
        std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))
    };
    let (pss_kib, rss_kib) = parse_rollup(&read("smaps_rollup")?)?;
    Ok(Footprint {
        pss_kib,
        rss_kib,
        committed_kib: committed_kib(&read("maps")?),
    })
}

/// KiB of a process's anonymous memory backed by transparent huge pages (`AnonHugePages` of
/// its smaps_rollup), when readable.
pub fn anon_huge_kib(pid: i32) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let line = text.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    kib_field(line).ok()
}

/// `(Pss, Rss)` in KiB from an smaps_rollup text.
fn parse_rollup(text: &str) -> Result<(f64, f64)> {
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .with_context(|| format!("no {name} in smaps_rollup"))
            .and_then(kib_field)
    };
    Ok((field("Pss:")?, field("Rss:")?))
}

/// The commit charge, from a maps text: the size of every private writable mapping (the kernel
/// accounts exactly those, except mappings made with MAP_NORESERVE, which maps does not show;
/// nothing concbench measures uses that flag).
fn committed_kib(maps: &str) -> f64 {
    let mut kib = 0.0;
    for line in maps.lines() {
        let mut parts = line.split_ascii_whitespace();
        let (Some(range), Some(perms)) = (parts.next(), parts.next()) else {
            continue;
        };
        let private_writable = perms.as_bytes().get(1) == Some(&b'w') && perms.ends_with('p');
        if let (true, Some((a, b))) = (private_writable, range.split_once('-')) {
            if let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) {
                kib += (b - a) as f64 / 1024.0;
            }
        }
    }
    kib
}

/// The number in a "Name:   123 kB" line.
fn kib_field(line: &str) -> Result<f64> {
    line.split_ascii_whitespace()
        .nth(1)
        .and_then(|v| v.parse::<f64>().ok())
        .with_context(|| format!("malformed line {line:?}"))
}

/// The sum over `pids` (a process and its children: a process tree).
pub fn tree_footprint(pids: impl IntoIterator<Item = i32>) -> Result<Footprint> {
    pids.into_iter().try_fold(Footprint::default(), |acc, pid| {
        Ok(acc.plus(&process_footprint(pid)?))
    })
}

/// This process's own pid, for [`tree_footprint`].
pub fn own_pid() -> i32 {
    std::process::id() as i32
}

/// The kernel stacks of every task on the machine, KiB (`/proc/meminfo` KernelStack).
pub fn kernel_stack_kib() -> Option<f64> {
    let m = procfs::Meminfo::current().ok()?;
    Some(m.kernel_stack? as f64 / 1024.0)
}

/// Memory the kernel holds for tasks system-wide, KiB: kernel stacks plus page tables
/// (`/proc/meminfo` KernelStack + PageTables). PSS cannot see it; it is system-wide, so other
/// programs starting or ending tasks during a sample add noise.
pub fn kernel_task_memory_kib() -> Option<f64> {
    let m = procfs::Meminfo::current().ok()?;
    Some((m.kernel_stack? + m.page_tables?) as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rollup_and_private_writable_maps_are_read() {
        let rollup = "\
55d0c0000000-7ffd00000000 ---p 00000000 00:00 0                          [rollup]
Rss:                  16 kB
Pss:                   7 kB
Pss_Anon:              6 kB
";
        assert_eq!(parse_rollup(rollup).unwrap(), (7.0, 16.0));
        let maps = "\
55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0          [heap]
7f0000000000-7f0000001000 r--p 00000000 fd:01 42         /usr/lib/libc.so.6
7f0000001000-7f0000002000 rw-s 00000000 00:01 7          /dev/zero (deleted)
7f0000002000-7f0000003000 ---p 00000000 00:00 0
";
        assert_eq!(committed_kib(maps), 132.0);
    }

    #[test]
    fn touching_private_memory_raises_pss_rss_and_commit() {
        // In a forked child: a sibling test's fork would share this block copy-on-write and
        // halve its PSS (see forked_check).
        crate::forked_check::in_forked_child(|| {
            let footprint = || process_footprint(own_pid()).map_err(|e| format!("{e:#}"));
            let before = footprint()?;
            // 16 MiB, every page written: resident, private, accountable.
            let block = vec![1u8; 16 << 20];
            let grew = footprint()?.since(&before);
            let touched = block.iter().map(|&b| b as usize).sum::<usize>() == 16 << 20;
            let big = |kib: f64| kib > 12.0 * 1024.0;
            match touched && big(grew.pss_kib) && big(grew.rss_kib) && big(grew.committed_kib) {
                true => Ok(()),
                false => Err(format!("{grew:?}")),
            }
        })
        .unwrap();
    }

    #[test]
    fn pss_of_a_forked_child_excludes_what_it_shares() {
        // A parent with 32 MiB resident forks a child that touches nothing: the child's RSS
        // includes the shared 32 MiB, the tree's PSS does not double it.
        let block = vec![7u8; 32 << 20];
        let (ready_r, ready_w) = rustix::pipe::pipe().unwrap();
        let (hold_r, _hold_w) = rustix::pipe::pipe().unwrap();
        let mut child = crate::forked_check::fork_test_child(move || {
            let _ = rustix::io::write(&ready_w, b"x");
            // Blocks until the parent kills us (we hold a copy of the write end ourselves).
            let _ = rustix::io::read(&hold_r, &mut [0u8; 1]);
            0
        })
        .unwrap();
        rustix::io::read(&ready_r, &mut [0u8; 1]).unwrap();
        let parent = process_footprint(own_pid()).unwrap();
        let kid = process_footprint(child.pid()).unwrap();
        assert!(kid.rss_kib > 30.0 * 1024.0, "{kid:?}");
        assert!(kid.pss_kib < kid.rss_kib / 1.5, "{kid:?}");
        let tree = tree_footprint([own_pid(), child.pid()]).unwrap();
        assert!(
            tree.pss_kib < parent.rss_kib + 8.0 * 1024.0,
            "{tree:?} {parent:?}"
        );
        child.kill().unwrap();
        assert_eq!(block[12345], 7);
    }
}
