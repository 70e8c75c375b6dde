//! Whether `limits.connections` can hold its target safely here, and how: the limits it reads
//! before opening anything, and the layout (helper processes, connections each) they allow. Pure
//! arithmetic over recorded inputs, so every refusal is tested.

use anyhow::{Context, Result};
use concbench_core::Host;

/// Descriptors a helper keeps for itself (its listener, stdio, the report pipe).
const FD_MARGIN: u64 = 64;
/// The share of the ephemeral port range one client address's connections to the server may
/// take (others use ports too).
const PORT_SHARE: f64 = 0.8;
/// Kernel memory a loopback connection costs here, both sockets, with a wide margin (a socket,
/// its file and inode are a few KiB each).
const KIB_PER_CONNECTION: u64 = 32;
/// The most helper processes the experiment forks.
const MAX_HELPERS: u64 = 64;
/// Processes left for the rest of the user's session.
const NPROC_HEADROOM: u64 = 64;

/// What this machine allows, read before anything is opened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    /// RLIMIT_NOFILE hard limit of this process (helpers raise their soft limit to it).
    pub nofile_hard: Option<u64>,
    /// `ip_local_port_range`: the ports `connect` picks from.
    pub ephemeral_ports: Option<u64>,
    /// Free entries of the connection-tracking table, when netfilter tracks connections.
    pub conntrack_free: Option<u64>,
    /// Free entries of the system's file table (`fs.file-max` minus those in use).
    pub files_free: Option<u64>,
    pub memory_available_kib: u64,
    pub nproc: Option<u64>,
}

impl Limits {
    pub fn read(host: &Host) -> Limits {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let conntrack = read("/proc/sys/net/netfilter/nf_conntrack_max")
            .zip(read("/proc/sys/net/netfilter/nf_conntrack_count"))
            .and_then(|(max, count)| {
                let (m, c): (u64, u64) = (max.trim().parse().ok()?, count.trim().parse().ok()?);
                Some(m.saturating_sub(c))
            });
        Limits {
            nofile_hard: nofile_hard(),
            ephemeral_ports: read("/proc/sys/net/ipv4/ip_local_port_range")
                .and_then(|s| port_range(&s)),
            conntrack_free: conntrack,
            files_free: read("/proc/sys/fs/file-nr").and_then(|s| files_free(&s)),
            memory_available_kib: host.memory_available_kib,
            nproc: host.rlimit_nproc,
        }
    }
}

/// The ports in an `ip_local_port_range` file ("32768\t60999" -> 28232).
pub fn port_range(s: &str) -> Option<u64> {
    let mut it = s.split_whitespace().map(|w| w.parse::<u64>().ok());
    let (lo, hi) = (it.next()??, it.next()??);
    (hi >= lo).then(|| hi - lo + 1)
}

/// Free file-table entries from `fs/file-nr` ("allocated unused max").
pub fn files_free(s: &str) -> Option<u64> {
    let v: Vec<u64> = s
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [allocated, unused, max] = v[..] else {
        return None;
    };
    Some(max.saturating_sub(allocated.saturating_sub(unused)))
}

fn nofile_hard() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit struct into a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    (lim.rlim_max != libc::RLIM_INFINITY).then_some(lim.rlim_max)
}

/// Raise this process's RLIMIT_NOFILE soft limit to `to` (at most the hard limit).
pub fn raise_nofile(to: u64) -> Result<()> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit struct into a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(std::io::Error::last_os_error()).context("getrlimit(RLIMIT_NOFILE)");
    }
    lim.rlim_cur = (to as libc::rlim_t).min(lim.rlim_max);
    // SAFETY: setrlimit reads a valid rlimit; raising the soft limit up to the hard one is
    // always permitted and affects only this helper.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        return Err(std::io::Error::last_os_error()).context("setrlimit(RLIMIT_NOFILE)");
    }
    Ok(())
}

/// How the target is held: `helpers` processes, each connecting its share from its own client
/// address to the server's one listener and accepting as many from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub target: u64,
    pub helpers: usize,
    /// The soft descriptor limit each helper sets.
    pub nofile: u64,
    pub ephemeral_ports: u64,
}

impl Plan {
    /// Helper `i`'s connections: the target split evenly, the remainder to the first helpers.
    pub fn per_helper(&self, i: usize) -> u64 {
        let h = self.helpers as u64;
        self.target / h + u64::from((i as u64) < self.target % h)
    }
}

/// The layout for `target` connections, or why this machine cannot hold them safely (a
/// sentence saying which limit and how to raise it).
pub fn plan(target: u64, l: &Limits) -> std::result::Result<Plan, String> {
    let nofile = l.nofile_hard.unwrap_or(1 << 20).min(1 << 20);
    // Two descriptors per connection (client and accepted) in one helper.
    let by_fds = nofile.saturating_sub(FD_MARGIN) / 2;
    let ports = l.ephemeral_ports.ok_or_else(|| {
        "cannot read /proc/sys/net/ipv4/ip_local_port_range (not Linux?)".to_string()
    })?;
    let by_ports = (ports as f64 * PORT_SHARE) as u64;
    let per_helper = by_fds.min(by_ports);
    if per_helper == 0 {
        return Err(format!(
            "RLIMIT_NOFILE's hard limit is {nofile}: too few descriptors for a connection; raise it"
        ));
    }
    let helpers = target.div_ceil(per_helper);
    if helpers > MAX_HELPERS {
        return Err(format!(
            "{target} connections would need {helpers} helper processes (each holds {per_helper}: \
             RLIMIT_NOFILE hard limit {nofile}, {ports} ephemeral ports); raise `ulimit -Hn`"
        ));
    }
    if let Some(n) = l.nproc.filter(|n| *n < helpers + NPROC_HEADROOM) {
        return Err(format!(
            "RLIMIT_NPROC is {n}: {helpers} helper processes need {}; raise it (ulimit -u)",
            helpers + NPROC_HEADROOM
        ));
    }
    if let Some(free) = l.conntrack_free.filter(|f| *f < target * 2) {
        return Err(format!(
            "the connection-tracking table has {free} free entries: {target} loopback connections \
             could fill it and make the kernel drop other connections (raise \
             net.netfilter.nf_conntrack_max)"
        ));
    }
    if let Some(free) = l.files_free.filter(|f| *f < target * 4) {
        return Err(format!(
            "the system's file table has {free} free entries, {} are wanted for {target} \
             connections with room to spare (raise fs.file-max)",
            target * 4
        ));
    }
    let memory = target * KIB_PER_CONNECTION;
    if l.memory_available_kib > 0 && l.memory_available_kib < memory {
        return Err(format!(
            "{target} connections want about {} MiB of kernel memory; {} MiB are available",
            memory / 1024,
            l.memory_available_kib / 1024
        ));
    }
    Ok(Plan {
        target,
        helpers: helpers as usize,
        nofile: (per_helper * 2 + FD_MARGIN).min(nofile),
        ephemeral_ports: ports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This development VM's limits, as read on it.
    fn dev_vm() -> Limits {
        Limits {
            nofile_hard: Some(20_000),
            ephemeral_ports: port_range("32768\t60999\n"),
            conntrack_free: Some(262_000),
            files_free: files_free("3200\t0\t2466183\n"),
            memory_available_kib: 22_000_000,
            nproc: Some(96_365),
        }
    }

    #[test]
    fn the_proc_files_parse() {
        assert_eq!(port_range("32768\t60999\n"), Some(28_232));
        assert_eq!(port_range("61000 60999"), None);
        assert_eq!(files_free("3200\t0\t2466183\n"), Some(2_462_983));
        assert_eq!(files_free("garbage"), None);
    }

    #[test]
    fn seventy_thousand_fit_here_in_a_few_helpers_each_within_its_limits() {
        let p = plan(70_000, &dev_vm()).unwrap();
        assert_eq!(p.helpers, 8, "{p:?}");
        let total: u64 = (0..p.helpers).map(|i| p.per_helper(i)).sum();
        assert_eq!(total, 70_000);
        for i in 0..p.helpers {
            let n = p.per_helper(i);
            assert!(n * 2 + FD_MARGIN <= p.nofile && p.nofile <= 20_000);
            assert!(n as f64 <= 28_232.0 * PORT_SHARE);
        }
    }

    #[test]
    fn each_unsafe_limit_refuses_with_its_own_reason() {
        let refuse = |l: Limits, word: &str| {
            let e = plan(70_000, &l).unwrap_err();
            assert!(e.contains(word), "{e}");
        };
        refuse(
            Limits {
                nofile_hard: Some(1024),
                ..dev_vm()
            },
            "ulimit -Hn",
        );
        refuse(
            Limits {
                conntrack_free: Some(65_536),
                ..dev_vm()
            },
            "nf_conntrack_max",
        );
        refuse(
            Limits {
                files_free: Some(100_000),
                ..dev_vm()
            },
            "fs.file-max",
        );
        refuse(
            Limits {
                memory_available_kib: 1_000_000,
                ..dev_vm()
            },
            "kernel memory",
        );
        refuse(
            Limits {
                nproc: Some(70),
                ..dev_vm()
            },
            "RLIMIT_NPROC",
        );
        refuse(
            Limits {
                ephemeral_ports: None,
                ..dev_vm()
            },
            "ip_local_port_range",
        );
    }
}
