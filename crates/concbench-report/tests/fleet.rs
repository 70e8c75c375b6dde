//! The fleet renderers on SYNTHETIC runs of four hosts (tests/fixture/fleet.rs): how runs become
//! hosts, the hosts x claims matrix, the headline figures, what differs; the markdown as a
//! snapshot, the HTML page's promises (self-contained, one dot plot per figure).

mod fixture;

use concbench_core::VerdictKind;
use concbench_report::fleet::{self, Fleet};

fn fleet() -> Fleet {
    Fleet::new(fixture::fleet::runs())
}

#[test]
fn each_machine_labels_and_pin_is_one_host_shown_by_its_newest_run() {
    let f = fleet();
    let names: Vec<&str> = f.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "container",
            "metal-a-host-with-a-rather-long-name-to-cut-in-the-chart instance=metal rack=b",
            "vm-small instance=small",
            "vm-small instance=small pin=none",
        ]
    );
    let small = &f.members[2];
    assert_eq!((small.source.as_str(), small.older), ("run 10", 1));
    // Both runs left out are said: the smoke test, and the older run the newest stands for.
    assert_eq!(f.excluded.len(), 2, "{:?}", f.excluded);
    assert!(f
        .excluded
        .iter()
        .any(|e| e.contains("run 11") && e.contains("smoke")));
    assert!(f
        .excluded
        .iter()
        .any(|e| e.contains("run 2: an older run") && e.contains("run 10")));
}

#[test]
fn one_machines_runs_under_different_cpu_limits_are_different_members_named_by_the_limit() {
    let mut runs = fixture::fleet::runs();
    let mut limited = runs
        .iter()
        .find(|r| r.doc.host.hostname.starts_with("vm-small") && r.source == "run 10")
        .map(|r| fleet::Submitted {
            source: "run 99".into(),
            doc: r.doc.clone(),
        })
        .unwrap();
    limited.doc.host.cpu_quota = Some(1.0);
    limited.doc.host.logical_cpus = 2;
    runs.push(limited);
    let f = Fleet::new(runs);
    let names: Vec<&str> = f.members.iter().map(|m| m.name.as_str()).collect();
    assert!(names.contains(&"vm-small instance=small"), "{names:?}");
    assert!(
        names.contains(&"vm-small instance=small (a quota of 1.00 CPUs)"),
        "{names:?}"
    );
}

#[test]
fn the_matrix_has_every_claim_and_each_hosts_own_verdict() {
    let f = fleet();
    let base_claims = fixture::load().verdicts.len();
    assert_eq!(f.claims.len(), base_claims);
    for row in &f.claims {
        assert_eq!(row.verdicts.len(), f.members.len());
    }
    // The sparse container judged three claims, the first inconclusive; the rest not judged.
    let container: Vec<Option<VerdictKind>> = f.claims.iter().map(|c| c.verdicts[0]).collect();
    assert_eq!(container[0], Some(VerdictKind::Inconclusive));
    assert!(container[3..].iter().all(|v| v.is_none()));
}

#[test]
fn regression_partly_judged_was_lost_in_the_fleet_matrix() {
    let f = fleet();
    let base = fixture::load();
    let partly = base
        .verdicts
        .iter()
        .find(|v| v.partly_judged() && v.verdict != VerdictKind::Inconclusive)
        .expect("the synthetic run has a partly judged decided claim");
    let row = f.claims.iter().find(|c| c.source == partly.source).unwrap();
    // The metal host is the synthetic run, scaled: its cell keeps the qualifier everywhere.
    let word = row.word(1);
    assert!(word.starts_with("partly judged: "), "{word}");
    assert!(fleet::markdown(&f).contains(&word));
    assert!(fleet::text(&f, Some(200)).contains(&word));
    assert!(fleet::html(&f).unwrap().contains(&word));
}

#[test]
fn headline_figures_carry_each_hosts_median_and_interval() {
    let f = fleet();
    let titles: Vec<&str> = f.figures.iter().map(|x| x.title).collect();
    assert_eq!(
        titles,
        [
            "Create + destroy one unit",
            "One switch, same CPU",
            "One switch, across two CPUs",
            "Memory per unit",
            "Best server design",
        ]
    );
    let create = &f.figures[0];
    let process = |host: usize| create.marks[host].iter().find(|m| m.series == 0).unwrap();
    // The fixture's hosts scale one document: 2x for the container, 0.6x for metal.
    let base = process(2).value;
    assert!((process(0).value - 2.0 * base).abs() < 1e-6 * base);
    assert!((process(1).value - 0.6 * base).abs() < 1e-6 * base);
    assert!(
        process(0).interval.is_none(),
        "the container has no intervals"
    );
    let (lo, hi) = process(2).interval.expect("interval");
    assert!(lo <= base && base <= hi);
    // The container measured only creation: no mark in the other figures.
    assert!(f.figures[1].marks[0].is_empty());
    let server = &f.figures[4].marks[2][0];
    assert!(server.source.contains("design="), "{}", server.source);
}

#[test]
fn what_differs_names_kernel_pin_and_quota_but_not_the_shared_cpu() {
    let f = fleet();
    let differs: Vec<&str> = f
        .facts
        .iter()
        .filter(|x| x.differs)
        .map(|x| x.fact)
        .collect();
    assert_eq!(differs, ["kernel", "CPU quota", "pin"]);
}

#[test]
fn fleet_markdown_snapshot() {
    insta::assert_snapshot!("fleet_markdown", fleet::markdown(&fleet()));
}

#[test]
fn fleet_html_is_self_contained_with_a_dot_plot_per_figure() {
    let f = fleet();
    let page = fleet::html(&f).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    let without_svg_namespace = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for external in ["http://", "https://", "<script", "<link", "src="] {
        assert!(
            !without_svg_namespace.contains(external),
            "page refers to {external}"
        );
    }
    assert_eq!(
        page.matches("<svg class=\"chart dotplot\"").count(),
        f.figures.len()
    );
    let cells = f.claims.len() * f.members.len();
    assert_eq!(page.matches("<td class=\"cell\">").count(), cells);
    assert!(page.contains("badge inconclusive") && page.contains("badge none"));
    assert!(page.contains("<tr class=\"differs\"><th scope=\"row\">kernel</th>"));
}

#[test]
fn an_unpinned_switch_is_not_shown_as_a_same_cpu_one() {
    let mut runs = fixture::fleet::runs();
    runs.truncate(1);
    for r in &mut runs[0].doc.results {
        if r.family == "switch" {
            r.params.set("placement", serde_json::json!("unpinned"));
        }
    }
    let f = Fleet::new(runs);
    let same_cpu = f.figures.iter().find(|x| x.title == "One switch, same CPU");
    assert!(same_cpu.is_none(), "no host measured a same-CPU switch");
}
