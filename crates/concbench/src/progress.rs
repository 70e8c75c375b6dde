//! Progress on stderr: which experiment runs and how far the run is. Hidden when stderr is not
//! a terminal (CI, pipes), so logs stay clean.
//!
//! The bar redraws from a ticker thread. That is safe for the measurements only because they run
//! in worker processes: a thread in the measuring process would slow its forks (METHODOLOGY.md).

use concbench_measure::HarnessEvent;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub struct Progress {
    bar: ProgressBar,
    label: String,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        let attended = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let target = if attended {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>9} [{bar:25}] {pos}/{len} {elapsed:>4} {wide_msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix("measuring");
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Self {
            bar,
            label: String::new(),
        }
    }

    /// A new variant starts.
    pub fn begin(&mut self, label: String) {
        self.label = label;
        self.bar.set_message(self.label.clone());
    }

    /// What the harness is doing within the variant.
    pub fn event(&self, e: HarnessEvent) {
        let detail = match e {
            HarnessEvent::Calibrating => "calibrating".to_string(),
            HarnessEvent::Sample { done, total } if done < total => {
                format!("sample {}/{total}", done + 1)
            }
            HarnessEvent::Sample { total, .. } => format!("{total} samples done"),
        };
        self.bar.set_message(format!("{} — {detail}", self.label));
    }

    pub fn end_one(&self) {
        self.bar.inc(1);
    }

    /// Print a line above the bar (or plainly when hidden).
    pub fn note(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
