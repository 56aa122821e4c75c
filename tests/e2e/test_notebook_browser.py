"""The spans outside the app, rendered by Chromium: `tokenizers.show` / a TokenList's `_repr_html_` as a
notebook shows them (its HTML on its own in a page, as Jupyter puts it in an output cell), the SVG for
slides, and the spans downloads on Compare.

Checked in the browser: the boxes' text joins back to the input; no payload of tests/payloads.py runs
or plants an element; neighbouring boxes have different colors; box text is readable (contrast >= 4.5)
with light and dark color schemes, on a light page and on a dark notebook theme; and a box never
wraps inside itself, however narrow the page (lines break only between boxes)."""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

from tests.e2e.conftest import download_spans, new_context, screenshot, watched_page, settle, wait_for_app
from tests.payloads import ALL, PAYLOADS
from tokenizers import get_tokenizer, show
from tokenizers.core.text import WHITESPACE_MARKS

LECTURE = ("Tokenization is at the heart of much weirdness.\n127 + 677 = 804\nEgg. I have an egg. egg. EGG.\n"
           "안녕하세요 👋 (hello in Korean!)\nfor i in range(1, 16):\n    if i % 15 == 0:\n        print(\"FizzBuzz\")\n"
           " SolidGoldMagikarp\n\ttab\u0301")
PAGE_BACKGROUNDS = {"plain": "", "jupyter-dark": "background:#111111;color:#e6e6e6"}  # a dark notebook theme

# the text of the boxes and of the line breaks between them, in order, without the app's own marks
# (a group's [n], the ◌ under a combining mark, a faint ↵ for a lone line break)
JOINED = """root => {
  const out = [];
  for (const spans of root.querySelectorAll('.tl-spans')) {
    for (const node of spans.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) { out.push(node.data); continue; }
      if (!node.classList || !node.classList.contains('tl-tok')) continue;
      for (const part of node.childNodes) {
        if (part.nodeType === Node.TEXT_NODE) out.push(part.data);
        else if (!['tl-ids', 'tl-mark', 'tl-nl'].some(c => part.classList.contains(c))) out.push(part.textContent);
      }
    }
    out.push('\\u0000');
  }
  return out.join('');
}"""

# WCAG contrast of each box's text against its own background
CONTRASTS = """() => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  return [...document.querySelectorAll('.tl-tok')].map(el => {
    const s = getComputedStyle(el); const a = lum(s.color), b = lum(s.backgroundColor);
    return [el.textContent, s.backgroundColor, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  });
}"""


def page_of(html: str, body_style: str = "") -> str:
    """The HTML alone in a page, as a notebook's output cell holds it."""
    return f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="{body_style}">{html}</body></html>'


@pytest.fixture
def bare(browser):
    """A page without the app (its browser is the suite's), light scheme; pageerrors collected."""
    ctx, pg = watched_page(browser, 1100, 900)
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    ctx.close()


def test_the_boxes_join_back_to_the_input(bare):
    names = ["gpt2", "cl100k_base", "o200k_base"]
    for whitespace in (False, True):
        bare.set_content(page_of(show(LECTURE, tokenizers=names, whitespace=whitespace).html()))
        joined = bare.evaluate(JOINED, bare.locator("body").element_handle())
        if whitespace:  # · → ↵ ␍ back to what they stand for (each ↵ is followed by the real line break)
            joined = "".join({"↵": ""}.get(c, {m: ch for ch, m in WHITESPACE_MARKS.items()}.get(c, c)) for c in joined)
        assert joined.split("\0")[:-1] == [LECTURE] * len(names)
        assert bare.locator(".tl-head").count() == 3
        counts = [int(c.replace(",", "")) for c in bare.locator(".tl-count").all_inner_texts()]
        assert counts == [len(get_tokenizer(n).tokenize(LECTURE)) for n in names]
    screenshot(bare, "notebook-show-light")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("theme", list(PAGE_BACKGROUNDS))
def test_readable_and_neighbours_differ(browser, scheme, theme):
    ctx = new_context(browser, viewport={"width": 1100, "height": 900}, color_scheme=scheme)
    pg = ctx.new_page()
    try:
        pg.set_content(page_of(show(LECTURE, tokenizers=["gpt2", "cl100k_base"]).html(), PAGE_BACKGROUNDS[theme]))
        boxes = pg.evaluate(CONTRASTS)
        assert len(boxes) > 100
        weak = [(t, bg, round(c, 2)) for t, bg, c in boxes if c < 4.5]
        assert not weak, weak[:5]
        # neighbours within one tokenization differ in color, or (when a repeated token meets a neighbour
        # of its color) the second is drawn with a visible divider (tl-same: an edge and a gap)
        for spans in pg.locator(".tl-spans").all():
            boxes = spans.evaluate("el => [...el.querySelectorAll('.tl-tok')].map(b => [getComputedStyle(b)"
                                   ".backgroundColor, getComputedStyle(b).boxShadow, b.classList.contains('tl-same')])")
            assert len({c for c, _, _ in boxes}) >= 5
            for (a, _, _), (b, shadow, same) in zip(boxes, boxes[1:]):
                if a == b:
                    assert same and "1px 0px 0px 0px inset" in shadow, (a, shadow)
        # the heading inherits the page's color: readable on a dark notebook theme too
        head = pg.locator(".tl-head span").first.evaluate("el => getComputedStyle(el).color")
        assert head == ("rgb(230, 230, 230)" if theme == "jupyter-dark" else "rgb(0, 0, 0)")
        screenshot(pg, f"notebook-{theme}-{scheme}")
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [260, 420])
def test_a_box_never_wraps_inside_itself(browser, width):
    """On a narrow page every box without a line break of its own is one rectangle: the lines break
    between boxes. (Before, a box such as " world" at the end of a line split into a space on one
    line and the word on the next, and a run of spaces broke anywhere.) Checked on the app's own
    render_spans and on the notebook's HTML, which are the same renderer."""
    from ui.spans import render_spans

    ctx = new_context(browser, viewport={"width": width, "height": 900})
    pg = ctx.new_page()
    text = ("The quick brown fox jumps over the lazy dog,        and then some more words follow here " * 3
            + "SolidGoldMagikarp" * 3 + " 안녕하세요 " * 4 + "x" + " " * 40 + "y")
    try:
        for name in ("gpt2", "cl100k_base"):
            toks = get_tokenizer(name).tokenize(text)
            for html in (render_spans(text, toks), render_spans(text, toks, whitespace=True), toks._repr_html_()):
                pg.set_content(page_of(html))
                rects = pg.evaluate("() => [...document.querySelectorAll('.tl-tok')].map(b => "
                                    "[b.textContent, b.getClientRects().length])")
                split = [t for t, n in rects if n != 1]
                assert not split, split[:5]
                lines = pg.evaluate("() => new Set([...document.querySelectorAll('.tl-tok')].map(b => "
                                    "Math.round(b.getBoundingClientRect().top))).size")
                assert lines > 5  # it did wrap, between boxes
        screenshot(pg, f"notebook-narrow-{width}")
    finally:
        ctx.close()


def test_payloads_stay_text(bare):
    texts = [*PAYLOADS.values(), ALL]
    html = "".join(show(t, tokenizers=["gpt2", "cl100k_base"], whitespace=False, disallowed_special=()).html() for t in texts)
    bare.set_content(page_of(html))
    assert bare.evaluate("() => window.__pwned") is None and not bare.dialogs and not bare.errors
    assert bare.locator(".tl-pwn").count() == 0
    tags = set(bare.evaluate("() => [...document.body.querySelectorAll('*')].map(e => e.tagName.toLowerCase())"))
    assert tags <= {"div", "span", "b", "wbr", "style"}, tags
    joined = bare.evaluate(JOINED, bare.locator("body").element_handle()).split("\0")[:-1]
    assert joined == [t for t in texts for _ in range(2)]


def test_the_svg_for_slides_draws_every_box_inside_its_rect(bare):
    from ui.export import spans_svg

    for scheme in ("light", "dark"):
        results = {n: get_tokenizer(n).tokenize(LECTURE) for n in ("gpt2", "cl100k_base")}
        svg = spans_svg(LECTURE, results, whitespace=True, scheme=scheme)
        bare.set_content(page_of(svg, "margin:0"))
        # each text sits inside its box (textLength holds it to the monospace grid) and boxes never overlap
        bad = bare.evaluate("""() => {
          const out = [];
          const boxes = [];
          for (const g of document.querySelectorAll('svg g')) {
            const rects = g.querySelectorAll('rect'), texts = g.querySelectorAll('text');
            rects.forEach(r => boxes.push(r.getBBox()));
            texts.forEach((t, k) => { const a = t.getBBox(), r = rects[k].getBBox();
              if (a.x < r.x - 0.5 || a.x + a.width > r.x + r.width + 0.5) out.push(t.textContent); });
          }
          boxes.forEach((a, i) => { const b = boxes[i + 1];
            if (b && a.y === b.y && b.x < a.x + a.width) out.push('overlap at ' + i); });
          return out;
        }""")
        assert not bad, bad[:5]
        screenshot(bare, f"notebook-svg-{scheme}")


def test_compare_offers_the_spans_for_slides(page, app_url):
    text = "127 + 677 = 804\n<script>window.__pwned=1</script> 👋"
    query = urllib.parse.urlencode({"text": text, "tokenizers": "gpt2,cl100k_base", "ws": "1"})
    page.goto(f"{app_url}/?{query}")
    wait_for_app(page)
    settle(page)
    svg = download_spans(page)
    root = ET.fromstring(svg)
    heads = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "tl-head"]
    assert len(heads) == 2 and "<script" not in svg and "&lt;" in svg and "window" in svg
    assert re.search(r'<tspan class="tl-ws"[^>]*>·</tspan>', svg)  # whitespace marks as on screen (ws=1)
    html = download_spans(page, kind="HTML page")
    assert html.startswith("<!DOCTYPE html>") and "&lt;" in html and not re.search(r"https?:", html)
    screenshot(page, "compare-spans-downloads")
    assert not page.errors


def test_compare_downloads_in_the_dark_theme(browser, app_url):
    ctx = new_context(browser, viewport={"width": 1400, "height": 2200}, color_scheme="dark")
    pg = ctx.new_page()
    try:
        pg.goto(f"{app_url}/?" + urllib.parse.urlencode({"text": "Egg. I have an egg.", "tokenizers": "gpt2"}))
        wait_for_app(pg)
        settle(pg)
        assert download_spans(pg, kind="HTML page").startswith("<!DOCTYPE html>")
        screenshot(pg, "compare-spans-downloads-dark")
    finally:
        ctx.close()
