"""Token spans outside the app: a TokenList's `_repr_html_` and `tokenizers.show` in a notebook, and the
spans downloads for slides (ui.export.spans_svg / spans_html), all from the one span renderer
(tokenizers.core.html). The browser checks are in tests/e2e/test_notebook_browser.py."""

import re
import xml.etree.ElementTree as ET

import pytest
from payloads import ALL, PAYLOADS

import tokenizers
from tokenizers import get_tokenizer
from tokenizers.core.text import WHITESPACE_MARKS

SVG = "{http://www.w3.org/2000/svg}"
UNMARK = {mark: ch for ch, mark in WHITESPACE_MARKS.items()}
TEXTS = ["hello world", "Egg. I have an egg. egg. EGG.", "127 + 677 = 804", "안녕하세요 👋🏽 세계",
         "def f(x):\n    if x:\n\treturn x\r\n\n", " SolidGoldMagikarp", "é\u0301 a\u200db"]


def test_show_is_exported_and_counts_each_tokenizer():
    assert "show" in tokenizers.__all__
    shown = tokenizers.show("hello world", tokenizers=["gpt2", "cl100k_base"])
    assert shown.counts() == {"gpt2": 2, "cl100k_base": 2}
    assert repr(shown) == ("GPT-2 (gpt2): 2 tokens\n  |hello|·world|\n"
                           "cl100k_base (GPT-4): 2 tokens\n  |hello|·world|")
    html = shown._repr_html_()
    assert html.count('class="tl-head"') == 2 and 'data-tokenizer="cl100k_base"' in html
    assert re.findall(r'<b class="tl-count">(\d+)</b>', html) == ["2", "2"]


def test_show_takes_tokenizer_objects_and_the_special_token_options():
    gpt2 = get_tokenizer("gpt2")
    assert tokenizers.show("a<|endoftext|>", tokenizers=[gpt2], allowed_special="all").counts() == {"gpt2": 2}
    with pytest.raises(ValueError):  # tiktoken's rule: refused unless allowed
        tokenizers.show("a<|endoftext|>", tokenizers=[gpt2])


def test_plain_repr_groups_a_split_character_like_the_spans():
    # gpt2 cuts 👋 (4 bytes) into 2 tokens: one segment with its count, never a bare U+FFFD
    assert repr(tokenizers.show("👋", tokenizers=["gpt2"])) == "GPT-2 (gpt2): 2 tokens\n  |👋[2]|"


def test_repr_html_of_a_token_list_is_the_apps_spans_with_counts():
    from ui.spans import render_spans

    toks = get_tokenizer("gpt2").tokenize("Egg. I have an egg.")
    html = toks._repr_html_()
    assert "<script" not in html and "http" not in html  # self-contained: CSS inline, nothing fetched
    assert '<b class="tl-count">8</b>' in html  # E|gg|.| I| have| an| egg|.
    assert render_spans(toks.text, toks, whitespace=True) in html  # the app's renderer, not a second one


def test_a_long_text_draws_the_first_tokens_and_counts_all():
    from tokenizers.core.html import NOTEBOOK_LIMIT

    toks = get_tokenizer("gpt2").tokenize("ab " * (NOTEBOOK_LIMIT + 10))
    html = toks._repr_html_()
    assert html.count('class="tl-tok ') == NOTEBOOK_LIMIT
    assert f"of {len(toks):,} tokens" in html and f'<b class="tl-count">{len(toks):,}</b>' in html


def test_boxes_only_break_between_tokens():
    """A box never wraps inside itself: white-space:pre in the box, a <wbr> after each one."""
    from tokenizers.core.html import CSS

    html = get_tokenizer("cl100k_base").tokenize("a  long   token")._repr_html_()
    assert re.search(r"\.tl-tok\{[^}]*white-space:pre;", CSS)
    assert html.count("<wbr>") == html.count('<span class="tl-tok ')


# -- the SVG and HTML downloads ---------------------------------------------------------------------------
def svg_text(svg: str) -> str:
    """The text of an SVG's token boxes in order, as it was typed: whitespace marks back to the
    characters, a box's lines joined by nothing (each line break has its ↵), the app's own marks
    (◌, a group's [n], ↩ where a long box breaks) left out, control pictures back to the controls."""
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(f"{SVG}g"):
        for text in g.iter(f"{SVG}text"):
            out.append(text.text or "")
            for span in text:
                if span.get("class") not in ("tl-ids", "tl-cont"):
                    out.append(span.text or "")
                out.append(span.tail or "")
    s = "".join(out)
    s = "".join(UNMARK.get(c, c) for c in s if c != "◌")
    return "".join(chr(ord(c) - 0x2400) if 0x2400 <= ord(c) < 0x2420 else c for c in s)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_svg_parses_and_its_text_is_the_input(name):
    from ui.export import spans_svg

    tok = get_tokenizer(name)
    for text in TEXTS:
        svg = spans_svg(text, {name: tok.tokenize(text)}, whitespace=True)
        assert svg_text(svg) == text, (name, text)


def test_svg_colors_are_the_apps_palette_and_neighbours_differ():
    from ui.export import spans_svg
    from ui.spans import PALETTE, PALETTE_DARK, span_model

    text = "Egg. I have an egg. egg. EGG."
    toks = get_tokenizer("gpt2").tokenize(text)
    for scheme, palette in (("light", PALETTE), ("dark", PALETTE_DARK)):
        root = ET.fromstring(spans_svg(text, {"gpt2": toks}, scheme=scheme))
        fills = [g.find(f"{SVG}rect").get("fill") for g in root.iter(f"{SVG}g")]
        on_screen = [palette[int(re.search(r"tl-c(\d+)", row[0]).group(1))] for row in span_model(text, toks)["segs"]]
        assert fills == on_screen
        assert all(a != b for a, b in zip(fills, fills[1:]))


def test_svg_wraps_only_between_boxes():
    from ui.export import spans_svg

    text = "word " * 200
    root = ET.fromstring(spans_svg(text, {"gpt2": get_tokenizer("gpt2").tokenize(text)}, width=400))
    ys = {float(r.get("y")) for g in root.iter(f"{SVG}g") for r in g.iter(f"{SVG}rect")}
    assert len(ys) > 10  # it wrapped
    for g in root.iter(f"{SVG}g"):  # each box is one rect on one line, inside the width
        (rect,) = g.iter(f"{SVG}rect")
        assert float(rect.get("x")) + float(rect.get("width")) <= 400


def test_svg_breaks_a_box_wider_than_the_picture_with_a_mark_on_each_broken_row():
    """A token longer than the picture's line (cl100k_base's " " + 65 '=', 66 cells of 9.6 px, in a
    picture 300 px wide) starts a row of its own and breaks into rows of at most 29 cells, each but the
    last ending in ↩ (tl-cont), every row inside the width; its text is still the input. Before, the
    box ran off the picture's right edge, cut off with no sign."""
    from ui.export import spans_svg

    text = "A rule: " + "=" * 300 + " ends here."
    svg = spans_svg(text, {"cl100k_base": get_tokenizer("cl100k_base").tokenize(text)}, width=300)
    root = ET.fromstring(svg)
    assert svg_text(svg) == text
    rows = []
    for g in root.iter(f"{SVG}g"):
        rects = list(g.iter(f"{SVG}rect"))
        assert all(float(r.get("x")) + float(r.get("width")) <= 300 for r in rects)
        texts = list(g.iter(f"{SVG}text"))
        marks = [t for t in texts for span in t if span.get("class") == "tl-cont"]
        rows.append(("".join(s for t in texts for s in t.itertext()), len(rects), len(marks), float(rects[0].get("x"))))
    first = rows[3]  # "A", " rule", ":", then the first run of "="
    # (300 - 2 * 2 padding) // 9.6 = 30 cells a row, less one for the mark: 29 + 29 + 8 = 66
    assert first == (" " + "=" * 28 + "↩" + "=" * 29 + "↩" + "=" * 8, 3, 2, 0.0)
    assert [r[1:3] for r in rows[4:8]] == [(3, 2), (3, 2), (3, 2), (2, 1)]  # 64, 64, 64 and 32 '='
    assert rows[8][1:] == (1, 0, 0.0)  # the 11 '=' on the next row: the broken box fills its last row
    assert all(r[1:3] == (1, 0) for r in rows[:3] + rows[9:])


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_payloads_stay_text_in_the_svg_and_the_html(name):
    from ui.export import spans_html, spans_svg

    tok = get_tokenizer(name)
    for text in [*PAYLOADS.values(), ALL]:
        toks = tok.tokenize(text, disallowed_special=())
        svg = spans_svg(text, {name: toks}, whitespace=True)
        root = ET.fromstring(svg)  # well-formed XML: nothing broke out of a text node
        assert {e.tag.removeprefix(SVG) for e in root.iter()} <= {"svg", "rect", "g", "title", "text", "tspan"}
        assert svg_text(svg) == text
        page = spans_html(text, {name: toks})
        assert "<script" not in page.lower().replace("&lt;script", "")
        assert not re.search(r"<(?!/?(?:span|div|b|wbr|style|meta|title|html|head|body|!DOCTYPE)\b)", page), text


def test_the_html_download_is_self_contained():
    from ui.export import spans_html

    text = "127 + 677 = 804"
    page = spans_html(text, {n: get_tokenizer(n).tokenize(text) for n in ("gpt2", "cl100k_base")}, whitespace=True)
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert not re.search(r"https?:|//|src=|href=|@import|url\(", page)
    assert page.count('class="tl-head"') == 2


def test_the_docstring_example_of_show_runs():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(tokenizers.show, "show", globs={"show": tokenizers.show}):
        runner.run(test)
    assert runner.summarize(verbose=False) == (0, 1)


def test_each_entry_of_a_download_has_its_own_heading_and_marks():
    """Issue 21: the spans downloads carry Compare's "Mark boundaries that differ" (a red edge on each box
    that starts where the reference has no boundary), per tokenizer, and a page's own heading per entry."""
    from ui.analysis import differing_starts
    from ui.export import spans_html, spans_svg
    from ui.spans import span_model

    text = "127 + 677 = 804 and hello   world"
    results = {n: get_tokenizer(n).tokenize(text) for n in ("gpt2", "cl100k_base")}
    marks = differing_starts(results["gpt2"], results["cl100k_base"])
    expected = sum("tl-diff" in row[0] for row in span_model(text, results["gpt2"], marks=marks)["segs"])
    assert marks and expected  # GPT-2 cuts the numbers and the spaces where cl100k does not
    each = {"gpt2": {"marks": marks, "title": "GPT-2 · A"}}

    root = ET.fromstring(spans_svg(text, results, each=each))
    heads = ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == "tl-head"]
    assert heads[0].startswith("GPT-2 · A ·") and heads[1].startswith(get_tokenizer("cl100k_base").title)
    groups = list(root.iter(f"{SVG}g"))
    edges = [sum(r.get("class") == "tl-edge" for r in g.iter(f"{SVG}rect")) for g in groups]
    n_gpt2 = len(span_model(text, results["gpt2"])["segs"])
    assert sum(edges[:n_gpt2]) == expected and sum(edges[n_gpt2:]) == 0
    assert all(r.get("fill") == "#dc2626" for g in groups for r in g.iter(f"{SVG}rect") if r.get("class") == "tl-edge")

    page = spans_html(text, results, each=each)
    first, second = page.split('class="tl-col"')[1:]
    diff_boxes = re.compile(r'class="[^"]*\btl-diff\b')
    assert len(diff_boxes.findall(first)) == expected and not diff_boxes.search(second)
    assert ">GPT-2 · A<" in first

    # the same options for all, as before: no marks unless asked
    assert "tl-edge" not in spans_svg(text, results) and not diff_boxes.search(spans_html(text, results))


def test_a_pinned_or_highlighted_token_is_outlined_in_the_svg():
    from ui.export import spans_svg

    text = "Egg. I have an egg."
    toks = get_tokenizer("gpt2").tokenize(text)
    for scheme in ("light", "dark"):
        for option in ({"pinned": 2}, {"highlight": {toks[2].id}}):
            root = ET.fromstring(spans_svg(text, {"gpt2": toks}, scheme=scheme, **option))
            ringed = [k for k, g in enumerate(root.iter(f"{SVG}g"))
                      if any(r.get("stroke-width") == "3" for r in g.iter(f"{SVG}rect"))]
            want = [2] if "pinned" in option else [k for k, t in enumerate(toks) if t.id == toks[2].id]
            assert ringed == want and len(want) < len(toks), (scheme, option)
