//! Progress on stderr: which round of which variant runs, how many are planned (the total grows
//! while undecided verdicts ask for more rounds), and whether the run is waiting for the machine
//! to settle. The bar is hidden when stderr is not a terminal (CI, pipes), so logs stay clean;
//! notes (failures, a busy machine) are then printed as lines, and so is a progress line once a
//! minute: a full run takes long enough that a silent log looks hung.
//!
//! The bar redraws from a ticker thread. That is safe for the measurements only because they run
//! in worker processes: a thread in the measuring process would slow its forks (METHODOLOGY.md).

use crate::stdout::errln;
use concbench_measure::HarnessEvent;
use concbench_session::{Observer, Variant};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How often an unattended run (no terminal) prints where it is.
const LOG_EVERY: Duration = Duration::from_secs(60);

pub struct Progress {
    bar: ProgressBar,
    label: String,
    told_settling: bool,
    /// The bar's elapsed time when the last progress line was printed (the bar's clock, not a
    /// second one: nothing here times a measurement).
    last_logged: Duration,
}

impl Progress {
    pub fn new() -> Self {
        let attended = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let target = if attended {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>9} [{bar:25}] {pos}/{len} rounds {elapsed:>4} {wide_msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix("measuring");
        bar.enable_steady_tick(Duration::from_millis(250));
        Self {
            bar,
            label: String::new(),
            told_settling: false,
            last_logged: Duration::ZERO,
        }
    }

    /// Print a line above the bar (or plainly when hidden).
    fn line(&self, line: &str) {
        if self.bar.is_hidden() {
            errln!("{line}");
        } else {
            self.bar.println(line);
        }
    }
}

impl Observer for Progress {
    fn settling(&mut self, others: f64, waited: Duration, limit: Duration) {
        let msg = format!(
            "waiting for the machine to settle: other processes use {others:.1} CPUs ({:.0} s \
             of at most {:.0} s; --settle 0 skips this)",
            waited.as_secs_f64(),
            limit.as_secs_f64()
        );
        if !self.told_settling {
            self.told_settling = true;
            self.line(&format!("concbench: {msg}"));
        }
        self.bar.set_message(msg);
    }

    fn planned(&mut self, rounds: usize) {
        self.bar.set_length(rounds as u64);
    }

    fn round_started(&mut self, pass: usize, variant: &Variant) {
        self.label = format!("pass {}: {}", pass + 1, variant.label());
        self.bar.set_message(self.label.clone());
    }

    fn harness_event(&mut self, e: HarnessEvent) {
        let detail = match e {
            HarnessEvent::Calibrating => "calibrating".to_string(),
            HarnessEvent::Sample { done, total } if done < total => {
                format!("sample {}/{total}", done + 1)
            }
            HarnessEvent::Sample { total, .. } => format!("{total} samples done"),
        };
        self.bar.set_message(format!("{} — {detail}", self.label));
    }

    fn round_ended(&mut self) {
        self.bar.inc(1);
        let now = self.bar.elapsed();
        if self.bar.is_hidden() && now.saturating_sub(self.last_logged) >= LOG_EVERY {
            self.last_logged = now;
            errln!(
                "concbench: {}/{} rounds, {:.0} min; {}",
                self.bar.position(),
                self.bar.length().unwrap_or(0),
                now.as_secs_f64() / 60.0,
                self.label
            );
        }
    }

    fn note(&mut self, line: &str) {
        self.line(line);
    }

    fn finished(&mut self) {
        self.bar.finish_and_clear();
    }
}
