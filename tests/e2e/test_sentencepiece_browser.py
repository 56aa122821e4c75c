"""The SentencePiece Lab in a real browser: train with the Llama 2 preset, byte fallback on and off,
then a unigram model's lattice and sampled segmentations beside BPE-dropout; a corrupt upload."""

import re

import pytest

from tests.e2e.conftest import (choose, download_spans, heads_of, new_context, screenshot, settle, upload_training_text,
                                wait_drawn, wait_for_app, wait_plotted)


def open_tab(page, name: str):
    page.get_by_role("tab", name=name, exact=True).click()
    settle(page)


def test_train_inspect_lattice_and_sampling(page, app_url, tmp_path):
    page.goto(f"{app_url}/sentencepiece")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0  # the deep link works on a fresh server
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a bpe model of 1,000 pieces").wait_for(timeout=60_000)
    wait_plotted(page)
    wait_drawn(page)  # the vocabulary grid draws on a canvas after it mounts
    screenshot(page, "sp-lab-trained")
    page.get_by_text("All options, with what each does").click()
    page.get_by_label("character_coverage", exact=True).wait_for(timeout=10_000)
    settle(page)
    screenshot(page, "sp-lab-options")
    page.get_by_text("All options, with what each does").click()

    open_tab(page, "Byte fallback")
    page.get_by_role("button", name="Train the same model with byte_fallback off").click()
    page.get_by_text("byte_fallback off —").wait_for(timeout=60_000)
    settle(page)
    assert page.get_by_text("<0xEC>", exact=False).count() > 0  # 안 spelled as bytes on the left
    screenshot(page, "sp-lab-byte-fallback")
    # issue 21: both encodings for slides, as drawn
    assert heads_of(download_spans(page, within=page.locator("[role=tabpanel]:visible"))) == [
        "byte_fallback on", "byte_fallback off"]
    open_tab(page, "Encode")
    page.locator("[role=tabpanel]:visible .tl-spans").first.wait_for(timeout=30_000)
    assert heads_of(download_spans(page, within=page.locator("[role=tabpanel]:visible"))) == [
        "Lab SentencePiece model"]

    open_tab(page, "Merge tree")
    page.locator(".tl-tree").first.wait_for(timeout=30_000)
    screenshot(page, "sp-lab-merge-tree")

    choose(page, "model_type", "unigram", exact=True)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a unigram model").wait_for(timeout=60_000)
    open_tab(page, "Lattice")
    page.get_by_text("The n best segmentations").wait_for(timeout=30_000)
    settle(page)
    wait_plotted(page)
    screenshot(page, "sp-lab-lattice")
    # a piece is text, never markup, in the figures too
    box = page.get_by_label("A short text", exact=True)
    box.fill("a<b>c</b>")
    box.press("Control+Enter")  # a live box: it sends as you type; Ctrl+Enter sends at once
    settle(page)
    # plotly redraws after the run: wait until the lattice's axis shows the new text's characters
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot text')].some(t => t.textContent === '<')", timeout=30_000)
    labels = page.locator(".js-plotly-plot text").all_text_contents()
    assert "<" in labels and "b" in labels  # the characters as themselves on the axis
    assert page.locator(".js-plotly-plot b, .js-plotly-plot a[href]").count() == 0

    open_tab(page, "Sampling")
    page.get_by_role("button", name="Train a bpe model on the same text to compare").click()
    page.get_by_text("BPE-dropout, each merge dropped").wait_for(timeout=60_000)
    settle(page)
    screenshot(page, "sp-lab-sampling")

    # a corrupt .model is refused with a message, and the model stays
    bad = tmp_path / "broken.model"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    page.locator("[data-testid='stFileUploader'] input[type=file]").last.set_input_files(str(bad))
    page.get_by_text("This is not a SentencePiece model").wait_for(timeout=30_000)
    assert page.get_by_text("Trained a unigram model").count() == 1
    screenshot(page, "sp-lab-corrupt-model")
    assert not page.errors


TREE_BOXES = """() => [...document.querySelectorAll('.tl-tree .tl-tbox')].map(b => {
  const inner = document.createRange(); inner.selectNodeContents(b.firstChild);
  const t = inner.getBoundingClientRect(), r = b.getBoundingClientRect();
  return {label: b.firstChild.textContent, fits: t.left >= r.left - 0.5 && t.right <= r.right + 0.5,
          background: getComputedStyle(b).backgroundColor}; })"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_merge_tree_labels_fit_their_boxes_and_follow_the_theme(browser, app_url, scheme):
    """The tree was a plotly figure: long pieces ran out of their fixed-size squares, and the figure stayed
    white on a dark page. Inside's HTML tree sizes each box to its label and has dark colors."""
    ctx = new_context(browser, viewport={"width": 1280, "height": 720}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(f"{app_url}/sentencepiece")
    wait_for_app(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a bpe model of 1,000 pieces").wait_for(timeout=60_000)
    settle(page)
    open_tab(page, "Merge tree")
    page.locator(".tl-tree .tl-tbox").first.wait_for(timeout=30_000)
    boxes = page.evaluate(TREE_BOXES)
    assert len(boxes) >= 5 and len(boxes[0]["label"]) >= 6  # the longest piece, down to its characters
    assert [b["label"] for b in boxes if not b["fits"]] == []

    def luminance(css: str) -> float:
        r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    shades = [luminance(b["background"]) for b in boxes]
    assert all(s < 0.4 for s in shades) if scheme == "dark" else all(s > 0.6 for s in shades), shades
    page.locator(".tl-tree").first.scroll_into_view_if_needed()
    screenshot(page, f"sp-lab-merge-tree-{scheme}-1280")
    ctx.close()


def test_progress_while_training_a_big_upload(page, app_url, tmp_path):
    from tokenizers.analysis.samples import stdlib_source

    corpus = tmp_path / "stdlib.py.txt"
    corpus.write_text(stdlib_source(2_000_000), encoding="utf-8")
    page.goto(f"{app_url}/sentencepiece")
    wait_for_app(page)
    upload_training_text(page, corpus)
    page.get_by_text("stdlib.py.txt: ").wait_for(timeout=30_000)
    choose(page, "Preset", "Library defaults", exact=True)
    vocab = page.get_by_label("vocab_size", exact=True)
    vocab.fill("8000")
    vocab.press("Enter")
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("EM: estimating piece probabilities").wait_for(timeout=60_000)  # the phase, live
    screenshot(page, "sp-lab-training-progress")
    page.get_by_text("Trained a unigram model of 8,000 pieces").wait_for(timeout=120_000)
    assert not page.errors
