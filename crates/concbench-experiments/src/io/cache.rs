//! Page-cache state: make it cold (or warm) before a repetition, verify it, and label what a
//! repetition actually was from the bytes the device delivered.

use super::config::{Cache, MIB};
use super::metrics::Around;
use anyhow::{bail, Context, Result};
use concbench_core::{RunContext, RunOutput};
use concbench_sys::pagecache::{self, CountMethod};
use std::fs::File;

/// A repetition that fetched at least this share of its bytes from the device is cold.
pub const COLD_AT_LEAST: f64 = 0.9;
/// One that fetched less than this share is warm; in between it is partial.
pub const WARM_BELOW: f64 = 0.1;

/// What a repetition really read from, judged from the bytes fetched from the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheState {
    Cold,
    Partial,
    Warm,
}

impl CacheState {
    /// Label from the share of the data fetched from the device (`read_bytes` / bytes read).
    pub fn from_device_share(share: f64) -> Self {
        if share >= COLD_AT_LEAST {
            CacheState::Cold
        } else if share < WARM_BELOW {
            CacheState::Warm
        } else {
            CacheState::Partial
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CacheState::Cold => "cold",
            CacheState::Partial => "partial",
            CacheState::Warm => "warm",
        }
    }

    /// The state a variant's `cache` param promises.
    pub fn intended(cache: Cache) -> Self {
        match cache {
            Cache::Cold => CacheState::Cold,
            Cache::Warm => CacheState::Warm,
        }
    }
}

/// The resident share of a set of files (pages in the page cache / pages), and how it was counted.
pub fn resident_share(files: &[File]) -> Result<(f64, CountMethod)> {
    let (mut resident, mut total) = (0u64, 0u64);
    let mut method = CountMethod::Cachestat;
    for f in files {
        let r = pagecache::residency(f).context("counting resident pages")?;
        resident += r.resident_pages;
        total += r.total_pages;
        method = r.method;
    }
    let share = if total == 0 {
        0.0
    } else {
        resident as f64 / total as f64
    };
    Ok((share, method))
}

/// Drop the files' cached pages (sync first: dirty pages cannot be dropped), and return the
/// resident share left. A second pass catches pages that were under writeback the first time.
pub fn make_cold(files: &[File]) -> Result<f64> {
    for _ in 0..2 {
        for f in files {
            pagecache::drop_cached(f).context("posix_fadvise(POSIX_FADV_DONTNEED)")?;
        }
        let (share, _) = resident_share(files)?;
        if share == 0.0 {
            return Ok(0.0);
        }
    }
    Ok(resident_share(files)?.0)
}

/// Read every file once so its pages are cached; return the resident share reached.
pub fn make_warm(files: &mut [File]) -> Result<f64> {
    use std::io::{Seek, SeekFrom};
    for f in files.iter_mut() {
        f.seek(SeekFrom::Start(0))?;
        std::io::copy(f, &mut std::io::sink()).context("reading a file into the page cache")?;
    }
    Ok(resident_share(files)?.0)
}

/// Labels each repetition of one variant from its device reads and holds it to the variant's
/// promised cache state; also watches cold repetitions for a host cache ([`HostCacheCheck`]).
#[derive(Debug)]
pub struct CacheJudge {
    cache: Cache,
    repetition: usize,
    host_cache: HostCacheCheck,
}

impl CacheJudge {
    pub fn new(cache: Cache) -> Self {
        Self {
            cache,
            repetition: 0,
            host_cache: HostCacheCheck::default(),
        }
    }

    /// Label the repetition from its device reads, and turn a mismatch with the variant's
    /// promise into a warning — or, for a cold variant that read from memory, an error.
    pub fn judge(
        &mut self,
        ctx: &RunContext,
        around: &Around,
        bytes: u64,
        wall_ms: f64,
        out: &mut RunOutput,
    ) -> Result<()> {
        self.repetition += 1;
        let rep = self.repetition;
        let (state, evidence) = match around.device_share(bytes) {
            Some(share) => (
                CacheState::from_device_share(share),
                format!(
                    "{:.0}% of its {} MiB came from the device",
                    share * 100.0,
                    bytes / MIB
                ),
            ),
            None => {
                out.warnings.push(
                    "this kernel does not count per-task device reads (/proc/self/io \
                     read_bytes): each repetition's cache state is judged from the pages cached \
                     before it"
                        .to_string(),
                );
                (
                    CacheState::from_device_share(1.0 - around.resident_before),
                    format!(
                        "{:.0}% of its pages were cached before it",
                        around.resident_before * 100.0
                    ),
                )
            }
        };
        let intended = CacheState::intended(self.cache);
        if state != intended {
            let what = format!(
                "repetition {rep} was {}, not {}: {evidence}",
                state.as_str(),
                intended.as_str()
            );
            if intended == CacheState::Cold && state == CacheState::Warm && !ctx.smoke {
                bail!(
                    "{what}, so its time is not a cold read; {}",
                    why_not_cold(around.resident_before)
                );
            }
            out.warnings.push(format!(
                "{what}; the median mixes cache states — rerun on an idle machine"
            ));
        } else if state == CacheState::Cold {
            if let Some(w) = self.host_cache.record(wall_ms, ctx.host.virtualized) {
                out.warnings.push(w);
            }
        }
        Ok(())
    }
}

/// The likely reason a cold repetition fetched nothing from the device, from what the drop left.
fn why_not_cold(resident_before: f64) -> String {
    if resident_before > WARM_BELOW {
        format!(
            "{:.0}% of the pages stayed cached through POSIX_FADV_DONTNEED, which cannot drop \
             pages another process maps or locks — stop that process and rerun",
            resident_before * 100.0
        )
    } else {
        "the pages were dropped before it, yet the device delivered nothing: this file system \
         does not read through a block device this kernel counts (FUSE, a network file system) — \
         pass --io-dir with a directory on a local disk"
            .to_string()
    }
}

/// Watches a cold variant's repetitions for the signature of a hypervisor's page cache: the
/// first repetition really goes to the disk, later ones are served from the host's memory, yet
/// the guest still counts them as device reads.
#[derive(Debug, Default)]
pub struct HostCacheCheck {
    cold_walls_ms: Vec<f64>,
    warned: bool,
}

/// Later cold repetitions this many times faster than the first suggest a host cache.
pub const HOST_CACHE_SPEEDUP: f64 = 2.0;

impl HostCacheCheck {
    /// Record a cold repetition's wall time; returns a warning the first time the pattern shows.
    pub fn record(&mut self, wall_ms: f64, virtualized: bool) -> Option<String> {
        self.cold_walls_ms.push(wall_ms);
        if self.warned || self.cold_walls_ms.len() < 3 {
            return None;
        }
        let first = self.cold_walls_ms[0];
        let later = concbench_stats::median(&self.cold_walls_ms[1..]);
        if later <= 0.0 || first / later < HOST_CACHE_SPEEDUP {
            return None;
        }
        self.warned = true;
        Some(format!(
            "later cold repetitions ran {:.1}x faster than the first ({later:.0} ms vs {first:.0} \
             ms) although each fetched its data from the device: {}the reads after the first were \
             probably served from a cache below this kernel, so the result measures that cache, not \
             the disk; judge disk speed from the first repetition, or use a disk the host does not cache",
            first / later,
            if virtualized {
                "this machine is virtualized, so "
            } else {
                "a cache in the storage (a controller or a network volume) may be at work: "
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_device_share() {
        assert_eq!(CacheState::from_device_share(1.0), CacheState::Cold);
        assert_eq!(CacheState::from_device_share(0.95), CacheState::Cold);
        assert_eq!(CacheState::from_device_share(0.5), CacheState::Partial);
        assert_eq!(CacheState::from_device_share(0.0), CacheState::Warm);
    }

    #[test]
    fn host_cache_is_flagged_once_when_later_reps_are_much_faster() {
        let mut c = HostCacheCheck::default();
        assert!(c.record(1000.0, true).is_none());
        assert!(c.record(300.0, true).is_none());
        let w = c.record(310.0, true).expect("3.3x faster after the first");
        assert!(w.contains("virtualized"), "{w}");
        assert!(c.record(290.0, true).is_none(), "warned once");
        let mut steady = HostCacheCheck::default();
        for ms in [1000.0, 950.0, 1020.0, 990.0] {
            assert!(steady.record(ms, true).is_none());
        }
    }
}
