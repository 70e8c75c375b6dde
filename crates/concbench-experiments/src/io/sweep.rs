//! The `io.read` sweep: which configurations a run measures.
//!
//! * `--quick`: 8 MiB files, 1 and 10 of them (80 MiB written); the seed's byte reader and the
//!   direct (`O_DIRECT`) reader at 10 files only. The quick suite measures each variant in
//!   several rounds (fresh workers), so it keeps the seed's headline point and one beside it; the
//!   file-count sweep is the full run's.
//! * Full run: the seed's 50 MiB files at 1, 10, 20, 50 and 100 files, for every model with a
//!   128 KiB `read(2)` (one thread reading in turn at every count too: S4's contrast,
//!   「在单线程情况下,性能没有降低。但多线程情况下,性能降低的很明显」, needs its control);
//!   the seed's own reader (one byte per call behind an 8 KiB buffer) up to 20 files
//!   (`BYTE_MAX_FILES`); 128 KiB `O_DIRECT` reads past the page cache at up to ten files (one
//!   thread and a thread per file: what the device delivers at the seed's headline); the buffer
//!   size at 4 KiB and 1 MiB; warm-cache counterparts; and the point compared with fio in
//!   `bench/fidelity/io.py` (4 files x 128 MiB, 4 KiB reads: fio's default block size).
//!
//! Variants only grow the list (the quick points also run in a full run, as a small-file series):
//! `in_quick` selects a subset, it cannot swap sizes.

use super::config::{Cache, Config, Model, Reader};

const QUICK_FILE_MIB: u64 = 8;
const QUICK_FILES: [usize; 2] = [1, 10];
/// The byte reader is CPU-bound (several ns per byte): in `--quick` only the seed's headline
/// (the direct reader too: one point beside it that no cache below the guest's can flatter).
const QUICK_BYTE_FILES: [usize; 1] = [10];

const SEED_FILE_MIB: u64 = 50;
const SEED_FILES: [usize; 5] = [1, 10, 20, 50, 100];
/// The files of the seed's headline comparison (and of the warm and buffer-size points).
const SEED_HEADLINE_FILES: usize = 10;

/// The seed's byte reader up to 20 files. It is bound by its own CPU (several ns per byte: ten
/// threads read ten files 1.6x faster than one thread, the two CPUs sharing the work), so at 50
/// and 100 threads it measures two CPUs shared by that many byte loops, not the disk — for 22 s
/// and 44 s of every full run; the block reader carries the sweep to 100 threads.
const BYTE_MAX_FILES: usize = 20;

/// A common `read(2)` size (and the kernel's default readahead window).
const BLOCK_KIB: u64 = 128;
/// Java's `BufferedInputStream` default buffer, which the seed used.
const SEED_BUFFER_KIB: u64 = 8;
const OTHER_BLOCK_KIB: [u64; 2] = [4, 1024];
/// Models the seed compared (its byte reader is not worth running in every model).
const SEED_MODELS: [Model; 2] = [Model::OneThreadSequential, Model::Threads];

pub fn configs() -> Vec<Config> {
    let mut v = quick();
    v.extend(full());
    v
}

fn point(model: Model, files: usize, file_mib: u64, read_kib: u64, reader: Reader) -> Config {
    Config {
        model,
        files,
        file_mib,
        read_kib,
        reader,
        cache: Cache::Cold,
        quick: false,
    }
}

fn warm(c: Config) -> Config {
    Config {
        cache: Cache::Warm,
        ..c
    }
}

/// The seed's comparison on one file size: every model with block reads over `files`, and the
/// seed's byte reader and the direct reader in the seed's models over `seed_files`, then warm
/// counterparts.
fn series(
    file_mib: u64,
    files: &[usize],
    seed_files: &[usize],
    warm_models: &[Model],
) -> Vec<Config> {
    let mut v = Vec::new();
    // One thread reading the files in turn at every count is S4's control: the article's
    // contrast is that its time per file does not grow with the files while the threads' does.
    for &n in files {
        for m in Model::ALL {
            v.push(point(m, n, file_mib, BLOCK_KIB, Reader::Block));
        }
    }
    for &n in seed_files.iter().filter(|&&n| n <= BYTE_MAX_FILES) {
        for m in SEED_MODELS {
            v.push(point(m, n, file_mib, SEED_BUFFER_KIB, Reader::Byte));
        }
    }
    // The direct reader at the headline only: past it, the sweep's question (does each file's
    // read slow down as threads grow?) is asked of the seed's reader and of plain block reads,
    // and 100 files read past the cache add half a minute to a full run's every verdict pass.
    for &n in seed_files.iter().filter(|&&n| n <= SEED_HEADLINE_FILES) {
        for m in SEED_MODELS {
            v.push(point(m, n, file_mib, BLOCK_KIB, Reader::Direct));
        }
    }
    for &m in warm_models {
        v.push(warm(point(
            m,
            SEED_HEADLINE_FILES,
            file_mib,
            BLOCK_KIB,
            Reader::Block,
        )));
    }
    v
}

fn quick() -> Vec<Config> {
    series(
        QUICK_FILE_MIB,
        &QUICK_FILES,
        &QUICK_BYTE_FILES,
        &SEED_MODELS,
    )
    .into_iter()
    .map(|c| Config { quick: true, ..c })
    .collect()
}

fn full() -> Vec<Config> {
    let mut v = series(SEED_FILE_MIB, &SEED_FILES, &SEED_FILES, &Model::ALL);
    for m in SEED_MODELS {
        v.push(warm(point(
            m,
            SEED_HEADLINE_FILES,
            SEED_FILE_MIB,
            SEED_BUFFER_KIB,
            Reader::Byte,
        )));
    }
    for kib in OTHER_BLOCK_KIB {
        for m in SEED_MODELS {
            v.push(point(
                m,
                SEED_HEADLINE_FILES,
                SEED_FILE_MIB,
                kib,
                Reader::Block,
            ));
        }
    }
    v.push(point(Model::Threads, 4, 128, 4, Reader::Block));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_sweep_writes_at_most_one_gib() {
        let largest = quick()
            .iter()
            .map(|c| c.files as u64 * c.file_mib)
            .max()
            .unwrap();
        assert!(largest <= 1024, "{largest} MiB");
        assert!(quick().iter().all(|c| c.quick));
        assert!(full().iter().all(|c| !c.quick));
    }

    #[test]
    fn seed_headline_and_fio_points_exist() {
        let all = configs();
        for m in SEED_MODELS {
            assert!(all.contains(&point(m, 10, 50, 8, Reader::Byte)));
        }
        assert!(all.contains(&point(Model::Threads, 4, 128, 4, Reader::Block)));
        assert!(all.iter().any(|c| c.cache == Cache::Warm && c.quick));
    }

    #[test]
    fn the_seeds_thread_curve_runs_with_block_reads_its_reader_to_20_and_direct_at_the_headline() {
        let all = configs();
        for n in [10, 20, 50, 100] {
            assert!(
                all.contains(&point(Model::Threads, n, 50, 128, Reader::Block)),
                "{n}"
            );
        }
        for n in [10, 20] {
            assert!(
                all.contains(&point(Model::Threads, n, 50, 8, Reader::Byte)),
                "{n}"
            );
        }
        assert!(!all.iter().any(|c| c.reader == Reader::Byte && c.files > 20));
        assert!(all.contains(&point(Model::Threads, 10, 50, 128, Reader::Direct)));
        assert!(!all
            .iter()
            .any(|c| c.reader == Reader::Direct && c.files > 10));
        // One thread reading in turn beside the threads at every count: S4's control.
        for n in [20, 50, 100] {
            assert!(
                all.contains(&point(
                    Model::OneThreadSequential,
                    n,
                    50,
                    128,
                    Reader::Block
                )),
                "{n}"
            );
        }
        assert!(all.contains(&point(Model::OneThreadSequential, 20, 50, 8, Reader::Byte)));
        assert!(all
            .iter()
            .filter(|c| c.reader == Reader::Direct)
            .all(|c| c.cache == Cache::Cold && SEED_MODELS.contains(&c.model)));
        assert!(quick().iter().any(|c| c.reader == Reader::Direct));
    }
}
