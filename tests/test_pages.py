"""Pages driven headlessly through Streamlit's AppTest."""

import pytest
from streamlit.testing.v1 import AppTest

from conftest import TRICKY_TEXTS
from tokenizers import default_tokenizers, get_tokenizer

TIMEOUT = 120


def run_app() -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def heads(at) -> list[str]:
    return [h.proto.body for h in at.get("html") if 'class="tl-head"' in h.proto.body]


def test_default_view_shows_the_four_defaults():
    at = run_app()
    found = heads(at)
    assert len(found) == 4
    for name in default_tokenizers():
        assert any(f'data-tokenizer="{name}"' in h for h in found)
    text = at.text_area(key="compare_text").value
    n = len(get_tokenizer("cl100k_base").tokenize(text))
    assert any('data-tokenizer="cl100k_base"' in h and f'class="tl-count">{n}<' in h for h in found)


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["x" * 300_000])
def test_tricky_text_never_breaks_the_page(text):
    at = run_app()
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    assert at.text_area(key="compare_text").value == text  # the user's text is kept
    if not text:
        assert any("Type or paste" in i.value for i in at.info)
    else:
        assert len(heads(at)) == 4


def test_lone_surrogate_in_state_is_reported():
    """Widgets cannot carry a lone surrogate (protobuf wants UTF-8), but state set by code can."""
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    at.session_state["compare_text"] = "a\ud83db"
    at.run()
    assert not at.exception
    assert any("lone surrogate" in w.value for w in at.warning)
    assert len(heads(at)) == 4


def visible_text(span_html: str) -> str:
    """The text a reader sees in rendered spans (markers for ▁ and grouped ids removed)."""
    import html
    import re

    inner = span_html.split('<div class="tl-spans">', 1)[1]
    inner = re.sub(r'<span class="tl-(?:prefix|ids)">.*?</span>', "", inner)
    return html.unescape("".join(re.findall(r">([^<]*)<", inner)))


def test_script_payload_is_escaped():
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    at = run_app()
    at.text_area(key="compare_text").set_value(payload).run()
    spans = [h.proto.body for h in at.get("html") if 'class="tl-spans"' in h.proto.body]
    assert len(spans) == 4
    for body in spans:
        assert "<script" not in body and "<img" not in body
        assert visible_text(body) == payload


def test_parse_special_toggle():
    at = run_app()
    at.text_area(key="compare_text").set_value("a <|endoftext|> b").run()
    assert "tl-tok tl-special" not in " ".join(h.proto.body for h in at.get("html"))
    assert any("treated as text" in c.value for c in at.caption)
    at.toggle(key="compare_parse_special").set_value(True).run()
    assert not at.exception
    assert "tl-tok tl-special" in " ".join(h.proto.body for h in at.get("html"))
    assert any("parsed" in c.value for c in at.caption)


def test_choosing_tokenizers():
    at = run_app()
    at.multiselect(key="compare_tokenizers").set_value(["o200k_base"]).run()
    assert not at.exception
    assert len(heads(at)) == 1 and 'data-tokenizer="o200k_base"' in heads(at)[0]
    at.multiselect(key="compare_tokenizers").set_value([]).run()
    assert any("Pick at least one" in i.value for i in at.info)


def test_missing_vocabulary_shows_the_fix_and_keeps_the_page(tmp_path, monkeypatch):
    import streamlit as st
    import tiktoken.registry

    import tokenizers

    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setenv("TOKEN_LENS_CACHE", str(tmp_path))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setattr(tokenizers, "_built", {})
    st.cache_resource.clear()
    try:
        at = run_app()
        errors = " ".join(e.value for e in at.error)
        assert "unavailable offline" in errors and "tokenizers.provision" in errors
        # custom BPE needs no file: it still renders
        assert any('data-tokenizer="custom_bpe"' in h for h in heads(at))
    finally:
        st.cache_resource.clear()
