//! Progress on stderr: what the run prepares (the probes it builds), whether it is waiting for
//! the machine to settle, then which round of which variant runs out of about how many: the
//! plan's total, told before the first round ("~1039"), which grows only when undecided verdicts
//! ask for more rounds than the plan had (it used to start at the first pass's 77 and climb to
//! 447 and 1,024 as passes were planned). Until the first round no count is shown ("0/0" said
//! nothing). The bar is hidden when stderr is not a terminal (CI, pipes), so logs stay clean;
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

/// The bar before any round is planned: what the run is doing, no count.
const PREPARING: &str = "{prefix:>9} {elapsed:>4} {wide_msg}";
/// The bar once rounds are planned.
const COUNTING: &str = "{prefix:>9} [{bar:25}] {pos}/~{len} rounds {elapsed:>4} {wide_msg}";

pub struct Progress {
    bar: ProgressBar,
    label: String,
    /// The plan's total told before the first round (0 until then).
    estimate: u64,
    counting: bool,
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
        bar.set_style(style(PREPARING));
        bar.set_prefix("preparing");
        bar.enable_steady_tick(Duration::from_millis(250));
        Self {
            bar,
            label: String::new(),
            estimate: 0,
            counting: false,
            told_settling: false,
            last_logged: Duration::ZERO,
        }
    }

    /// Say what the run prepares before its first round ("building the go probe ..."): a line,
    /// and the bar's message while it lasts.
    pub fn preparing(&mut self, what: &str) {
        self.line(&format!("concbench: {what}"));
        self.bar.set_message(what.to_string());
    }

    /// The bar's total: the plan's estimate, or what was planned when more.
    fn set_total(&mut self, planned: u64) {
        // The length first: the ticker may draw between the two calls.
        self.bar.set_length(planned.max(self.estimate));
        if !self.counting {
            self.counting = true;
            self.bar.set_style(style(COUNTING));
            self.bar.set_prefix("measuring");
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

    fn estimated(&mut self, rounds: usize) {
        self.estimate = rounds as u64;
        self.set_total(0);
    }

    fn planned(&mut self, rounds: usize) {
        self.set_total(rounds as u64);
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
                "concbench: {}/~{} rounds, {:.0} min; {}",
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

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}
