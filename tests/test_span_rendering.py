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


# -- a box longer than a line (issue 20, item 2) -------------------------------------------------------
def test_breakable_splits_between_grapheme_clusters_only():
    """A long box may break between two clusters, never inside one (e + accent, a ZWJ family, a flag),
    never inside a group's count or a word marker, and never between ◌ and the mark it carries."""
    from tokenizers.core import html

    def breakable(parts):
        return [tuple(p) for p in html.breakable(parts)]

    brk = ("brk", "")
    assert breakable([("", "ab")]) == [("", "a"), brk, ("", "b")]
    assert breakable([("", "e\u0301x")]) == [("", "e\u0301"), brk, ("", "x")]
    assert breakable([("", "👨\u200d👩\u200d👧🇰🇷")]) == [("", "👨\u200d👩\u200d👧"), brk, ("", "🇰🇷")]
    assert breakable([("sp", "▁"), ("", "ab"), ("ids", "[3]")]) == [("sp", "▁"), brk, ("", "a"), brk, ("", "b"),
                                                                     ("ids", "[3]")]
    assert breakable([("wm", "##"), ("", "ab"), ("wm", "</w>")]) == [("wm", "##"), brk, ("", "a"), brk, ("", "b"),
                                                                     brk, ("wm", "</w>")]
    assert breakable([("mark", "◌"), ("", "\u0301a")]) == [("mark", "◌"), ("", "\u0301"), brk, ("", "a")]
    # a line break is a break already: no mark beside it
    assert breakable([("ws", "↵"), ("", "\n"), ("ws", "·")]) == [("ws", "↵"), ("", "\n"), ("ws", "·")]
    # the text is unchanged: the marks are empty parts
    parts = [("ws", "·"), ("", "a-b/c\u0301 d\ud800"), ("ids", "[2]")]
    assert "".join(t for _, t in breakable(parts)) == "".join(t for _, t in parts)


def test_breakables_ascii_shortcut_equals_the_regex_reference():
    import random

    from tokenizers.core.html import breakable

    rng = random.Random(20)
    alphabet = ["a", "=", " ", "-", "\r", "\n", "\r\n", "e\u0301", "\u0301", "👋", "\u200d", "안", "\ud800"]
    kinds = ["", "", "", "ws", "sp", "mark", "ids", "wm", "nl"]
    for _ in range(2000):
        parts = [(rng.choice(kinds), "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))))
                 for _ in range(rng.randint(1, 5))]
        assert breakable(parts) == breakable(parts, fast=False), parts
    assert breakable([("", "=" * 40)]) == breakable([("", "=" * 40)], fast=False)
    big = [("", "ab" * 5000), ("ws", "·"), ("", "c" * 3001), ("ids", "[2]")]  # a mark every 4 clusters
    assert breakable(big) == breakable(big, fast=False)


def test_a_giant_box_gets_a_mark_every_few_characters_at_most_16():
    """A token of a million "a"s (an uploaded vocabulary can hold one): not a mark per character (2
    million parts), but one every 16, so every run still fits a phone's line; 40,000: one every 10."""
    from tokenizers.core.html import breakable

    parts = breakable([("", "a" * 1_000_000)])
    runs = [t for c, t in parts if c != "brk"]
    assert len(runs) == 62_500 and set(map(len, runs)) == {16} and len(parts) == 2 * 62_500 - 1
    runs = [t for c, t in breakable([("", "a" * 40_000)]) if c != "brk"]
    assert len(runs) == 4_000 and set(map(len, runs)) == {10}


def test_only_a_box_wider_than_a_phones_line_is_long():
    """LONG_CELLS: 16 cells (a wide character takes two); a box up to that never breaks."""
    from tokenizers.core.html import LONG_CELLS, cells, is_long

    assert LONG_CELLS == 16
    assert cells("안녕") == 4 and cells("e\u0301") == 1 and cells("👋") == 2 and cells("◌\u0301") == 2
    assert not is_long([("", "a" * 16)]) and is_long([("", "a" * 17)])
    assert not is_long([("", "안" * 8)]) and is_long([("", "안" * 9)])
    assert not is_long([("ws", "·"), ("", "a" * 15)]) and is_long([("ws", "·"), ("", "a" * 16)])
    assert not is_long([("", "a" * 16 + "\n" + "b" * 16)])  # each line counts, not the box


def test_a_long_token_is_drawn_breakable_and_an_ordinary_one_is_not():
    """cl100k_base spells " " and 300 '=' as " " + 65, 64, 64, 64, 32 and 11: the five longer than 16
    are tl-long boxes with a tl-brk between every two characters, their text unchanged; the 11 and the
    words around stay plain, unbreakable boxes."""
    from tokenizers.core.html import span_model
    from ui.spans import render_spans

    text = "A rule: " + "=" * 300 + " ends here."
    toks = get_tokenizer("cl100k_base").tokenize(text)
    model = span_model(text, toks)
    long = [seg for seg in model["segs"] if "tl-long" in seg[0].split()]
    short = [seg for seg in model["segs"] if "tl-long" not in seg[0].split()]
    assert [sum(len(t) for _, t in seg[4]) for seg in long] == [66, 64, 64, 64, 32]
    for seg in long:
        parts = seg[4]
        chars = [t for c, t in parts if c != "brk"]
        assert all(len(t) == 1 for t in chars) and parts.count(["brk", ""]) == len(chars) - 1
    assert all(["brk", ""] not in seg[4] for seg in short)
    assert "".join(t for seg in model["segs"] for _, t in seg[4]) == text
    html = render_spans(text, toks)
    assert html.count('<span class="tl-brk"></span>') == sum(seg[4].count(["brk", ""]) for seg in long)
    assert re.search(r'\.tl-brk::before\{content:"\\AD";\}', html)  # the soft hyphen is CSS, never text
    assert "\u00ad" not in html


def test_a_long_box_with_a_line_break_stays_inline():
    """A box whose text holds a line break (whitespace mode's "↵" then the break) is not an inline-block
    (that would turn its two lines into a rectangle); its long line still gets its break marks."""
    from tokenizers.core.html import span_model

    text = "x" + " " * 20 + "\n" + " " * 20 + "\ny"  # cl100k_base: "x", 20 spaces ↵ 20 spaces ↵, "y"
    toks = get_tokenizer("cl100k_base").tokenize(text)
    for ws in (False, True):
        (seg,) = [seg for seg in span_model(text, toks, whitespace=ws)["segs"] if any("\n" in t for _, t in seg[4])]
        assert "tl-long" not in seg[0].split() and seg[5] == "\n"
        parts = seg[4]
        assert parts.count(["brk", ""]) == (20 if ws else 19) * 2  # whitespace mode: 20 · and a ↵ per line


def test_inside_chunk_and_part_boxes_break_as_token_boxes_do():
    """Inside's pre-tokenization chunks and merge-step parts: a <wbr> after each box (lines break
    between them), and a chunk wider than a phone's line is breakable with its marks, its text kept."""
    from ui.spans import render_chunks, render_parts

    chunks = ["A", " rule", ":", " " + "=" * 300, "\n"]
    html = render_chunks(chunks)
    body = html.split('<div class="tl-spans">')[1]
    boxes = re.findall(r'<span class="(tl-tok[^"]*)"[^>]*>(.*?)</span><wbr>', body, re.S)
    assert [c for c, _ in boxes] == ["tl-tok tl-a0", "tl-tok tl-a1", "tl-tok tl-a0", "tl-tok tl-a1 tl-long",
                                     "tl-tok tl-a0"]
    assert boxes[3][1].count('<span class="tl-brk"></span>') == 300  # the · and 300 '=': 301 clusters
    assert re.sub(r"<[^>]+>", "", boxes[3][1]) == "·" + "=" * 300
    parts = render_parts(["ab", "c" * 40], highlight=0)
    assert parts.count("<wbr>") == 2 and parts.count('<span class="tl-brk"></span>') == 39
    assert 'class="tl-tok tl-a0 tl-long"' in parts and 'class="tl-tok tl-a1 tl-hl"' in parts


def test_a_long_box_keeps_its_tooltip_and_a_group_its_own():
    """Breaking a long box changes its parts only: a repeated long token shares one tooltip (built once
    per id), and a group (👋, two GPT-2 tokens here) still lists its tokens."""
    from tokenizers.core.html import span_model

    text = "=" * 64 + "\n👋\n" + "=" * 64
    model = span_model(text, get_tokenizer("gpt2").tokenize(text))
    segs = model["segs"]
    long = [seg for seg in segs if "tl-long" in seg[0].split()]
    assert len(long) == 2 and long[0][1] == long[1][1] and long[0][2] == long[1][2]
    assert model["tips"][long[0][1]].startswith(f"id {long[0][2]}\n")
    (group,) = [seg for seg in segs if "tl-group" in seg[0].split()]
    assert model["tips"][group[1]].startswith("2 tokens share '👋':")
