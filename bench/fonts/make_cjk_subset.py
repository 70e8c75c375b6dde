#!/usr/bin/env python3
"""Regenerate data/fonts/cjk-subset.otf: the glyphs of Noto Sans CJK SC that the report and fleet
pages need to show the articles' Chinese quotations on a machine without CJK fonts.

The pages embed the subset (a data: URL; their Content-Security-Policy allows no fetch), so it
holds only the CJK characters that occur in data/published.toml and the page templates — run this
again whenever a quotation changes (`cargo test -p concbench-report cjk` fails until then).

Needs: fonts-noto-cjk (Debian/Ubuntu: `apt-get install fonts-noto-cjk`) and fonttools
(`pip install fonttools`). Usage: python3 bench/fonts/make_cjk_subset.py
"""

import glob
import os
import sys

from fontTools import subset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
# The collection's faces: 0 JP, 1 KR, 2 SC, 3 TC, 4 HK. The articles are in simplified Chinese.
SC = 2
OUT = os.path.join(ROOT, "data", "fonts", "cjk-subset.otf")


def is_cjk(c: str) -> bool:
    """CJK ideographs, their punctuation and full-width forms: what a Latin font lacks."""
    o = ord(c)
    return (
        0x2E80 <= o <= 0x9FFF  # radicals, CJK punctuation, kana, unified ideographs
        or 0xF900 <= o <= 0xFAFF  # compatibility ideographs
        or 0xFF00 <= o <= 0xFFEF  # full-width forms (，：（）)
        or 0x20000 <= o <= 0x3FFFF  # extension planes
    )


def characters() -> str:
    sources = [os.path.join(ROOT, "data", "published.toml")]
    sources += glob.glob(os.path.join(ROOT, "crates", "concbench-report", "src", "**", "*.html"),
                         recursive=True)
    chars = set()
    for path in sources:
        with open(path, encoding="utf-8") as f:
            chars.update(c for c in f.read() if is_cjk(c))
    return "".join(sorted(chars))


def main() -> int:
    text = characters()
    options = subset.Options()
    options.font_number = SC
    options.layout_features = []  # no shaping needed for ideographs; keeps the file small
    options.name_IDs = ["*"]  # keep the copyright and licence names (OFL requires them)
    options.notdef_outline = True
    options.hinting = False
    font = subset.load_font(SOURCE, options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    subset.save_font(font, OUT, options)
    print(f"{OUT}: {len(text)} characters, {os.path.getsize(OUT)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
