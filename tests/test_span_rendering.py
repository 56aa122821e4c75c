"""Token spans as the pages draw them (ui/spans.py): line breaks, legend tooltips, and colors that tell
neighbours apart and keep a repeated token's color."""

import re

from tokenizers import get_tokenizer


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


# -- keyboards and screen readers (issue 20) --------------------------------------------------------
def test_spoken_names_whitespace_and_invisible_characters():
    from tokenizers.core.html import spoken

    assert spoken(" the") == "space the"
    assert spoken("\n\n") == "2 newlines"
    assert spoken("  x ") == "2 spaces x space"
    assert spoken("a\tb\r\n") == "a tab b carriage return newline"
    assert spoken("\u00a0") == "no-break space"
    assert spoken("👨\u200d👩") == "👨 zero width joiner 👩"
    assert spoken("\u200b\u200b") == "2 zero width spaces"
    assert spoken("") == "empty"
    assert spoken("안녕") == "안녕"


def test_each_token_is_named_by_its_text_and_id():
    from tokenizers.core.html import segment_labels
    from ui.spans import span_model

    text = "Hi there\n\n  👋 isn't it<|endoftext|>"
    toks = get_tokenizer("gpt2").tokenize(text, allowed_special="all")
    assert segment_labels(span_model(text, toks)) == [
        "Hi, id 17250", "space there, id 612", "2 newlines, id 628", "space, id 220",
        "space 👋, 2 tokens, ids 50169 233", "space isn, id 2125", "'t, id 470", "space it, id 340",
        "<|endoftext|>, special token, id 50256"]
    sp = get_tokenizer("mistral_sp")
    model = span_model("a 녕", sp.tokenize("a 녕", disallowed_special=()))
    assert segment_labels(model)[-1].startswith("녕, byte fallback, 3 tokens, ids ")
    names = segment_labels(span_model("aa", [get_tokenizer("gpt2").tokenize("aa")[0]], names={7252: "Z"}))
    assert names == ["Z, id 7252"]  # a name drawn instead of the text is what is said


def test_clickable_spans_are_a_listbox_with_one_tab_stop():
    from ui.spans import render_spans

    text = "Tokenization isn't magic"
    toks = get_tokenizer("cl100k_base").tokenize(text)
    for pinned, stop in ((None, 0), (2, 2)):
        html = render_spans(text, toks, owner="compare:cl100k_base:a", pinned=pinned)
        assert 'role="listbox" aria-orientation="horizontal" aria-label="Tokens"' in html
        boxes = re.findall(r'<span class="tl-tok[^>]*>', html)
        assert len(boxes) == len(toks) and all('role="option"' in b for b in boxes)
        stops = [re.search(r'data-pos="(\d+)"', b).group(1) for b in boxes if 'tabindex="0"' in b]
        assert stops == [str(stop)]
        assert sum("tabindex" in b for b in boxes) == 1  # the others are focused from script (token_clicks.js)
        selected = [b for b in boxes if 'aria-selected="true"' in b]
        assert len(selected) == (pinned is not None) and (not selected or 'data-pos="2"' in selected[0])
        for b, t in zip(boxes, toks):
            assert f'aria-label="' in b and f', id {t.id}"' in b, b


def test_static_spans_are_named_images_without_tab_stops():
    from ui.spans import render_spans

    text = "isn't it"
    toks = get_tokenizer("gpt2").tokenize(text)
    html = render_spans(text, toks, whitespace=True)
    assert 'role="group" aria-label="Tokens"' in html and "tabindex" not in html and "listbox" not in html
    labels = re.findall(r'role="img" aria-label="([^"]*)"', html)
    assert labels == ["is, id 271", "n, id 77", "&#x27;t, id 470", "space it, id 340"]


def test_the_focus_ring_is_drawn_for_the_keyboard_in_both_schemes():
    from ui.spans import CSS

    light, dark = CSS.split("@media (prefers-color-scheme: dark)")
    assert ".tl-tok:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px" in light
    assert ".tl-tok:focus-visible{outline-color:#93c5fd" in dark
    assert ".tl-tok[data-tip]:focus-visible::after" in light  # the tooltip opens on focus too
