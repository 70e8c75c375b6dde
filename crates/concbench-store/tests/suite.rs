//! The store's behaviour, one suite run against both backends: the embedded SQLite file and a
//! real PostgreSQL server (a throw-away cluster, see `concbench-pgtest`). A case receives a
//! factory of fresh, empty stores and must behave the same on either.

mod common;

use common::{doc, doc_on, execute, new_sqlite};
use concbench_core::LABELS_SETTING;
use concbench_store::{Location, Store, LAYOUT};
use std::sync::Barrier;

/// Makes a new, empty store named `name` (unique within a case).
type Fresh<'a> = &'a dyn Fn(&str) -> Location;

/// A case of the suite: its name and the function that runs it.
type Case = (&'static str, fn(Fresh<'_>));

const CASES: &[Case] = &[
    (
        "saves_lists_newest_first_and_loads_back",
        saves_lists_newest_first_and_loads_back,
    ),
    (
        "reopening_keeps_runs_and_the_layout",
        reopening_keeps_runs_and_the_layout,
    ),
    (
        "labels_and_machine_ids_are_listed",
        labels_and_machine_ids_are_listed,
    ),
    ("a_newer_layout_is_refused", a_newer_layout_is_refused),
    (
        "concurrent_first_opens_all_store",
        concurrent_first_opens_all_store,
    ),
];

fn run_suite(backend: &str, fresh: impl Fn(usize, &str) -> Location) {
    for (i, (name, case)) in CASES.iter().enumerate() {
        eprintln!("{backend}: {name}");
        case(&|store: &str| fresh(i, store));
    }
}

#[test]
fn store_suite_against_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    run_suite("sqlite", |case, name| {
        new_sqlite(&dir, &format!("c{case}-{name}"))
    });
}

#[test]
fn store_suite_against_postgres() {
    let Some(pg) = concbench_pgtest::start_or_skip("store_suite_against_postgres") else {
        return;
    };
    run_suite("postgres", |case, name| {
        Location::Postgres(pg.new_database(&format!("c{case}_{name}")))
    });
}

fn saves_lists_newest_first_and_loads_back(fresh: Fresh<'_>) {
    let mut store = Store::open(&fresh("a")).unwrap();
    let mut only = doc("2026-01-01T00:00:00Z", 2);
    only.settings
        .insert("only".into(), serde_json::json!(["create", "switch.pipe"]));
    let a = store.save(&only, "run").unwrap();
    let b = store
        .save(&doc("2026-01-02T00:00:00Z", 5), "replicate")
        .unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![b, a],
        "newest first"
    );
    assert_eq!(runs[0].command, "replicate");
    assert_eq!(runs[0].result_count, 5);
    // The run's --only, read from its document by the backend (empty: everything).
    assert_eq!(runs[1].only, vec!["create", "switch.pipe"]);
    assert!(runs[0].only.is_empty());
    // Results with and without an interval come back exactly.
    assert_eq!(
        store.load(b).unwrap().unwrap(),
        doc("2026-01-02T00:00:00Z", 5)
    );
    assert_eq!(store.latest().unwrap().unwrap().0, b);
    assert!(store.load(b + 100).unwrap().is_none());
    assert_eq!(store.check().unwrap(), Vec::<String>::new());
}

fn reopening_keeps_runs_and_the_layout(fresh: Fresh<'_>) {
    let location = fresh("a");
    Store::open(&location)
        .unwrap()
        .save(&doc("2026-01-01T00:00:00Z", 1), "run")
        .unwrap();
    let mut again = Store::open(&location).unwrap();
    assert_eq!(again.runs().unwrap().len(), 1);
    assert_eq!(again.layout().unwrap(), LAYOUT);
}

fn labels_and_machine_ids_are_listed(fresh: Fresh<'_>) {
    let mut store = Store::open(&fresh("a")).unwrap();
    let mut labelled = doc_on("m-1", "2026-01-01T00:00:00Z", 1);
    labelled.settings.insert(
        LABELS_SETTING.into(),
        serde_json::json!({"instance": "c6i.large", "rack": "b"}),
    );
    store.save(&labelled, "run").unwrap();
    let mut old = doc("2026-01-02T00:00:00Z", 1);
    old.host.machine_id = None;
    store.save(&old, "run").unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs[0].machine_id, None);
    assert!(runs[0].labels.is_empty());
    assert_eq!(runs[1].machine_id.as_deref(), Some("m-1"));
    assert_eq!(runs[1].labels["instance"], "c6i.large");
    assert_eq!(runs[1].labels["rack"], "b");
}

fn a_newer_layout_is_refused(fresh: Fresh<'_>) {
    let location = fresh("a");
    Store::open(&location).unwrap();
    execute(
        &location,
        &format!(
            "INSERT INTO schema_version (version, applied_at, tool) \
             VALUES ({}, '2099-01-01T00:00:00Z', 'from the future')",
            LAYOUT + 1
        ),
    );
    let err = Store::open(&location).err().expect("refused");
    let text = format!("{err:#}");
    assert!(
        text.contains("newer concbench") && text.contains("upgrade concbench"),
        "{text}"
    );
}

/// Several machines (separate connections) open a NEW store at the same moment and store: the
/// first migrates, the others wait for it; every run is stored.
fn concurrent_first_opens_all_store(fresh: Fresh<'_>) {
    const WRITERS: usize = 4;
    const RUNS_EACH: usize = 3;
    let location = fresh("shared");
    let start = Barrier::new(WRITERS);
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (location, start) = (&location, &start);
            s.spawn(move || {
                start.wait();
                let mut store = Store::open(location).expect("open a new store concurrently");
                for r in 0..RUNS_EACH {
                    let d = doc_on(
                        &format!("m-{w}"),
                        &format!("2026-01-0{}T00:00:00Z", r + 1),
                        50,
                    );
                    store.save(&d, "run").expect("store concurrently");
                }
            });
        }
    });
    let mut store = Store::open(&location).unwrap();
    assert_eq!(store.runs().unwrap().len(), WRITERS * RUNS_EACH);
    assert_eq!(store.check().unwrap(), Vec::<String>::new());
}
