"""Issue 21: every spans view downloads as an SVG (for slides) and a self-contained HTML page, through
the one "Download spans" popover (app_pages.kit.shared.spans_downloads): here Compare (with the boundaries
that differ), a Quirks card, Inside and chat mode; Algorithms', the BPE Lab's and the SentencePiece
Lab's in their own browser tests, after their training. The drawing is tested in tests/test_notebook.py."""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ET

from tests.e2e.conftest import SVG, download_spans, heads_of, screenshot, settle, wait_for_app
from tokenizers import get_tokenizer


def rects(svg: str, **attrs) -> list:
    return [r for r in ET.fromstring(svg).iter(f"{SVG}rect") if all(r.get(k) == v for k, v in attrs.items())]


def test_compare_downloads_carry_the_boundaries_that_differ(page, app_url):
    text = "127 + 677 = 804 and hello   world"
    query = urllib.parse.urlencode({"text": text, "tokenizers": "gpt2,cl100k_base"})
    page.goto(f"{app_url}/?{query}")
    wait_for_app(page)
    page.get_by_text("Mark boundaries that differ").click()
    settle(page)
    page.locator(".tl-diff").first.wait_for(timeout=30_000)
    on_screen = page.locator(".tl-tok.tl-diff:not(.tl-neutral)").count()  # not the legend's example
    svg = download_spans(page)
    assert len(heads_of(svg)) == 2
    assert 0 < len(rects(svg, **{"class": "tl-edge"})) == on_screen  # the red edges, as on screen
    html = download_spans(page, kind="HTML page")
    assert len(re.findall(r'class="[^"]*\btl-diff\b', html)) == on_screen
    screenshot(page, "compare-spans-downloads-diff")
    assert not page.errors


def test_compare_downloads_both_texts_with_the_diff_of_each(page, app_url):
    a, b = "127 + 677 = 804", "hello   world 2024"
    query = urllib.parse.urlencode({"text": a, "text_b": b, "ab": "1", "tokenizers": "gpt2,cl100k_base",
                                    "diff": "1", "ref": "cl100k_base"})
    page.goto(f"{app_url}/?{query}")
    wait_for_app(page)
    page.locator(".tl-tok.tl-diff").first.wait_for(timeout=30_000)
    svg = download_spans(page)
    assert heads_of(svg) == ["GPT-2 · A", "GPT-2 · B", "cl100k_base (GPT-4) · A", "cl100k_base (GPT-4) · B"]
    on_screen = page.locator(".tl-tok.tl-diff:not(.tl-neutral)").count()
    assert 0 < len(rects(svg, **{"class": "tl-edge"})) == on_screen  # GPT-2's A against cl100k's, as on screen
    assert not page.errors


def test_a_quirks_card_downloads_what_it_draws(page, app_url):
    page.goto(f"{app_url}/quirks")
    wait_for_app(page)
    card = page.locator("[class*='st-key-quirks_'][class*='_card']").filter(has=page.locator(".tl-spans")).first
    card.wait_for(timeout=60_000)
    settle(page)
    shown = card.locator(".tl-spans").count()
    svg = download_spans(page, within=card)
    assert len(heads_of(svg)) == shown >= 2
    screenshot(page, "quirks-spans-download")
    assert not page.errors


def test_inside_downloads_the_text_with_the_picked_token_outlined(page, app_url):
    page.goto(f"{app_url}/inside?" + urllib.parse.urlencode({"tokenizer": "gpt2", "text": "Egg. I have an egg.",
                                                              "token": "3"}))
    wait_for_app(page)
    svg = download_spans(page)
    assert len(heads_of(svg)) == 1
    ringed = [g for g in ET.fromstring(svg).iter(f"{SVG}g")
              if any(r.get("stroke-width") == "3" for r in g.iter(f"{SVG}rect"))]
    assert len(ringed) == 1 and ringed[0].get("data-ids") == str(get_tokenizer("gpt2").encode("Egg. I have an egg.")[3])
    assert not page.errors


def test_chat_mode_downloads_each_formatted_conversation(page, app_url):
    page.goto(f"{app_url}/?mode=chat")
    wait_for_app(page)
    page.locator(".tl-special").first.wait_for(timeout=60_000)
    settle(page)
    svg = download_spans(page, 0)
    (head,) = heads_of(svg)
    assert " · " in head  # the tokenizer and its chat format
    assert ET.fromstring(svg).find(f".//{SVG}g") is not None
    assert not page.errors
