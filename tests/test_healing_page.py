"""The Quirks card "Where a prompt ends" through AppTest: exact values against the library's plain-scan
reference, the examples, the tokenizer picker, and hostile text (a clear message, the text kept)."""

import re

import pytest

from conftest import TRICKY_TEXTS, open_page, rerun
from payloads import ALL, PAYLOADS
from test_escaping_pages import UPLOAD_NAME, assert_safe, upload_tokenizer
from tokenizers import available_tokenizers, default_tokenizers, get_tokenizer
from tokenizers.analysis.vocab_search import ids_with_prefix_reference
from ui.quirks import CARD_BY_KEY

Q = "quirks_healing_"


def quirks(**state):
    """Quirks on this card (the gallery shows one card at a time)."""
    return open_page("quirks", "Quirks", state={"quirks_card": "healing", **state}, timeout=180)


def view(at) -> str:
    """The card's HTML (the end of the text and the counts)."""
    found = [h.proto.body for h in at.get("html") if 'class="tl-heal"' in h.proto.body]
    assert len(found) <= 1
    return found[0] if found else ""


def shown(at) -> tuple[int, int]:
    """(the last token's id, how many tokens start with its bytes), as the card shows them."""
    body = view(at)
    last = re.search(r'class="tl-heal-last">(\d+)<', body).group(1)
    count = re.search(r'class="tl-heal-count">([\d,]+)<', body).group(1)
    return int(last), int(count.replace(",", ""))


def table(at):
    return next(d.value for d in at.dataframe if "could continue it" in d.value.columns)


def expected(name: str, text: str) -> tuple[int, int]:
    tok = get_tokenizer(name)
    last = tok.encode_ordinary(text)[-1]
    return last, len(ids_with_prefix_reference(tok, tok.decode_single_token_bytes(last)))


def test_card_shows_the_end_of_http_colon_in_every_chosen_tokenizer():
    at = quirks()
    assert at.session_state[f"{Q}a"] == "http:" and at.selectbox(key=f"{Q}tok").value == "cl100k_base"
    assert shown(at) == (25, 324) == expected("cl100k_base", "http:")
    body = view(at)
    assert 'class="tl-tok tl-pin' in body and "Backed off" in body and "323</b> longer ones" in body
    assert 'data-ids="1129"' in body  # "://" among the most common few
    rows = table(at)
    assert len(rows) == len(default_tokenizers())
    for (_, row), name in zip(rows.iterrows(), default_tokenizers()):
        assert (row["id"], row["could continue it"]) == expected(name, "http:")
    assert any("by merge order" in c.value for c in at.caption)


def test_examples_and_picker():
    at = quirks()
    at.selectbox(key=f"{Q}preset").set_value("A trailing space")
    rerun(at)
    assert at.session_state[f"{Q}a"] == "Hello "
    assert shown(at) == (220, expected("cl100k_base", "Hello ")[1])
    at.selectbox(key=f"{Q}tok").set_value("mistral_sp")
    rerun(at)
    assert shown(at) == (28705, expected("mistral_sp", "Hello ")[1])  # "▁": SentencePiece's space
    assert any("by piece score" in c.value for c in at.caption)
    at.selectbox(key=f"{Q}preset").set_value("Half a word")
    rerun(at)
    assert shown(at) == (1865, 16) and "·bro" in view(at)
    assert at.selectbox(key=f"{Q}tok").value == "mistral_sp"  # the pick stays
    at.multiselect(key="quirks_tokenizers").set_value(["gpt2"])
    rerun(at)
    assert at.selectbox(key=f"{Q}tok").value == "gpt2" and shown(at) == (1379, 32)


def every_registered_tokenizer(picks: list[str]):
    names = available_tokenizers()
    at = quirks(quirks_tokenizers=names, **{f"{Q}a": "Hello "})
    rows = table(at)
    assert len(rows) == len(names) == 12
    for (_, row), name in zip(rows.iterrows(), names):
        assert (row["id"], row["could continue it"]) == expected(name, "Hello ")
    for name in picks:
        rerun(at, **{f"{Q}tok": name})
        assert shown(at) == expected(name, "Hello ")


def test_every_registered_tokenizer_in_the_table():
    every_registered_tokenizer(["mistral_tekken", "deepseek_v3"])  # a Tekken file, a tokenizer.json


@pytest.mark.slow
def test_every_registered_tokenizer_picked():
    every_registered_tokenizer(available_tokenizers())


def test_sentencepiece_word_marker_is_explained():
    at = quirks(**{f"{Q}a": "Hello", f"{Q}tok": "mistral_sp"})
    assert shown(at) == (22557, 1)
    assert "covers <code>Hello</code>" in view(at) and "Nothing longer could have continued it" in view(at)


def test_partial_character_is_shown_as_hex():
    at = quirks(**{f"{Q}a": "Thumbs up 👍", f"{Q}tok": "cl100k_base"})
    body = view(at)
    assert shown(at)[0] == 235 and "\\x8d" in body and "<code>8D</code>" in body and "not UTF-8" in body


def test_empty_text_asks_for_one():
    at = quirks(**{f"{Q}a": ""})
    assert not view(at) and any("Type a text above" in i.value for i in at.info)
    assert at.session_state[f"{Q}a"] == ""


@pytest.mark.parametrize("text", [t for t in TRICKY_TEXTS if t] + [
    ALL, PAYLOADS["script"], PAYLOADS["img_onerror"], "The end.<|endoftext|>", "abc\ud800", "\ud83d",
    "👩\u200d💻", "x" * 1_000_000])
def test_hostile_text(text):
    at = quirks(**{f"{Q}a": text})
    clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert at.session_state[f"{Q}a"] == clean  # nothing lost but what cannot be sent
    if clean != text:
        assert any("Lone surrogate" in w.value for w in at.warning)
    if len(text) > 100_000:
        assert any("this card" in w.value for w in at.warning)  # cut to the card's bound, and said so
    body = view(at)
    assert body and "<script>" not in body and "<img" not in body
    cut = clean[:100_000]
    assert shown(at) == expected("cl100k_base", cut)
    assert len(table(at)) == len(default_tokenizers())
    assert_safe(at)


def test_uploaded_tokenizer_with_a_hostile_name():
    from conftest import app_test

    at = app_test(timeout=180)
    upload_tokenizer(at, UPLOAD_NAME)
    at.switch_page("app_pages/quirks.py")
    rerun(at, quirks_card="healing")
    rerun(at, quirks_tokenizers=["gpt2", UPLOAD_NAME])
    rerun(at, **{f"{Q}tok": UPLOAD_NAME})
    assert at.selectbox(key=f"{Q}tok").value == UPLOAD_NAME
    assert view(at) and len(table(at)) == 2
    assert_safe(at)


def test_card_is_in_the_gallery():
    assert CARD_BY_KEY["healing"].extra == "healing"
    assert [p.a for p in CARD_BY_KEY["healing"].presets][:3] == ["http:", "Hello ", "The quick bro"]


def test_a_text_that_gives_no_tokens_is_said_so():
    from tokenizers.classic import algorithms

    wordpiece = algorithms.train("wordpiece", "hello world hello there " * 20, 60)
    at = quirks(user_tokenizers={"lab_wp": wordpiece}, quirks_tokenizers=["lab_wp", "gpt2"],
                **{f"{Q}a": "   ", f"{Q}tok": "lab_wp"})
    assert any("gives no tokens" in i.value and "no last token" in i.value for i in at.info)
    rows = table(at)
    assert list(rows["last token"]) == ["(no tokens)", "·"] and at.session_state[f"{Q}a"] == "   "
