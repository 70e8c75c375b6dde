//! A whole run, from its request to its finished result document: the start-up check of the
//! claims' selectors, the passes ([`crate::passes`]), and the document with its settings, its
//! run-wide warnings, what a full run adds and the last validation gate.
//!
//! What the binary does around it (its `rig.rs`): the command line, the run lock, the io data
//! files, the Ctrl-C handler, the scratch directory, the progress display; then writing the files.

use crate::passes::run_passes;
use crate::plan::RunPlan;
use crate::request::RunRequest;
use crate::rig::{Finished, Rig};
use crate::selection::{variants, Chosen, Registry};
use concbench_core::{Params, ResultDoc, RunMode, RunWarning};
use concbench_measure::{clock, recorded_params, PinMode};

/// Measure `chosen` as `request` asks with `rig`, judge, and make the result document.
pub fn run(
    request: &RunRequest,
    chosen: &[Chosen],
    registry: &dyn Registry,
    mut rig: Rig<'_>,
) -> Finished {
    let broken = broken_selectors(registry);
    for w in &broken {
        rig.observer.note(&format!("concbench: warning: {w}"));
    }
    let started_at = clock::wall_now_rfc3339();
    let Finished { mut doc, stats } =
        run_passes(&variants(chosen, request), &request.plan, &mut rig);
    rig.observer.finished();
    doc.started_at = started_at;
    doc.settings = request.settings.clone();
    doc.settings.extend(request.harness_settings());
    // The host's confounders and the build's broken selectors first, then the passes' own.
    let passes_said = std::mem::replace(&mut doc.warnings, rig.host.confounder_warnings().into());
    doc.warnings.extend(broken);
    doc.warnings.extend(passes_said.0);
    if let Some(w) = stats.load.and_then(|l| steal_warning(l.steal)) {
        doc.warnings.push(w);
    }
    doc.duration_s = rig.machine.now().as_secs_f64();
    if request.mode == RunMode::Quick {
        what_a_full_run_adds(&mut doc, request, registry);
    }
    // The last gate: every interval and ratio of the document within what its quantity can be.
    for found in concbench_analysis::validate::document(&mut doc) {
        doc.warnings.push(RunWarning::ValidationGate {
            found,
            history: false,
        });
    }
    let rerun = hold_awake_rerun(request, doc.duration_s);
    let hold_awake = concbench_analysis::warnings::suggest_hold_awake(&doc, &rerun);
    doc.warnings.extend(hold_awake);
    Finished { doc, stats }
}

/// For a quick run: each verdict's deciding checks a full run measures and this run could not
/// (the articles' own servers, the Java reader, ...: `Verdict::full_run`), and how long a full
/// run takes (`settings.full_run_s`: its budget of rounds and its longest settling).
fn what_a_full_run_adds(doc: &mut ResultDoc, request: &RunRequest, registry: &dyn Registry) {
    let all = registry.all();
    let params: Vec<Params> = all.iter().map(|e| request.params_of(e.as_ref())).collect();
    let variants: Vec<(&str, &Params, bool)> = all
        .iter()
        .zip(&params)
        .map(|(e, p)| (e.meta().id, p, e.in_quick()))
        .collect();
    let published = concbench_analysis::published::published();
    for v in &mut doc.verdicts {
        v.full_run = concbench_analysis::verdicts::full_run_adds(&published, v, &variants);
    }
    let full = RunPlan::new(RunMode::Full);
    doc.set_full_run_s((full.budget + full.settle).as_secs_f64());
}

/// The run that measures this one's switch results again with the CPUs held awake, written as
/// this machine runs a command as root (`sudo` only where it exists), and how long it takes.
/// Regression: a quick run suggested `sudo concbench run --hold-awake` on a machine without
/// sudo, without saying that it is a full run of about 9 minutes.
fn hold_awake_rerun(request: &RunRequest, took_s: f64) -> String {
    let mut cmd = String::from("concbench run");
    if request.mode != RunMode::Full {
        cmd.push_str(" --quick");
    }
    let only: Vec<&str> = match request.settings.get("only") {
        Some(serde_json::Value::Array(a)) => a.iter().filter_map(|v| v.as_str()).collect(),
        _ => Vec::new(),
    };
    // `replicate` records its seeds, not `--only`: the switch family is what the advice is for.
    let (selection, how_long) = match (request.settings.contains_key("only"), only.is_empty()) {
        (true, true) => (
            String::new(),
            format!("about {}, as this run took", span(took_s)),
        ),
        (true, false) => (
            format!(" --only {}", only.join(",")),
            format!("about {}, as this run took", span(took_s)),
        ),
        (false, _) => (
            " --only switch".to_string(),
            format!(
                "the switch family alone: less than this run's {}",
                span(took_s)
            ),
        ),
    };
    cmd.push_str(&selection);
    cmd.push_str(" --hold-awake");
    format!("`{}` ({how_long})", concbench_sys::users::as_root(&cmd))
}

/// "40 s", "9 minutes".
fn span(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{:.0} minutes", seconds / 60.0)
    }
}

/// Claims whose rule names a result this build does not register: a build defect (a renamed
/// experiment or param), said at start-up rather than leaving a verdict silently unjudged.
pub fn broken_selectors(registry: &dyn Registry) -> Vec<RunWarning> {
    let all = registry.all();
    // The registry as a two-CPU machine pinning as asked would record it, whatever this run does.
    let keys: Vec<(&str, Params)> = all
        .iter()
        .map(|e| {
            (
                e.meta().id,
                recorded_params(e.as_ref(), PinMode::Auto, &[0, 1]),
            )
        })
        .collect();
    let refs: Vec<(&str, &Params)> = keys.iter().map(|(id, p)| (*id, p)).collect();
    let published = concbench_analysis::published::published();
    concbench_analysis::verdicts::unmatched_selectors(&published, &refs)
        .into_iter()
        .map(|check| RunWarning::BrokenSelector { check })
        .collect()
}

/// The share of CPU time a hypervisor may steal before a run's figures deserve a warning.
const STEAL_WARNING_SHARE: f64 = 0.02;

/// A warning when the hypervisor took CPU time away during the run (other guests on the host).
fn steal_warning(share: f64) -> Option<RunWarning> {
    (share > STEAL_WARNING_SHARE).then_some(RunWarning::Steal { share })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_warned_about_only_above_the_threshold() {
        assert!(steal_warning(0.01).is_none());
        let w = steal_warning(0.125)
            .expect("12.5% steal is worth a warning")
            .to_string();
        assert!(
            w.contains("12.5%") && w.contains("concbench compare"),
            "{w}"
        );
    }

    fn request(mode: RunMode, only: Option<&[&str]>) -> RunRequest {
        let mut r = RunRequest::new(mode, PinMode::Auto, vec![0, 1]);
        if let Some(only) = only {
            r.settings.insert("only".into(), serde_json::json!(only));
        }
        r
    }

    #[test]
    fn regression_the_hold_awake_advice_reruns_this_run_and_says_how_long_it_takes() {
        let root = |cmd: &str| concbench_sys::users::as_root(cmd);
        assert_eq!(
            hold_awake_rerun(&request(RunMode::Quick, Some(&[])), 58.4),
            format!(
                "`{}` (about 58 s, as this run took)",
                root("concbench run --quick --hold-awake")
            )
        );
        assert_eq!(
            hold_awake_rerun(&request(RunMode::Full, Some(&["switch"])), 541.0),
            format!(
                "`{}` (about 9 minutes, as this run took)",
                root("concbench run --only switch --hold-awake")
            )
        );
        let replicate = hold_awake_rerun(&request(RunMode::Full, None), 300.0);
        assert!(
            replicate.contains("--only switch --hold-awake") && replicate.contains("less than"),
            "{replicate}"
        );
    }
}
