//! The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the page
//! rendered from the SYNTHETIC fixture and must report no console error, no exception and no
//! network request; every chart must be laid out with marks in it; the result filter (the page's
//! only script) must work. A full-page screenshot is kept in target/test-artifacts/.
//!
//! Without Chromium the test fails when CI is set (`.ci/run` installs it) and otherwise says
//! loudly that it skipped.

mod cdp;
mod fixture;

use cdp::Browser;
use concbench_report::{Exporter, Html};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

fn artifacts() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Evaluate `expr` in the page and return its value.
fn eval(b: &mut Browser, session: &str, expr: &str) -> Value {
    let r = b.call(
        Some(session),
        "Runtime.evaluate",
        json!({ "expression": expr, "returnByValue": true }),
    );
    assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
    r["result"]["value"].clone()
}

/// Console errors, uncaught exceptions, failed or external loads, among the events.
fn problems(events: &[Value], page_url: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        let p = &e["params"];
        match e["method"].as_str().unwrap_or("") {
            "Runtime.exceptionThrown" => out.push(format!("exception: {}", p["exceptionDetails"])),
            "Runtime.consoleAPICalled"
                if matches!(p["type"].as_str(), Some("error" | "assert" | "warning")) =>
            {
                out.push(format!("console.{}: {}", p["type"], p["args"]))
            }
            "Log.entryAdded"
                if matches!(p["entry"]["level"].as_str(), Some("error" | "warning")) =>
            {
                out.push(format!("log: {}", p["entry"]["text"]))
            }
            "Network.requestWillBeSent" if p["request"]["url"] != page_url => {
                out.push(format!("network request: {}", p["request"]["url"]))
            }
            "Network.loadingFailed" => out.push(format!("load failed: {p}")),
            _ => {}
        }
    }
    out
}

/// A new tab on `url`, with the console, log and network reported; waits for the load.
fn open(b: &mut Browser, url: &str) -> String {
    let target = b.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
    let attached = b.call(
        None,
        "Target.attachToTarget",
        json!({ "targetId": target["targetId"], "flatten": true }),
    );
    let session = attached["sessionId"].as_str().unwrap().to_string();
    let s = Some(session.as_str());
    for domain in [
        "Runtime.enable",
        "Log.enable",
        "Network.enable",
        "Page.enable",
    ] {
        b.call(s, domain, json!({}));
    }
    b.call(
        s,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
    );
    b.events.clear();
    b.call(s, "Page.navigate", json!({ "url": url }));
    b.wait_event("Page.loadEventFired", Duration::from_secs(60));
    b.drain(Duration::from_millis(500));
    session
}

/// A full-page PNG of the tab, for people to look at.
fn screenshot(b: &mut Browser, session: &str, path: &std::path::Path) {
    let height = eval(b, session, "document.documentElement.scrollHeight")
        .as_f64()
        .unwrap();
    b.call(
        Some(session),
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": height.min(16000.0) as u64, "deviceScaleFactor": 1, "mobile": false }),
    );
    let shot = b.call(
        Some(session),
        "Page.captureScreenshot",
        json!({ "format": "png" }),
    );
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap())
        .unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "screenshot looks empty"
    );
    std::fs::write(path, png).unwrap();
}

/// The chromium to test with, or `None` (after saying why) outside CI.
fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = cdp::find_chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is not installed: CI must install it (.ci/run: apt-get install chromium)"
        );
        eprintln!(
            "SKIPPED {test}: no chromium on PATH (apt-get install chromium, or set \
             CONCBENCH_CHROMIUM); CI runs this test"
        );
    }
    found
}

#[test]
fn report_loads_in_headless_chromium_without_errors_and_draws_its_charts() {
    let Some(chromium) = chromium_or_skip("report_loads_in_headless_chromium") else {
        return;
    };
    let page = Html.render(&fixture::load()).unwrap();
    let expected_charts = page.matches("<figure class=\"figure\"").count();
    assert!(
        expected_charts >= 8,
        "the fixture has charts for every family"
    );
    let dir = artifacts();
    let html = dir.join("report.html");
    std::fs::write(&html, &page).unwrap();
    let url = format!("file://{}", html.display());
    let profile = tempfile::tempdir().unwrap();

    let mut b = Browser::launch(&chromium, profile.path()).expect("start chromium");
    let session = open(&mut b, &url);

    // Every chart is laid out (non-zero box) and has marks in it.
    let charts = eval(
        &mut b,
        &session,
        "Array.from(document.querySelectorAll('svg.chart')).map(s => { \
           const r = s.getBoundingClientRect(); \
           return { w: r.width, h: r.height, marks: s.querySelectorAll('rect.bar, circle.point').length }; })",
    );
    let charts = charts.as_array().expect("chart list");
    assert_eq!(charts.len(), expected_charts);
    for (i, c) in charts.iter().enumerate() {
        assert!(
            c["w"].as_f64().unwrap() > 100.0 && c["h"].as_f64().unwrap() > 50.0,
            "chart {i} not laid out: {c}"
        );
        assert!(
            c["marks"].as_u64().unwrap() > 0,
            "chart {i} has no bars or points: {c}"
        );
    }

    // The filter script ran and filters.
    let shown = eval(
        &mut b,
        &session,
        "document.getElementById('shown').textContent",
    );
    assert!(
        shown.as_str().unwrap().contains(" of "),
        "filter script did not run: {shown}"
    );
    let visible = eval(
        &mut b,
        &session,
        "(() => { const i = document.getElementById('filter'); i.value = 'create.fork'; \
           i.dispatchEvent(new Event('input')); \
           return [document.querySelectorAll('#result-table tbody tr:not([hidden])').length, \
                   document.querySelectorAll('#result-table tbody tr').length]; })()",
    );
    let (v, all) = (visible[0].as_u64().unwrap(), visible[1].as_u64().unwrap());
    assert!(
        v > 0 && v < all,
        "filtering on create.fork showed {v} of {all}"
    );
    eval(&mut b, &session, "(() => { const i = document.getElementById('filter'); i.value = ''; i.dispatchEvent(new Event('input')); return 0; })()");

    // A full-page screenshot for people to look at.
    screenshot(&mut b, &session, &dir.join("report.png"));

    b.drain(Duration::from_millis(200));
    let found = problems(&b.events, &url);
    b.close();
    assert!(
        found.is_empty(),
        "the page reported problems:\n{}",
        found.join("\n")
    );
}

/// Every mark, label, legend entry and axis text of every chart, whose box leaves its SVG's
/// box (by more than a pixel), as `chart i: <tag class> "text"`.
const OUTSIDE_SVG: &str = "(() => { const out = []; \
  document.querySelectorAll('svg.chart').forEach((svg, i) => { \
    const box = svg.getBoundingClientRect(); \
    svg.querySelectorAll('text, rect, circle, path, line').forEach(el => { \
      const r = el.getBoundingClientRect(); \
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || \
          r.bottom > box.bottom + 1) { \
        out.push('chart ' + i + ': <' + el.tagName + ' ' + (el.getAttribute('class') || '') + \
                 '> ' + JSON.stringify((el.textContent || '').slice(0, 60))); } }); }); \
  return out; })()";

#[test]
fn fleet_page_loads_in_headless_chromium_with_every_mark_inside_its_chart() {
    let Some(chromium) = chromium_or_skip("fleet_page_loads_in_headless_chromium") else {
        return;
    };
    let fleet = concbench_report::fleet::Fleet::new(fixture::fleet::runs());
    let page = concbench_report::fleet::html(&fleet).unwrap();
    let dir = artifacts();
    let html = dir.join("fleet.html");
    std::fs::write(&html, &page).unwrap();
    let url = format!("file://{}", html.display());
    let profile = tempfile::tempdir().unwrap();
    let mut b = Browser::launch(&chromium, profile.path()).expect("start chromium");
    let session = open(&mut b, &url);

    // One dot plot per headline figure, laid out, with a dot per measured host and kind.
    let charts = eval(
        &mut b,
        &session,
        "Array.from(document.querySelectorAll('svg.dotplot')).map(s => { \
           const r = s.getBoundingClientRect(); \
           return { w: r.width, h: r.height, dots: s.querySelectorAll('circle.point').length }; })",
    );
    let charts = charts.as_array().expect("chart list");
    assert_eq!(charts.len(), fleet.figures.len());
    for (c, figure) in charts.iter().zip(&fleet.figures) {
        assert!(
            c["w"].as_f64().unwrap() > 100.0 && c["h"].as_f64().unwrap() > 50.0,
            "{} not laid out: {c}",
            figure.title
        );
        let marks: usize = figure.marks.iter().map(Vec::len).sum();
        assert_eq!(
            c["dots"].as_u64().unwrap() as usize,
            marks,
            "{}",
            figure.title
        );
    }
    let outside = eval(&mut b, &session, OUTSIDE_SVG);
    assert_eq!(outside, json!([]), "elements drawn outside their chart");

    // The matrix: a visible badge per host and claim; the differences table is there.
    let badges = eval(
        &mut b,
        &session,
        "Array.from(document.querySelectorAll('table.matrix td.cell .badge')) \
           .filter(e => e.getBoundingClientRect().width > 0).length",
    );
    assert_eq!(
        badges.as_u64().unwrap() as usize,
        fleet.claims.len() * fleet.members.len()
    );
    let differs = eval(
        &mut b,
        &session,
        "document.querySelectorAll('#differences tr.differs').length",
    );
    assert!(differs.as_u64().unwrap() >= 1);

    screenshot(&mut b, &session, &dir.join("fleet.png"));
    b.drain(Duration::from_millis(200));
    let found = problems(&b.events, &url);
    b.close();
    assert!(
        found.is_empty(),
        "the page reported problems:\n{}",
        found.join("\n")
    );
}
