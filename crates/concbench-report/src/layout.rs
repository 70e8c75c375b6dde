//! Text laid out for a terminal: bordered tables and borderless columns, sized to a width, for
//! every renderer and command that prints rows (kept apart from the summary so that the anatomy,
//! advice and comparison tables use it without importing the summary that uses them).

use comfy_table::presets::{NOTHING, UTF8_FULL_CONDENSED};
use comfy_table::{ContentArrangement, Table};

/// The width of the terminal stdout is, when it is one (a pipe or a file gets the default 120
/// columns, so that what is written there does not depend on the window it was started from).
pub fn stdout_width() -> Option<u16> {
    Table::new().width()
}

/// A terminal table (120 columns unless `width` says otherwise), for every command's output.
pub fn table<const N: usize>(header: [&str; N], rows: &[[String; N]], width: Option<u16>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width.unwrap_or(120));
    t.set_header(header);
    for r in rows {
        t.add_row(r.iter());
    }
    t
}

/// Rows laid out in columns without borders or header (long cells wrap within `width`).
pub fn columns<const N: usize>(rows: &[[String; N]], width: Option<u16>) -> String {
    let mut t = Table::new();
    t.load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width.unwrap_or(120));
    for r in rows {
        t.add_row(r.iter());
    }
    let text = t.to_string();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n")
}

/// The width of a cell's text on a terminal, in columns (one per character: the cells hold no
/// double-width characters).
pub fn text_width(s: &str) -> usize {
    s.chars().count()
}

/// Single-line rows aligned in columns two spaces apart (one where two do not fit), indented by
/// one; `None` when they do not fit in `width` either way (the caller then lets a table wrap
/// them).
pub fn aligned(rows: &[Vec<String>], width: usize) -> Option<String> {
    [2, 1]
        .into_iter()
        .find_map(|gap| aligned_with(rows, width, gap))
}

fn aligned_with(rows: &[Vec<String>], width: usize, gap: usize) -> Option<String> {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| text_width(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c}{}", " ".repeat(widths[i] - text_width(c))))
                .collect();
            format!(" {}", cells.join(&" ".repeat(gap)).trim_end())
        })
        .collect();
    if lines.iter().any(|l| text_width(l) > width) {
        return None;
    }
    Some(lines.join("\n"))
}
