//! Where this process's control groups are: which controller is in which hierarchy (cgroup v1's
//! one mount per controller or set of controllers, or v2's unified tree), and this process's
//! group in each, from `/proc/self/cgroup` and `/proc/self/mountinfo`.
//!
//! Machines differ: a pure v2 host (`0::/user.slice/...`), a v1 host, and hybrids that mount both
//! — this development VM has v1 hierarchies for cpu, cpuset, memory and pids and an empty
//! cgroup2 at `/sys/fs/cgroup/unified`. A controller belongs to one version at a time: the one
//! that has it, v1 first (a v1 mount names it), else v2 when the process's v2 group offers it
//! (`cgroup.controllers`).

use super::files::{self, Membership, Mount};
use super::Controller;
use crate::idle::Root;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// cgroup v1 or v2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Version {
    V1,
    V2,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1 => "v1",
            Version::V2 => "v2",
        }
    }
}

/// Where one controller is for this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub version: Version,
    /// The hierarchy's mount point: the top of what this process can see of it.
    pub mount: PathBuf,
    /// This process's group in it (a directory under `mount`).
    pub own: PathBuf,
}

impl Place {
    /// `own` and each of its ancestors up to the mount point, nearest first.
    pub fn own_and_ancestors(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut dir = self.own.as_path();
        loop {
            out.push(dir.to_path_buf());
            if dir == self.mount {
                break;
            }
            match dir.parent() {
                Some(p) if p.starts_with(&self.mount) => dir = p,
                _ => break,
            }
        }
        out
    }
}

/// This process's control groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hierarchy {
    places: BTreeMap<Controller, Place>,
    /// The v2 mount and this process's v2 group, when cgroup2 is mounted.
    v2: Option<Place>,
}

impl Hierarchy {
    /// Read this process's hierarchy below `root` (`/` live; a recorded tree in tests). Never
    /// fails: what cannot be read is absent.
    pub fn detect(root: &Root) -> Hierarchy {
        let groups = files::memberships(&root.read("proc/self/cgroup").unwrap_or_default());
        let mounts = match root.read("proc/self/mountinfo") {
            Some(text) => files::cgroup_mounts(&text),
            None => usual_mounts(&groups),
        };
        let v2 = v2_place(root, &mounts, &groups);
        let mut places = BTreeMap::new();
        for c in Controller::ALL {
            let place = v1_place(root, &mounts, &groups, c).or_else(|| {
                let v2 = v2.as_ref()?;
                offers(&v2.own, c).then(|| v2.clone())
            });
            if let Some(p) = place {
                places.insert(c, p);
            }
        }
        Hierarchy { places, v2 }
    }

    /// The live machine's hierarchy.
    pub fn live() -> Hierarchy {
        Hierarchy::detect(&Root::default())
    }

    /// Where controller `c` is, if any hierarchy has it.
    pub fn place(&self, c: Controller) -> Option<&Place> {
        self.places.get(&c)
    }

    /// The v2 tree (mounted even when it offers no controller, as on v1 hybrids).
    pub fn v2(&self) -> Option<&Place> {
        self.v2.as_ref()
    }

    /// "cgroup v1 (cpu, cpuset, memory, pids)", "cgroup v2 (cpu, memory, pids)", "cgroup v1
    /// (cpu, memory) and v2 (pids)", or "no cgroup controllers".
    pub fn describe(&self) -> String {
        let mut by_version: BTreeMap<Version, Vec<&str>> = BTreeMap::new();
        for (c, p) in &self.places {
            by_version.entry(p.version).or_default().push(c.name());
        }
        let parts: Vec<String> = by_version
            .iter()
            .map(|(v, cs)| format!("{} ({})", v.as_str(), cs.join(", ")))
            .collect();
        match parts.len() {
            0 => "no cgroup controllers".into(),
            _ => format!("cgroup {}", parts.join(" and ")),
        }
    }

    /// The version the controllers are in: "v1", "v2", "v1+v2" when split, "none".
    pub fn version_label(&self) -> &'static str {
        let v1 = self.places.values().any(|p| p.version == Version::V1);
        let v2 = self.places.values().any(|p| p.version == Version::V2);
        match (v1, v2) {
            (true, true) => "v1+v2",
            (true, false) => "v1",
            (false, true) => "v2",
            (false, false) => "none",
        }
    }
}

/// The directory of `path` (a group relative to a hierarchy's root) in a mount of the hierarchy
/// whose own root is `mount_root`: containers bind-mount their own group as the mount's root.
fn dir_in(root: &Root, mount: &Mount, path: &str) -> PathBuf {
    let relative = match path.strip_prefix(mount.root.trim_end_matches('/')) {
        Some(rest) if mount.root != "/" => rest,
        // In a cgroup namespace the path is already relative to the namespace's root.
        _ => path,
    };
    let point = root.path(&mount.point);
    let dir = point.join(relative.trim_start_matches('/'));
    if dir.is_dir() {
        dir
    } else {
        point
    }
}

fn v1_place(root: &Root, mounts: &[Mount], groups: &[Membership], c: Controller) -> Option<Place> {
    let name = c.name().to_string();
    let mount = mounts
        .iter()
        .find(|m| !m.is_v2() && m.options.contains(&name))?;
    let group = groups
        .iter()
        .find(|g| g.id != 0 && g.controllers.contains(&name))?;
    Some(Place {
        version: Version::V1,
        mount: root.path(&mount.point),
        own: dir_in(root, mount, &group.path),
    })
}

fn v2_place(root: &Root, mounts: &[Mount], groups: &[Membership]) -> Option<Place> {
    let mount = mounts.iter().find(|m| m.is_v2())?;
    let group = groups.iter().find(|g| g.id == 0)?;
    Some(Place {
        version: Version::V2,
        mount: root.path(&mount.point),
        own: dir_in(root, mount, &group.path),
    })
}

/// Where the hierarchies usually are, for a recorded tree without `mountinfo`: v1 at
/// `/sys/fs/cgroup/<controllers>`, v2 at `/sys/fs/cgroup` (or `/sys/fs/cgroup/unified` beside
/// v1 ones).
fn usual_mounts(groups: &[Membership]) -> Vec<Mount> {
    let any_v1 = groups.iter().any(|g| g.id != 0);
    groups
        .iter()
        .map(|g| Mount {
            fstype: if g.id == 0 { "cgroup2" } else { "cgroup" }.into(),
            root: "/".into(),
            point: match (g.id, any_v1) {
                (0, false) => "/sys/fs/cgroup".into(),
                (0, true) => "/sys/fs/cgroup/unified".into(),
                _ => format!("/sys/fs/cgroup/{}", g.controllers.join(",")),
            },
            options: g.controllers.clone(),
        })
        .collect()
}

/// Whether a v2 group offers controller `c`: its `cgroup.controllers`, or — in a recorded tree
/// without that file — the controller's own files.
pub(crate) fn offers(dir: &Path, c: Controller) -> bool {
    let listed = dir.join("cgroup.controllers");
    if listed.exists() {
        return words(&listed).contains(&c.name().to_string());
    }
    let file = match c {
        Controller::Cpu => "cpu.max",
        Controller::Cpuset => "cpuset.cpus",
        Controller::Memory => "memory.max",
        Controller::Pids => "pids.max",
    };
    dir.join(file).exists()
}

/// The words of a file (`cgroup.controllers`, `cgroup.subtree_control`), empty when unreadable.
pub(crate) fn words(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}
