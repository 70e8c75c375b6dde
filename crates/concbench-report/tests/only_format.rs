//! Renderers only format (issue 44): given an answer, every renderer shows its figures, the
//! anatomy and the sentence on the run's intervals, as the answer holds them. A renderer that
//! computed them again from the document would show the document's own, not the ones given.

use concbench_analysis::anatomy::{Anatomy, Layer, Stack};
use concbench_analysis::answer::Answer;
use concbench_analysis::synthetic::entry_with;
use concbench_core::{Params, ResultDoc};
use concbench_report::{Html, Markdown, Terminal};

/// The recorded quick run, with one result of the anatomy family (so that the run asked for
/// the anatomy and the page has a place for its charts).
fn quick_run_with_anatomy() -> ResultDoc {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/quick-run.json");
    let text = std::fs::read_to_string(path).expect("the recorded quick run");
    let mut doc: ResultDoc = serde_json::from_str(&text).expect("a result document");
    let mut e = entry_with("anatomy.floor", "ns", Params::new(), &[100.0; 6]);
    e.family = "anatomy".into();
    doc.results.push(e);
    doc
}

/// An anatomy no document of the fixture's could give: one bar of two layers with figures of
/// its own, and a sentence of what was unavailable.
fn known_anatomy() -> Anatomy {
    let layer = |name: &str, median: f64| Layer {
        name: name.into(),
        from: None,
        to: "given".into(),
        median,
        interval: Some((median * 0.9, median * 1.1)),
        difference: median,
    };
    Anatomy {
        stacks: vec![Stack {
            name: "a bar given by the test".into(),
            layers: vec![
                layer("system-call floor (given)", 4321.0),
                layer("switch between threads (given)", 8765.0),
            ],
        }],
        unavailable: vec!["hardware counters: given as unavailable by the test".into()],
        ..Anatomy::default()
    }
}

/// The terminal with every table (`--all`), wide enough that no figure wraps.
fn every_table(answer: &Answer<'_>) -> String {
    Terminal {
        width: Some(200),
        all: true,
        ..Terminal::default()
    }
    .render_answer(answer)
    .unwrap()
}

#[test]
fn every_renderer_shows_the_anatomy_and_the_intervals_sentence_it_is_given() {
    let doc = quick_run_with_anatomy();
    let mut answer = Answer::of(&doc);
    answer.anatomy = Some(known_anatomy());
    answer.intervals_alone = Some("Intervals: the sentence the test gave".into());
    let all = every_table(&answer);
    for said in [
        "a bar given by the test",
        "system-call floor (given)",
        "4.32 µs",
        "8.77 µs",
        "= total",
        "13.1 µs",
        "hardware counters: given as unavailable by the test",
        "Intervals: the sentence the test gave",
    ] {
        assert!(all.contains(said), "{said:?} not on the terminal:\n{all}");
    }
    let markdown = Markdown.render_answer(&answer).unwrap();
    assert!(markdown.contains("Intervals: the sentence the test gave"));
    let page = Html.render_answer(&answer).unwrap();
    for said in [
        "a bar given by the test",
        "switch between threads (given)",
        "8.77 µs",
        "hardware counters: given as unavailable by the test",
        "Anatomy of a hand-over on one CPU",
    ] {
        assert!(page.contains(said), "{said:?} not on the page");
    }
}

#[test]
fn an_answer_without_an_anatomy_or_an_intervals_sentence_shows_neither() {
    let doc = quick_run_with_anatomy();
    let mut answer = Answer::of(&doc);
    // The run's own answer has the sentence: its intervals are its own alone.
    assert!(answer.intervals_alone.is_some());
    answer.anatomy = None;
    answer.intervals_alone = None;
    let all = every_table(&answer);
    assert!(!all.contains("Anatomy of a hand-over"), "{all}");
    assert!(!all.contains("Intervals: this run's alone"), "{all}");
    let markdown = Markdown.render_answer(&answer).unwrap();
    assert!(!markdown.contains("Intervals: this run's alone"));
    let page = Html.render_answer(&answer).unwrap();
    assert!(!page.contains("Anatomy of a hand-over"));
}
