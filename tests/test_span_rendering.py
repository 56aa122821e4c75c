"""The bugs of the teacher's walk-through (issue 14), each held by a test that failed before its fix."""

import random
import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test
from tokenizers import get_tokenizer

TIMEOUT = 120


def page(path: str | None = None, **query) -> AppTest:
    at = app_test(path, query=query, timeout=TIMEOUT)
    assert not at.exception
    return at


def lab() -> AppTest:
    return page("bpe_lab")


def train(at, text=None, vocab=None, split=None):
    if text is not None:
        at.text_area(key="lab_text").set_value(text)
    if vocab is not None:
        at.number_input(key="lab_vocab").set_value(vocab)
    if split is not None:
        at.selectbox(key="lab_split").set_value(split)
    at.button(key="lab_train").click().run()
    assert not at.exception
    return at


def texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "caption", "info", "success", "warning", "error")
                    for e in at.get(kind))


# -- BPE Lab ---------------------------------------------------------------------------------------

def test_lab_view_survives_an_interaction_inside_it():
    """st.tabs forgot its tab on the rerun after the step slider moved; the view is now a keyed
    control whose choice lives in session_state."""
    at = train(lab())
    at.segmented_control(key="lab_view").set_value("Step by step").run()
    at.slider(key="lab_step").set_value(2).run()
    assert not at.exception
    assert at.segmented_control(key="lab_view").value == "Step by step"
    assert any("Merge **2** joined" in m.value for m in at.markdown)
    at.segmented_control(key="lab_view").set_value("Vocabulary trade-off").run()
    at.number_input(key="lab_dmodel").set_value(1024).run()
    assert at.segmented_control(key="lab_view").value == "Vocabulary trade-off"


def test_classic_example_is_one_click_and_true():
    at = lab()
    at.button(key="lab_classic").click().run()
    assert not at.exception
    tok = at.session_state["lab_model"]
    assert tok.encode("aaabdaaabac", disallowed_special=()) == [258, 100, 258, 97, 99]
    assert "[258, 100, 258, 97, 99]" in texts(at)
    assert at.text_area(key="lab_text").value == "aaabdaaabac"


def test_hint_on_the_default_text_does_not_promise_what_it_cannot_do():
    at = lab()
    hint = texts(at)
    assert "Try the default text with a vocabulary of 259" not in hint


@pytest.mark.parametrize("query", [" the", "·the"])
def test_merge_search_takes_a_real_space(query):
    at = train(lab())
    at.text_input(key="lab_search").set_value(query).run()
    rows = at.dataframe[0].value
    assert len(rows) > 0
    assert all("·the" in r["left"] + r["right"] + r["new token"] for _, r in rows.iterrows())


def test_zero_merges_is_not_called_a_loaded_model():
    at = train(lab(), vocab=256)
    shown = texts(at)
    assert "loaded model" not in shown.lower()
    assert "0 merges" in shown
    for view in ("Compression", "Step by step", "Vocabulary trade-off"):
        at.segmented_control(key="lab_view").set_value(view).run()
        assert not at.exception
        assert "loaded model" not in texts(at).lower()


def test_merge_table_height_follows_its_rows(monkeypatch):
    """AppTest keeps no element heights, so the page's st.dataframe calls are recorded."""
    import streamlit as st

    calls, real = [], st.dataframe

    def spy(data=None, *args, **kwargs):
        calls.append((kwargs.get("key"), kwargs.get("height", "auto"), len(data) if data is not None else 0))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(st, "dataframe", spy)
    train(lab(), "aaabdaaabac", 259, "No split (the plain algorithm)")
    merges = [c for c in calls if c[0] == "lab_merges"]
    assert merges and merges[-1][2] == 3
    height = merges[-1][1]
    assert height == "auto" or (isinstance(height, int) and height < 200)  # 3 rows, not a fixed 420 px box


def test_step_view_marks_whitespace():
    at = train(lab())
    at.segmented_control(key="lab_view").set_value("Step by step").run()
    spans = [h.proto.body for h in at.get("html") if "tl-spans" in h.proto.body]
    assert spans and 'class="tl-ws"' in spans[0]


def test_random_bytes_are_refused_as_binary():
    from service.uploads import UploadError, decode_upload

    blob = random.Random(14).randbytes(3000)
    with pytest.raises(UploadError, match="binary"):
        decode_upload("noise.txt", blob)
    # Latin-1 text is still text: invalid UTF-8, but no control bytes
    text, replaced = decode_upload("latin1.txt", "café naïve résumé\n".encode("latin-1") * 50)
    assert replaced == 200 and text.startswith("caf")


# -- Compare ---------------------------------------------------------------------------------------

def test_decoder_placeholder_is_valid_for_its_tokenizer():
    from ui.formatting import parse_ids

    at = page()
    dec = at.selectbox(key="compare_decode_tok")
    tok = get_tokenizer(dec.value)
    placeholder = at.text_input(key="compare_decode_ids").proto.placeholder
    ids = parse_ids(placeholder)
    tok.check_ids(ids)  # raises for an id the tokenizer does not have
    at.text_input(key="compare_decode_ids").set_value(placeholder).run()
    assert not at.error
    # the decoder may use any tokenizer, not only the ones shown
    from tokenizers import REGISTRY

    assert set(dec.options) >= {e.title for e in REGISTRY.values()}


def test_link_naming_a_lab_model_explains_and_keeps_the_diff():
    at = page(tokenizers="lab_bpe,gpt2,cl100k_base", diff="1", ref="cl100k_base")
    warn = " ".join(w.value for w in at.warning)
    assert "lab\\_bpe" in warn or "lab_bpe" in warn
    assert "only in the visit that trained" in warn
    assert at.toggle(key="compare_diff").value is True
    assert at.selectbox(key="compare_ref").value == "cl100k_base"
    assert at.query_params["diff"] == "1" and at.query_params["ref"] == "cl100k_base"


def test_lab_model_on_compare_offers_its_download():
    at = train(lab(), "the cat sat on the mat " * 20, 270)
    at.switch_page("app_pages/compare.py")
    at.run()
    at.multiselect(key="compare_tokenizers").set_value(["lab_bpe", "gpt2"]).run()
    assert not at.exception
    assert "only in this visit" in texts(at)
    assert "lab_bpe.model" in [b.proto.label for b in at.get("download_button")]


def test_table_view_marks_spaces():
    at = page(text="a  b", tokenizers="gpt2", view="Table", ws="1")
    assert list(at.dataframe[0].value["token"]) == ["a", "·", "·b"]


# -- Inside ----------------------------------------------------------------------------------------
# (the stale token picker is a browser-side effect: tests/e2e/test_interaction_browser.py)


# -- rendering -------------------------------------------------------------------------------------

def test_newline_byte_fallback_box_does_not_hold_the_line_break():
    from ui.spans import render_spans

    text = "a\nb"
    toks = get_tokenizer("mistral_sp").tokenize(text, disallowed_special=())
    for ws in (False, True):
        html = render_spans(text, toks, whitespace=ws)
        boxes = re.findall(r'<span class="tl-tok[^"]*tl-fallback[^>]*>((?:<span[^>]*>[^<]*</span>|[^<])*)</span>(\n?)',
                           html)
        assert boxes, html
        inner, after = boxes[0]
        assert "\n" not in inner and after == "\n"


def test_legend_swatches_have_tooltips():
    from ui.spans import LEGEND

    swatches = re.findall(r'<span class="tl-tok[^"]*"[^>]*>', LEGEND)
    assert len(swatches) >= 5
    for s in swatches:
        tip = re.search(r'data-tip="([^"]*)"', s)
        assert tip and tip.group(1).strip(), s


def _segment_colors(html: str) -> list[tuple[str, str, bool]]:
    """(color class, ids, divider) for each segment of rendered spans."""
    out = []
    for m in re.finditer(r'<span class="(tl-tok[^"]*)"[^>]*data-ids="([^"]*)"', html):
        classes = m.group(1).split()
        color = next((c for c in classes if re.fullmatch(r"tl-c\d+", c)), None)
        out.append((color, m.group(2), "tl-same" in classes))
    return out


def test_adjacent_tokens_differ_and_repeats_keep_their_color():
    from ui.examples import EXAMPLES
    from ui.spans import render_spans

    for name in ["gpt2", "cl100k_base", "mistral_sp", "custom_bpe"]:
        tok = get_tokenizer(name)
        for text in EXAMPLES.values():
            segs = _segment_colors(render_spans(text, tok.tokenize(text, disallowed_special=())))
            assert segs, (name, text)  # the loops below check nothing if no token was found
            assert all(c for c, _, _ in segs)
            color_of = {}
            for color, ids, _ in segs:
                assert color_of.setdefault(ids, color) == color  # a repeated token keeps its color
            for (c1, _, _), (c2, _, same) in zip(segs, segs[1:]):
                assert c1 != c2 or same  # neighbours differ in color, or a divider is drawn


def test_palette_colors_are_far_apart():
    from ui.spans import PALETTE, PALETTE_DARK, color_distance

    for pal in (PALETTE, PALETTE_DARK):
        d = min(color_distance(a, b) for i, a in enumerate(pal) for b in pal[i + 1:])
        assert d >= 20, d  # CIE76 delta E: a visible difference for anyone
