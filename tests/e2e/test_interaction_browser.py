"""Issue 14 in a real browser: live typing, click-to-inspect, presentation mode at 1280x720, dark
mode, the text-with-boundaries view, the Lab's Play button, and the walk-through bugs that only a
browser shows (a tab that jumps, a stale picker, a table cut off on a phone, overlapping tree leaves)."""

import urllib.parse

import pytest

from tests.e2e.conftest import new_context, rerun, runs_asked, screenshot, settle, wait_for_app
from tokenizers import get_tokenizer

TIMEOUT = 60_000


def heads(page) -> dict[str, int]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tl-head')].map(
        h => [h.dataset.tokenizer, parseInt(h.querySelector('.tl-count').textContent.replace(/,/g, ''))]))""")


def wait_counts(page, expected: dict[str, int]):
    page.wait_for_function("""exp => { const h = [...document.querySelectorAll('.tl-head')];
        return h.length === Object.keys(exp).length && h.every(e => exp[e.dataset.tokenizer] ===
            parseInt(e.querySelector('.tl-count').textContent.replace(/,/g, ''))); }""", arg=expected, timeout=TIMEOUT)


def expected(text: str, names: list[str]) -> dict[str, int]:
    return {n: len(get_tokenizer(n).tokenize(text, disallowed_special=())) for n in names}


def open_compare(page, app_url, **query):
    page.goto(f"{app_url}/?{urllib.parse.urlencode(query)}" if query else app_url)
    wait_for_app(page)
    box = page.get_by_label("Text", exact=True)
    box.wait_for(timeout=TIMEOUT)
    return box


# -- live typing -----------------------------------------------------------------------------------

def test_compare_updates_as_you_type(page, app_url):
    names = ["gpt2", "cl100k_base"]
    box = open_compare(page, app_url, text="hello", tokenizers=",".join(names))
    wait_counts(page, expected("hello", names))
    box.click()
    box.press("End")
    box.type(" world, typed live", delay=40)  # no Ctrl+Enter, no click elsewhere
    wait_counts(page, expected("hello world, typed live", names))
    assert "typed" in page.locator(".tl-spans").first.inner_text()
    screenshot(page, "live-typing")

    # the payloads a hardening pass will try: shown as text, never run, in the box and the spans
    payloads = ["<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>",
                "</textarea><svg onload=window.__pwned=3>", "\"><iframe srcdoc='<script>parent.__pwned=4</script>'>",
                "javascript:window.__pwned=5 ${7*7} {{7*7}} `x` **bold** <|endoftext|>"]
    for payload in payloads:
        box.fill(payload)
        wait_counts(page, expected(payload, names))
        settle(page)
        assert page.evaluate("window.__pwned === undefined"), payload
        assert page.locator(".tl-spans img, .tl-spans script, .tl-spans svg, .tl-spans iframe").count() == 0
        assert box.input_value() == payload
        shown = page.locator(".tl-spans").first.inner_text()
        assert payload.replace(" ", "")[:12] in shown.replace(" ", ""), (payload, shown)
    assert not page.errors


def test_a_big_paste_waits_for_apply_and_keeps_the_box(browser, app_url):
    """A real Ctrl+V of 200 KB: the box takes it at once (Chromium's own insertion of that much text
    into a textarea takes 10-20 s), sends nothing, and says why; Apply tokenizes it. (DeepSeek-V3, which the
    e2e server keeps on the server, TOKEN_LENS_SERVER_ONLY; a column the browser tokenizes follows the paste at
    once: tests/e2e/test_live_compare_browser.py.)"""
    ctx = new_context(browser, viewport={"width": 1400, "height": 1400})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page = ctx.new_page()
    names = ["deepseek_v3"]
    box = open_compare(page, app_url, text="small", tokenizers="deepseek_v3")
    wait_counts(page, expected("small", names))
    settle(page)
    asked = runs_asked(page)
    big = "The quick brown fox jumps over the lazy dog. 안녕하세요 👋\n" * 3500  # about 200 KB
    page.evaluate("v => navigator.clipboard.writeText(v)", big)
    box.click()
    box.press("Control+A")
    box.press("Control+V", timeout=5000)  # returns once the page has handled the keystroke
    status = page.get_by_text("Live updates pause above 20 KB")
    status.wait_for(timeout=5000)
    box.press("End")
    box.type("!")
    assert box.input_value() == big + "!"
    # the box decides on each input: over the limit it clears its timer and sends nothing (no debounce
    # left to wait for), so no run has been asked since the small text's
    assert runs_asked(page) == asked
    assert heads(page) == expected("small", names)  # nothing was sent
    page.screenshot(path=str(screenshot_path("live-big-paste")))
    page.get_by_role("button", name="Apply").click()
    wait_counts(page, expected(big + "!", names))
    # select all and paste over it, then delete it all: Chromium's own select-all and delete of that
    # much text in this page took 20 s or more each; the box does them itself (a freeze fails here)
    page.evaluate("v => navigator.clipboard.writeText(v)", big.upper())
    box.press("Control+A", timeout=15_000)
    box.press("Control+V", timeout=15_000)
    got = box.input_value()
    assert got == big.upper(), (len(got), len(big), repr(got[-30:]))
    box.press("Control+A", timeout=15_000)
    box.press("Backspace", timeout=15_000)
    assert box.input_value() == ""
    ctx.close()


# -- click a token ---------------------------------------------------------------------------------

def test_click_a_token_pins_it_and_opens_it_inside(page, app_url):
    text = "Tokenization isn't magic"
    open_compare(page, app_url, text=text, tokenizers="gpt2,cl100k_base")
    wait_counts(page, expected(text, ["gpt2", "cl100k_base"]))
    cl = get_tokenizer("cl100k_base").tokenize(text, disallowed_special=())
    target = cl[1]  # "ization"
    page.locator(f".tl-spans[data-owner='compare:cl100k_base:a'] .tl-tok[data-pos='1']").click()
    page.get_by_text(f"Token {target.id}").first.wait_for(timeout=TIMEOUT)
    page.locator(".tl-tree .tl-tbox").first.wait_for(timeout=TIMEOUT)
    assert page.locator(".tl-pin[data-pos='1']").count() == 1
    screenshot(page, "compare-pinned-token")

    page.get_by_text("Open in Inside a token").click()
    page.get_by_role("heading", name="Inside a token").wait_for(timeout=TIMEOUT)
    page.get_by_text(f"Token {target.id}").first.wait_for(timeout=TIMEOUT)
    assert "tokenizer=cl100k_base" in page.url and "token=1" in page.url
    # on Inside, clicking a span picks it
    third = cl[2]
    page.locator(".tl-spans[data-owner='inside:cl100k_base'] .tl-tok[data-pos='2']").click()
    page.get_by_text(f"Token {third.id}").first.wait_for(timeout=TIMEOUT)
    settle(page)
    screenshot(page, "inside-picked-by-click")
    assert not page.errors


# -- presentation mode and dark mode ---------------------------------------------------------------

def test_presentation_mode_fits_a_projector(browser, app_url):
    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    text = "The lighthouse keeper counted the ships each evening."
    page.goto(f"{app_url}/?" + urllib.parse.urlencode({"text": text, "present": "1", "font": "L"}))
    wait_for_app(page)
    page.locator(".tl-head").first.wait_for(timeout=TIMEOUT)
    settle(page)
    heads = [page.locator(".tl-head").nth(i).bounding_box() for i in range(4)]
    spans = page.locator(".tl-spans").first.bounding_box()
    box = page.get_by_label("Text", exact=True).bounding_box()
    assert heads[0]["y"] >= 0 and heads[0]["y"] + heads[0]["height"] <= 720 and spans["y"] < 720, (heads, spans)
    # the text box above the results, and the four tokenizers side by side (issue 20: columns, not a stack)
    assert box["y"] + box["height"] <= heads[0]["y"]
    assert all(abs(h["y"] - heads[0]["y"]) <= 2 for h in heads) and sorted(h["x"] for h in heads) == [h["x"] for h in heads]
    assert float(page.evaluate("getComputedStyle(document.querySelector('.tl-spans')).fontSize").removesuffix("px")) > 18
    page.screenshot(path=str(screenshot_path("presentation-1280x720")))
    ctx.close()


def screenshot_path(name):
    from tests.e2e.conftest import SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name}.png"


def luminance(rgb: str) -> float:
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_dark_mode_follows_the_browser(browser, app_url):
    ctx = new_context(browser, viewport={"width": 1400, "height": 1400}, color_scheme="dark")
    page = ctx.new_page()
    page.goto(f"{app_url}/?" + urllib.parse.urlencode({"text": "hello world 👋 <|endoftext|>",
                                                        "tokenizers": "cl100k_base,mistral_sp"}))
    wait_for_app(page)
    page.locator(".tl-head").first.wait_for(timeout=TIMEOUT)
    settle(page)
    app_bg = page.evaluate("getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert luminance(app_bg) < 0.25, app_bg  # Streamlit's dark theme, not forced light
    tok = page.locator(".tl-tok[data-pos]").first
    bg = page.evaluate("e => getComputedStyle(e).backgroundColor", tok.element_handle())
    fg = page.evaluate("e => getComputedStyle(e).color", tok.element_handle())
    assert abs(luminance(bg) - luminance(fg)) > 0.5  # text readable on its box
    head = page.evaluate("getComputedStyle(document.querySelector('.tl-head')).color")
    assert luminance(head) > 0.6  # headers follow the theme's light text
    tok.hover()
    page.wait_for_function("el => getComputedStyle(el, '::after').content !== 'none'", arg=tok.element_handle(),
                           timeout=10_000)
    screenshot(page, "dark-compare")
    page.goto(f"{app_url}/inside?tokenizer=gpt2&id=43453")  # " SolidGoldMagikarp"
    wait_for_app(page)
    page.locator(".tl-tree .tl-tbox").first.wait_for(timeout=TIMEOUT)
    root = page.locator(".tl-tree .tl-tbox").first
    assert abs(luminance(page.evaluate("e => getComputedStyle(e).backgroundColor", root.element_handle()))
               - luminance(page.evaluate("e => getComputedStyle(e).color", root.element_handle()))) > 0.5
    settle(page)
    screenshot(page, "dark-inside-tree")
    ctx.close()


# -- right-to-left and joining scripts ---------------------------------------------------------------

def test_text_with_boundaries_keeps_scripts_shaped(page, app_url):
    text = "مرحبا بالعالم\nשלום עולם\nनमस्ते दुनिया क्षत्रिय\n👨‍👩‍👧‍👦 family 🏳️‍🌈"
    open_compare(page, app_url, text=text, tokenizers="cl100k_base,o200k_base", view="Text with boundaries")
    page.locator(".tl-head").first.wait_for(timeout=TIMEOUT)
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stBidiComponentIsolated]')]
        .some(h => h.shadowRoot && h.shadowRoot.querySelector('.tl-bview[data-marks]'))""", timeout=TIMEOUT)
    settle(page)
    views = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stBidiComponentIsolated]')]
        .map(h => h.shadowRoot && h.shadowRoot.querySelector('.tl-bview')).filter(Boolean)
        .map(v => ({text: v.querySelector('.tl-btext').textContent, marks: +v.dataset.marks,
                    splits: +v.dataset.splits, html: v.querySelector('.tl-btext').innerHTML}))""")
    assert len(views) == 2
    for v in views:
        assert v["text"] == text  # one text node: the browser shapes it whole
        assert v["html"] == v["html"].replace("<", "")  or "<" not in v["html"]  # no elements inside the text
        assert v["marks"] > 10
        assert v["splits"] >= 1  # the family emoji is cut inside by byte-level tokens
    screenshot(page, "rtl-boundaries")
    assert not page.errors


BOX_OVERLAPS = """() => {
  const out = {marks: 0, splits: 0, overlaps: []};
  for (const host of document.querySelectorAll('[data-testid=stBidiComponentIsolated]')) {
    const view = host.shadowRoot && host.shadowRoot.querySelector('.tl-bview');
    if (!view) continue;
    const node = view.querySelector('.tl-btext').firstChild, text = node.textContent, range = document.createRange();
    const glyphs = [];
    for (const g of new Intl.Segmenter(undefined, {granularity: 'grapheme'}).segment(text)) {
      if (!g.segment.trim()) continue;  // a space has no ink to cover
      range.setStart(node, g.index); range.setEnd(node, g.index + g.segment.length);
      for (const r of range.getClientRects()) glyphs.push([g.segment, r]);
    }
    const marks = [...view.querySelectorAll('.tl-bmark, .tl-bsplit')];
    out.marks += view.querySelectorAll('.tl-bmark').length;
    out.splits += view.querySelectorAll('.tl-bsplit').length;
    for (const m of marks) {
      const a = m.getBoundingClientRect();
      for (const [g, b] of glyphs) {
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h > 0.5) out.overlaps.push(`${m.className} over ${g}`);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_boundary_marks_sit_between_letters_not_over_them(browser, app_url, scheme):
    """A bar through the line at each boundary read as a stroke through Hangul and Greek letters (no
    space between them): each mark's box must miss every letter's box (the browser's own rectangles)."""
    text = "안녕하세요, 세계! Καλημέρα κόσμε, τι κάνεις; cafe\u0301"
    ctx = new_context(browser, viewport={"width": 1280, "height": 720}, color_scheme=scheme)
    page = ctx.new_page()
    open_compare(page, app_url, text=text, tokenizers="cl100k_base", view="Text with boundaries", font="XL")
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stBidiComponentIsolated]')]
        .some(h => h.shadowRoot && h.shadowRoot.querySelector('.tl-bview[data-marks]'))""", timeout=TIMEOUT)
    settle(page)
    found = page.evaluate(BOX_OVERLAPS)
    assert found["marks"] > 2 * 10 and found["splits"] == 1  # two ticks a boundary; é cut inside
    assert found["overlaps"] == []
    page.locator(".tl-head").first.scroll_into_view_if_needed()
    screenshot(page, f"boundaries-korean-greek-{scheme}")
    ctx.close()


# -- BPE Lab ---------------------------------------------------------------------------------------

def train_default(page, app_url):
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    page.get_by_role("button", name="Train").click()
    page.get_by_text("Learned").first.wait_for(timeout=TIMEOUT)


def test_lab_view_stays_after_moving_the_step_slider(page, app_url):
    train_default(page, app_url)
    page.get_by_text("Step by step", exact=True).click()
    pairs = page.get_by_text("Most frequent pairs now")
    pairs.wait_for(timeout=TIMEOUT)
    slider = page.get_by_role("slider").first
    slider.focus()
    with rerun(page):  # the slider sends its value a moment after the key; the view must stay after that run
        slider.press("ArrowRight")
    page.get_by_text("Merge 1 joined").wait_for(timeout=TIMEOUT)
    assert pairs.is_visible()
    assert not page.get_by_placeholder("a token, e.g.").is_visible()  # the merge search (Merges view)
    screenshot(page, "lab-step-after-slider")


def test_lab_play_animates_the_merges(page, app_url):
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    page.get_by_role("button", name="Classic example").click()
    page.get_by_text("[258, 100, 258, 97, 99]").first.wait_for(timeout=TIMEOUT)
    page.get_by_text("Letter names").click()
    settle(page)
    play = page.get_by_role("button", name="Play again")
    play.wait_for(timeout=TIMEOUT)
    play.click()  # from the end: starts again at 0 and steps to 3
    page.get_by_text("Merge 1 joined").wait_for(timeout=TIMEOUT)
    page.get_by_text("Merge 3 joined").wait_for(timeout=TIMEOUT)
    settle(page)
    spans = page.locator(".tl-spans").first.inner_text()
    assert spans.startswith("XdXac"), spans  # aaabdaaabac after 3 merges, as the worked example writes it
    assert page.locator(".tl-hl").count() == 2  # the newest token, X, outlined twice
    screenshot(page, "lab-play-letters")
    assert not page.errors


# -- walk-through bugs that need a browser ---------------------------------------------------------

def test_inside_picker_follows_a_tokenizer_switch(page, app_url):
    page.goto(f"{app_url}/inside")
    wait_for_app(page)
    page.get_by_text("Token 3404").first.wait_for(timeout=TIMEOUT)
    page.get_by_label("Tokenizer").click()
    page.get_by_role("option", name="Mistral 7B (SentencePiece)").click()
    page.get_by_text("Token 16625").first.wait_for(timeout=TIMEOUT)
    settle(page)
    picker = page.locator("[data-testid='stSelectbox'] input[aria-label='Token']").input_value()
    assert "16625" in picker and "3404" not in picker, picker
    screenshot(page, "inside-after-switch")


def test_counts_fit_a_phone(browser, app_url):
    ctx = new_context(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(app_url)
    wait_for_app(page)
    table = page.locator("table.tl-counts")
    table.wait_for(timeout=TIMEOUT)
    table.scroll_into_view_if_needed()
    settle(page)
    width = page.evaluate("document.documentElement.clientWidth")
    cells = page.evaluate("""() => [...document.querySelectorAll('table.tl-counts td')].map(td => {
        const r = td.getBoundingClientRect(); return [r.left, r.right, td.textContent]; })""")
    assert cells and all(0 <= left and right <= width + 1 for left, right, _ in cells), (width, cells[:8])
    page.screenshot(path=str(screenshot_path("phone-counts")), full_page=False)
    ctx.close()


def test_merge_tree_leaves_do_not_overlap(page, app_url):
    page.goto(f"{app_url}/inside?tokenizer=cl100k_base&id=58040")  # 128 spaces, 128 leaves
    wait_for_app(page)
    page.locator(".tl-tree .tl-tleaf").first.wait_for(timeout=TIMEOUT)
    boxes = page.evaluate("""() => [...document.querySelectorAll('.tl-tree .tl-tbox')].map(b => {
        const r = b.getBoundingClientRect();
        return {l: r.left, r: r.right, t: r.top, b: r.bottom, fits: b.scrollWidth <= b.clientWidth + 1,
                leaf: b.classList.contains('tl-tleaf')}; })""")
    leaves = [b for b in boxes if b["leaf"]]
    assert len(leaves) == 128
    assert all(b["fits"] for b in boxes)  # every label inside its box
    for a, b in zip(leaves, leaves[1:]):
        assert a["r"] <= b["l"] + 0.5 or a["b"] <= b["t"] or b["b"] <= a["t"]
    page.goto(f"{app_url}/inside?tokenizer=gpt2&id=43453")
    wait_for_app(page)
    page.locator(".tl-tree .tl-tbox").first.wait_for(timeout=TIMEOUT)
    fits = page.evaluate("[...document.querySelectorAll('.tl-tree .tl-tbox')].every(b => b.scrollWidth <= b.clientWidth + 1)")
    assert fits
    settle(page)
    screenshot(page, "inside-solidgoldmagikarp-tree")
