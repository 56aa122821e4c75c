"""Issue 20, item 2, in Chromium: a token box never wraps inside itself, and a token longer than the
line breaks with a visible ↩ at the end of each broken line, never silently. Checked on the spans the
Compare page builds with DOM calls (ui/web/token_spans.js) and on the HTML of model_html (notebooks,
downloads), at XL on a phone (390 px) and at 1280 px, light and dark."""

import shutil
import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.conftest import new_context, screenshot, settle, wait_for_app, watched_page
from tests.e2e.test_notebook_browser import page_of
from tokenizers import get_tokenizer

TIMEOUT = 60_000
SHOTS = Path("/tmp/shots/wrap")

# ordinary text (words, Korean, an emoji with joiners, a special-token string) and three tokens longer
# than a phone's line: cl100k_base spells 300 '=' as 65 (after a space), 64, 64, 64, 32 and 11, a URL
# and a base64 run in pieces
TEXT = ("Tokens of LLMs: not one of them breaks in two. 안녕하세요, 세계! 👨\u200d👩\u200d👧 <|endoftext|> "
        + "=" * 300 + " https://example.com/" + "aGVsbG8gd29ybGQ" * 6 + " done.")

# For every box: its text, its rectangles, and for a long one (tl-long) the lines it takes (its height
# over an ordinary box's, without their padding), its tl-brk marks that the browser draws (a soft hyphen shown as ↩ has a
# width; one not at a break has none), and whether each drawn mark ends its line (at the box's right).
BOXES = """root => {
  const boxes = [...root.querySelectorAll('.tl-tok')];
  const pad = b => parseFloat(getComputedStyle(b).paddingTop) + parseFloat(getComputedStyle(b).paddingBottom);
  const one = boxes[0].getBoundingClientRect().height - pad(boxes[0]);  // "Tokens": an ordinary box
  return boxes.map(b => {
    const r = b.getBoundingClientRect(), brks = [...b.querySelectorAll('.tl-brk')], n = (r.height - pad(b)) / one;
    const shown = brks.filter(k => k.getBoundingClientRect().width > 0);
    return {text: b.textContent, rects: b.getClientRects().length, long: b.classList.contains('tl-long'),
            lines: Math.round(n), height: n, brks: brks.length, marks: shown.length,
            atEnd: shown.every(k => r.right - k.getBoundingClientRect().right < 2 * k.getBoundingClientRect().width),
            inside: r.right <= root.getBoundingClientRect().right + 0.5,
            full: r.width > root.getBoundingClientRect().width - 2 * one};
  });
}"""

MARK = """root => { const k = root.querySelector('.tl-brk');
  return k ? getComputedStyle(k, '::before').content + ' ' + getComputedStyle(k).hyphenateCharacter : null; }"""


def check(boxes: list[dict], *, wide: bool) -> None:
    """(a) every box is one rectangle inside the spans; (b) a long box that takes n lines draws n - 1
    marks, each at the end of its line, and breaks only when it is as wide as the line (it moved to a
    line of its own first); `wide`: the 64-character runs fit a line and draw no mark."""
    assert boxes and all(b["rects"] == 1 for b in boxes), [b["text"] for b in boxes if b["rects"] != 1][:5]
    assert all(b["inside"] for b in boxes), [b["text"][:20] for b in boxes if not b["inside"]]
    long = [b for b in boxes if b["long"]]
    assert [len(b["text"]) for b in long][:5] == [66, 64, 64, 64, 32]
    for b in boxes:
        assert abs(b["height"] - b["lines"]) < 0.05, b  # a whole number of lines, each an ordinary box high
        if not b["long"]:
            assert b["lines"] == 1 and b["brks"] == 0, b
        else:
            assert b["marks"] == b["lines"] - 1 and b["atEnd"], b
            assert b["lines"] == 1 or b["full"], b
    if wide:
        assert all(b["lines"] == 1 and b["marks"] == 0 for b in long[:4])
    else:
        assert all(b["lines"] >= 3 for b in long[:4])  # about 22 cells a line at XL on a phone


def keep(path: Path, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / f"{name}.png")


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 720)])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_compare_at_xl_breaks_only_long_tokens_and_marks_each_break(browser, app_url, width, height, scheme):
    ctx, page = watched_page(browser, width, height, color_scheme=scheme)
    errors = page.errors
    try:
        query = {"text": TEXT, "tokenizers": "cl100k_base,gpt2", "font": "XL"}
        page.goto(f"{app_url}/?{urllib.parse.urlencode(query)}")
        wait_for_app(page)
        spans = page.locator(".tl-spans[data-owner='compare:cl100k_base:a']")
        spans.locator(".tl-long").first.wait_for(timeout=TIMEOUT)
        settle(page)
        assert spans.evaluate(MARK) == '"\u00ad" "\u21a9"'  # the mark: a soft hyphen drawn as ↩
        check(spans.evaluate(BOXES), wide=False)  # at 1280 two columns of about 36 cells
        # the text is the text: nothing the marks add is in it
        assert "\u00ad" not in spans.evaluate("el => el.textContent")
        spans.locator(".tl-long").first.scroll_into_view_if_needed()
        keep(screenshot(page, f"long-token-compare-{width}-{scheme}"), f"compare-{width}-{scheme}")
        assert not errors
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_the_html_renderer_breaks_the_same_way(browser, width):
    """model_html's HTML (a notebook, the HTML download) at the same size as the app's spans: the same
    boxes, the same breaks and marks as the DOM that token_spans.js builds from the same model."""
    from ui.spans import render_spans

    ctx = new_context(browser, viewport={"width": width, "height": 900})
    page = ctx.new_page()
    try:
        toks = get_tokenizer("cl100k_base").tokenize(TEXT, disallowed_special=())
        page.set_content(page_of(render_spans(TEXT, toks, font_size="1.6rem"), "margin:16px"))
        check(page.locator(".tl-spans").evaluate(BOXES), wide=width > 1000)
        keep(screenshot(page, f"long-token-html-{width}"), f"html-{width}")
    finally:
        ctx.close()


def test_insides_chunk_boxes_break_the_same_way(browser):
    """Inside's pre-tokenization chunks (render_chunks) on a phone: the " " + 300 '=' chunk breaks with a
    mark at the end of each of its lines; every other chunk stays one box on one line."""
    from tokenizers.core.patterns import GPT4_PATTERN, compile_pattern, split_text
    from ui.spans import render_chunks

    ctx = new_context(browser, viewport={"width": 390, "height": 900})
    page = ctx.new_page()
    try:
        page.set_content(page_of(render_chunks(split_text(TEXT, compile_pattern(GPT4_PATTERN))), "margin:16px"))
        boxes = page.locator(".tl-spans").evaluate(BOXES)
        assert all(b["rects"] == 1 and b["inside"] for b in boxes)
        (long,) = [b for b in boxes if b["text"].startswith("·===")]
        assert long["long"] and long["lines"] >= 5 and long["marks"] == long["lines"] - 1 and long["atEnd"]
        assert all(b["lines"] == 1 and b["marks"] == 0 for b in boxes if not b["long"])
        keep(screenshot(page, "long-chunk-inside-390"), "inside-chunks-390")
    finally:
        ctx.close()
