"""Issue 22 in Chromium: the page of spans follows the caret (a long text's end being typed is shown in every
column, drawn by the browser at once and by the server after the pause), and text B (two-text mode) follows
its own box: its browser columns with the library's ids, text A's columns untouched, its server-only column
after the pause."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import rerun, runs_asked, screenshot, settle
from tests.e2e.test_live_compare_browser import TIMEOUT, library_ids, open_compare

pytestmark = pytest.mark.e2e

IN_BROWSER = ("gpt2", "cl100k_base")
from tests.e2e.conftest import SERVER_ONLY  # kept on the server by the e2e server (app_url)
# 12.6 K characters: 5,603 GPT-2 tokens, past the 5,000-token page (app_pages/compare.py PAGE_SIZE)
LONG = "".join(f"Line {i}: 3.14 + 2.71 = {i * 7}; naïve, café!\n" for i in range(300))
TYPED = "QXJ"

# n columns drawn in the browser, ready (the server-only ones are never ready)
READY = """n => { const L = globalThis.__tlLive; return !!L && [...L.columns.values()].filter(c => c.ready).length === n; }"""
COLUMN_TEXT = """() => Object.fromEntries([...document.querySelectorAll('.tl-spans')].map(s =>
  [s.closest('[data-testid=stVerticalBlock]').querySelector('.tl-head').dataset.tokenizer,
   [s.dataset.live || 'server', s.textContent, s.dataset.ids || '']]))"""
# the columns (as `columns` gives them) once every one of `heads` shows `text`, drawn by the browser if `live`
SHOWS = """([heads, text, live]) => { const got = (%s)();
  return heads.every(h => got[h] && got[h][1].includes(text) && (!live || got[h][0] === 'browser')) && got; }""" % COLUMN_TEXT


def wait_shown(page, heads, text: str, live: bool) -> dict[str, list[str]]:
    """The columns at the moment every one of `heads` shows `text` (drawn by the browser if `live`): a
    server run may redraw them right after."""
    return page.wait_for_function(SHOWS, arg=[list(heads), text, live], timeout=TIMEOUT).json_value()


def columns(page) -> dict[str, list[str]]:
    """tokenizer heading -> [who drew it ("browser" or "server"), its text, its ids when the browser drew it]."""
    return page.evaluate(COLUMN_TEXT)


def page_picker(page) -> int:
    return int(page.get_by_label("Page (1–2)").input_value())


def test_typing_at_the_end_of_a_long_text_shows_it_in_every_column(browser, app_url):
    names = [*IN_BROWSER, SERVER_ONLY]
    ctx, page = open_compare(browser, app_url, names)
    try:
        page.wait_for_function(READY, arg=len(IN_BROWSER), timeout=TIMEOUT)
        settle(page, TIMEOUT)
        box = page.get_by_label("Text", exact=True)
        with rerun(page, TIMEOUT):
            box.fill(LONG)  # a text put in whole opens on its first page (the edit's first character)
        page.wait_for_function(READY, arg=len(IN_BROWSER), timeout=TIMEOUT)
        assert page_picker(page) == 1
        assert TYPED not in columns(page)["gpt2"][1]
        box.click()
        box.press("Control+End")
        before = runs_asked(page)
        box.press_sequentially(TYPED, delay=40)
        # at once, in the browser: the page that holds the caret
        got = wait_shown(page, IN_BROWSER, TYPED, True)
        text = box.input_value()
        assert text == LONG + TYPED
        for name in IN_BROWSER:  # the last page's ids are the end of the library's
            ids = [int(i) for i in got[name][2].split(",")]
            assert ids == library_ids(name, text)[-len(ids):]
        # after the pause, the server's run: every column, the server-only one too, on the caret's page
        settle(page, TIMEOUT, after=before)
        wait_shown(page, names, TYPED, False)
        assert page_picker(page) == 2
        screenshot(page, "caret-end-typed-server")
        assert not page.errors
    finally:
        ctx.close()


IDS_DRAWN = """([want, live]) => { const got = (%s)();
  return Object.entries(want).every(([h, ids]) => got[h] && (!live || got[h][0] === 'browser')
    && got[h][2] === ids.join(',')) && got; }""" % COLUMN_TEXT


def test_typing_into_text_b_updates_only_the_b_columns(browser, app_url):
    ctx, page = open_compare(browser, app_url, IN_BROWSER, ab="1")
    try:
        heads_a = list(IN_BROWSER)
        box_a, box_b = page.get_by_label("Text A", exact=True), page.get_by_label("Text B", exact=True)
        with rerun(page, TIMEOUT):
            box_b.fill("Text B starts here.")
        page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {2 * len(IN_BROWSER)}",
                               timeout=TIMEOUT)
        page.wait_for_function(READY, arg=2 * len(IN_BROWSER), timeout=TIMEOUT)
        text_a = box_a.input_value()
        drawn_a = {h: columns(page)[h] for h in heads_a}
        box_b.click()
        box_b.press("Control+End")
        before = runs_asked(page)
        box_b.press_sequentially(" Zq 한국어 👋", delay=40)  # quicker than the 1 s the box waits for the server
        text_b = box_b.input_value()
        assert text_b == "Text B starts here. Zq 한국어 👋"
        # text B's columns, drawn by the browser with the library's ids for text B
        want = {f"{n}:b": library_ids(n, text_b) for n in IN_BROWSER}
        got = page.wait_for_function(IDS_DRAWN, arg=[want, True], timeout=TIMEOUT).json_value()
        assert runs_asked(page) == before, "a keystroke in text B asked the server for a run"
        assert {h: got[h] for h in heads_a} == drawn_a  # text A's columns untouched
        assert box_a.input_value() == text_a
        screenshot(page, "caret-text-b-typed")
        settle(page, TIMEOUT, after=before)  # the pause: the server's one run
        # a column only the server runs, for text B too: it follows B after the pause
        with rerun(page, TIMEOUT):
            model = page.locator(".st-key-compare_model input")
            model.fill("deepseek-v3")
            model.press("Enter")
        page.wait_for_function(f"document.querySelector('.tl-head[data-tokenizer=\"{SERVER_ONLY}:b\"]')",
                               timeout=TIMEOUT)
        page.wait_for_function(READY, arg=2 * len(IN_BROWSER), timeout=TIMEOUT)
        box_b.click()
        box_b.press("Control+End")
        before = runs_asked(page)
        box_b.press_sequentially(" Wv", delay=40)
        settle(page, TIMEOUT, after=before)
        got = wait_shown(page, [f"{SERVER_ONLY}:b"], " Wv", False)  # (boxes of several tokens say [n])
        assert got[f"{SERVER_ONLY}:b"][1].startswith("Text B starts here. Zq")
        assert got[f"{SERVER_ONLY}:b"][0] == "server"
        assert "Wv" not in got[SERVER_ONLY][1]
        assert box_a.input_value() == text_a
        assert not page.errors
    finally:
        ctx.close()
