//! Dropping a file's cached pages really empties them, and both ways of counting agree.
//!
//! Files live in the build's target directory, not /tmp: tmpfs pages cannot be dropped.

use concbench_sys::pagecache::{cachestat_resident, drop_cached, mincore_resident, residency};
use std::fs::File;
use std::io::{Read, Write};

fn file_of(bytes: usize) -> (tempfile::TempDir, File) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("f");
    File::create(&path)
        .unwrap()
        .write_all(&vec![7u8; bytes])
        .unwrap();
    (dir, File::open(&path).unwrap())
}

#[test]
fn dropped_pages_are_gone_and_reading_brings_them_back() {
    let (_dir, mut f) = file_of(1 << 20);
    drop_cached(&f).unwrap();
    assert_eq!(residency(&f).unwrap().resident_pages, 0);
    std::io::copy(&mut (&mut f).take(1 << 20), &mut std::io::sink()).unwrap();
    let r = residency(&f).unwrap();
    assert_eq!(r.resident_pages, r.total_pages);
    assert!((r.share() - 1.0).abs() < 1e-9);
}

#[test]
fn mincore_agrees_with_cachestat() {
    let (_dir, f) = file_of(256 << 10);
    let by_mincore = mincore_resident(&f, 256 << 10).unwrap();
    if let Some(by_cachestat) = cachestat_resident(&f).unwrap() {
        assert_eq!(by_mincore, by_cachestat);
    }
    assert_eq!(by_mincore, residency(&f).unwrap().total_pages);
}
