//! The io family's cache-state checks on real files, through the harness: a warm read is
//! labelled warm, a cold variant whose pages cannot be dropped is refused rather than reported as
//! cold, and smoke mode stays on tiny files.
//!
//! Data lives in the build's target directory, not /tmp: tmpfs has no cold state. The tests take
//! turns: device reads are counted per process (`/proc/self/io`), and in a worker process the
//! variant is alone, but here the tests share one process.

use concbench_core::{CancelToken, Experiment, Outcome, RawMeasurement};
use concbench_experiments::io::{CacheState, COLD_AT_LEAST};
use concbench_measure::{Harness, HarnessConfig, PinMode};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

fn harness(io_dir: &Path, smoke: bool) -> Harness {
    Harness {
        config: HarnessConfig {
            quick: true,
            smoke,
            repetitions: (!smoke).then_some(2),
            pin: PinMode::Auto,
        },
        host: Arc::new(concbench_measure::host::collect()),
        cancel: CancelToken::new(),
        scratch_dir: io_dir.to_path_buf(),
        options: [("io-dir".to_string(), io_dir.display().to_string())]
            .into_iter()
            .collect(),
    }
}

/// The quick `io.read` variant with these params.
fn variant(model: &str, files: u64, cache: &str) -> Box<dyn Experiment> {
    concbench_experiments::all()
        .into_iter()
        .find(|e| {
            let p = e.params();
            e.meta().id == "io.read"
                && e.in_quick()
                && p.get_str("model") == Some(model)
                && p.get_f64("files") == Some(files as f64)
                && p.get_str("cache") == Some(cache)
                && p.get_str("reader") == Some("block")
        })
        .expect("variant in the quick sweep")
}

fn measured(outcome: Outcome) -> Box<RawMeasurement> {
    match outcome {
        Outcome::Measured(raw) => raw,
        other => panic!("not measured: {other:?}"),
    }
}

fn states(raw: &RawMeasurement) -> Vec<CacheState> {
    raw.metrics["device_read_share"]
        .iter()
        .map(|s| CacheState::from_device_share(*s))
        .collect()
}

fn io_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

static ALONE: Mutex<()> = Mutex::new(());

fn alone() -> MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn a_warm_read_is_labelled_warm() {
    let _alone = alone();
    let dir = io_dir();
    let mut exp = variant("threads", 10, "warm");
    let raw = measured(harness(dir.path(), false).measure(exp.as_mut(), &mut |_| {}));
    assert_eq!(states(&raw), vec![CacheState::Warm; 2]);
    assert!(raw.metrics["resident_share_before"]
        .iter()
        .all(|s| *s > 0.99));
    assert!(
        raw.warnings.iter().all(|w| !w.contains("repetition")),
        "{:?}",
        raw.warnings
    );
}

#[test]
fn a_cold_variant_whose_pages_stay_cached_is_refused_as_warm() {
    let _alone = alone();
    let dir = io_dir();
    let h = harness(dir.path(), false);
    let mut exp = variant("one-thread-sequential", 10, "cold");
    let raw = measured(h.measure(exp.as_mut(), &mut |_| {}));
    assert_eq!(states(&raw), vec![CacheState::Cold; 2]);
    assert!(raw.metrics["device_read_share"]
        .iter()
        .all(|s| *s >= COLD_AT_LEAST));

    // Another mapping of the files (here: ours) keeps their pages in memory through
    // POSIX_FADV_DONTNEED, as a database mapping them would.
    let maps: Vec<Mapping> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "dat"))
        .map(|e| Mapping::populate(&e.path()))
        .collect();
    assert_eq!(maps.len(), 10);
    let mut exp = variant("one-thread-sequential", 10, "cold");
    match h.measure(exp.as_mut(), &mut |_| {}) {
        Outcome::Failed(f) => assert!(
            f.error.contains("was warm, not cold") && f.error.contains("stayed cached"),
            "{}",
            f.error
        ),
        other => panic!("a warm read passed as cold: {other:?}"),
    }
}

#[test]
fn smoke_mode_reads_tiny_files_in_every_variant() {
    let _alone = alone();
    let dir = io_dir();
    let h = harness(dir.path(), true);
    for mut exp in concbench_experiments::all()
        .into_iter()
        .filter(|e| e.meta().family == "io")
    {
        match h.measure(exp.as_mut(), &mut |_| {}) {
            Outcome::Measured(raw) => assert_eq!(raw.values.len(), 1),
            Outcome::Skipped(s) => eprintln!("skipped: {}", s.reason),
            Outcome::Failed(f) => panic!("{:?}: {}", exp.params(), f.error),
        }
    }
    let written: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(written <= 100 * 64 * 1024, "smoke wrote {written} bytes");
}

/// A file mapped shared and faulted in, unmapped on drop.
struct Mapping {
    addr: *mut libc::c_void,
    len: usize,
}

impl Mapping {
    fn populate(path: &Path) -> Self {
        let f = File::open(path).unwrap();
        let len = f.metadata().unwrap().len() as usize;
        // SAFETY: a new read-only shared mapping of an open file; only this struct refers to it.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                f.as_raw_fd(),
                0,
            )
        };
        assert_ne!(addr, libc::MAP_FAILED);
        Self { addr, len }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping made in `populate`.
        unsafe { libc::munmap(self.addr, self.len) };
    }
}
