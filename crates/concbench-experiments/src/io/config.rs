//! One point of the `io.read` sweep: how the files are read (model, reader, buffer size), how
//! many and how large they are, and which cache state the repetitions must start from.

use concbench_core::Params;

/// Who reads the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// One thread reads every file in turn (the seed's single-threaded program).
    OneThreadSequential,
    /// One thread per file, released together by a start barrier (the seed's multi-threaded one).
    Threads,
    /// One forked process per file, released together.
    Processes,
    /// One thread keeps one read per file in flight through io_uring (queue depth = files).
    IoUring,
}

impl Model {
    pub const ALL: [Model; 4] = [
        Model::OneThreadSequential,
        Model::Threads,
        Model::Processes,
        Model::IoUring,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Model::OneThreadSequential => "one-thread-sequential",
            Model::Threads => "threads",
            Model::Processes => "processes",
            Model::IoUring => "io_uring",
        }
    }

    /// Whether files are read concurrently (so the slowest and fastest reader can be compared).
    pub fn concurrent(self) -> bool {
        self != Model::OneThreadSequential
    }
}

/// How the application asks for the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Each call is one `read(2)` of `read_kib` into the application's buffer.
    Block,
    /// One byte per call from a `std::io::BufReader` of `read_kib` (refilled by `read(2)` of
    /// that size): what the seed's Java `BufferedInputStream.read()` loop does, where the cost
    /// is the per-byte call, not the disk.
    Byte,
    /// `read(2)` of `read_kib` with `O_DIRECT`: past the page cache, every read a request to
    /// the device (see `direct.rs`).
    Direct,
}

impl Reader {
    pub fn as_str(self) -> &'static str {
        match self {
            Reader::Block => "block",
            Reader::Byte => "byte",
            Reader::Direct => "direct",
        }
    }
}

/// The page-cache state every repetition must start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// The files' pages are dropped before each repetition, and the drop is verified.
    Cold,
    /// The files are read once before each repetition, so every byte comes from memory.
    Warm,
}

impl Cache {
    pub fn as_str(self) -> &'static str {
        match self {
            Cache::Cold => "cold",
            Cache::Warm => "warm",
        }
    }
}

/// One variant of `io.read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub model: Model,
    pub files: usize,
    pub file_mib: u64,
    pub read_kib: u64,
    pub reader: Reader,
    pub cache: Cache,
    /// Part of the `--quick` sweep.
    pub quick: bool,
}

impl Config {
    pub fn params(&self) -> Params {
        Params::new()
            .with("model", self.model.as_str())
            .with("files", self.files as u64)
            .with("file_mib", self.file_mib)
            .with("read_kib", self.read_kib)
            .with("reader", self.reader.as_str())
            .with("cache", self.cache.as_str())
    }

    /// Bytes one repetition reads, as the params say (smoke runs read less; see `read.rs`).
    pub fn total_bytes(&self) -> u64 {
        self.files as u64 * self.file_mib * MIB
    }
}

pub const MIB: u64 = 1 << 20;
