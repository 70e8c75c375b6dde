//! The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the page
//! rendered from the SYNTHETIC fixture and must report no console error, no exception and no
//! network request; every chart must be laid out with marks in it, draw everything inside its
//! SVG, label its bars so that no two read the same (nothing cut), name the unit its axis is
//! drawn in (never "us" for µs) and put no "0" on a log axis; the result filter (the page's only
//! script) must work; every CJK character of the articles' quotations must render as a glyph,
//! not as the box a missing glyph draws (the pages embed a CJK subset: the test machine may have
//! no CJK font). A full-page screenshot is kept in target/test-artifacts/.
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
            // The embedded font is a data: URL: in the page, not a request to anywhere.
            "Network.requestWillBeSent"
                if p["request"]["url"] != page_url
                    && !p["request"]["url"]
                        .as_str()
                        .is_some_and(|u| u.starts_with("data:")) =>
            {
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

/// Defines `window.boxes(chars)`: the characters among `chars` that the body's font stack draws
/// exactly as it draws an unassigned code point — the missing-glyph box — after the page's fonts
/// have loaded. Drawn on a canvas, so the comparison is of pixels, whatever fonts the machine
/// has.
const BOX_CHECK: &str = "window.boxes = async (chars) => { \
    const font = '40px ' + getComputedStyle(document.body).fontFamily; \
    await document.fonts.load(font, chars.join('')); \
    await document.fonts.ready; \
    const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 64; \
    const ctx = canvas.getContext('2d', { willReadFrequently: true }); \
    const draw = (c) => { ctx.clearRect(0, 0, 64, 64); ctx.font = font; ctx.fillStyle = '#000'; \
      ctx.fillText(c, 8, 48); return ctx.getImageData(0, 0, 64, 64).data.join(','); }; \
    const box = draw('\\u0378'); \
    return chars.filter((c) => draw(c) === box); }; 0";

/// The CJK characters of the page's text (the quotations), each once.
const CJK_CHARS: &str = "[...new Set([...document.body.textContent] \
    .filter((c) => /[\\u2e80-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef]/.test(c)))]";

/// Evaluate a promise-valued `expr` in the page and return what it resolves to.
fn eval_async(b: &mut Browser, session: &str, expr: &str) -> Value {
    let r = b.call(
        Some(session),
        "Runtime.evaluate",
        json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
    );
    assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
    r["result"]["value"].clone()
}

/// The page's CJK characters that render as boxes, and how many CJK characters it has.
fn cjk_boxes(b: &mut Browser, session: &str) -> (String, usize) {
    eval(b, session, BOX_CHECK);
    let chars = eval(b, session, CJK_CHARS);
    let n = chars.as_array().map_or(0, Vec::len);
    let boxes = eval_async(b, session, &format!("window.boxes({chars})"));
    let boxes: String = boxes
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (boxes, n)
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

    // Charts that read: everything inside its SVG, no two bars with the same visible label, a
    // title that agrees with its axis on the unit, no "0" on a log axis.
    for (what, check) in [
        ("elements drawn outside their chart", OUTSIDE_SVG),
        (
            "labels that do not tell their bars apart",
            INDISTINCT_LABELS,
        ),
        ("units that disagree", UNIT_MISMATCHES),
        ("log axes with a 0 tick", ZERO_ON_LOG_AXES),
    ] {
        let found = eval(&mut b, &session, check);
        assert_eq!(found, json!([]), "{what}");
    }

    // The articles' quotations render as characters, not boxes.
    let (boxes, cjk) = cjk_boxes(&mut b, &session);
    assert!(
        cjk > 50,
        "the page quotes the articles in Chinese ({cjk} CJK characters)"
    );
    assert!(boxes.is_empty(), "CJK characters drawn as boxes: {boxes}");

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

/// Bar labels cut short ("…") and labels that read the same as another's in the same chart and
/// group (what the reader sees: the label's text, its hover title aside), as `chart i: ...`.
const INDISTINCT_LABELS: &str = "(() => { const out = []; \
  document.querySelectorAll('svg.chart').forEach((svg, i) => { \
    const seen = new Set(); \
    svg.querySelectorAll('text.label').forEach(t => { \
      const shown = Array.from(t.childNodes).filter(n => n.nodeName !== 'title') \
        .map(n => n.textContent).join(' ').trim(); \
      const key = (t.getAttribute('data-group') || '') + '|' + shown; \
      if (shown.includes('…')) out.push('chart ' + i + ': cut label ' + JSON.stringify(shown)); \
      if (seen.has(key)) out.push('chart ' + i + ': two bars read ' + JSON.stringify(shown)); \
      seen.add(key); }); }); \
  return out; })()";

/// Time units named in a chart's title, subtitle or caption that its axes do not use, and the
/// unit id "us" anywhere in them (people read "µs"), as `chart i: ...`.
const UNIT_MISMATCHES: &str = "(() => { const out = []; \
  const units = s => (s.match(/(^|[\\s(,])(ns|us|µs|ms|s)(?=$|[\\s),;:])/g) || []) \
    .map(u => u.replace(/^[\\s(,]/, '')); \
  document.querySelectorAll('svg.chart').forEach((svg, i) => { \
    const fig = svg.closest('figure'); \
    const caption = fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').textContent : ''; \
    const head = Array.from(svg.querySelectorAll('text.title, text.subtitle')) \
      .map(t => t.textContent).join(' ') + ' ' + caption; \
    const axes = Array.from(svg.querySelectorAll('text.axis-label')).map(t => t.textContent).join(' '); \
    const said = units(head), drawn = units(axes); \
    said.filter(u => !drawn.includes(u)).forEach(u => \
      out.push('chart ' + i + ': ' + u + ' in ' + JSON.stringify(head.slice(0, 80)) + ', axis ' + JSON.stringify(axes))); \
    said.concat(drawn).filter(u => u === 'us').forEach(() => out.push('chart ' + i + ': says us')); }); \
  return out; })()";

/// Ticks reading "0" on a log axis (the x axis's ticks are centred, the y axis's end-aligned;
/// the y axis's label is the rotated one).
const ZERO_ON_LOG_AXES: &str = "(() => { const out = []; \
  document.querySelectorAll('svg.chart').forEach((svg, i) => { \
    svg.querySelectorAll('text.axis-label').forEach(label => { \
      if (!label.textContent.includes('log')) return; \
      const anchor = label.hasAttribute('transform') ? 'end' : 'middle'; \
      svg.querySelectorAll('text.tick').forEach(t => { \
        if (t.getAttribute('text-anchor') === anchor && t.textContent.trim() === '0') \
          out.push('chart ' + i + ': 0 on the log axis ' + JSON.stringify(label.textContent)); }); }); }); \
  return out; })()";

/// A page with one chart per defect the checks above look for, as the renderer drew them
/// before they were fixed: a legend running off the right edge, two bars cut to the same
/// text, a title in ns over an axis in ms, "us", and a log axis whose first tick reads 0.
const DEFECTS: &str = r#"<!doctype html><html><body>
<figure><svg class="chart" xmlns="http://www.w3.org/2000/svg" width="600" height="60" viewBox="0 0 600 60" font-size="12">
<text class="title" x="8" y="18">legend</text>
<text class="legend" x="450" y="40">cache=warm model=one-thread-sequential reader=block</text></svg></figure>
<figure><svg class="chart" xmlns="http://www.w3.org/2000/svg" width="600" height="60" viewBox="0 0 600 60" font-size="12">
<text class="label" x="300" y="20" text-anchor="end">server.keepalive de…<title>server.keepalive design=prefork</title></text>
<text class="label" x="300" y="40" text-anchor="end">server.keepalive de…<title>server.keepalive design=epoll</title></text></svg></figure>
<figure><svg class="chart" xmlns="http://www.w3.org/2000/svg" width="600" height="60" viewBox="0 0 600 60" font-size="12">
<text class="title" x="8" y="18">probes: median per operation (ns)</text>
<text class="axis-label" x="300" text-anchor="middle" y="50">ms per operation (log scale)</text></svg></figure>
<figure><svg class="chart" xmlns="http://www.w3.org/2000/svg" width="600" height="60" viewBox="0 0 600 60" font-size="12">
<text class="title" x="8" y="18">Servers by design (us)</text>
<text class="axis-label" x="300" text-anchor="middle" y="50">us per operation</text></svg></figure>
<figure><svg class="chart" xmlns="http://www.w3.org/2000/svg" width="600" height="60" viewBox="0 0 600 60" font-size="12">
<text class="tick" x="20" y="30" text-anchor="middle">0</text>
<text class="tick" x="120" y="30" text-anchor="middle">0.001</text>
<text class="axis-label" x="300" text-anchor="middle" y="50">ms per operation (log scale)</text></svg></figure>
</body></html>"#;

#[test]
fn the_chart_checks_catch_the_defects_they_are_for() {
    let Some(chromium) = chromium_or_skip("the_chart_checks_catch_the_defects") else {
        return;
    };
    let dir = artifacts();
    let html = dir.join("defects.html");
    std::fs::write(&html, DEFECTS).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut b = Browser::launch(&chromium, profile.path()).expect("start chromium");
    let session = open(&mut b, &format!("file://{}", html.display()));
    // An unassigned code point draws the missing-glyph box: the box check names it, and not a
    // letter every font has.
    eval(&mut b, &session, BOX_CHECK);
    let boxes = eval_async(&mut b, &session, "window.boxes(['\\u0379', 'A'])");
    assert_eq!(
        boxes,
        json!(["\u{0379}"]),
        "the box check sees a missing glyph"
    );
    let outside = eval(&mut b, &session, OUTSIDE_SVG);
    let labels = eval(&mut b, &session, INDISTINCT_LABELS);
    let units = eval(&mut b, &session, UNIT_MISMATCHES);
    let zero = eval(&mut b, &session, ZERO_ON_LOG_AXES);
    b.close();
    let text = |v: &Value| v.to_string();
    assert!(
        text(&outside).contains("chart 0: <text legend>"),
        "{outside}"
    );
    assert!(
        text(&labels).contains("chart 1: cut label") && text(&labels).contains("two bars read"),
        "{labels}"
    );
    assert!(text(&units).contains("chart 2: ns in"), "{units}");
    assert!(text(&units).contains("chart 3: says us"), "{units}");
    assert!(text(&zero).contains("chart 4: 0 on the log axis"), "{zero}");
    // Each check finds its own defect only.
    assert_eq!(zero.as_array().unwrap().len(), 1, "{zero}");
    assert_eq!(outside.as_array().unwrap().len(), 1, "{outside}");
}

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
    let (boxes, _) = cjk_boxes(&mut b, &session);
    assert!(boxes.is_empty(), "CJK characters drawn as boxes: {boxes}");

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
