//! Every renderer on the fixed SYNTHETIC fixture document (tests/fixture): snapshots of the
//! terminal table, markdown, CSV and HTML, the JSON round trip, and the HTML page's promises
//! (self-contained, charts only for the families present, every claim in the verdict table).

mod fixture;

use concbench_core::ResultDoc;
use concbench_report::{Csv, Exporter, Files, Html, Json, Markdown, Terminal};

#[test]
fn fixture_file_is_current() {
    let generated = Json.render(&fixture::generate()).unwrap();
    if std::env::var_os("CONCBENCH_UPDATE_FIXTURE").is_some() {
        std::fs::write(fixture::path(), &generated).unwrap();
    }
    let stored = std::fs::read_to_string(fixture::path()).unwrap();
    assert!(
        stored == generated,
        "tests/fixtures/synthetic-all-families.json is stale: regenerate it with \
         CONCBENCH_UPDATE_FIXTURE=1 cargo test -p concbench-report --test renderers"
    );
}

#[test]
fn json_round_trips_the_document() {
    let doc = fixture::load();
    let text = Json.render(&doc).unwrap();
    let back: ResultDoc = serde_json::from_str(&text).unwrap();
    assert_eq!(back, doc);
}

/// The summary a run prints: the answer on one screen, with where its files are.
fn summary(doc: &ResultDoc) -> String {
    Terminal {
        files: Files {
            document: Some("concbench-results/run-20260101T120000Z.json".into()),
            page: None,
        },
        ..Terminal::default()
    }
    .render(doc)
    .unwrap()
}

#[test]
fn terminal_snapshot() {
    insta::assert_snapshot!("terminal", summary(&fixture::load()));
}

#[test]
fn regression_a_long_warning_wraps_within_the_summary_width() {
    let mut doc = fixture::load();
    let long = format!(
        "a check was still inconclusive when the budget (55 s) or the round cap (20) was \
         reached in: {}; a longer run (--budget, or without --quick) may decide it",
        ["S0.table.sharing", "S0.print", "S1.lock", "S2.no_blocking"]
            .repeat(3)
            .join(", ")
    );
    assert!(long.chars().count() > 200);
    doc.warnings
        .push(concbench_core::RunWarning::Text { text: long });
    let text = summary(&doc);
    assert!(text.contains("S2.no_blocking"), "{text}");
    for line in text.lines().filter(|l| !l.contains("concbench-results/")) {
        assert!(line.chars().count() <= 120, "{line}");
    }
}

#[test]
fn terminal_all_snapshot() {
    insta::assert_snapshot!(
        "terminal_all",
        Terminal {
            width: Some(140),
            all: true,
            ..Terminal::default()
        }
        .render(&fixture::load())
        .unwrap()
    );
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!("markdown", Markdown.render(&fixture::load()).unwrap());
}

#[test]
fn csv_snapshot() {
    insta::assert_snapshot!("csv", Csv.render(&fixture::load()).unwrap());
}

#[test]
fn html_snapshot() {
    insta::assert_snapshot!("html", without_font(Html.render(&fixture::load()).unwrap()));
}

/// The page without its embedded CJK font (a data: URL, tested in `cjk_font`): the snapshot
/// and the self-containment check read the page's own text.
fn without_font(page: String) -> String {
    let rule = concbench_report::cjk_font::font_face_css();
    assert!(page.contains(&rule), "the page embeds the CJK font");
    page.replace(&rule, "@font-face { /* the CJK subset */ }\n")
}

#[test]
fn html_is_self_contained() {
    let page = without_font(Html.render(&fixture::load()).unwrap());
    let without_svg_namespace = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for needle in ["http://", "https://", " src=", "<link", "@import", "url("] {
        assert!(
            !without_svg_namespace.contains(needle),
            "the page refers outside itself: {needle}"
        );
    }
    assert!(page.contains("Content-Security-Policy") && page.contains("default-src 'none'"));
}

#[test]
fn html_shows_the_synthetic_label_the_answer_and_every_claim() {
    let doc = fixture::load();
    let page = Html.render(&doc).unwrap();
    assert!(page.contains("SYNTHETIC TEST DATA"));
    assert!(page.contains("Processes, threads or coroutines"));
    let published = concbench_analysis::published::published();
    let in_table = |id: &str| published.dimensions.iter().any(|d| d.claim == id);
    for claim in published.claims.iter().filter(|c| !in_table(&c.id)) {
        // As the page escapes it (minijinja's HTML escaping).
        let text = claim
            .text
            .replace('&', "&amp;")
            .replace('\'', "&#x27;")
            .replace('"', "&quot;")
            .replace('/', "&#x2f;");
        assert!(page.contains(&text), "claim {} missing", claim.id);
    }
    for d in &published.dimensions {
        assert!(page.contains(&d.dimension), "{}", d.dimension);
    }
    // The fixture's verdicts (from the real judges) appear as badges.
    for v in &doc.verdicts {
        let kind = format!("{:?}", v.verdict).to_lowercase();
        assert!(page.contains(&format!("class=\"badge {kind}\"")));
    }
}

#[test]
fn html_draws_a_chart_for_each_family_present_and_no_other() {
    let doc = fixture::load();
    let page = Html.render(&doc).unwrap();
    let mut families: Vec<&str> = doc.results.iter().map(|r| r.family.as_str()).collect();
    families.dedup();
    for f in &families {
        assert!(
            page.contains(&format!("data-family=\"{f}\"")),
            "no chart for {f}"
        );
    }
    for title in [
        "Create costs",
        "Switch cost by placement",
        "Switch cost by working set",
        "Print workload",
        "IO: MiB/s read vs readers",
        "Servers by design: requests per second",
        "Servers by design: p99 latency",
        "Stevens's servers: time per connection",
        "One worker crashes mid-run: requests lost",
    ] {
        assert!(page.contains(title), "chart {title} missing");
    }
    // Each server chart has its own caption: the crash chart is not Stevens's.
    let crash = page
        .split("<figure class=\"figure\"")
        .find(|f| f.contains("One worker crashes mid-run"))
        .expect("the crash chart");
    assert!(
        crash.contains("SIGSEGV") && !crash.contains("per connection"),
        "{crash}"
    );

    let mut only_create = doc.clone();
    only_create.results.retain(|r| r.family == "create");
    let page = Html.render(&only_create).unwrap();
    assert!(page.contains("data-family=\"create\""));
    assert_eq!(page.matches("<figure class=\"figure\"").count(), 1);
    assert!(!page.contains("Print workload"));
}

#[test]
fn html_of_an_empty_run_says_what_is_missing() {
    let mut doc = fixture::load();
    doc.results.clear();
    doc.verdicts.clear();
    let page = Html.render(&doc).unwrap();
    assert!(page.contains("No results, so no charts."));
    assert!(page.contains("not measured"));
    assert!(page.contains("No answer: the measurements it needs are missing."));
}

/// Places where a number is followed by the unit id "us" (`171.4 us`).
fn us_after_a_number(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    text.match_indices(" us")
        .filter(|(i, _)| *i > 0 && bytes[i - 1].is_ascii_digit())
        .filter(|(i, _)| bytes.get(i + 3).is_none_or(|c| !c.is_ascii_alphanumeric()))
        .map(|(i, _)| text[i.saturating_sub(30)..(i + 3)].to_string())
        .collect()
}

#[test]
fn every_renderer_spells_durations_one_way() {
    let doc = fixture::load();
    // The articles' own words (claim texts, conditions, explanations, what a figure is) are
    // quoted as data/published.toml writes them.
    let published = concbench_analysis::published::published();
    let mut quoted: Vec<String> = published.figures.iter().map(|f| f.what.clone()).collect();
    for c in &published.claims {
        quoted.push(c.text.clone());
        quoted.extend(c.explain.values().cloned());
    }
    for v in &doc.verdicts {
        quoted.extend(v.checks.iter().map(|c| c.condition.clone()));
    }
    quoted.sort_by_key(|q| std::cmp::Reverse(q.len()));
    // As minijinja escapes text.
    let html_escaped = |q: &str| {
        q.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('\'', "&#x27;")
            .replace('"', "&quot;")
            .replace('/', "&#x2f;")
    };
    for (name, text) in [
        ("terminal", summary(&doc)),
        (
            "terminal --all",
            // Wide enough that no cell wraps (a wrapped quote would not be recognised).
            Terminal {
                width: Some(10_000),
                all: true,
                ..Terminal::default()
            }
            .render(&doc)
            .unwrap(),
        ),
        ("markdown", Markdown.render(&doc).unwrap()),
        ("html", Html.render(&doc).unwrap()),
    ] {
        let mut ours = text;
        for q in &quoted {
            ours = ours.replace(q, "").replace(&html_escaped(q), "");
        }
        let found = us_after_a_number(&ours);
        assert!(found.is_empty(), "{name} says \"us\": {found:?}");
        assert!(ours.contains(" µs"), "{name}");
    }
}

#[test]
fn html_shows_the_history_section_with_the_modes_and_their_condition() {
    use concbench_core::{History, Mode, PooledCheck, PooledVerdict, VerdictKind::*};
    let mut doc = fixture::load();
    let page = Html.render(&doc).unwrap();
    assert!(!page.contains("id=\"history\""), "no history, no section");
    let mode = |median: f64, share: f64| Mode {
        median,
        low: median * 0.9,
        high: median * 1.1,
        share,
        holds_median: false,
    };
    let check = PooledCheck {
        condition: "cross-cpu".into(),
        rule: "< 10 us".into(),
        unit: "us".into(),
        estimate: Some(12.0),
        ci95: Some([4.0, 20.0]),
        tau: Some(0.6),
        runs: 4,
        rounds: 48,
        decision: Inconclusive,
        alone: Confirmed,
        beside: false,
        modes: vec![mode(4.1, 0.37), mode(19.5, 0.63)],
        separation: "separated by idle state: 19.5 µs (63% of rounds): a CPU halted at 0.92 \
                     of hand-overs"
            .into(),
        note: "bimodal over the runs; separated by idle state: 19.5 µs (63% of rounds)".into(),
    };
    doc.history = Some(History {
        runs: 4,
        first: "2026-11-20T10:00:00Z".into(),
        last: "2026-11-26T10:00:00Z".into(),
        excluded: vec!["1 interrupted".into()],
        verdicts: vec![PooledVerdict {
            source: "S1.switch".into(),
            verdict: Inconclusive,
            alone: Confirmed,
            runs: 4,
            rounds: 48,
            checks: vec![check],
            judged: Default::default(),
            alone_judged: Default::default(),
            unmeasured: Vec::new(),
        }],
        drift: Vec::new(),
    });
    let page = Html.render(&doc).unwrap();
    assert!(page.contains("id=\"history\""));
    assert!(page.contains("4 runs, 2026-11-20 … 2026-11-26; left out: 1 interrupted"));
    assert!(page.contains("inconclusive over 4 runs (48 rounds); this run alone: confirmed"));
    assert!(page.contains("class=\"badge inconclusive\">inconclusive</span>"));
    assert!(page.contains("cross-cpu: bimodal over the runs; separated by idle state"));
    assert!(page.contains("1 of 1 claims differ from this run alone"));
    // The Markdown report lists the same modes under its history table.
    let md = Markdown.render(&doc).unwrap();
    assert!(
        md.contains("- S1.switch, cross-cpu: bimodal over the runs; separated by idle state"),
        "{md}"
    );
}

/// Seed S0 heads its table 「FIXME:需要重新验证」; every renderer that shows the table opens it
/// with that heading and says the run is the re-verification it asks for.
#[test]
fn s0s_table_opens_with_the_articles_own_fixme_in_every_renderer() {
    let doc = fixture::load();
    let all = Terminal {
        width: Some(140),
        all: true,
        ..Terminal::default()
    };
    let html = Html.render(&doc).unwrap();
    for (name, text) in [
        ("terminal", all.render(&doc).unwrap()),
        ("markdown", Markdown.render(&doc).unwrap()),
        ("html", html),
    ] {
        let table = text
            .find("comparison table, re-verified")
            .unwrap_or_else(|| panic!("{name}: no S0 table"));
        let after = &text[table..];
        let fixme = after.find("FIXME:需要重新验证").unwrap_or(usize::MAX);
        let first_row = after.find("Data sharing").unwrap_or(usize::MAX);
        assert!(fixme < first_row, "{name}: the heading must open the table");
        assert!(after.contains("re-verification"), "{name}");
    }
}
