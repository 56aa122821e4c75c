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
