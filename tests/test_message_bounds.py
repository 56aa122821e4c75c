"""What a view sends to the browser is bounded whatever the input (issue 16): the biggest ForwardMsg of
a run, as benchmarks/ws_messages.py measures it, for the views that used to grow with their input.
Streamlit refuses messages over server.maxMessageSize (50 MB in .streamlit/config.toml)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import app_test

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from ws_messages import corpus, million_merges_model, recording  # noqa: E402

MB = 1_000_000
pytestmark = pytest.mark.slow  # every view here is driven with 300 KB to a million merges


def biggest(at, action=None) -> tuple[int, str]:
    with recording() as rec:
        if action:
            action(at)
        at.run()
    assert not at.exception, at.exception
    return rec.biggest


def test_text_b_is_paged_like_text_a():
    """A 300 KB text B was drawn whole: 9 MB in one message (31 MB for 1 MB)."""
    at = app_test(timeout=300)
    text = corpus(300_000)

    def act(at):
        at.session_state["compare_text"] = text
        at.session_state["compare_ab"] = True
        at.session_state["compare_text_b"] = text
    size, what = biggest(at, act)
    assert size < 1 * MB, (size, what)
    assert any("text B: 1–" in c.value for c in at.caption)


def test_a_model_of_a_million_merges_sends_a_page_of_its_tables():
    """The Lab's merge table sent all 1,000,000 rows (79 MB); its token lengths went as a million raw
    values (2 MB), on the Lab and on Inside; its downloads were built on every rerun."""
    at = app_test("bpe_lab", timeout=300)
    at.file_uploader(key="lab_load").set_value(("big.model", million_merges_model(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    for view in ("Merges", "Tokens", "Save"):
        at.session_state["lab_view"] = view
        size, what = biggest(at)
        assert size < 1 * MB, (view, size, what)
    at.session_state["lab_view"] = "Merges"
    at.run()
    assert any("1,000,000 merges; the first 5,000 are listed" in c.value for c in at.caption)
    at.switch_page("app_pages/inside.py")
    at.session_state["inside_tok"] = "lab_bpe"
    size, what = biggest(at)
    assert size < 1 * MB, (size, what)


def test_a_long_conversation_shows_the_start_of_its_formatted_text():
    at = app_test(timeout=300)
    at.session_state["compare_mode"] = "Chat"
    at.run()
    turns = 12

    def act(at):
        at.session_state["compare_chat_turns"] = list(range(turns))
        at.session_state["compare_chat_next"] = turns
        at.session_state["compare_chat_tokenizers"] = ["qwen"]
        for i in range(turns):
            at.session_state[f"compare_chat_role_{i}"] = "user"
            at.session_state[f"compare_chat_text_{i}"] = corpus(50_000)
    size, what = biggest(at, act)
    assert size < 1 * MB, (size, what)
    codes = [c.value for c in at.code]
    assert max(len(c) for c in codes) <= 20_002
    assert "Formatted text (.txt)" in [b.proto.label for b in at.get("download_button")]
