//! Everything concbench prints on stdout goes through here ([`out!`], [`outln!`]), so that a
//! reader that goes away (`concbench list | head -5`) ends the output quietly, as ripgrep and
//! hyperfine do, instead of a panic ("failed printing to stdout: Broken pipe").
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with EPIPE and `print!` panics on it.
//! Restoring SIGPIPE's default action instead would kill `run` before it writes its result
//! document; here the output stops and the command carries on with its files and its exit code.
//! `clippy::print_stdout` (see `main.rs`) keeps `print!` out of the crate.
//!
//! Messages on stderr go through [`errln!`] for the same reason: a closed terminal fails every
//! write (EIO) in the moment before its SIGHUP is handled, and `eprintln!` would panic there and
//! end the run (exit 101) instead of letting it stop cleanly and write its document;
//! `clippy::print_stderr` keeps `eprintln!` out.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout failed: nothing more is written to it.
static GONE: AtomicBool = AtomicBool::new(false);
/// Set when stdout failed for another reason than a reader that went away (a full disk): the
/// command's output is lost, so it must not exit 0.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Whether stdout failed other than by a closed pipe (`concbench list > /dev/full`).
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// Write `text` to stdout (flushed), unless stdout has already failed. A reader that went away
/// is not an error; any other failure (a full disk behind a redirect) is said once on stderr.
pub fn print(text: &str) {
    if GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        GONE.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            FAILED.store(true, Ordering::Relaxed);
            // Not eprintln!: it panics in turn when stderr is gone too.
            let _ = writeln!(
                std::io::stderr(),
                "concbench: warning: stopped writing to stdout: {e} (files are still written)"
            );
        }
    }
}

/// `print!` that ends quietly when the reader goes away.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::print(&format!($($arg)*))
    };
}

/// `println!` that ends quietly when the reader goes away.
macro_rules! outln {
    () => {
        $crate::stdout::print("\n")
    };
    ($($arg:tt)*) => {
        $crate::stdout::print(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Write a line to stderr; a failed write (a closed terminal, a closed pipe) is ignored.
pub fn eprint_line(text: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// `eprintln!` that never panics on a failed write.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stdout::eprint_line(format_args!($($arg)*))
    };
}

pub(crate) use {errln, out, outln};
