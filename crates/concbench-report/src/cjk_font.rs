//! The articles' Chinese quotations on a machine without CJK fonts: the pages embed a subset of
//! Noto Sans CJK SC (`data/fonts/cjk-subset.otf`, SIL OFL 1.1, made by
//! `bench/fonts/make_cjk_subset.py`) holding only the characters the quotations use, as a data:
//! URL — the pages fetch nothing. A test fails when a quotation uses a character the subset
//! lacks, so a changed quotation cannot silently render as boxes.

use base64::Engine;
use std::collections::BTreeSet;

/// The font file (OpenType, CFF outlines).
pub const OTF: &[u8] = include_bytes!("../../../data/fonts/cjk-subset.otf");

/// The family name the style sheets list before their generic fallback.
pub const FAMILY: &str = "concbench CJK";

/// The `@font-face` rule for the pages' `<style>`, limited to the CJK ranges so that the browser
/// never picks it for Latin text.
pub fn font_face_css() -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(OTF);
    format!(
        "@font-face {{ font-family: \"{FAMILY}\"; src: url(data:font/otf;base64,{data}) \
         format(\"opentype\"); unicode-range: U+2E80-9FFF, U+F900-FAFF, U+FF00-FFEF; }}\n"
    )
}

/// Whether a character needs a CJK font: ideographs, their punctuation, full-width forms.
pub fn is_cjk(c: char) -> bool {
    matches!(u32::from(c), 0x2E80..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// The characters an OpenType font maps to glyphs, from its `cmap` table's format-4 (BMP)
/// subtable; `None` when the file is not a font this reader understands.
pub fn mapped_chars(font: &[u8]) -> Option<BTreeSet<char>> {
    let u16_at = |at: usize| Some(u16::from_be_bytes(font.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_be_bytes(font.get(at..at + 4)?.try_into().ok()?));
    // The table directory: 12 bytes of header, then 16 bytes per table.
    let tables = usize::from(u16_at(4)?);
    let cmap = (0..tables)
        .map(|i| 12 + 16 * i)
        .find(|&at| font.get(at..at + 4) == Some(b"cmap"))
        .and_then(|at| u32_at(at + 8))? as usize;
    let subtables = usize::from(u16_at(cmap + 2)?);
    let format4 = (0..subtables)
        .filter_map(|i| u32_at(cmap + 4 + 8 * i + 4).map(|off| cmap + off as usize))
        .find(|&at| u16_at(at) == Some(4))?;
    let segments = usize::from(u16_at(format4 + 6)? / 2);
    let ends = format4 + 14;
    let starts = ends + 2 * segments + 2;
    let deltas = starts + 2 * segments;
    let range_offsets = deltas + 2 * segments;
    let mut chars = BTreeSet::new();
    for s in 0..segments {
        let (start, end) = (u16_at(starts + 2 * s)?, u16_at(ends + 2 * s)?);
        let delta = u16_at(deltas + 2 * s)?;
        let range_offset = u16_at(range_offsets + 2 * s)?;
        for code in start..=end.min(0xFFFE) {
            let glyph = if range_offset == 0 {
                code.wrapping_add(delta)
            } else {
                // The offset counts from the range offset's own position (the format's spec).
                let at = range_offsets
                    + 2 * s
                    + usize::from(range_offset)
                    + 2 * usize::from(code - start);
                match u16_at(at)? {
                    0 => 0,
                    g => g.wrapping_add(delta),
                }
            };
            if glyph != 0 {
                chars.extend(char::from_u32(u32::from(code)));
            }
        }
    }
    Some(chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CJK character of the pages' text sources: the claims and quotations, the templates.
    fn needed() -> BTreeSet<char> {
        let sources = [
            concbench_analysis::published::PUBLISHED_TOML,
            include_str!("html/page.html"),
            include_str!("fleet/page.html"),
        ];
        sources
            .iter()
            .flat_map(|s| s.chars())
            .filter(|&c| is_cjk(c))
            .collect()
    }

    #[test]
    fn cjk_subset_covers_every_character_of_the_quotations() {
        let mapped = mapped_chars(OTF).expect("the subset's cmap reads");
        let needed = needed();
        assert!(needed.len() > 50, "the quotations are in Chinese");
        let missing: String = needed.difference(&mapped).collect();
        assert!(
            missing.is_empty(),
            "characters missing from data/fonts/cjk-subset.otf: {missing} — run \
             `python3 bench/fonts/make_cjk_subset.py`"
        );
    }

    #[test]
    fn cjk_subset_maps_no_latin_so_latin_text_keeps_the_pages_font() {
        let mapped = mapped_chars(OTF).unwrap();
        assert!(!mapped.contains(&'a') && mapped.contains(&'进'));
    }

    #[test]
    fn cjk_font_face_is_a_data_url_limited_to_cjk_ranges() {
        let css = font_face_css();
        assert!(
            css.contains("src: url(data:font/otf;base64,T1RUTw"),
            "OTTO magic"
        );
        assert!(css.contains("unicode-range: U+2E80-9FFF"));
    }
}
