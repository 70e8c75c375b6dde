//! The claims' rules as data (`data/published.toml`), held to what the articles said: every
//! deciding check argues its numbers from the article's words, every rule gives the article's
//! own conclusion on the article's own figures, the article's own program decides wherever it
//! runs, and a claim whose deciding checks a run did not all measure is only partly judged.

mod common;

use common::{check, pipe, result};
use concbench_analysis::published::{published, Claim, Published};
use concbench_analysis::synthetic::doc;
use concbench_analysis::verdicts::decide::combine;
use concbench_analysis::verdicts::spec::Take;
use concbench_analysis::verdicts::{judge, CheckSpec, Rule};
use concbench_core::VerdictKind;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// The claim `id` of the published rules.
fn claim<'a>(p: &'a Published, id: &str) -> &'a Claim {
    p.claims
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no claim {id}"))
}

fn kind(word: &str) -> VerdictKind {
    match word {
        "confirmed" => VerdictKind::Confirmed,
        "refuted" => VerdictKind::Refuted,
        "depends" => VerdictKind::Depends,
        "inconclusive" => VerdictKind::Inconclusive,
        other => panic!("unknown verdict word {other}"),
    }
}

/// The checks that decide a claim when everything is measured: the first of each facet, and each
/// check without one, among those allowed to decide.
fn deciders(claim: &Claim) -> Vec<&CheckSpec> {
    if claim.unjudged.is_some() {
        return Vec::new();
    }
    let mut facets: Vec<&str> = Vec::new();
    claim
        .checks
        .iter()
        .filter(|c| c.decides)
        .filter(|c| match c.facet.as_deref() {
            Some(f) if facets.contains(&f) => false,
            Some(f) => {
                facets.push(f);
                true
            }
            None => true,
        })
        .collect()
}

#[test]
fn every_check_argues_its_numbers_and_every_decider_quotes_its_article() {
    let mut missing = Vec::new();
    for claim in &published().claims {
        for check in &claim.checks {
            let why = check.why.as_deref().unwrap_or("").trim();
            if why.is_empty() {
                missing.push(format!("{} / {}: no why", claim.id, check.condition));
            }
        }
        for check in deciders(claim) {
            let why = check.why.as_deref().unwrap_or("");
            // The article's own words, in its own language, open every argument that decides.
            if !why.contains('「') {
                missing.push(format!(
                    "{} / {}: a deciding check's why quotes no original words",
                    claim.id, check.condition
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn no_rule_falls_back_on_a_default_margin() {
    // A greater/less without min_effect, or an equivalence without margin, is malformed.
    let bare: CheckSpec = toml::from_str(
        "condition = \"c\"\nquantity = \"a / b\"\nrule = \"greater\"\n\
         use.a = { id = \"x\" }\nuse.b = { id = \"y\" }",
    )
    .unwrap();
    let err = bare.validate().unwrap_err().to_string();
    assert!(err.contains("min_effect"), "{err}");
    let eq: CheckSpec = toml::from_str(
        "condition = \"c\"\nquantity = \"a / b\"\nrule = \"equivalent\"\n\
         use.a = { id = \"x\" }\nuse.b = { id = \"y\" }",
    )
    .unwrap();
    assert!(eq.validate().unwrap_err().to_string().contains("margin"));
}

/// Every set of the article's own figures fed to a claim's deciding checks, by name: "claim /
/// set", in file order.
fn fed_figures() -> Vec<String> {
    published()
        .claims
        .iter()
        .filter(|c| c.unjudged.is_none())
        .flat_map(|claim| {
            claim
                .checks
                .iter()
                .filter(|c| c.decides)
                .flat_map(|c| c.article.iter())
                .map(|a| format!("{} / {}", claim.id, a.from.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every claim judged here either runs its rule on every figure its article printed or says why
/// it has none; on each set (named by where it is printed), each check gives what it expects and
/// the claim the article's conclusion.
#[test]
fn every_rule_gives_its_articles_conclusion_on_the_articles_own_figures() {
    let p = published();
    let mut covered = Vec::new();
    let mut wrong = Vec::new();
    for claim in &p.claims {
        let with_figures: Vec<&CheckSpec> = claim
            .checks
            .iter()
            .filter(|c| !c.article.is_empty() && c.decides)
            .collect();
        if claim.unjudged.is_some() || with_figures.is_empty() {
            assert!(
                claim.article_figures.is_some(),
                "{}: no check carries the article's figures and the claim says not why",
                claim.id
            );
            continue;
        }
        let mut decisions = Vec::new();
        for check in with_figures {
            for (set, on) in check.on_article_figures() {
                let name = set.from.as_deref().unwrap_or_default();
                let (value, got) = on.unwrap_or_else(|e| {
                    panic!("{} / {} / {name}: {e:#}", claim.id, check.condition)
                });
                let want = kind(set.expect.as_deref().unwrap_or("confirmed"));
                if got != want {
                    wrong.push(format!(
                        "{} / {} / {name}: {} on the article's figures gives {value:.3} -> \
                         {got:?}, not {want:?}",
                        claim.id, check.condition, check.quantity
                    ));
                }
                decisions.push(got);
            }
        }
        let want = kind(claim.article_conclusion.as_deref().unwrap_or("confirmed"));
        let got = combine(claim.combine, &decisions).unwrap();
        if got != want {
            wrong.push(format!(
                "{}: {got:?} on its own figures, not {want:?}",
                claim.id
            ));
        }
        covered.push(claim.id.as_str());
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(
        covered,
        vec![
            "S0.create",
            "S0.pools.dispute",
            "S0.print",
            "S0.print.same",
            "S0.heavy",
            "S0.scale.linear",
            "S0.dualcore.speedup",
            "S1.alternate",
            "S1.lock",
            "S1.two_vs_one",
            "S2.blocking",
            "S2.memory",
            "S2.response_time",
            "S2.connections",
            "S3.switch",
            "S3.cold",
            "S4.one_thread",
            "S4.iowait",
            "S0.stevens.order",
        ],
        "the claims run on their articles' own figures"
    );
}

/// Every figure the articles printed for a judged sweep is fed to its rule, each by name: the
/// print table's eight COUNTs to both readings of S0's print paragraph, the heavy lines' three,
/// the scale table's every worker count (500 processes, 1.157, the widest), the dual-core
/// table's every COUNT (threads at 10000, 1.35, the widest), Stevens's every column.
#[test]
fn every_printed_figure_of_a_sweep_is_fed_to_its_rule_by_name() {
    let fed = fed_figures();
    let has = |claim: &str, needle: &str| {
        fed.iter()
            .filter(|f| f.starts_with(&format!("{claim} / ")) && f.contains(needle))
            .count()
    };
    for count in [5, 10, 50, 100, 500, 1000, 5000, 10000] {
        let name = format!("COUNT {count} (");
        assert_eq!(has("S0.print.same", &name), 1, "S0.print.same at {count}");
    }
    for count in [5, 10, 50, 100, 5000, 10000] {
        assert_eq!(has("S0.print", &format!("COUNT {count} (")), 1, "{count}");
    }
    for count in [100, 500, 1000] {
        assert_eq!(has("S0.heavy", &format!("COUNT {count} (")), 1, "{count}");
    }
    for workers in [255, 350, 500, 800, 1000] {
        let at = format!("at {workers} workers");
        assert_eq!(has("S0.scale.linear", &at), 2, "{workers}");
    }
    assert_eq!(has("S0.scale.linear", "processes at 500 workers"), 1);
    for count in [10, 100, 1000, 10000] {
        assert_eq!(
            has("S0.dualcore.speedup", &format!("at COUNT {count} (")),
            2
        );
    }
    assert_eq!(has("S0.dualcore.speedup", "threads at COUNT 10000"), 1);
    for column in ["Solaris", "Digital Unix", "BSD/OS"] {
        assert!(has("S0.stevens.order", column) >= 2, "{column}");
    }
    // The switch counts as the article counted them, both lock runs.
    assert_eq!(has("S1.lock", "switches for 1e8"), 2);
}

/// S0's author calls his whole print table the same speed (「可以认为他们的速度是相同的」): the
/// equivalence reading and "no faster" of his heavy lines are within his widest gap, 0.070
/// against 0.049 s — the old 5% margin refuted him on figures he called the same.
#[test]
fn regression_s0s_same_is_the_authors_same_not_five_percent() {
    let p = published();
    for id in ["S0.print.same", "S0.heavy"] {
        let c = claim(&p, id);
        let check = &c.checks[0];
        let rule = check.rule().unwrap();
        let (lo, _) = match rule {
            Rule::Equivalent { margin } => (1.0 / (1.0 + margin), 1.0 + margin),
            Rule::AtLeast { bound } => (bound, f64::INFINITY),
            other => panic!("{id}: {other:?}"),
        };
        assert!(lo <= 0.049 / 0.070, "{id}: {rule:?}");
        assert!(check
            .why
            .as_deref()
            .unwrap()
            .contains("可以认为他们的速度是相同的"));
    }
}

#[test]
fn regression_the_fdpass_check_refuted_its_own_source() {
    // Stevens's Digital Unix column: passing descriptors 10.9 s, locking around accept 10.0 s
    // (1.09). The old rule (>= 1.15, the global default) refuted the table it came from.
    let p = published();
    let order = claim(&p, "S0.stevens.order");
    let fdpass = order
        .checks
        .iter()
        .find(|c| c.quantity.starts_with("fdpass"))
        .unwrap();
    let dunix = fdpass
        .on_article_figures()
        .into_iter()
        .find(|(set, _)| set.from.as_deref().unwrap().contains("Digital Unix"))
        .unwrap();
    let (value, decision) = dunix.1.unwrap();
    assert!((value - 1.09).abs() < 1e-9);
    assert_eq!(decision, VerdictKind::Confirmed);
}

/// Stevens's table is net of the iterative server (「与基准之差」): every check of his ordering
/// reads that measure on both sides — the raw CPU is S0's own measure (S0.create.pools) — and
/// the claim is Stevens's, not S0's.
#[test]
fn stevens_is_judged_on_his_own_measure_and_is_not_s0s() {
    let p = published();
    let order = claim(&p, "S0.stevens.order");
    assert!(!order.seed.starts_with("S0"), "{}", order.seed);
    for check in &order.checks {
        for sel in check.selectors() {
            assert_eq!(sel.take, Take::Reported, "{}", check.condition);
        }
    }
    let pools = claim(&p, "S0.create.pools");
    for check in &pools.checks {
        assert!(check.selectors().all(|s| s.take == Take::Raw));
    }
}

/// Passages that say how an article measured, never what it found: no deciding check argues
/// from one (S3's 「线程和进程测试差不多」 once decided that a thread switch costs what a process
/// switch does).
#[test]
fn no_decider_cites_a_method_as_a_finding() {
    const METHOD: [&str; 4] = [
        "线程和进程测试差不多",
        "调度上和进程没有什么区别",
        "创建10万个进程",
        "主线程先打开这组文件",
    ];
    for claim in &published().claims {
        for check in deciders(claim) {
            let why = check.why.as_deref().unwrap_or_default();
            for m in METHOD {
                assert!(!why.contains(m), "{} / {}: {m}", claim.id, check.condition);
            }
        }
    }
}

/// A decider named by its result ids, with the `design` param where it tells servers apart.
fn program(check: &CheckSpec) -> BTreeSet<String> {
    check
        .uses
        .values()
        .map(|s| {
            let sel = &s.alternatives()[0];
            match sel.params.get("design").and_then(|d| d.as_str()) {
                Some(d) => format!("{}[{d}]", sel.id),
                None => sel.id.clone(),
            }
        })
        .collect()
}

#[test]
fn the_articles_own_program_decides_wherever_it_runs() {
    let expected: BTreeMap<&str, &[&str]> = [
        (
            "S0.table.memory_cpu",
            &["memory.process", "memory.thread", "workload.print"][..],
        ),
        (
            "S0.table.create_switch",
            &[
                "create.process_100k",
                "create.thread_100k",
                "switch.alone.process",
                "switch.alone.thread",
            ],
        ),
        ("S0.table.reliability", &["isolation.crash"]),
        // The sentence is prose naming no program; forkcreat.c / pthreadcreat.c decide
        // S0.create, and one quantity decides one claim (the claim's `why` says so).
        ("S0.30x", &["create.fork", "create.thread"]),
        ("S0.30x.far", &["memory.process", "memory.thread"]),
        (
            "S0.create",
            &["probes.c.process_100k", "probes.c.thread_100k"],
        ),
        (
            "S0.pools.dispute",
            &[
                "server.stevens[thread-per-connection]",
                "server.stevens[prethread-mutex]",
                "server.stevens[prethread-acceptor]",
            ],
        ),
        (
            "S0.create.pools",
            &[
                "server.stevens[fork-per-connection]",
                "server.stevens[prefork]",
                "server.stevens[prefork-flock]",
                "server.stevens[prefork-mutex]",
                "server.stevens[thread-per-connection]",
                "server.stevens[prethread-mutex]",
                "server.stevens[prethread-acceptor]",
            ],
        ),
        // Both readings of S0's print paragraph, on the article's own fork.c / thread.c.
        ("S0.print", &["probes.c.print"]),
        ("S0.print.same", &["probes.c.print"]),
        ("S0.heavy", &["workload.print"]),
        ("S0.scale.linear", &["workload.print"]),
        ("S0.dualcore.speedup", &["workload.print"]),
        (
            "S1.alternate",
            &["probes.csharp.alternate", "probes.csharp.single"],
        ),
        (
            "S1.two_vs_one",
            &["probes.csharp.lock", "probes.csharp.single"],
        ),
        // The lock's switch counts are read from concbench's own run: the C# program's runtime
        // does not report them.
        (
            "S1.lock",
            &[
                "probes.csharp.alternate",
                "probes.csharp.lock",
                "contend.lock",
            ],
        ),
        (
            "S2.switch_order",
            &[
                "switch.alone.process",
                "switch.alone.thread",
                "switch.coroutine",
            ],
        ),
        (
            "S2.blocking",
            &["server.blocking[swoole]", "server.blocking[netty]"],
        ),
        (
            "S2.no_blocking",
            &["server.keepalive[swoole]", "server.keepalive[netty]"],
        ),
        (
            "S2.memory",
            &[
                "server.keepalive[netty]",
                "server.keepalive[swoole]",
                "server.blocking[netty]",
                "server.blocking[swoole]",
            ],
        ),
        (
            "S2.response_time",
            &[
                "server.keepalive[netty]",
                "server.keepalive[swoole]",
                "server.blocking[netty]",
                "server.blocking[swoole]",
            ],
        ),
        ("S2.connections", &["limits.connections"]),
        // PHP-FPM against the article's own answer to it, Swoole.
        (
            "S2.fpm",
            &["server.keepalive[swoole]", "server.keepalive[php-fpm]"],
        ),
        // The ring's hop against the pipe token is shown beside: the seed concluded nothing.
        ("S3.switch", &["probes.c.pipe_token", "syscall.getppid"]),
        // The article's pipe token runs on one CPU only: concbench's hand-over decides.
        ("S3.cross_cpu", &["switch.pipe.process"]),
        ("S3.cold", &["switch.pipe.process"]),
        // The Java reader decides the seed's headline; concbench's readers are conditions of
        // their own (other readers and file sizes), never the seed's point.
        ("S4.one_thread", &["io.read.java", "io.read"]),
        ("S4.degrade", &["io.read.java", "io.read"]),
        ("S4.one_thread_flat", &["io.read.java", "io.read"]),
        ("S4.iowait", &["io.read"]),
        (
            "S0.stevens.order",
            &[
                "server.stevens[fork-per-connection]",
                "server.stevens[prefork]",
                "server.stevens[prefork-flock]",
                "server.stevens[prefork-mutex]",
                "server.stevens[prefork-fdpass]",
                "server.stevens[thread-per-connection]",
                "server.stevens[prethread-mutex]",
                "server.stevens[prethread-acceptor]",
            ],
        ),
    ]
    .into_iter()
    .collect();
    let p = published();
    let mut seen = BTreeSet::new();
    for claim in &p.claims {
        let ids: BTreeSet<String> = deciders(claim).into_iter().flat_map(program).collect();
        if ids.is_empty() {
            assert!(claim.unjudged.is_some(), "{} decides nothing", claim.id);
            continue;
        }
        let want = expected
            .get(claim.id.as_str())
            .unwrap_or_else(|| panic!("{}: which program decides it is not stated here", claim.id));
        let want: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
        assert_eq!(ids, want, "{}", claim.id);
        seen.insert(claim.id.as_str());
    }
    assert_eq!(
        seen.len(),
        expected.len(),
        "a claim named here is no longer judged"
    );
}

#[test]
fn s0_30x_says_which_program_decides_it_and_why_the_articles_does_not() {
    // Its deciding check is concbench's create.fork / create.thread, a departure from "the
    // article's own program decides" that the claim's `why` must argue from the article's words.
    let p = published();
    let claim = claim(&p, "S0.30x");
    let deciding = deciders(claim);
    assert_eq!(deciding.len(), 1);
    let why = deciding[0].why.as_deref().unwrap_or_default();
    for needed in [
        "据统计",
        "create.fork",
        "forkcreat.c",
        "S0.create",
        "One quantity",
    ] {
        assert!(why.contains(needed), "S0.30x's why lacks {needed:?}: {why}");
    }
}

#[test]
fn one_quantity_decides_one_claim_within_an_article() {
    // The print ratio at COUNT 1000 once decided both S0.print (>= 0.87) and S0.table.memory_cpu
    // (>= 1.15) on reciprocal margins: within one article, a quantity decides one claim.
    let p = published();
    let mut owner: BTreeMap<(String, String), &str> = BTreeMap::new();
    for claim in &p.claims {
        let article = claim.seed.split('.').next().unwrap().to_string();
        for check in deciders(claim) {
            let mut key: Vec<String> = check
                .uses
                .values()
                .map(|s| format!("{:?}", s.alternatives()[0]))
                .collect();
            key.sort();
            let key = (article.clone(), format!("{} {key:?}", check.quantity));
            if let Some(other) = owner.insert(key, claim.id.as_str()) {
                assert!(
                    other == claim.id || two_readings(other, &claim.id),
                    "one quantity decides {other} and {}",
                    claim.id
                );
            }
        }
    }
}

/// S0's print paragraph holds two conclusions drawn from one table, each its own claim: the
/// paper's crossover (a lead of at least 1.119 at either end) and the author's last word, "the
/// same" (within 43%). One quantity decides both, each in its author's terms; their regions
/// overlap as the author's own figures do (his leads of 12-30% are also "the same").
fn two_readings(a: &str, b: &str) -> bool {
    let mut pair = [a, b];
    pair.sort_unstable();
    pair == ["S0.print", "S0.print.same"]
}

/// What `--only switch.pipe` measures: the hand-overs alone.
fn switch_pipe_only() -> concbench_core::ResultDoc {
    doc(vec![
        pipe("switch.pipe.process", common::around(3000.0, 8)),
        pipe("switch.pipe.thread", common::around(2800.0, 8)),
    ])
}

#[test]
fn a_claim_judged_on_part_of_its_checks_is_partly_judged() {
    let verdicts = judge(&switch_pipe_only());
    assert!(!verdicts.is_empty());
    for v in &verdicts {
        // Every claim the hand-over touches has other deciding checks this run did not measure.
        assert!(
            v.partly_judged(),
            "{} judged as if whole: {:?}",
            v.source,
            v.verdict
        );
        assert!(
            v.explanation.starts_with("Partly judged: "),
            "{}: {}",
            v.source,
            v.explanation
        );
        assert_ne!(v.verdict, VerdictKind::Confirmed, "{}", v.source);
    }
    let cs = verdicts
        .iter()
        .find(|v| v.source == "S0.table.create_switch")
        .unwrap();
    assert_eq!(cs.unmeasured.len(), 1, "{:?}", cs.unmeasured);
    assert!(cs.unmeasured[0].starts_with("create and reap 100,000 units"));
    // The coroutine switch was not measured: S2's order is not refuted as a whole on its
    // process/thread part alone without saying so.
    let order = verdicts
        .iter()
        .find(|v| v.source == "S2.switch_order")
        .unwrap();
    assert!(order.unmeasured.iter().any(|u| u.contains("coroutine")));
}

#[test]
fn a_claim_measured_whole_is_not_partly_judged() {
    let d = doc(vec![
        result(
            "memory.process",
            "KiB",
            &[("units", json!(1000))],
            common::around(300.0, 8),
        ),
        result(
            "memory.thread",
            "KiB",
            &[("units", json!(1000)), ("stack", json!("default"))],
            common::around(100.0, 8),
        ),
        result(
            "workload.print",
            "s",
            &[
                ("model", json!("process")),
                ("workers", json!(255)),
                ("count", json!(1000)),
                ("line_bytes", json!(12)),
                ("sink", json!("devnull")),
                ("writer", json!("write")),
            ],
            common::around(2.0, 8),
        ),
        result(
            "workload.print",
            "s",
            &[
                ("model", json!("thread")),
                ("workers", json!(255)),
                ("count", json!(1000)),
                ("line_bytes", json!(12)),
                ("sink", json!("devnull")),
                ("writer", json!("write")),
            ],
            common::around(2.0, 8),
        ),
    ]);
    let v = common::verdict(&d, "S0.table.memory_cpu");
    assert!(!v.partly_judged(), "{:?}", v.unmeasured);
    assert_eq!(v.verdict, VerdictKind::Depends, "{}", v.explanation);
}

#[test]
fn an_absolute_time_from_the_articles_machine_never_decides_and_shows_the_ratio() {
    // The article's pipe token at 1.75 µs here is half the article's 3.5 µs: shown with that
    // ratio, beside, while the relation to a system call decides.
    let d = doc(vec![
        result("probes.c.pipe_token", "ns", &[], common::around(1750.0, 8)),
        result("syscall.getppid", "ns", &[], common::around(100.0, 8)),
    ]);
    let v = common::verdict(&d, "S3.switch");
    let abs = check(&v, "about 3.5 µs");
    assert!(abs.beside);
    assert!(abs.note.contains("0.500x the article's"), "{}", abs.note);
    let rel = check(&v, "system call, the article's own");
    assert!(!rel.beside);
    assert_eq!(rel.decision, VerdictKind::Confirmed);
}

#[test]
fn unjudged_claims_give_no_verdict_and_say_why() {
    let p = published();
    let unjudged: Vec<&str> = p
        .claims
        .iter()
        .filter(|c| c.unjudged.is_some())
        .map(|c| c.id.as_str())
        .collect();
    for id in [
        "S0.table.sharing",
        "S0.table.distribution",
        "S0.table.programming",
        "S0.create.per_process",
        "S2.no_switch",
    ] {
        assert!(unjudged.contains(&id), "{id}");
    }
    // The shared-memory figure is measured, but the row about ease of programming is not judged.
    let d = doc(vec![
        result(
            "share.shm.process",
            "ns",
            &[("bytes", json!(64))],
            common::around(100.0, 8),
        ),
        result(
            "share.memory.thread",
            "ns",
            &[("bytes", json!(64))],
            common::around(100.0, 8),
        ),
    ]);
    assert!(judge(&d).iter().all(|v| v.source != "S0.table.sharing"));
}

/// Regression: a quick run (no article servers) decided S2.no_blocking on concbench's tokio
/// and epoll designs and printed a plain verdict, as if the article's Swoole and Netty had run.
#[test]
fn regression_a_claim_decided_by_a_stand_in_for_the_articles_system_is_partly_judged() {
    let server = |design: &str, rps: f64| {
        result(
            "server.keepalive",
            "req/s",
            &[("design", json!(design))],
            vec![rps; 8],
        )
    };
    let d = doc(vec![
        server("tokio-current", 90_000.0),
        server("epoll", 91_000.0),
    ]);
    let v = judge(&d)
        .into_iter()
        .find(|v| v.source == "S2.no_blocking")
        .expect("judged on concbench's designs");
    assert_eq!(
        v.verdict,
        VerdictKind::Confirmed,
        "the stand-in still decides"
    );
    assert!(v.partly_judged(), "{:?}", v.unmeasured);
    assert!(
        v.unmeasured
            .iter()
            .any(|u| u.contains("Swoole") && u.contains("decided in its place")),
        "{:?}",
        v.unmeasured
    );
    // With the article's own systems measured (Netty at both readings), the claim is judged whole.
    let netty = |loops: u64| {
        result(
            "server.keepalive",
            "req/s",
            &[("design", json!("netty")), ("event_loops", json!(loops))],
            vec![29_000.0; 8],
        )
    };
    let whole = doc(vec![server("swoole", 30_000.0), netty(4), netty(2)]);
    let v = judge(&whole)
        .into_iter()
        .find(|v| v.source == "S2.no_blocking")
        .unwrap();
    assert!(!v.partly_judged(), "{:?}", v.unmeasured);
}

#[test]
fn a_quick_run_knows_which_deciding_checks_only_a_full_run_measures() {
    use concbench_analysis::published::shared;
    use concbench_analysis::verdicts::full_run_adds;
    use concbench_core::{Params, Verdict, VerdictKind};
    // S4.one_thread's article reader (Java) runs in a full run only; a quick run judges the facet
    // on concbench's own reader and says so.
    let claim = shared()
        .claims
        .iter()
        .find(|c| c.id == "S4.one_thread")
        .unwrap();
    let java = claim
        .checks
        .iter()
        .find(|c| !c.stand_in && c.decides)
        .unwrap();
    let text = java.condition.clone();
    let v = Verdict {
        claim: claim.text.clone(),
        source: claim.id.clone(),
        verdict: VerdictKind::Refuted,
        evidence: vec!["io.read".into()],
        explanation: "e".into(),
        checks: vec![],
        robustness: None,
        rounds: None,
        unmeasured: vec![format!(
            "{text} (concbench's own method decided in its place)"
        )],
        judged: concbench_core::Judged::Partly,
        full_run: vec![],
    };
    let params = Params::new()
        .with("model", "threads")
        .with("files", 10u64)
        .with("file_mib", 50u64)
        .with("placement", "unpinned");
    let full_only = [("io.read.java", &params, false)];
    assert_eq!(full_run_adds(shared(), &v, &full_only), vec![text]);
    // Were the Java reader part of a quick run, a full run would add nothing to it.
    let in_quick = [("io.read.java", &params, true)];
    assert!(full_run_adds(shared(), &v, &in_quick).is_empty());
}
