"""The Algorithms page in a real browser: train all five on the built-in corpus, see the segmentations
with their markers and unknown tokens, step through WordPiece, the curve, and a model on Compare."""

import re
import xml.etree.ElementTree as ET

from tests.e2e.conftest import (SVG, download_spans, heads_of, screenshot, settle, upload_training_text, wait_drawn,
                                wait_for_app, wait_plotted)


def test_train_all_five_and_look(page, app_url):
    page.set_viewport_size({"width": 1400, "height": 3400})  # the page is long; show it whole
    page.goto(f"{app_url}/algorithms")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0  # a deep link works on a fresh server
    page.get_by_role("button", name="Train all five").click()
    page.get_by_text("5 of 5 algorithms").wait_for(timeout=120_000)
    page.locator(".tl-spans").first.wait_for(timeout=30_000)
    settle(page)
    wait_drawn(page)  # the dataframes draw on a canvas after they mount
    heads = page.evaluate("[...document.querySelectorAll('.tl-head')].map(e => e.dataset.tokenizer)")
    assert heads == ["alg_char", "alg_word_bpe", "alg_wordpiece", "alg_unigram", "alg_byte_bpe"]
    markers = page.evaluate("[...document.querySelectorAll('.tl-spans .tl-wm')].map(e => e.textContent)")
    assert "</w>" in markers and "##" in markers  # markers drawn as such
    assert page.locator(".tl-spans .tl-unk").count() >= 4  # 안녕하세요 and 👋 are unknown to four of them
    screenshot(page, "algorithms-segmentation")
    svg = download_spans(page)  # issue 21: the segmentations for slides, as drawn
    assert heads_of(svg) == ["Character-level", "Classic BPE (</w>)", "WordPiece (##)", "Unigram (SentencePiece)",
                             "Byte-level BPE"]
    assert sum("tl-unk" in (g.get("class") or "") for g in ET.fromstring(svg).iter(f"{SVG}g")) >= 4

    unk = page.locator(".tl-spans .tl-unk").first
    unk.hover()
    page.wait_for_function("el => getComputedStyle(el, '::after').content !== 'none'", arg=unk.element_handle(),
                           timeout=10_000)
    screenshot(page, "algorithms-unknown-tooltip")

    page.get_by_role("tab", name="Training steps").click()
    page.get_by_label("Training of").click()
    page.get_by_role("option", name="WordPiece (##)").click()
    page.get_by_text("by WordPiece's score").wait_for(timeout=30_000)
    page.get_by_label("Training of").scroll_into_view_if_needed()
    page.mouse.wheel(0, 300)
    settle(page)
    wait_drawn(page)
    screenshot(page, "algorithms-wordpiece-steps")
    (head,) = heads_of(download_spans(page, within=page.locator("[role=tabpanel]:visible")))
    assert re.fullmatch(r"WordPiece \(##\) after [\d,]+ steps?", head), head

    page.get_by_role("tab", name="Length vs vocab size").click()
    wait_plotted(page)
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    traces = page.evaluate("[...document.querySelectorAll('.js-plotly-plot .legendtext')].map(e => e.textContent)")
    assert traces == ["Character-level", "Classic BPE (</w>)", "WordPiece (##)", "Unigram (SentencePiece)",
                      "Byte-level BPE"]
    screenshot(page, "algorithms-length-curve")

    page.get_by_role("tab", name="Vocabularies").click()
    page.get_by_label("Vocabulary of").click()
    page.get_by_role("option", name="Classic BPE (</w>)").click()
    page.get_by_label("Search by spelling or id").fill("</w>")
    page.get_by_label("Search by spelling or id").press("Enter")
    page.get_by_text("tokens match").wait_for(timeout=30_000)
    page.get_by_label("Vocabulary of").scroll_into_view_if_needed()
    settle(page)
    wait_drawn(page)
    screenshot(page, "algorithms-vocabulary")
    assert not page.errors


def test_uploads_are_checked_and_named_literally(page, app_url, tmp_path):
    page.goto(f"{app_url}/algorithms")
    wait_for_app(page)
    blob = tmp_path / "image.txt"
    blob.write_bytes(b"\x00\x01\x02" * 5000)
    upload_training_text(page, blob)
    page.get_by_text("looks like a binary file").wait_for(timeout=30_000)
    named = tmp_path / "notes [click](https:example) **bold**.txt"
    named.write_bytes("caf\xe9 na\xefve r\xe9sum\xe9 low lower newest widest ".encode("latin-1") * 100)
    upload_training_text(page, named, choose=False)
    page.get_by_text("not all valid UTF-8").wait_for(timeout=30_000)
    # the file name is shown as text: no link, no bold
    # (escape_markdown puts an invisible WORD JOINER before "https" and after its colon, so that no autolink forms)
    page.get_by_text(re.compile(r"notes \[click\]\(\u2060?https:\u2060?example\) \*\*bold\*\*\.txt")).wait_for(timeout=10_000)
    assert page.locator("a[href*='example']").count() == 0
    page.get_by_role("button", name="Train all five").click()
    page.get_by_text("algorithms. Each one is now on the Compare page").wait_for(timeout=120_000)
    page.locator(".tl-spans").first.wait_for(timeout=30_000)
    settle(page)
    screenshot(page, "algorithms-upload")
    assert not page.errors
