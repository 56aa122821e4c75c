"""Issue 14's new Compare features through AppTest: two texts, the boundaries view's data, a pinned
token, presentation mode and the live box's revision rule."""

import json

from streamlit.testing.v1 import AppTest

from conftest import app_test
from tokenizers import get_tokenizer

K = "compare_"


def app(**query) -> AppTest:
    at = app_test(query=query)
    assert not at.exception
    return at


def components(at, name: str) -> list[dict]:
    return [json.loads(c.proto.bytes or c.proto.json or c.proto.mixed.json) for c in at.get("bidi_component")
            if c.proto.component_name == f"token_lens.{name}"]


def html_bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def test_two_texts_side_by_side():
    at = app(tokenizers="gpt2,cl100k_base", ab="1", text="hello world", text_b="héllo wörld, hello world")
    assert at.toggle(key=f"{K}ab").value
    counts = [b for b in html_bodies(at) if 'class="tl-counts"' in b][0]
    for name in ("gpt2", "cl100k_base"):
        tok = get_tokenizer(name)
        a = len(tok.encode("hello world"))
        b = len(tok.encode("héllo wörld, hello world"))
        row = counts.split(f'data-label="tokenizer">{tok.title}</td>')[1].split("</tr>")[0]
        assert f'data-label="tokens A">{a:,}<' in row and f'data-label="tokens B">{b:,}<' in row
        assert f'data-label="B − A">{b - a:,}<' in row
    heads = [b for b in html_bodies(at) if 'class="tl-head"' in b]
    assert sum('data-tokenizer="gpt2:b"' in h for h in heads) == 1  # B's own column
    assert len(components(at, "token_spans")) == 4
    assert at.query_params["ab"] == "1" and at.query_params["text_b"] == "héllo wörld, hello world"


def test_text_with_boundaries_sends_cuts_in_javascript_offsets():
    text = "a😀b مرحبا"
    at = app(tokenizers="cl100k_base", view="Text with boundaries", text=text)
    [data] = components(at, "boundaries")
    assert data["text"] == text
    toks = get_tokenizer("cl100k_base").tokenize(text, disallowed_special=())
    from ui.spans import segments

    starts = [s.char_span[0] for s in segments(text, toks)][1:]
    # the emoji is one code point but two UTF-16 units: every cut after it moves by one
    assert data["cuts"] == [c + (1 if c > 1 else 0) for c in starts]


def test_a_pinned_token_shows_details_tree_and_link():
    text = "Tokenization isn't magic"
    at = app_test(query={"text": text, "tokenizers": "gpt2,cl100k_base"},
                  state={f"{K}pinned": ("cl100k_base", "a", 1, hash(text))})
    assert not at.exception
    tid = get_tokenizer("cl100k_base").encode(text)[1]
    assert any(f"**Token {tid}**" in m.value for m in at.markdown)
    assert any('class="tl-tree"' in b for b in html_bodies(at))
    spans = [d for d in components(at, "token_spans") if d["owner"] == "compare:cl100k_base:a"][0]
    assert [s for s in spans["segs"] if "tl-pin" in s[0]][0][3] == 1
    links = at.get("page_link")
    assert links and "Inside" in links[0].proto.label
    at.session_state[f"{K}text"] = "something else"  # a new text: the pin no longer applies
    at.run()
    assert not any(f"**Token {tid}**" in m.value for m in at.markdown)


def test_presentation_mode_and_font_size_from_the_link():
    at = app(present="1", font="XL", tokenizers="gpt2", text="hello")
    assert at.toggle(key=f"{K}present").value and at.segmented_control(key=f"{K}font").value == "XL"
    assert not at.title  # the title gives its room to the results
    [spans] = components(at, "token_spans")
    assert spans["font"] == "1.6rem"
    assert at.query_params["present"] == "1" and at.query_params["font"] == "XL"


def test_live_box_takes_only_edits_on_the_current_revision():
    """An edit typed before Python replaced the text (an example) must not undo the replacement."""
    from app_pages import widgets

    at = app(tokenizers="gpt2", text="start")
    box = [c for c in at.get("bidi_component") if c.proto.component_name == "token_lens.live_text"]
    assert box and json.loads(box[0].proto.json or box[0].proto.mixed.json)["value"] == "start"
    at.selectbox(key=f"{K}example").set_value("English prose").run()
    rev = at.session_state[f"{K}text_rev"]
    assert rev == 1 and at.session_state[f"{K}text"].startswith("The lighthouse keeper")
    [data] = [json.loads(c.proto.json or c.proto.mixed.json) for c in at.get("bidi_component")
              if c.proto.component_name == "token_lens.live_text"]
    assert data["rev"] == 1 and data["value"].startswith("The lighthouse")
    assert widgets.LIVE_LIMIT == 20_000 and widgets.LIVE_DEBOUNCE_MS == 150


def test_a_token_pinned_in_text_b_opens_text_b():
    a, b = "hello world", "Tokenization isn't magic"
    at = app_test(query={"text": a, "text_b": b, "ab": "1", "tokenizers": "cl100k_base"},
                  state={f"{K}pinned": ("cl100k_base", "b", 1, hash(b))})
    assert not at.exception
    tid = get_tokenizer("cl100k_base").encode(b)[1]
    assert any(f"**Token {tid}**" in m.value for m in at.markdown)
    from urllib.parse import parse_qs

    link = at.get("page_link")[0].proto
    assert "Inside" in link.label
    assert parse_qs(link.query_string) == {"tokenizer": ["cl100k_base"], "token": ["1"], "text": [b]}


def test_bulk_window_equals_slicing():
    """ui.spans.window builds the same Token objects as TokenList slicing, for every kind of token."""
    from conftest import TRICKY_TEXTS
    from tokenizers.analysis.samples import mixed_scripts
    from ui.spans import window

    text = "".join(TRICKY_TEXTS) + mixed_scripts(2000) + "a\u0301\U0001F600x"
    for name in ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp", "o200k_base"]:
        for t in (text, "ascii only", ""):
            for special in ("all", None):
                toks = (get_tokenizer(name).tokenize(t, allowed_special="all") if special
                        else get_tokenizer(name).tokenize(t, disallowed_special=()))
                n = len(toks)
                for lo, hi in ((0, n), (n // 3, n // 2), (n, n)):
                    assert window(toks, lo, hi) == toks[lo:hi], (name, lo, hi)
