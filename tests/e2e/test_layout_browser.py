"""Compare at a projector and on a phone (issue 20, item 3), measured in the browser: the first screen at
1280x720 holds the text and the first spans; presenting, GPT-2 and cl100k_base sit side by side on it
with the lecture's snippet at text size L, the sidebar collapsed and the counts table inside 1280 px; a
phone never scrolls sideways. Light and dark, each with a screenshot (also copied to /tmp/shots/layout/).

Every test here failed on main except the phone's, which guards what held there already."""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.conftest import screenshot, settle, wait_for_app, watched_page
from tokenizers import default_tokenizers, get_tokenizer
from ui.examples import EXAMPLES

TIMEOUT = 60_000
LECTURE = EXAMPLES["A lecture: a sentence, sums, eggs, FizzBuzz"]
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
OUT = Path("/tmp/shots/layout")

# where things are, in CSS pixels from the top left of the window (the page scrolls inside stMain, so the
# window's own scroll never moves: these are the places on the first screen)
BOXES = """() => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width}; };
  const main = document.querySelector('[data-testid=stMain]');
  const bar = document.querySelector('[data-testid=stSidebar]');
  return {
    text: box(main.querySelector('textarea')),
    spans: Object.fromEntries([...document.querySelectorAll('.tl-spans[data-owner]')]
                                .map(s => [s.dataset.owner.split(':')[1], box(s)])),
    firstSpans: box(document.querySelector('.tl-spans')),
    counts: box(document.querySelector('table.tl-counts')),
    picker: box(document.querySelector('.st-key-compare_tokenizers')),
    sidebarCollapsed: bar ? bar.dataset.collapsed : null,
    sidebar: box(bar),
    width: document.documentElement.clientWidth,
    scrollWidths: [document.documentElement.scrollWidth, document.body.scrollWidth, main.scrollWidth],
    widest: Math.max(...[...main.querySelectorAll('[data-testid=stElementContainer]')]
                       .map(e => e.getBoundingClientRect().right)),
  }; }"""


def visit(browser, app_url, viewport: dict, scheme: str, query: dict | None = None, **kw):
    ctx, page = watched_page(browser, viewport["width"], viewport["height"], color_scheme=scheme, **kw)
    errors = page.errors
    page.goto(app_url + ("/?" + urllib.parse.urlencode(query) if query else ""))
    wait_for_app(page)
    page.locator(".tl-spans .tl-tok").first.wait_for(timeout=TIMEOUT)
    settle(page)
    return ctx, page, errors


def counts(page) -> dict[str, int]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-head')].map(
        h => [h.dataset.tokenizer, Number(h.querySelector('.tl-count').innerText.replace(/,/g, ''))]))""")


def shot(page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUT / f"{name}.png"))  # the first screen, as the visitor sees it
    shutil.copy(screenshot(page, name), OUT / f"{name}-page.png")


def sidebar_collapsed(page, want: str) -> bool:
    """Wait (up to 10 s) until the sidebar is collapsed ("true") or expanded ("false"); whether it is."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("w => document.querySelector('[data-testid=stSidebar]')?.dataset.collapsed === w",
                               arg=want, timeout=10_000)
    except PlaywrightTimeout:
        return False
    page.wait_for_timeout(400)  # the sidebar's slide
    return True


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_first_screen_holds_the_text_and_the_first_spans(browser, app_url, scheme):
    """Failed on main: at 1280x720 the first screen was a form; the first spans began 1,198 px down."""
    ctx, page, errors = visit(browser, app_url, PROJECTOR, scheme)
    names = default_tokenizers()
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {len(names)}", timeout=TIMEOUT)
    settle(page)
    b = page.evaluate(BOXES)
    shot(page, f"default-1280x720-{scheme}")
    assert 0 < b["text"]["top"] and b["text"]["bottom"] <= 720, b["text"]
    first_row = [b["spans"][n] for n in names[:2]]
    assert b["firstSpans"]["top"] < 720 and all(s["top"] < 720 for s in first_row), b["spans"]
    assert first_row[0]["right"] <= first_row[1]["left"]  # two to a row, side by side
    assert b["sidebarCollapsed"] == "false"  # the sidebar stays open outside presentation mode
    assert max(b["scrollWidths"]) <= 1280 and b["widest"] <= 1280
    text = page.get_by_label("Text", exact=True).input_value()
    assert counts(page) == {n: len(get_tokenizer(n).tokenize(text, disallowed_special=())) for n in names}
    assert not errors
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_presenting_gpt2_and_cl100k_share_the_first_screen(browser, app_url, scheme):
    """Failed on main: presenting stacked the tokenizers (cl100k began 1,299 px down at L with this
    snippet), the sidebar stayed open and the counts table's right edge was at 1,443 px of 1,280."""
    query = {"text": LECTURE, "tokenizers": "gpt2,cl100k_base", "present": "1", "font": "L"}
    ctx, page, errors = visit(browser, app_url, PROJECTOR, scheme, query)
    page.wait_for_function("document.querySelectorAll('.tl-head').length === 2", timeout=TIMEOUT)
    collapsed = sidebar_collapsed(page, "true")
    settle(page)
    b = page.evaluate(BOXES)
    shot(page, f"present-1280x720-{scheme}")
    gpt2, cl100k = b["spans"]["gpt2"], b["spans"]["cl100k_base"]
    assert gpt2["top"] < 720 and cl100k["top"] < 720, b["spans"]
    assert abs(gpt2["top"] - cl100k["top"]) <= 2 and gpt2["right"] <= cl100k["left"]  # side by side
    # each column's header says its count (tiktoken's own gpt2 and cl100k_base give these too)
    assert counts(page) == {"gpt2": 140, "cl100k_base": 102}
    assert b["counts"]["left"] >= 0 and b["counts"]["right"] <= 1280, b["counts"]
    assert collapsed, "presentation mode left the sidebar open"
    assert b["sidebar"]["right"] <= 0  # out of the way, with Streamlit's own button to bring it back
    assert page.get_by_test_id("stExpandSidebarButton").is_visible()
    assert max(b["scrollWidths"]) <= 1280 and b["widest"] <= 1280
    assert not errors
    ctx.close()


def test_the_sidebar_comes_back_when_presenting_ends_and_stays_open_when_asked(browser, app_url):
    """The collapse is Streamlit's own (ui/web/sidebar.js presses its button once as presenting starts):
    a visitor who opens the sidebar meanwhile keeps it open across reruns, and turning presentation
    off opens it again."""
    query = {"text": "hello world", "tokenizers": "gpt2,cl100k_base", "present": "1"}
    ctx, page, errors = visit(browser, app_url, PROJECTOR, "light", query)
    main = page.locator("[data-testid='stMain']")
    assert sidebar_collapsed(page, "true")
    page.get_by_test_id("stExpandSidebarButton").click()
    assert sidebar_collapsed(page, "false")
    main.get_by_text("Show whitespace", exact=True).click()  # a rerun
    settle(page)
    page.wait_for_timeout(500)
    assert page.evaluate("document.querySelector('[data-testid=stSidebar]').dataset.collapsed") == "false"
    main.get_by_text("Presentation mode", exact=True).click()  # off
    settle(page)
    main.get_by_text("Presentation mode", exact=True).click()  # on again: collapsed again
    settle(page)
    assert sidebar_collapsed(page, "true")
    main.get_by_text("Presentation mode", exact=True).click()  # off: open again
    settle(page)
    assert sidebar_collapsed(page, "false")
    page.get_by_role("heading", name="Compare tokenizers").wait_for(timeout=TIMEOUT)
    assert not errors
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("present", [False, True])
def test_a_phone_never_scrolls_sideways(browser, app_url, scheme, present):
    """At 390x844 nothing is wider than the screen, and the text box and the tokenizer picker take its
    width (beside the text size, the picker shrank to a sliver while this layout was being made)."""
    query = {"text": LECTURE, "tokenizers": "gpt2,cl100k_base", "present": "1", "font": "L"} if present else None
    ctx, page, errors = visit(browser, app_url, PHONE, scheme, query, is_mobile=True, has_touch=True)
    b = page.evaluate(BOXES)
    shot(page, f"{'present' if present else 'default'}-phone-{scheme}")
    assert b["width"] == 390 and max(b["scrollWidths"]) <= 390, b["scrollWidths"]
    assert b["widest"] <= 390
    for part in ("text", "picker"):
        assert b[part]["left"] >= 0 and b[part]["right"] <= 390 and b[part]["width"] >= 300, (part, b[part])
    assert not errors
    ctx.close()
