//! Where the CPUs sit: which pairs share a core, a cache, a package, and how far apart their
//! NUMA nodes are — read from sysfs (`cpu/cpu*/topology`, `cpu/cpu*/cache/index*`, `node/node*`).
//!
//! A pure function of a directory laid out like `/sys/devices/system`, so recorded trees of
//! other machines (a two-socket server, a many-CCD desktop, a small VM) test it; see
//! `tests/fixtures/topology/`. Only the files [`Topology::read`] names are read.
//!
//! Classes come from what the caches say rather than from `cluster_cpus` or `die_id`: the cost of
//! a hand-over between two CPUs is the cost of moving cache lines between them, and the cache
//! sharing lists say exactly which CPUs move lines through which cache.

use anyhow::{bail, Context, Result};
use concbench_core::{CpuPair, PairClass};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Where the live machine's tree is.
pub const SYSFS_SYSTEM: &str = "/sys/devices/system";

/// One cache as one CPU sees it (instruction caches are left out: no data moves through them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    pub level: u32,
    /// The CPUs sharing it (`shared_cpu_list`).
    pub shared: Vec<usize>,
}

/// What sysfs says about one CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cpu {
    pub package: Option<u32>,
    /// Hardware threads of its core, itself included (`thread_siblings_list`).
    pub core_threads: Vec<usize>,
    /// Data and unified caches, lowest level first.
    pub caches: Vec<Cache>,
    pub node: Option<u32>,
}

impl Cpu {
    /// The highest cache level this CPU has (its last-level cache), if it reports caches.
    fn llc_level(&self) -> Option<u32> {
        self.caches.iter().map(|c| c.level).max()
    }

    /// The lowest cache level it shares with `other`.
    fn shared_level(&self, other: usize) -> Option<u32> {
        self.caches
            .iter()
            .filter(|c| c.shared.contains(&other))
            .map(|c| c.level)
            .min()
    }
}

/// The machine's CPUs and NUMA distances.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Topology {
    pub cpus: BTreeMap<usize, Cpu>,
    /// `distances[a][b]`: the NUMA distance from node a to node b (`node/nodeA/distance`).
    pub distances: BTreeMap<u32, BTreeMap<u32, u32>>,
}

impl Topology {
    /// The live machine's topology.
    pub fn live() -> Result<Topology> {
        Topology::read(Path::new(SYSFS_SYSTEM))
    }

    /// Read the tree under `system` (a directory laid out like `/sys/devices/system`). CPUs
    /// without a `topology` directory (offline) are left out.
    pub fn read(system: &Path) -> Result<Topology> {
        let cpu_dir = system.join("cpu");
        let mut cpus = BTreeMap::new();
        for (id, dir) in numbered_entries(&cpu_dir, "cpu")? {
            if dir.join("topology").is_dir() {
                cpus.insert(
                    id,
                    read_cpu(&dir).with_context(|| dir.display().to_string())?,
                );
            }
        }
        if cpus.is_empty() {
            bail!("no CPU with a topology under {}", cpu_dir.display());
        }
        let mut distances = BTreeMap::new();
        let node_dir = system.join("node");
        if node_dir.is_dir() {
            let nodes = numbered_entries(&node_dir, "node")?;
            let ids: Vec<u32> = nodes.iter().map(|(n, _)| *n as u32).collect();
            for (node, dir) in &nodes {
                let node = *node as u32;
                if let Ok(list) = read_trimmed(&dir.join("cpulist")) {
                    for cpu in parse_cpu_list(&list)? {
                        if let Some(c) = cpus.get_mut(&cpu) {
                            c.node = Some(node);
                        }
                    }
                }
                if let Ok(row) = read_trimmed(&dir.join("distance")) {
                    distances.insert(node, parse_distances(&row, &ids)?);
                }
            }
        }
        Ok(Topology { cpus, distances })
    }

    /// The NUMA distance between the nodes of CPUs `a` and `b`, when both are known.
    pub fn numa_distance(&self, a: usize, b: usize) -> Option<u32> {
        let (na, nb) = (self.cpus.get(&a)?.node?, self.cpus.get(&b)?.node?);
        self.distances.get(&na)?.get(&nb).copied()
    }

    /// The class of the pair `(a, b)` (`a != b`), or `None` when either CPU is unknown.
    pub fn classify(&self, a: usize, b: usize) -> Option<PairClass> {
        let (ca, cb) = (self.cpus.get(&a)?, self.cpus.get(&b)?);
        if ca.core_threads.contains(&b) {
            return Some(PairClass::SmtSibling);
        }
        if ca.package.is_some() && cb.package.is_some() && ca.package != cb.package {
            return Some(PairClass::CrossPackage);
        }
        let Some(llc) = ca.llc_level() else {
            return Some(PairClass::SamePackage);
        };
        Some(match ca.shared_level(b) {
            Some(level) if level < llc => PairClass::SameCluster,
            Some(_) => PairClass::SameLlc,
            None => PairClass::CrossLlc,
        })
    }

    /// The pair `[a, b]` with its class and NUMA distance.
    pub fn pair(&self, a: usize, b: usize) -> Option<CpuPair> {
        Some(CpuPair {
            cpus: [a, b],
            class: self.classify(a, b)?,
            numa_distance: self.numa_distance(a, b),
        })
    }
}

/// `<dir>/<prefix><number>` entries, by number.
fn numbered_entries(dir: &Path, prefix: &str) -> Result<Vec<(usize, PathBuf)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let number = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(n) = number {
            out.push((n, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

fn read_trimmed(path: &Path) -> Result<String> {
    Ok(fs::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?
        .trim()
        .to_string())
}

fn read_cpu(dir: &Path) -> Result<Cpu> {
    let topology = dir.join("topology");
    let package = read_trimmed(&topology.join("physical_package_id"))
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        // -1: the architecture does not know its packages.
        .and_then(|p| u32::try_from(p).ok());
    let core_threads = match read_trimmed(&topology.join("thread_siblings_list")) {
        Ok(list) => parse_cpu_list(&list)?,
        Err(_) => Vec::new(),
    };
    let mut caches = Vec::new();
    let cache_dir = dir.join("cache");
    if cache_dir.is_dir() {
        for (_, index) in numbered_entries(&cache_dir, "index")? {
            if read_trimmed(&index.join("type"))? == "Instruction" {
                continue;
            }
            caches.push(Cache {
                level: read_trimmed(&index.join("level"))?.parse()?,
                shared: parse_cpu_list(&read_trimmed(&index.join("shared_cpu_list"))?)?,
            });
        }
    }
    caches.sort_by_key(|c| c.level);
    Ok(Cpu {
        package,
        core_threads,
        caches,
        node: None,
    })
}

/// A kernel CPU list (`0-3,8,10-11`) as CPU numbers, ascending.
pub fn parse_cpu_list(list: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse()?, b.parse()?);
                if a > b {
                    bail!("bad CPU range {part}");
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().with_context(|| format!("bad CPU {part}"))?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// One `node/nodeN/distance` row, whose columns follow the nodes present in order.
fn parse_distances(row: &str, nodes: &[u32]) -> Result<BTreeMap<u32, u32>> {
    let values: Vec<u32> = row
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("bad NUMA distance row '{row}'"))?;
    if values.len() != nodes.len() {
        bail!(
            "NUMA distance row '{row}' has {} columns for {} nodes",
            values.len(),
            nodes.len()
        );
    }
    Ok(nodes.iter().copied().zip(values).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_ranges_and_singles() {
        assert_eq!(parse_cpu_list("0-2,8,10-11").unwrap(), [0, 1, 2, 8, 10, 11]);
        assert_eq!(parse_cpu_list("3\n").unwrap(), [3]);
        assert!(parse_cpu_list("").unwrap().is_empty());
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }

    #[test]
    fn distance_rows_follow_the_nodes_present() {
        let row = parse_distances("10 21", &[0, 2]).unwrap();
        assert_eq!(row[&2], 21);
        assert!(parse_distances("10", &[0, 1]).is_err());
    }

    #[test]
    fn a_tree_without_cpus_is_an_error() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("cpu")).unwrap();
        assert!(Topology::read(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("concbench-topology-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_live_machine_classifies_every_pair() {
        let t = Topology::live().unwrap();
        let ids: Vec<usize> = t.cpus.keys().copied().collect();
        for &a in &ids {
            for &b in ids.iter().filter(|&&b| b != a) {
                assert!(t.classify(a, b).is_some(), "{a} {b}");
                assert_eq!(t.classify(a, b), t.classify(b, a), "{a} {b}");
            }
        }
    }
}
