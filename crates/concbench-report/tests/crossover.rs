//! The crossover sweep in every renderer, on a SYNTHETIC document (test data, not a
//! measurement): `crossover`'s own short screen, `report --all` with every point, the markdown,
//! the page with its chart; and a plain run's one line.

use concbench_analysis::synthetic::swept;
use concbench_core::ResultDoc;
use concbench_report::{Exporter, Html, Markdown, Terminal};

/// The synthetic sweep with its `crossover` object, as `concbench crossover` writes it.
fn crossover_doc() -> ResultDoc {
    let mut doc = swept();
    doc.crossover = concbench_analysis::sweep::analyse(&doc);
    doc.settings.insert("command".into(), "crossover".into());
    doc
}

fn terminal(all: bool) -> Terminal {
    Terminal {
        width: Some(220),
        all,
        ..Terminal::default()
    }
}

#[test]
fn crossovers_own_screen_is_the_pairs_and_the_error() {
    let text = terminal(false).render(&crossover_doc()).unwrap();
    assert!(text.contains("crossover —"), "{text}");
    assert!(
        text.contains("Where each design stops keeping up"),
        "{text}"
    );
    assert!(
        text.contains("thread pool of 8 vs coroutines (tokio)"),
        "{text}"
    );
    assert!(text.contains("falls behind at"), "{text}");
    assert!(text.contains("off by a factor of"), "{text}");
    assert!(text.contains("report FILE --all"), "{text}");
    // Not the points: those are --all's.
    assert!(!text.contains("measured req/s [95% CI]"), "{text}");
}

#[test]
fn all_shows_every_point_measured_and_predicted_and_the_method() {
    let text = terminal(true).render(&crossover_doc()).unwrap();
    assert!(text.contains("measured req/s [95% CI]"), "{text}");
    assert!(
        text.contains("concurrency"),
        "a point limited by Little's law: {text}"
    );
    assert!(text.contains("logarithm of the blocking time"), "{text}");
}

#[test]
fn a_plain_run_with_the_sweep_says_the_error_in_one_line() {
    let mut doc = crossover_doc();
    doc.settings.remove("command");
    let text = terminal(false).render(&doc).unwrap();
    assert!(
        text.contains("Crossover sweep: advise's predictions against 12"),
        "{text}"
    );
}

#[test]
fn the_markdown_and_the_page_have_the_section_and_the_chart() {
    let doc = crossover_doc();
    let md = Markdown.render(&doc).unwrap();
    assert!(
        md.contains("## The crossover: where each design stops keeping up"),
        "{md}"
    );
    assert!(
        md.contains("| thread pool of 8 vs coroutines (tokio) |"),
        "{md}"
    );
    let page = Html.render(&doc).unwrap();
    assert!(page.contains(r#"<section id="crossover">"#));
    assert!(page.contains("Requests/s against blocking time per request, 100 µs of CPU"));
    // Measured points with their whiskers, predictions dashed, 0 drawn on the log axis.
    assert!(page.contains(r#"class="ci""#));
    assert!(page.contains("stroke-dasharray"));
    assert!(
        page.contains(">0</text>"),
        "the tick standing for no blocking reads 0"
    );
}
