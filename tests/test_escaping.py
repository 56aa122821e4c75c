"""Issue 16 (hardening) below the pages: the HTML the app writes for st.html and its components holds
only the app's own elements whatever the text, tokens or vocabulary; plotly labels are escaped; the
Markdown helper escapes everything Streamlit would read; hostile vocabularies are bounded. The
browser tests (tests/e2e/test_markdown_escape_browser.py, test_payloads_browser.py) check the same
against real rendering."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from payloads import ALL, EVIL, MARKERS, PAYLOADS
from tokenizers import BPETokenizer, get_tokenizer

# what the app's renderers write: anything else in their output came from text
APP_TAGS = {"style", "div", "span", "table", "thead", "tbody", "tr", "th", "td", "b", "sub", "wbr"}
APP_ATTRS = {"class", "style", "data-tip", "data-ids", "data-pos", "data-owner", "data-tokenizer", "data-id",
             "data-label",
             # for keyboards and screen readers (tokenizers/core/html.py model_html)
             "role", "aria-label", "aria-orientation", "aria-selected", "tabindex"}


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text, self.styles = set(), set(), [], []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self._in_style = tag == "style"
        for k, v in attrs:
            self.attrs.add(k)
            if k == "style":
                self.styles.append(v or "")

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if not self._in_style:
            self.text.append(data)


def elements(html_text: str) -> _Elements:
    p = _Elements()
    p.feed(html_text)
    p.close()
    return p


def assert_only_app_elements(html_text: str) -> str:
    """The HTML's own elements only; returns its text."""
    e = elements(html_text)
    assert e.tags <= APP_TAGS, e.tags - APP_TAGS
    assert e.attrs <= APP_ATTRS, e.attrs - APP_ATTRS
    for s in e.styles:
        assert not any(m in s for m in MARKERS) and "position" not in s and "url(" not in s, s
    return "".join(e.text)


TOKENIZERS = ["gpt2", "cl100k_base", "mistral_sp", "o200k_base", "custom_bpe"]


@pytest.fixture(scope="module")
def html_model():
    """A byte-level BPE trained on the payloads: its tokens hold whole tags (<script>, onerror=…)."""
    tok = BPETokenizer(None, name="html_model")
    tok.train(ALL * 20, 600)
    return tok


# -- token HTML --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", TOKENIZERS + ["html_model"])
def test_spans_hold_only_the_apps_elements_for_every_payload(name, html_model):
    from ui.spans import model_html, render_spans, span_model

    tok = html_model if name == "html_model" else get_tokenizer(name)
    for text in [*PAYLOADS.values(), ALL]:
        for parse in (False, True):
            toks = tok.tokenize(text, allowed_special="all") if parse else tok.tokenize(text, disallowed_special=())
            for options in ({}, {"whitespace": True, "owner": f"compare:{PAYLOADS['attr_breakout']}:a"}):
                html = render_spans(text, toks, rank_of=tok.merge_rank, **options)
                assert_only_app_elements(html)
                if not options and tok.kind != "sentencepiece":  # the text itself, without the app's marks
                    body = re.sub(r'<span class="tl-(?:ids|mark|nl)">.*?</span>', "", html[html.index("<div"):])
                    assert "".join(elements(body).text) == text, (name, text)
                model = span_model(text, toks, **options)
                # the component gets the same data as JSON: text only ever as strings in it
                assert json.loads(json.dumps(model)) == model
                assert_only_app_elements(model_html(model))


def test_a_payload_split_across_tokens_stays_text(html_model):
    """A tag cut into several tokens, whose boxes each hold a piece of it: no piece is markup."""
    from ui.spans import render_spans

    text = PAYLOADS["img_onerror"]
    toks = get_tokenizer("gpt2").tokenize(text, disallowed_special=())
    assert len(toks) > 5 and any(t.bytes == b"<" or t.bytes.startswith(b"<") for t in toks)
    html = render_spans(text, toks)
    assert "<img" not in html and "&lt;" in html
    # the model trained on the payloads holds whole tags as single tokens
    assert any(b"<script>" in b or b"onerror" in b for _, b in html_model.iter_vocab())


def test_trees_chunks_parts_counts_and_headers_escape_their_text(html_model):
    from tokenizers.core.patterns import GPT4_PATTERN, compile_pattern, split_text
    from ui.counts import render_counts
    from ui.spans import render_chunks, render_header, render_parts, render_small_header
    from ui.trees import render_tree

    longest = max((i for i, _ in html_model.iter_vocab()), key=lambda i: len(html_model.token_bytes(i)))
    assert_only_app_elements(render_tree(html_model, longest))
    assert_only_app_elements(render_chunks(split_text(ALL, compile_pattern(GPT4_PATTERN))))
    assert_only_app_elements(render_parts(list(PAYLOADS.values()), 3))
    for p in PAYLOADS.values():
        assert_only_app_elements(render_header(p, p, 1, 2, 3, unknown=1))
        assert_only_app_elements(render_small_header(p, p, 1, 2, p))
    assert_only_app_elements(render_counts([{"tokenizer": p, "tokens": 1, p: p} for p in PAYLOADS.values()]))


# -- Markdown ----------------------------------------------------------------------------------------------
def test_escape_markdown_escapes_every_punctuation_character_and_breaks_autolinks():
    from ui.formatting import WORD_JOINER, escape_markdown, md_inline_code

    out = escape_markdown(ALL)
    # every ASCII punctuation character carries a backslash; nothing else does
    assert re.fullmatch(r"(?:\\[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~])*", out)
    assert "\n" not in out and "\r" not in out
    plain = out.replace(WORD_JOINER, "")
    assert re.sub(r"\\(.)", r"\1", plain) == ALL.replace("\r", " ").replace("\n", " ").replace(WORD_JOINER, "")
    # the joiner sits where GitHub's autolink literals and Streamlit's shortcodes would start
    assert escape_markdown(f"https://{EVIL} www.{EVIL} a@{EVIL}").count(WORD_JOINER) == 3
    assert escape_markdown(":smile: :material/home: 10:30") == (
        f"\\:{WORD_JOINER}smile\\: \\:{WORD_JOINER}material\\/home\\: 10\\:{WORD_JOINER}30")
    assert md_inline_code("x :material/home: y") == f"`x :{WORD_JOINER}material/home: y`"


# -- plotly ------------------------------------------------------------------------------------------------
PLOTLY_TAGS = re.compile(r"<(a|img|script|svg|iframe|style|span|b|i|em|u|s|sup)[\s>/]", re.I)


def test_figures_escape_labels_from_vocabularies_files_and_names():
    import pandas as pd

    from ui.figures import grouped_bars, number_heatmap, plotly_text, table_heatmap

    names = list(PAYLOADS.values())[:8]
    df = pd.DataFrame({n: [1.0, 2.0] for n in names}, index=[PAYLOADS["span_div_breakout"], "eng"])
    figures = [grouped_bars(df, "m"), table_heatmap(df, "m"),
               number_heatmap([1] * 100, [PAYLOADS["javascript_link"]] * 100, PAYLOADS["fixed_overlay_link"])]
    for fig in figures:
        spec = fig.to_json()
        assert not PLOTLY_TAGS.search(spec), PLOTLY_TAGS.search(spec).group(0)
    assert "%{" not in "".join(str(t.hovertemplate) for t in figures[0].data).replace("%{x}", "").replace(
        "%{y:.3g}", "").replace("%{fullData.name}", "")
    assert plotly_text("<a href='x'>&") == "&lt;a href='x'&gt;&amp;"


# -- hostile vocabularies ----------------------------------------------------------------------------------
def test_vocab_entries_walk_only_the_ids_in_use(unused_id_lookups):
    from tokenizers.bpe import files as bpe_files
    from ui.tables import vocab_entries, vocab_rows
    from service.uploads import vocabulary_note

    tok = bpe_files.loads("minbpe v1\n\n1\n<|end|> 1000256\n97 97\n", name="sparse")
    misses = unused_id_lookups
    vocab, longest = vocab_entries(tok)
    rows, matched = vocab_rows(tok, "")
    assert len(vocab) == matched == 258 and vocab[-1][:2] == (1000256, b"<|end|>") and not misses
    assert "only 258 of them" in vocabulary_note(tok)
    assert vocabulary_note(get_tokenizer("cl100k_base")) is None  # one hole in 100,277 ids is not sparse


def test_a_chain_of_merges_is_refused_with_a_message():
    from tokenizers.bpe import files as bpe_files
    from tokenizers.bpe.files import MAX_VOCAB_BYTES, ModelFormatError

    lines = ["minbpe v1", "", "0", "97 97"] + [f"{255 + k} 97" for k in range(1, 100_000)]
    with pytest.raises(ModelFormatError, match="bytes of tokens") as e:
        bpe_files.loads("\n".join(lines) + "\n")
    assert f"{MAX_VOCAB_BYTES:,}" in str(e.value)
    # a model the Lab can make still loads: 8,191 merges of the same chain spell 33.6 MB
    ok = bpe_files.loads("\n".join(lines[:8195]) + "\n")
    assert ok.vocab_size == 256 + 8192
