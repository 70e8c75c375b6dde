//! How long storing one run and reading it back takes, in each backend: the SQLite file and a
//! throw-away PostgreSQL server on loopback (concbench-pgtest). A benchmark of the store, not a
//! concbench measurement: it prints medians of wall-clock times for the record in docs/FLEET.md.
//!
//! ```sh
//! concbench run --json full.json                 # a full run's document (any document works)
//! cargo bench -p concbench-store --bench roundtrip -- "$PWD/full.json" [REPEAT]   # absolute:
//!                                                     # benches run in the crate's directory
//! ```

use concbench_core::ResultDoc;
use concbench_store::{Location, Store};
use std::time::{Duration, Instant};

fn main() {
    // `cargo bench` appends `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: cargo bench -p concbench-store --bench roundtrip -- RUN.json [REPEAT]");
        std::process::exit(2);
    };
    let repeat: usize = args
        .get(1)
        .map_or(10, |r| r.parse().expect("REPEAT is a number"));
    let text = std::fs::read_to_string(path).expect("read the result document");
    let doc: ResultDoc = serde_json::from_str(&text).expect("a concbench result document");
    println!(
        "{path}: {} results, {} samples, {} KiB of JSON; {repeat} store + read-back each",
        doc.results.len(),
        doc.results.iter().map(|r| r.samples.len()).sum::<usize>(),
        text.len() / 1024
    );
    let dir = tempfile::tempdir().unwrap();
    roundtrip(
        "sqlite",
        &Location::File(dir.path().join("bench.sqlite")),
        &doc,
        repeat,
    );
    match concbench_pgtest::start_or_skip("roundtrip") {
        Some(pg) => {
            let url = pg.new_database("bench");
            durable(&url);
            roundtrip(
                "postgresql (loopback, fsync on)",
                &Location::Postgres(url),
                &doc,
                repeat,
            )
        }
        None => println!("postgresql: skipped (no PostgreSQL binaries)"),
    }
}

/// The test cluster runs with fsync off (speed); a fair comparison with SQLite, which syncs
/// every commit, needs it on.
fn durable(url: &str) {
    let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
    // Two statements: a multi-statement string is one transaction, where ALTER SYSTEM may not run.
    admin.batch_execute("ALTER SYSTEM SET fsync = on").unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    for _ in 0..50 {
        let fsync: String = admin.query_one("SHOW fsync", &[]).unwrap().get(0);
        if fsync == "on" {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("fsync stayed off");
}

fn roundtrip(name: &str, location: &Location, doc: &ResultDoc, repeat: usize) {
    let mut store = Store::open(location).expect("open the store");
    let (mut stores, mut reads) = (Vec::new(), Vec::new());
    for _ in 0..repeat {
        let t = Instant::now();
        let id = store.save(doc, "bench").expect("store");
        stores.push(t.elapsed());
        let t = Instant::now();
        let back = store.load(id).expect("read back").expect("stored");
        reads.push(t.elapsed());
        assert_eq!(
            back.results.len(),
            doc.results.len(),
            "a partial run read back"
        );
    }
    println!(
        "{name}: store {} (min {}), read back {} (min {})",
        ms(median(&mut stores)),
        ms(stores[0]),
        ms(median(&mut reads)),
        ms(reads[0])
    );
}

/// Sorts `times` and returns the median.
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}
