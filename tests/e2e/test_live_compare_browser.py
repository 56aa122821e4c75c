"""Issue 22 on the page: Compare's columns whose vocabulary runs in the browser (the WebAssembly core and
the blobs served by service/browser_assets.py) redraw on every keystroke without a server run, with the
library's ids; the server's run after the pause draws the same; columns that cannot run there say so;
without WebAssembly every column falls back to the server and the page says so once; payloads typed in
reach the browser-drawn spans only as text."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import new_context, rerun, runs_asked, screenshot, settle, wait_for_app, watched_page
from tests.e2e.test_payloads_browser import Watch
from tests.payloads import PAYLOADS

pytestmark = pytest.mark.e2e

IN_BROWSER = ("custom_bpe", "gpt2", "cl100k_base", "o200k_base")
DEFAULTS = ("custom_bpe", "gpt2", "cl100k_base", "mistral_sp")  # Compare's tokenizers on a first visit
from tests.e2e.conftest import SERVER_ONLY  # kept on the server by the e2e server (app_url)
TIMEOUT = 90_000
READY = """n => { const L = globalThis.__tlLive; if (!L) return false;
  const cols = [...L.columns.values()]; return cols.length === n && cols.every(c => c.ready); }"""
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"  # a redraw has run
LIVE_DRAWN = """([n, text]) => { const s = [...document.querySelectorAll('.tl-spans[data-live=browser]')];
  return s.length === n && s.every(e => e.textContent.replace(/[\\s·↵→␍]/g, '').includes(text)); }"""


def open_compare(browser, app_url, names, *, init: str | None = None, **query):
    ctx, page = watched_page(browser, 1400, 2200, init=init)
    q = "&".join(f"{k}={v}" for k, v in {"tokenizers": ",".join(names), **query}.items())
    page.goto(f"{app_url}/?{q}")
    wait_for_app(page, TIMEOUT)
    page.wait_for_function(f"document.querySelectorAll('.tl-head').length === {len(names)}", timeout=TIMEOUT)
    return ctx, page


def library_ids(name: str, text: str, parse: bool = False) -> list[int]:
    from tokenizers import get_tokenizer
    from tokenizers.core.text import clean_text

    tok = get_tokenizer(name)
    clean, _ = clean_text(text)
    return tok.encode(clean, allowed_special="all") if parse else tok.encode(clean, disallowed_special=())


def drawn_ids(page) -> dict[str, list[int]]:
    """Each browser-drawn column's ids, by its tokenizer (the heading above it)."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-spans[data-live=browser]')]
      .map(s => [s.closest('[data-testid=stVerticalBlock]').querySelector('.tl-head').dataset.tokenizer,
                 s.dataset.ids ? s.dataset.ids.split(',').map(Number) : []]))""")


def boxes(page, name: str) -> list[list[str]]:
    """Each box of `name`'s spans as drawn: [classes, tooltip, ids, accessible name, text, parts' classes]."""
    return page.evaluate("""n => Array.from([...document.querySelectorAll('.tl-head')]
      .find(h => h.dataset.tokenizer === n).closest('[data-testid=stVerticalBlock]').querySelectorAll('.tl-tok'),
      t => [t.className, t.dataset.tip, t.dataset.ids, t.getAttribute('aria-label'), t.textContent,
            [...t.children].map(c => c.className).join(' ')])""", name)


def counts(page) -> dict[str, int]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-head')].map(h =>
      [h.dataset.tokenizer, parseInt(h.querySelector('.tl-count').textContent.replace(/,/g, ''))]))""")


def box_at_start(page, columns: int):
    """Once `columns` columns draw in the browser and the page has settled: the text box, its caret at the
    start (typed there, a keystroke shows in every column's first page)."""
    page.wait_for_function(READY, arg=columns, timeout=TIMEOUT)
    settle(page, TIMEOUT)
    box = page.get_by_label("Text", exact=True)
    box.click()
    box.press("Control+Home")
    return box


def test_typing_redraws_in_the_browser_without_a_server_run(browser, app_url):
    ctx, page = open_compare(browser, app_url, IN_BROWSER)
    try:
        box = box_at_start(page, len(IN_BROWSER))
        before = runs_asked(page)
        typed = "Zq👩‍👩‍👧 한국어 <|endoftext|> x"
        box.press_sequentially(typed, delay=40)  # quicker than the 1 s the box waits for the server
        page.wait_for_function(LIVE_DRAWN, arg=[len(IN_BROWSER), "Zq"], timeout=TIMEOUT)
        page.evaluate(FRAMES)
        assert runs_asked(page) == before, "a keystroke asked the server for a run"
        text, got, heads = box.input_value(), drawn_ids(page), counts(page)
        screenshot(page, "live-compare-typed")
        assert text.startswith(typed)
        assert got == {n: library_ids(n, text) for n in IN_BROWSER}
        assert heads == {n: len(library_ids(n, text)) for n in IN_BROWSER}  # the headings follow
        settle(page, TIMEOUT, after=before)  # the pause: one run, which sends these columns no spans
        page.evaluate(FRAMES)
        assert runs_asked(page) == before + 1
        assert drawn_ids(page) == {n: library_ids(n, text) for n in IN_BROWSER}  # still the browser's own
        assert counts(page) == {n: len(library_ids(n, text)) for n in IN_BROWSER}
        assert not page.errors
    finally:
        ctx.close()


def test_typing_with_the_default_tokenizers_asks_the_server_nothing(browser, app_url):
    """A first visit's four columns, Mistral's SentencePiece among them, all follow the typing in the
    browser; Mistral's boxes (▁ marks, byte-fallback pieces, tooltips, names) are the server's own."""
    from tokenizers import default_tokenizers

    assert tuple(default_tokenizers()) == DEFAULTS
    ctx, page = open_compare(browser, app_url, DEFAULTS, ws="1")
    try:
        box = box_at_start(page, len(DEFAULTS))
        assert not page.get_by_text("Updates after a pause in typing, from the server").count()
        before = runs_asked(page)
        typed = "Zq  👩‍👩‍👧 한국어 <s>\u2581x "
        box.press_sequentially(typed, delay=40)
        page.wait_for_function(LIVE_DRAWN, arg=[len(DEFAULTS), "Zq"], timeout=TIMEOUT)
        page.evaluate(FRAMES)
        assert runs_asked(page) == before, "a keystroke asked the server for a run"
        text, got, heads = box.input_value(), drawn_ids(page), counts(page)
        screenshot(page, "live-compare-defaults-typed")
        assert text.startswith(typed)
        assert got == {n: library_ids(n, text) for n in DEFAULTS}
        assert heads == {n: len(library_ids(n, text)) for n in DEFAULTS}
        mistral = boxes(page, "mistral_sp")
        assert any("tl-fallback" in b[0] and "tl-group" in b[0] for b in mistral)  # an emoji's byte pieces
        assert any("tl-sp" in b[5] for b in mistral) and any("piece \u2581" in b[1] for b in mistral)
        settle(page, TIMEOUT, after=before)  # the pause: the browser keeps drawing them (the same boxes)
        page.evaluate(FRAMES)
        assert runs_asked(page) == before + 1
        assert drawn_ids(page) == {n: library_ids(n, text) for n in DEFAULTS}
        assert boxes(page, "mistral_sp") == mistral
        assert not page.errors
    finally:
        ctx.close()


def counts_table(page) -> dict[str, int]:
    """The Counts table's tokens column, by tokenizer title."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('table.tl-counts tbody tr')]
      .map(r => [r.cells[0].textContent.trim(), parseInt(r.cells[1].textContent.replace(/,/g, ''))]))""")


def test_a_pause_runs_only_the_counts_while_nothing_else_would_change(browser, app_url):
    """Every column drawn in the browser, one quiet text: the pause's text goes to the counts' text sink
    (widgets.text_sink), and the server runs the counts alone (a few messages, not the page's fifty), which
    show the new text, as does the link; a text with a special-token string runs the page, which says so."""
    from app_pages.kit.shared import title_of

    ctx, page = open_compare(browser, app_url, IN_BROWSER)
    try:
        box = box_at_start(page, len(IN_BROWSER))
        before = runs_asked(page)
        box.press_sequentially("Zq ", delay=40)  # the first send reports the columns drawn here: the page runs
        settle(page, TIMEOUT, after=before)
        assert page.locator(".tl-live").get_attribute("data-sink") == ""
        before, messages = runs_asked(page), page.evaluate("() => window.__tlRuns.messages")
        box.press_sequentially("plain words ", delay=40)
        settle(page, TIMEOUT, after=before)
        text = box.input_value()
        sent = page.evaluate("() => window.__tlRuns.messages") - messages
        assert page.locator(".tl-live").get_attribute("data-sink") == "1"
        assert sent < 25, f"the pause ran more than the counts: {sent} messages"
        want = {title_of(n): len(library_ids(n, text)) for n in IN_BROWSER}
        page.wait_for_function("() => !!document.querySelector('table.tl-counts')", timeout=TIMEOUT)
        assert counts_table(page) == want
        assert "text=Zq+plain+words+" in page.url  # the link follows
        assert counts(page) == {n: len(library_ids(n, text)) for n in IN_BROWSER}
        before, messages = runs_asked(page), page.evaluate("() => window.__tlRuns.messages")
        box.press_sequentially("<|endoftext|> ", delay=40)  # the page would say something new: it runs
        settle(page, TIMEOUT, after=before)
        page.get_by_text("Parsing is off").first.wait_for(timeout=TIMEOUT)
        assert page.evaluate("() => window.__tlRuns.messages") - messages > 40
        text = box.input_value()
        assert counts_table(page) == {title_of(n): len(library_ids(n, text)) for n in IN_BROWSER}
        assert drawn_ids(page) == {n: library_ids(n, text) for n in IN_BROWSER}
        assert not page.errors
    finally:
        ctx.close()


def test_special_tokens_parsed_and_whitespace_marks_in_the_browser(browser, app_url):
    ctx, page = open_compare(browser, app_url, IN_BROWSER[1:3], special="1", ws="1")
    try:
        box = box_at_start(page, 2)
        box.press_sequentially("<|endoftext|>a\tb ", delay=30)
        page.wait_for_function(LIVE_DRAWN, arg=[2, "<|endoftext|>a"], timeout=TIMEOUT)
        page.evaluate(FRAMES)
        text, got = box.input_value(), drawn_ids(page)
        special, ws = (page.locator(f".tl-spans[data-live=browser] {c}").count() for c in (".tl-special", ".tl-ws"))
        assert got == {n: library_ids(n, text, parse=True) for n in IN_BROWSER[1:3]}
        assert special >= 2 and ws > 0
    finally:
        ctx.close()


def test_server_columns_are_labelled(browser, app_url):
    ctx, page = open_compare(browser, app_url, ["gpt2", SERVER_ONLY])
    try:
        page.wait_for_function(READY.replace("c.ready)", "c.ready !== undefined)"), arg=2, timeout=TIMEOUT)
        labels = page.get_by_text("Updates after a pause in typing, from the server")
        assert labels.count() == 1
        # the label sits in DeepSeek's column, not GPT-2's
        assert labels.first.evaluate("e => e.closest('[data-testid=stVerticalBlock]').querySelector('.tl-head')"
                                     ".dataset.tokenizer") == SERVER_ONLY
        page.wait_for_function("() => [...globalThis.__tlLive.columns.values()].filter(c => c.ready).length === 1",
                               timeout=TIMEOUT)
        box = page.get_by_label("Text", exact=True)
        box.click()
        box.press("Control+Home")
        with rerun(page, TIMEOUT):  # a column on the server: the box still sends after its short pause
            box.press_sequentially("Yo ", delay=30)
        assert page.locator(".tl-spans").first.text_content().startswith("Yo")
    finally:
        ctx.close()


def test_without_webassembly_every_column_falls_back(browser, app_url):
    ctx, page = open_compare(browser, app_url, IN_BROWSER[:2], init="delete globalThis.WebAssembly;")
    try:
        note = page.locator(".tl-live-engine")
        note.filter(has_text="Tokenizing in your browser is off").wait_for(timeout=TIMEOUT)
        assert "no WebAssembly" in note.text_content()
        assert page.get_by_text("Tokenizing in your browser is off").count() == 1  # said once
        box = page.get_by_label("Text", exact=True)
        box.click()
        box.press("Control+Home")
        with rerun(page, TIMEOUT):
            box.press("W")
        assert not page.query_selector(".tl-spans[data-live=browser]")
        assert page.locator(".tl-spans").first.text_content().startswith("W")
        text = box.input_value()
        assert counts(page) == {n: len(library_ids(n, text)) for n in IN_BROWSER[:2]}
        assert not page.errors
    finally:
        ctx.close()


def test_payloads_typed_reach_the_browser_spans_only_as_text(browser, app_url):
    w = Watch(browser, app_url)
    try:
        w.goto("", tokenizers=",".join(IN_BROWSER[:3]), special="1")
        w.page.wait_for_function(READY, arg=3, timeout=TIMEOUT)
        w.settle()
        box = w.page.get_by_label("Text", exact=True)
        names = ("script", "img_onerror", "svg_onload", "iframe_srcdoc", "javascript_link", "mxss_math")
        for name in names:
            box.fill(PAYLOADS[name])  # one input event: drawn in the browser at once
            w.page.wait_for_function(LIVE_DRAWN, arg=[3, PAYLOADS[name][:12].replace(" ", "")], timeout=TIMEOUT)
            got = w.check(f"Compare: typed, drawn in the browser ({name})", 1, spans=[PAYLOADS[name]], record=False)
            assert got["executed"] == 0 and not got["found"] and not got["missing"], got
    finally:
        w.close()


def test_a_slow_host_script_still_loads_every_vocabulary(browser, app_url):
    """The vocabularies arrive before the host script (tl_wasm.js) that reads them: each waits for it
    (a race once left a column on the server with "TokenLensWasm is not defined")."""
    import time

    ctx = new_context(browser, viewport={"width": 1400, "height": 2200})

    def slow(route):
        time.sleep(2)
        route.continue_()

    ctx.route("**/app/static/tl/*.js", slow)
    page = ctx.new_page()
    try:
        page.goto(f"{app_url}/?tokenizers={','.join(IN_BROWSER[:3])}")
        wait_for_app(page, TIMEOUT)
        page.wait_for_function(READY, arg=3, timeout=TIMEOUT)
        assert not page.locator(".tl-live-engine").text_content()
    finally:
        ctx.close()


def test_a_1mb_paste_lands_at_once_and_the_browser_draws_its_first_page(browser, app_url):
    """Ctrl+V of 1 MB with every column in the browser: the box holds it at once, the columns show its
    first page (the page follows the edit's first character, not the caret at the paste's end) and the
    headings count the whole text, and nothing goes to the server until Apply."""
    from ui.examples import EXAMPLES

    names = IN_BROWSER[1:3]
    ctx, page = open_compare(browser, app_url, names)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    try:
        page.wait_for_function(READY, arg=2, timeout=TIMEOUT)
        settle(page, TIMEOUT)
        asked = runs_asked(page)
        big = "W" + ("\n".join(EXAMPLES.values()) * 700).encode()[1:999_000].decode("utf-8", "ignore") + "ZqW"  # ~1 MB
        page.evaluate("v => navigator.clipboard.writeText(v)", big)
        box = page.get_by_label("Text", exact=True)
        box.click()
        box.press("Control+A")
        box.press("Control+V", timeout=15_000)
        page.wait_for_function(LIVE_DRAWN, arg=[2, big[:12].replace(" ", "")], timeout=TIMEOUT)
        page.evaluate(FRAMES)
        assert box.input_value() == big
        page.get_by_text("the spans follow your typing in the browser").wait_for(timeout=TIMEOUT)
        assert counts(page) == {n: len(library_ids(n, big)) for n in names}
        assert runs_asked(page) == asked
        assert page.locator(".tl-spans[data-live=browser] .tl-tok").count() < 2 * 2 * 5000  # one page each
        with rerun(page, TIMEOUT):
            page.get_by_role("button", name="Apply").click()
        assert counts(page) == {n: len(library_ids(n, big)) for n in names}
    finally:
        ctx.close()


def test_a_click_right_after_typing_pins_the_token_of_the_new_text(browser, app_url):
    """A token clicked before the box's pause is over: leaving the box sends the text first, so the
    server pins the clicked token of the text the browser drew, not of the text it had."""
    ctx, page = open_compare(browser, app_url, ["gpt2"])
    try:
        box = box_at_start(page, 1)
        box.press_sequentially("Zebra ", delay=30)
        page.wait_for_function(LIVE_DRAWN, arg=[1, "Zebra"], timeout=TIMEOUT)
        before = runs_asked(page)
        page.locator(".tl-spans[data-live=browser] .tl-tok").first.click()
        settle(page, TIMEOUT, after=before)
        first = library_ids("gpt2", box.input_value())[0]
        page.get_by_text(f"Token {first} in").wait_for(timeout=TIMEOUT)
    finally:
        ctx.close()


def server_boxes(page) -> dict[str, list]:
    """The spans models the page's spans components were last given, by owner (what the server sent)."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-spans-root')]
      .filter(r => r.tlLive && r.tlLive.data).map(r => [r.tlLive.data.owner, !!r.tlLive.data.segs]))""")


def test_after_the_pause_the_browser_draws_the_red_edges_and_the_pinned_token(browser, app_url):
    """The pause rerun sends the browser-drawn columns no spans, only the red edges of "Mark boundaries
    that differ" and the pinned token, which the browser draws on its own encode: the edges on the tokens
    the library says differ, the pin on the token clicked (the server's panel names the same token), the
    ids still the library's."""
    from tokenizers import get_tokenizer
    from ui import analysis

    names = ["gpt2", "cl100k_base"]
    ctx, page = open_compare(browser, app_url, names, diff="1", ref="cl100k_base")
    try:
        box = box_at_start(page, 2)
        before = runs_asked(page)
        box.press_sequentially("Supercalifragilistic 1234567 naïve ", delay=30)
        settle(page, TIMEOUT, after=before)  # the pause
        page.evaluate(FRAMES)
        text = box.input_value()
        assert server_boxes(page) == {"compare:gpt2:a": False, "compare:cl100k_base:a": False}  # no spans sent
        assert drawn_ids(page) == {n: library_ids(n, text) for n in names}
        toks = get_tokenizer("gpt2").tokenize(text, disallowed_special=())
        marks = analysis.differing_starts(toks, get_tokenizer("cl100k_base").tokenize(text, disallowed_special=()))
        want = {k for k, t in enumerate(toks) if t.byte_span[0] in marks}
        drawn = page.evaluate("""() => [...document.querySelectorAll(
          '.tl-spans[data-owner="compare:gpt2:a"][data-live=browser] .tl-tok')]
          .map(t => [+t.dataset.pos, t.dataset.ids.split(' ').length, t.classList.contains('tl-diff')])""")
        # a box (several tokens when they share a character) has the red edge when one of its tokens differs
        assert [d for _, _, d in drawn] == [any(k in want for k in range(p, p + n)) for p, n, _ in drawn]
        assert sum(d for _, _, d in drawn) >= 3
        assert not page.locator(".tl-spans[data-owner='compare:cl100k_base:a'] .tl-diff").count()  # the reference
        before = runs_asked(page)
        page.locator(".tl-spans[data-owner='compare:gpt2:a'] .tl-tok[data-pos='2']").click()
        settle(page, TIMEOUT, after=before)
        page.evaluate(FRAMES)
        page.get_by_text(f"Token {toks[2].id} in").wait_for(timeout=TIMEOUT)
        pinned = page.locator(".tl-spans[data-owner='compare:gpt2:a'][data-live=browser] .tl-tok.tl-pin")
        assert pinned.count() == 1 and pinned.get_attribute("data-pos") == "2"
        assert pinned.get_attribute("aria-selected") == "true" and pinned.get_attribute("tabindex") == "0"
        assert server_boxes(page)["compare:gpt2:a"] is False
        assert page.locator(".tl-spans[data-owner='compare:gpt2:a'] .tl-tok.tl-diff").count() == sum(
            d for _, _, d in drawn)
        assert drawn_ids(page) == {n: library_ids(n, text) for n in names}
        screenshot(page, "live-compare-pinned-diff")
        assert not page.errors
    finally:
        ctx.close()


def test_a_column_the_browser_cannot_draw_is_left_out_of_the_report(browser, app_url):
    """A box only Python can measure (o200k_base's one-token Thai words) makes the browser leave its column
    out of the report: the pause rerun sends that column its spans and the other one none. When such a text
    is sent before the browser measured it, the compact column asks again and the server draws it."""
    names = ["gpt2", "o200k_base"]
    ctx, page = open_compare(browser, app_url, names)
    try:
        page.wait_for_function(READY, arg=2, timeout=TIMEOUT)
        settle(page, TIMEOUT)
        box = page.get_by_label("Text", exact=True)
        before = runs_asked(page)
        box.fill(" สำนักเลขานุการองค์กร วิเคราะห์บอลวันนี้ " + box.input_value())  # one input event
        settle(page, TIMEOUT, after=before)
        page.evaluate(FRAMES)
        settle(page, TIMEOUT)
        assert server_boxes(page) == {"compare:gpt2:a": False, "compare:o200k_base:a": True}
        text = box.input_value()
        assert drawn_ids(page) == {"gpt2": library_ids("gpt2", text)}  # o200k_base: the server's draw
        # a text sent before the browser has measured it (a long one typed right after another, then Apply at
        # once): the report still names o200k_base, its compact payload cannot be drawn here, so the column
        # asks, the box reports again and the server's next run draws it
        text = "x " * 12000 + " สำนักเลขานุการองค์กร วิเคราะห์บอลวันนี้"  # over the live limit: Apply
        settle(page, TIMEOUT)
        before = runs_asked(page)
        page.evaluate("""t => { const b = document.querySelector('.tl-live textarea'); b.focus();
          b.value = 'a b '.repeat(6000); b.dispatchEvent(new Event('input', {bubbles: true}));
          b.value = t; b.dispatchEvent(new Event('input', {bubbles: true}));
          document.querySelector('.tl-live-apply').click(); }""", text)
        page.wait_for_function("""() => [...document.querySelectorAll('.tl-spans-root')].some(r => r.tlLive &&
          r.tlLive.data && r.tlLive.data.owner === 'compare:o200k_base:a' && r.tlLive.data.segs)""", timeout=TIMEOUT)
        settle(page, TIMEOUT)
        assert runs_asked(page) >= before + 2  # Apply's send, then the report again
        assert server_boxes(page) == {"compare:gpt2:a": False, "compare:o200k_base:a": True}
        assert box.input_value() == text and not page.errors
    finally:
        ctx.close()


def test_the_box_counts_a_lone_surrogate_as_the_server_does(browser, app_url):
    """The live box's byte count (live_text.js, which the columns now read too) counts a lone high surrogate
    before a non-ASCII character as U+FFFD's 3 bytes, as TextEncoder and the server's clean_text do: such a text
    past the live limit waits for Apply. (It counted the surrogate and the character after it as one 4-byte
    pair: 12,000 bytes of these read as 8,000, and the text stayed live past the limit.)"""
    from app_pages.kit.widgets import LIVE_LIMIT

    ctx, page = open_compare(browser, app_url, IN_BROWSER[:2])
    try:
        box_at_start(page, 2)
        text = "\ud83d你" * 2000 + "a" * (LIVE_LIMIT - 11_000)  # 21,000 bytes (17,000 as two-unit pairs)
        assert len(text.encode("utf-8", "replace").replace(b"?", b"\xef\xbf\xbd")) > LIVE_LIMIT
        page.evaluate("""t => { const box = document.querySelector('.tl-live textarea');
          box.value = t; box.dispatchEvent(new InputEvent('input', {bubbles: true})); }""", text)
        assert page.evaluate("document.querySelector('.tl-live').dataset.mode") == "apply"
        assert not page.errors
    finally:
        ctx.close()
