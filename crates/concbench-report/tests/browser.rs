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

#[test]
fn report_loads_in_headless_chromium_without_errors_and_draws_its_charts() {
    let Some(chromium) = cdp::find_chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is not installed: CI must install it (.ci/run: apt-get install chromium)"
        );
        eprintln!(
            "SKIPPED report_loads_in_headless_chromium: no chromium on PATH (apt-get install \
             chromium, or set CONCBENCH_CHROMIUM); CI runs this test"
        );
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
    let height = eval(&mut b, &session, "document.documentElement.scrollHeight")
        .as_f64()
        .unwrap();
    b.call(
        s,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": height.min(16000.0) as u64, "deviceScaleFactor": 1, "mobile": false }),
    );
    let shot = b.call(s, "Page.captureScreenshot", json!({ "format": "png" }));
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap())
        .unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "screenshot looks empty"
    );
    std::fs::write(dir.join("report.png"), png).unwrap();

    b.drain(Duration::from_millis(200));
    let found = problems(&b.events, &url);
    b.close();
    assert!(
        found.is_empty(),
        "the page reported problems:\n{}",
        found.join("\n")
    );
}
