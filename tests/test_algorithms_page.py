"""The Algorithms page through AppTest, and its span rendering of word-level markers."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test, open_page, rerun
from tokenizers.classic.algorithms import NAMES, train
from tokenizers.core.corpus import stdlib_docstrings

K = "alg_"
SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def page() -> AppTest:
    return open_page("algorithms", "Algorithms", timeout=180)


def train_on(at, text=None, vocab=None, *, builtin=None) -> AppTest:
    if builtin is not None:
        at.radio(key=f"{K}source").set_value("Built-in corpus")
        at.select_slider(key=f"{K}builtin_size").set_value(builtin)
    elif text is not None:
        at.radio(key=f"{K}source").set_value("Paste").run()
        at.text_area(key=f"{K}text").set_value(text)
    if vocab is not None:
        at.number_input(key=f"{K}vocab").set_value(vocab)
    at.button(key=f"{K}train").click().run()
    assert not at.exception
    return at


def bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def heads(at) -> dict[str, tuple[int, int]]:
    """{tokenizer name: (token count, unknown count)} read from the rendered headers."""
    out = {}
    for b in bodies(at):
        m = re.search(r'data-tokenizer="([^"]+)".*?class="tl-count">([\d,]+)<', b, re.S)
        if m:
            unk = re.search(r'class="tl-unknown"[^>]*>([\d,]+) unknown', b)
            out[m.group(1)] = (int(m.group(2).replace(",", "")), int(unk.group(1).replace(",", "")) if unk else 0)
    return out


def spans(at) -> list[str]:
    return [b for b in bodies(at) if 'class="tl-spans' in b]


def open_tab(at, label: str) -> AppTest:
    return rerun(at, **{f"{K}tab": label})


def test_before_training_the_page_says_what_to_do():
    at = page()
    assert any("Train all five" in i.value for i in at.info)


def test_train_all_five_side_by_side():
    at = train_on(page(), vocab=400, builtin=20_000)
    assert any("5 of 5 algorithms" in s.value for s in at.success)
    text = at.session_state[f"{K}segment"]
    # each column's counts are the library's, for the same training text
    corpus = stdlib_docstrings(20_000)
    from tokenizers.classic.algorithms import held_out_split

    train_text, held = held_out_split(corpus)
    expected = {}
    for name in NAMES:
        tok = train(name, train_text, 400)
        toks = tok.tokenize(text, disallowed_special=())
        expected[f"alg_{name}"] = (len(toks), toks.odd_count if name != "byte_bpe" else 0)
    assert heads(at) == expected
    assert expected["alg_byte_bpe"][1] == 0 and all(expected[f"alg_{n}"][1] > 0 for n in NAMES if n != "byte_bpe")
    html = " ".join(spans(at))
    assert '<span class="tl-wm">&lt;/w&gt;</span>' in html and '<span class="tl-wm">##</span>' in html
    assert "tl-tok tl-unk" in html
    summary = at.dataframe[1].value
    assert list(summary["vocab size"]) == [len(set(train_text)) + 1, 400, 400, 400, 400]
    assert list(summary["held-out tokens"])[-1] == len(train("byte_bpe", train_text, 400).encode(held))
    # every model joins Compare for the visit
    own = at.session_state["user_tokenizers"]
    assert sorted(own) == sorted(f"alg_{n}" for n in NAMES)
    at.switch_page("app_pages/compare.py").run()
    at.multiselect(key="compare_tokenizers").set_value(["alg_wordpiece", "alg_word_bpe"]).run()
    assert not at.exception
    compare_text = at.session_state["compare_text"]  # the live text box keeps its text in session_state
    assert {n: c for n, (c, _) in heads(at).items()} == {
        n: len(own[n].tokenize(compare_text, disallowed_special=())) for n in ("alg_wordpiece", "alg_word_bpe")}


def test_sennrichs_example_step_by_step():
    at = train_on(page(), SENNRICH, 20)
    # too small for the byte-level model (256 bytes); the others train
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert len(at.error) == 1 and "**Byte-level BPE**" in errors and "at least 256" in errors
    open_tab(at, "Training steps")
    at.selectbox(key=f"{K}steps_alg").set_value("word_bpe").run()
    assert any("Step **1** of 8 merged **e** + **s** → **es**: the most frequent pair (9 times)" in m.value
               for m in at.markdown)
    cands = at.dataframe[-2].value  # the candidates, then the start of the training text, then all steps
    assert list(cands["left"])[:4] == ["e", "s", "t", "w"] and list(cands["count"])[:4] == [9, 9, 9, 8]
    assert list(cands[""])[:2] == ["◀ merged", ""]
    at.slider(key=f"{K}step_word_bpe").set_value(3).run()
    assert any("merged **est** + **\\<\\/w\\>** → **est\\<\\/w\\>**" in m.value for m in at.markdown)
    at.selectbox(key=f"{K}steps_alg").set_value("wordpiece").run()
    assert not at.exception
    assert any("merged **\\#\\#i** + **\\#\\#d** → **\\#\\#id**: the best score: 3 / (3 × 3) = 0.33333" in m.value
               for m in at.markdown)
    frames = [d.value for d in at.dataframe]
    by_score = next(f for f in frames if "rank by score" in f)
    by_count = next(f for f in frames if "rank by count" in f)
    assert list(by_score["left"])[:2] == ["##i", "w"] and list(by_count["left"])[0] == "##e"
    assert any("Frequency alone would have merged" in c.value for c in at.caption)


def test_training_steps_open_on_classic_bpe():
    at = open_tab(train_on(page(), SENNRICH, 20), "Training steps")
    assert at.selectbox(key=f"{K}steps_alg").value == "word_bpe"
    assert any("Step **1** of 8 merged **e** + **s** → **es**" in m.value for m in at.markdown)


@pytest.mark.slow
def test_vocabulary_and_curve_tabs():
    at = train_on(page(), vocab=300, builtin=20_000)
    at.selectbox(key=f"{K}vocab_alg").set_value("wordpiece").run()
    at.text_input(key=f"{K}vocab_q").set_value("##").run()
    rows = at.dataframe[-1].value
    assert len(rows) > 10 and all(t.startswith("##") or "##" in t for t in rows["token"])
    assert any("match" in c.value for c in at.caption)
    open_tab(at, "Length vs vocab size")
    chart = at.get("plotly_chart")[0].proto.spec
    for name in ("Character-level", "Classic BPE", "WordPiece", "Unigram", "Byte-level BPE"):
        assert name in chart
    unknown = at.dataframe[-1].value
    assert list(unknown["algorithm"]) == ["Character-level", "Classic BPE (</w>)", "WordPiece (##)",
                                          "Unigram (SentencePiece)", "Byte-level BPE"]
    assert list(unknown["unknown tokens"])[-1] == 0


@pytest.mark.parametrize("text, vocab, expect", [
    ("", 300, "empty"),                                    # an empty corpus
    (stdlib_docstrings(20_000), 30, "become"),            # a vocab size below the alphabet
    ("abcdefghij" * 1500, 300, "no whitespace"),           # no whitespace: WordPiece says why
    ("x" * 10_000 + " hello world " + "y" * 10_000, 300, "longer than 100 characters"),  # 10,000-character words
])
def test_bad_input_gets_a_message(text, vocab, expect):
    at = train_on(page(), text, vocab)
    said = " ".join(m.value for m in [*at.error, *at.warning]).replace("\\", "")  # Markdown escapes
    assert expect in said
    if not text:
        assert len(at.error) == len(NAMES) and not spans(at)
    else:
        assert len(spans(at)) == len(NAMES) - len(at.error)
    assert at.text_area(key=f"{K}text").value == text  # the text is kept


def test_vocab_below_the_alphabet_keeps_the_three_that_can():
    at = train_on(page(), stdlib_docstrings(20_000), 30)
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "Byte-level BPE" in errors and "at least 256" in errors
    assert set(heads(at)) >= {"alg_char", "alg_word_bpe", "alg_wordpiece"}
    assert all(heads(at)[n][0] > 0 for n in heads(at))


def test_a_megabyte_is_bounded_with_a_message():
    text = ("The quick brown fox jumps over the lazy dog; naïve café 안녕 " * 20_000)[:1_000_000]
    at = train_on(page(), text, 500)
    assert any("trains on the first 500,000" in i.value for i in at.info)
    assert any("Trained on" in s.value for s in at.success)
    assert not at.exception


@pytest.mark.slow
def test_user_text_is_escaped():
    at = train_on(page(), vocab=300, builtin=20_000)
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)> [a](http://x) `x`"
    at.session_state[f"{K}segment"] = payload
    at.run()
    assert not at.exception
    for b in spans(at):
        assert "<script" not in b and "<img" not in b
    at.text_input(key=f"{K}vocab_q").set_value("[a](http://x)").run()
    assert not at.exception
    assert any("\\[a\\]\\(\u2060http\\:" in c.value for c in at.caption)  # a joiner: no autolink


# -- the renderer -----------------------------------------------------------------------------------
def test_spans_draw_markers_beside_the_text_they_do_not_cover():
    from tokenizers.classic.word_bpe import WordBPETokenizer
    from tokenizers.classic.wordpiece import WordPieceTokenizer
    from ui.spans import render_spans, word_markers

    bpe = WordBPETokenizer(name="b").train(SENNRICH, 30)
    text = "lowest <b>"
    toks = bpe.tokenize(text)
    html = render_spans(text, toks, unknown_id=bpe.unk_id)
    # low | est</w> + the space after it | <, b, > unknown | </w> at the end, covering nothing
    assert '>low</span>' in html and '>est<span class="tl-wm">&lt;/w&gt;</span> </span>' in html
    assert "<b>" not in html.split("</style>", 1)[1]
    assert html.count("tl-tok tl-unk") == 3  # <, b and > are characters it never saw
    wp = WordPieceTokenizer(name="w").train(SENNRICH, 100)
    toks = wp.tokenize("lowest")
    assert [word_markers(t) for t in toks] == [None, ("##", "")]
    assert '<span class="tl-wm">##</span>est' in render_spans("lowest", toks)


def test_sentencepiece_spans_are_unchanged():
    from tokenizers import get_tokenizer
    from ui.spans import render_spans, word_markers

    tok = get_tokenizer("mistral_sp")
    toks = tok.tokenize("hello world", disallowed_special=())
    assert [word_markers(t) for t in toks] == [None] * len(toks)
    html = render_spans("hello world", toks)
    assert html.count('<span class="tl-sp">▁</span>') == 2 and "tl-wm" not in html.split("</style>", 1)[1]


@pytest.mark.slow
def test_trained_models_work_on_inside_a_token():
    own = train_on(page(), SENNRICH, 20).session_state["user_tokenizers"]
    assert sorted(own) == ["alg_char", "alg_unigram", "alg_word_bpe", "alg_wordpiece"]  # byte-level: no, at 20

    def inside(**state) -> AppTest:
        # a fresh app per look: AppTest cannot change a selectbox that has a format_func and then
        # another widget, so the visit's models and the Inside page's state are set before it runs
        at = app_test("inside", state={"user_tokenizers": own, **{f"inside_{k}": v for k, v in state.items()}})
        assert not at.exception
        assert [t.value for t in at.title] == ["Inside a token"]
        return at

    for name in own:
        inside(tok=name)
    at = inside(tok="alg_word_bpe", by_id=True, id="19")  # id 19: newest</w>, the last of the 8 merges
    assert any("**Token 19**" in m.value for m in at.markdown)
    assert any('class="tl-tree"' in h.proto.body for h in at.get("html"))  # its merge tree
