"""The BPE Lab in a real browser: train on pasted text, see the merge table and curves, reject a
binary upload, load a saved model."""

import re

from tests.e2e.conftest import (download_spans, heads_of, screenshot, settle, upload_training_text, wait_drawn,
                                wait_for_app, wait_plotted)
from tokenizers import BPETokenizer

TEXT = ("low lower lowest newer newest wider widest " * 30).strip()


def test_train_on_pasted_text(page, app_url, tmp_path):
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    assert page.get_by_text("Page not found").count() == 0  # a deep link works on a fresh server
    page.get_by_label("Text to train on").fill(TEXT)
    vocab = page.get_by_label("Vocabulary size (256–8,192)")
    vocab.fill("300")
    vocab.press("Enter")
    settle(page)
    page.get_by_role("button", name="Train").click()
    expected = BPETokenizer("gpt4").train(TEXT, 300).merges
    page.get_by_text(f"Learned {expected} merges").wait_for(timeout=60_000)
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=30_000)
    wait_drawn(page)  # the grid draws on a canvas after it mounts
    screenshot(page, "lab-merge-table")

    page.get_by_text("Compression", exact=True).click()  # the view control
    wait_plotted(page)
    screenshot(page, "lab-compression-curve")

    page.get_by_text("Vocabulary trade-off", exact=True).click()  # the view control
    settle(page)
    page.get_by_label("Embedding width d_model").wait_for(timeout=30_000)
    assert page.locator(".js-plotly-plot").count() == 1  # one view at a time: the trade-off chart
    screenshot(page, "lab-vocab-tradeoff")

    page.get_by_text("Step by step", exact=True).click()  # the view control
    settle(page)
    assert page.locator(".tl-tok").count() > 0
    screenshot(page, "lab-step")
    (head,) = heads_of(download_spans(page))  # issue 21: the step view for slides
    assert re.fullmatch(r"Lab BPE after [\d,]+ merges", head), head

    # a binary file is refused with a reason, and the page goes on working
    binary = tmp_path / "broken.model"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    page.locator("[data-testid='stFileUploader'] input[type=file]").last.set_input_files(str(binary))
    page.get_by_text("is not a text file").wait_for(timeout=30_000)
    screenshot(page, "lab-corrupt-model")

    good = tmp_path / "tiny.model"
    good.write_text("minbpe v1\n\n0\n97 97\n256 98\n", encoding="utf-8")
    page.locator("[data-testid='stFileUploader'] input[type=file]").last.set_input_files(str(good))
    page.get_by_text("Loaded a model with 2 merges").wait_for(timeout=30_000)
    assert not page.errors


def test_binary_corpus_upload_is_refused(page, app_url, tmp_path):
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    blob = tmp_path / "image.txt"
    blob.write_bytes(b"\x00\x01\x02" * 5000)
    upload_training_text(page, blob)
    page.get_by_text("looks like a binary file").wait_for(timeout=30_000)
    text = tmp_path / "latin1.txt"
    text.write_bytes("caf\xe9 na\xefve r\xe9sum\xe9 ".encode("latin-1") * 50)
    upload_training_text(page, text, choose=False)
    page.get_by_text("not all valid UTF-8").wait_for(timeout=30_000)
    page.get_by_role("button", name="Train").click()
    page.get_by_text("Learned").wait_for(timeout=60_000)
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=30_000)
    wait_drawn(page)  # the grid draws on a canvas after it mounts
    screenshot(page, "lab-latin1-upload")
    assert not page.errors


def test_a_catastrophic_regex_is_stopped_by_the_button_and_by_the_time_limit(page, app_url):
    """Training runs in a child process (tokenizers/jobs.py): the Stop button ends it at once, and a
    split pattern from a visitor gives up after its time limit with a message; the page stays usable."""
    page.goto(f"{app_url}/bpe-lab")
    wait_for_app(page)
    page.get_by_label("Text to train on").fill("a" * 3000 + "b")  # (a+)+$ backtracks for minutes on it
    page.get_by_label("Split pattern", exact=True).click()
    page.get_by_role("option", name="Custom regex", exact=True).click()
    regex = page.get_by_label("Regex (Python `regex` syntax)")
    regex.wait_for(timeout=30_000)
    regex.fill("(a+)+$")
    regex.press("Enter")
    settle(page)

    page.get_by_role("button", name="Train", exact=True).click()
    stop = page.get_by_role("button", name="Stop training")
    stop.wait_for(timeout=30_000)
    screenshot(page, "lab-training-stop-button")
    stop.click()
    page.get_by_text("Training stopped. The model trained before (if any) is kept.").wait_for(timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0

    page.get_by_role("button", name="Train", exact=True).click()  # left alone: the pattern's time limit
    page.get_by_text("ran for more than 3 s on this text and was stopped").wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Stop training").count() == 0
    screenshot(page, "lab-regex-time-limit")

    page.get_by_label("Split pattern", exact=True).click()  # still usable: a sane pattern trains
    page.get_by_role("option", name="GPT-4 pattern", exact=True).click()
    wait_for_app(page)
    page.get_by_label("Text to train on").fill(TEXT)
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Learned ").first.wait_for(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert not page.errors
