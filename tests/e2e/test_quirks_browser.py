"""Quirks and Languages in a real browser: deep links, a card's live counts and tooltip, editing a
card, the link to Compare, the evidence tabs (a heatmap's hover), and a parallel-corpus upload."""

import re

import pytest

from tests.e2e.conftest import SHOTS, screenshot, settle, wait_for_app, wait_plotted
from tokenizers import default_tokenizers


def card(page, key: str):
    return page.locator(f".st-key-quirks_{key}_card")


def shot(locator, name: str) -> None:
    """A screenshot of one element (the page scrolls inside Streamlit, so a full-page shot shows only
    the top)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(SHOTS / f"{name}.png"))


def count_of(locator, tokenizer: str, n: int = 0) -> int:
    head = locator.locator(f".tl-head[data-tokenizer='{tokenizer}']").nth(n)
    return int(head.locator(".tl-count").inner_text().replace(",", ""))


def test_gallery_cards_edit_and_open_on_compare(page, app_url):
    page.goto(f"{app_url}/quirks")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0
    card(page, "pair").locator(".tl-head").first.wait_for(timeout=60_000)  # the last card has drawn
    spelling = card(page, "spelling")
    assert count_of(spelling, "cl100k_base") == 1 and count_of(spelling, "cl100k_base", 1) == 17
    tok = spelling.locator(".tl-tok[data-ids='98518']").first
    tok.scroll_into_view_if_needed()
    settle(page)  # every element mounted: the layout no longer moves under the pointer
    tok.hover()
    page.wait_for_function("el => getComputedStyle(el, '::after').content !== 'none'", arg=tok.element_handle(),
                           timeout=10_000)
    tip = page.evaluate("el => getComputedStyle(el, '::after').content", tok.element_handle())
    assert "id 98518" in tip
    screenshot(page, "quirks-gallery")
    for key in ("special", "glitch", "unicode", "case"):
        shot(card(page, key), f"quirks-card-{key}")

    # edit a card in place: its counts follow
    box = card(page, "pair").get_by_label("Text A")
    box.fill("안녕하세요 👋 (hello in Korean!)")
    box.press("Control+Enter")
    page.wait_for_function("() => { const h = document.querySelector(\".st-key-quirks_pair_card "
                           ".tl-head[data-tokenizer='gpt2'] .tl-count\"); return h && h.innerText === '21'; }",
                           timeout=30_000)
    shot(card(page, "pair"), "quirks-card-edited")

    href = spelling.get_by_role("link", name="Open A on Compare").get_attribute("href")
    page.goto(page.evaluate("h => new URL(h, location.href).href", href))
    wait_for_app(page)
    page.wait_for_function("() => [...document.querySelectorAll('textarea')].some(t => t.value === '.DefaultCellStyle')"
                           f" && document.querySelectorAll('.tl-head').length === {len(default_tokenizers())}",
                           timeout=60_000)
    assert page.get_by_label("Text", exact=True).input_value() == ".DefaultCellStyle"
    assert count_of(page, "cl100k_base") == 1
    screenshot(page, "quirks-opened-on-compare")
    assert not page.errors


def test_evidence_tabs(page, app_url):
    page.goto(f"{app_url}/quirks?quirks_tab=Numbers")
    wait_for_app(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=90_000)
    wait_plotted(page, 5)
    plot = page.locator(".js-plotly-plot").nth(2)  # GPT-2's heatmap
    plot.scroll_into_view_if_needed()
    box = plot.locator(".nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.5)
    page.locator(".hovertext").first.wait_for(timeout=10_000)
    hover = page.locator(".hovertext").first.text_content()
    assert re.search(r"^\d+: .+\d token\(s\)$", hover), hover
    screenshot(page, "quirks-numbers")

    page.get_by_role("tab", name="Vocabulary audit").click()
    page.get_by_text("12 unreachable token(s) in o200k_base (GPT-4o)").wait_for(timeout=60_000)
    settle(page)
    screenshot(page, "quirks-audit")

    page.get_by_role("tab", name="Rare long tokens").click()
    page.get_by_text("Published findings for GPT-2").wait_for(timeout=60_000)
    settle(page)
    screenshot(page, "quirks-rare-tokens")
    assert not page.errors


def test_languages_page_and_upload(page, app_url, tmp_path):
    page.goto(f"{app_url}/languages")
    wait_for_app(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 2", timeout=90_000)
    wait_plotted(page, 2)
    assert page.get_by_text("Page not found").count() == 0
    screenshot(page, "languages-parallel-text")

    page.get_by_role("tab", name="Programs").click()
    page.get_by_text("FizzBuzz from 1 to 100").wait_for(timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 2", timeout=60_000)
    wait_plotted(page, 2)
    screenshot(page, "languages-programs")

    page.get_by_role("tab", name="Your corpus").click()
    page.get_by_text("No files yet.").wait_for(timeout=60_000)
    files = []
    for code, text in {"eng": "Good morning.\nThank you very much.\n", "kor": "좋은 아침입니다.\n정말 감사합니다.\n",
                       "hin": "सुप्रभात।\nबहुत धन्यवाद।\n"}.items():
        path = tmp_path / f"{code}.txt"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    page.locator("input[type=file]").set_input_files(files)
    page.get_by_text("Done: 3 languages").wait_for(timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 2", timeout=60_000)
    wait_plotted(page, 2)
    screenshot(page, "languages-upload")
    assert not page.errors


@pytest.mark.parametrize("key", ["case", "healing"])
def test_card_tables_show_every_column_at_1280(browser, app_url, key):
    """The case card's table had a column per spelling, and "Where a prompt ends" a wide "most common"
    column: at 1280 px their last columns were off the card, behind a sideways scroll. Every column
    must be in view."""
    from tests.e2e.conftest import new_context, wait_drawn

    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.goto(f"{app_url}/quirks")
    wait_for_app(page)
    table = card(page, key).locator("[data-testid=stDataFrame]")  # its only table
    table.wait_for(timeout=60_000)
    table.scroll_into_view_if_needed()
    wait_drawn(page, f".st-key-quirks_{key}_card [data-testid=stDataFrame] canvas")
    scroller = table.locator(".dvn-scroller").first
    width = scroller.evaluate("s => ({scroll: s.scrollWidth, client: s.clientWidth})")
    assert width["scroll"] <= width["client"] + 1, width
    shot(card(page, key), f"quirks-card-{key}-1280")
    ctx.close()
