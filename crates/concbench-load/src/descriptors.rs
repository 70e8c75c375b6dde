//! File descriptors for the connections: the soft `RLIMIT_NOFILE` raised toward the hard one
//! when the connections need it, and a refusal before the first connect when even the hard
//! limit is too low — rather than running out (EMFILE) partway through opening them.

use concbench_core::UsageError;
use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};

/// Descriptors needed beyond the connections themselves: stdio, an epoll per load thread, the
/// fault connection, the listeners and pipes of an in-process server.
pub const MARGIN: u64 = 64;

/// How many connections fit under the descriptor limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Connections that fit (at most the number asked for).
    pub connections: usize,
    /// The descriptors `connections` asked for, margin included.
    pub wanted: u64,
    /// The soft limit, raised as far as it went.
    pub soft: u64,
    /// The hard limit (`None`: unlimited).
    pub hard: Option<u64>,
}

impl Fit {
    /// Every connection asked for fits.
    pub fn all(&self, asked: usize) -> bool {
        self.connections >= asked
    }
}

/// Raise this process's soft descriptor limit so `connections` fit, up to the hard limit
/// (always permitted, and it affects only this process and what it forks); how many fit.
pub fn fit(connections: usize) -> Fit {
    let wanted = connections as u64 + MARGIN;
    let limit = getrlimit(Resource::Nofile);
    let soft = match limit.current {
        Some(soft) if soft < wanted => {
            let raised = limit.maximum.map_or(wanted, |hard| wanted.min(hard));
            let new = Rlimit {
                current: Some(raised),
                maximum: limit.maximum,
            };
            // On failure the soft limit stays as it was, and the fit says so.
            setrlimit(Resource::Nofile, new).map_or(soft, |()| raised)
        }
        Some(soft) => soft,
        None => u64::MAX,
    };
    Fit {
        connections: connections.min(soft.saturating_sub(MARGIN).max(1) as usize),
        wanted,
        soft,
        hard: limit.maximum,
    }
}

/// Make room for `connections`, or refuse them before any is opened.
pub fn ensure(connections: usize) -> Result<(), UsageError> {
    let fit = fit(connections);
    if fit.all(connections) {
        return Ok(());
    }
    Err(UsageError::new(format!(
        "-c/--connections {connections} needs about {} file descriptors, but this process may \
         open at most {} (RLIMIT_NOFILE, hard limit {}): use -c {} or fewer, or raise the hard \
         limit first (as root: ulimit -Hn {})",
        fit.wanted,
        fit.soft,
        fit.hard.map_or("unlimited".to_string(), |h| h.to_string()),
        fit.connections,
        fit.wanted
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_within_the_limit_fit_and_absurd_ones_do_not() {
        assert!(fit(1).all(1));
        assert!(ensure(1).is_ok());
        // More descriptors than any kernel allows (fs.nr_open is at most about 2^30).
        let absurd = 1usize << 40;
        let f = fit(absurd);
        assert!(!f.all(absurd), "{f:?}");
        let err = ensure(absurd).unwrap_err().to_string();
        assert!(
            err.contains("-c/--connections") && err.contains("or fewer"),
            "{err}"
        );
    }
}
