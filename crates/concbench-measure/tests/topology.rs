//! The topology classifier on recorded sysfs trees of real layouts (only the files it reads):
//! a two-socket Xeon with SMT, a desktop with four CCXs, a hybrid laptop (P-core + E-core
//! cluster) and the 2-vCPU KVM development VM. This machine has one class of pair; these have
//! up to three each.

use concbench_core::PairClass::{self, *};
use concbench_measure::cpus::representative_pairs;
use concbench_measure::topology::Topology;
use std::path::PathBuf;

fn fixture(name: &str) -> Topology {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    Topology::read(&dir).unwrap_or_else(|e| panic!("{name}: {e:#}"))
}

fn classes_of(t: &Topology) -> Vec<(PairClass, [usize; 2], Option<u32>)> {
    let allowed: Vec<usize> = t.cpus.keys().copied().collect();
    representative_pairs(t, &allowed)
        .into_iter()
        .map(|p| (p.class, p.cpus, p.numa_distance))
        .collect()
}

#[test]
fn two_socket_server_has_siblings_a_shared_llc_and_a_remote_socket() {
    let t = fixture("two-socket-smt");
    assert_eq!(t.cpus.len(), 8);
    assert_eq!(t.classify(0, 4), Some(SmtSibling));
    assert_eq!(t.classify(0, 1), Some(SameLlc));
    assert_eq!(t.classify(1, 4), Some(SameLlc));
    assert_eq!(t.classify(1, 5), Some(SmtSibling));
    assert_eq!(t.classify(0, 2), Some(CrossPackage));
    assert_eq!(t.numa_distance(0, 2), Some(21));
    assert_eq!(t.numa_distance(0, 5), Some(10));
    assert_eq!(
        classes_of(&t),
        [
            (SmtSibling, [7, 3], Some(10)),
            (SameLlc, [7, 6], Some(10)),
            (CrossPackage, [7, 5], Some(21)),
        ]
    );
}

#[test]
fn many_ccd_desktop_crosses_llcs_inside_one_package() {
    let t = fixture("many-ccd-desktop");
    assert_eq!(t.cpus.len(), 16);
    assert_eq!(t.classify(0, 8), Some(SmtSibling));
    assert_eq!(t.classify(0, 1), Some(SameLlc));
    assert_eq!(t.classify(0, 9), Some(SameLlc));
    assert_eq!(t.classify(0, 2), Some(CrossLlc));
    assert_eq!(t.classify(7, 8), Some(CrossLlc));
    assert_eq!(
        classes_of(&t),
        [
            (SmtSibling, [15, 7], Some(10)),
            (SameLlc, [15, 14], Some(10)),
            (CrossLlc, [15, 13], Some(10)),
        ]
    );
}

#[test]
fn hybrid_laptop_has_an_e_core_cluster_sharing_its_l2() {
    let t = fixture("hybrid-laptop");
    assert_eq!(t.classify(0, 1), Some(SmtSibling));
    assert_eq!(t.classify(2, 5), Some(SameCluster));
    assert_eq!(t.classify(1, 2), Some(SameLlc));
    let classes: Vec<PairClass> = classes_of(&t).into_iter().map(|c| c.0).collect();
    assert_eq!(classes, [SmtSibling, SameCluster, SameLlc]);
}

#[test]
fn two_vcpu_vm_has_one_class() {
    let t = fixture("kvm-2vcpu");
    // Its instruction caches are in the tree and ignored.
    assert!(t.cpus[&0]
        .caches
        .iter()
        .all(|c| c.level != 1 || c.shared == [0]));
    assert_eq!(classes_of(&t), [(SameLlc, [1, 0], Some(10))]);
}

#[test]
fn only_allowed_cpus_are_paired() {
    let t = fixture("two-socket-smt");
    // One socket's first threads only: no sibling and no remote socket left.
    let pairs = representative_pairs(&t, &[0, 1]);
    assert_eq!(pairs.len(), 1);
    assert_eq!((pairs[0].class, pairs[0].cpus), (SameLlc, [1, 0]));
}

#[test]
fn a_machine_without_caches_or_nodes_is_same_package() {
    let dir = tempfile::tempdir().unwrap();
    for cpu in 0..2 {
        let topo = dir.path().join(format!("cpu/cpu{cpu}/topology"));
        std::fs::create_dir_all(&topo).unwrap();
        std::fs::write(topo.join("physical_package_id"), "0\n").unwrap();
    }
    let t = Topology::read(dir.path()).unwrap();
    assert_eq!(t.classify(0, 1), Some(SamePackage));
    assert_eq!(t.numa_distance(0, 1), None);
    assert_eq!(classes_of(&t), [(SamePackage, [1, 0], None)]);
}
