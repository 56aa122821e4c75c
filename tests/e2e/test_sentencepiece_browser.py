"""The SentencePiece Lab in a real browser: train with the Llama 2 preset, byte fallback on and off,
then a unigram model's lattice and sampled segmentations beside BPE-dropout; a corrupt upload."""

from tests.e2e.conftest import screenshot, wait_for_app


def choose(page, label: str, option: str):
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()
    page.wait_for_timeout(800)


def open_tab(page, name: str):
    page.get_by_role("tab", name=name, exact=True).click()
    wait_for_app(page)
    page.wait_for_timeout(1200)


def test_train_inspect_lattice_and_sampling(page, app_url, tmp_path):
    page.goto(f"{app_url}/sentencepiece")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0  # the deep link works on a fresh server
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a bpe model of 1,000 pieces").wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    page.wait_for_timeout(2500)  # the vocabulary grid draws on a canvas after it mounts
    screenshot(page, "sp-lab-trained")

    open_tab(page, "Byte fallback")
    page.get_by_role("button", name="Train the same model with byte_fallback off").click()
    page.get_by_text("byte_fallback off —").wait_for(timeout=60_000)
    page.wait_for_timeout(1000)
    assert page.get_by_text("<0xEC>", exact=False).count() > 0  # 안 spelled as bytes on the left
    screenshot(page, "sp-lab-byte-fallback")

    open_tab(page, "Merge tree")
    page.locator(".js-plotly-plot").last.wait_for(timeout=30_000)
    page.wait_for_timeout(800)
    screenshot(page, "sp-lab-merge-tree")

    choose(page, "model_type", "unigram")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Trained a unigram model").wait_for(timeout=60_000)
    open_tab(page, "Lattice")
    page.get_by_text("The n best segmentations").wait_for(timeout=30_000)
    page.wait_for_timeout(2500)
    screenshot(page, "sp-lab-lattice")

    open_tab(page, "Sampling")
    page.get_by_role("button", name="Train a bpe model on the same text to compare").click()
    page.get_by_text("BPE-dropout, each merge dropped").wait_for(timeout=60_000)
    page.wait_for_timeout(2500)
    screenshot(page, "sp-lab-sampling")

    # a corrupt .model is refused with a message, and the model stays
    bad = tmp_path / "broken.model"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    page.locator("[data-testid='stFileUploader'] input[type=file]").last.set_input_files(str(bad))
    page.get_by_text("This is not a SentencePiece model").wait_for(timeout=30_000)
    assert page.get_by_text("Trained a unigram model").count() == 1
    screenshot(page, "sp-lab-corrupt-model")
    assert not page.errors
