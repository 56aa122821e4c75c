"""Token spans as HTML: the one renderer behind the app's spans, a TokenList's `_repr_html_` in
Jupyter, `tokenizers.show` and the HTML/SVG downloads for slides. Works from token bytes and spans,
never from decoded strings. Pure: HTML and CSS strings, no JavaScript, nothing fetched.

Tokens that each hold part of one character (a byte-level BPE splitting an emoji, SentencePiece's
byte-fallback pieces) are grouped into one character-aligned *segment* that lists every id and its
bytes in hex, so a view never shows a bare U+FFFD. All user text passes through html.escape;
colors and classes come from the fixed palette below. The CSS reads on light and dark pages
(`prefers-color-scheme`), and a token's box never wraps inside itself: lines break only between boxes.
A box too long for a line (a run of "=" or a base64 chunk that is one token) is the one exception: it
breaks between its characters, and each broken line ends in a visible ↩ (see `breakable`).
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Callable, Mapping, Sequence, Set as AbstractSet
from dataclasses import dataclass

import regex

from tokenizers.core.text import WHITESPACE_MARKS, ByteCharMap, hexbytes, plural

# Token (tokenizers.core.tokenizer) is named in annotations only: tokenizer.py imports this module for
# TokenList._repr_html_, so importing it back would make a cycle.

# Token backgrounds. Light: pastels under dark text (contrast >= 9:1); dark: deep tones under light
# text (>= 7:1). Within each palette every two colors are at least 20 apart in CIELAB (delta E 1976),
# so no two colors are "nearly the same"; `assign_colors` then keeps neighbours on different colors.
PALETTE = ("#caffbf", "#f49af4", "#f8a981", "#81c7f8", "#fccfe6", "#81f881", "#81f8f8", "#f8e481", "#fcedcf",
           "#c1b1f1")
PALETTE_DARK = ("#6b4a1f", "#29298e", "#274d68", "#7e2552", "#225922", "#8e2929", "#3d2259", "#53282b", "#7e257e",
                "#285348")
ALTERNATING = ("#dbeafe", "#fde68a")
ALTERNATING_DARK = ("#1e3a5f", "#5c4813")


def _lab(hex_color: str) -> tuple[float, float, float]:
    """sRGB hex -> CIELAB (D65)."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(int(hex_color[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def color_distance(a: str, b: str) -> float:
    """CIE76 delta E between two hex colors (about 2.3 is a just-noticeable difference)."""
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b))) ** 0.5


def _preferred(token_id: int) -> int:
    return (token_id * 2654435761 & 0xFFFFFFFF) % len(PALETTE)


def color_for(token_id: int) -> str:
    """The color a token id prefers (its color unless a neighbour already has it)."""
    return PALETTE[_preferred(token_id)]


def assign_colors(keys: Sequence) -> list[tuple[int, bool]]:
    """(palette index, divider) per segment, for segments identified by `keys` (their ids).

    A key keeps one color wherever it appears (a repeated token keeps its color). A key gets its
    color where it first appears: the one its id prefers, unless the left neighbour or an already
    colored right neighbour has it, then the next free one. Two neighbours can still meet with the
    same color when both were colored elsewhere first; that pair gets `divider=True`, drawn as a
    visible edge, so adjacent tokens always differ visibly."""
    n = len(PALETTE)
    color_of: dict = {}
    out: list[tuple[int, bool]] = []
    prev = None
    for k, key in enumerate(keys):
        c = color_of.get(key)
        if c is None:
            avoid = {prev}
            if k + 1 < len(keys) and keys[k + 1] in color_of:
                avoid.add(color_of[keys[k + 1]])
            c = _preferred(key[0] if isinstance(key, tuple) else key)
            for step in range(n):
                if (c + step) % n not in avoid:
                    c = (c + step) % n
                    break
            color_of[key] = c
        out.append((c, c == prev))
        prev = c
    return out


@dataclass(frozen=True)
class Segment:
    tokens: tuple[Token, ...]
    char_span: tuple[int, int]

    @property
    def grouped(self) -> bool:
        return len(self.tokens) > 1


def segments(text: str, tokens: Sequence[Token]) -> list[Segment]:
    """Group consecutive tokens so that every segment ends on a character boundary."""
    cmap = ByteCharMap.shared(text)
    flags = cmap.boundary_flags  # one look-up per token instead of a search
    out: list[Segment] = []
    group: list[Token] = []
    for t in tokens:
        group.append(t)
        if flags[t.byte_span[1]]:
            out.append(Segment(tuple(group), (group[0].char_span[0], group[-1].char_span[1])))
            group = []
    if group:  # cannot happen when spans tile the text; kept so nothing is ever dropped
        out.append(Segment(tuple(group), (group[0].char_span[0], group[-1].char_span[1])))
    return out


def token_tooltip(t: Token, rank: int | None = None, unknown: bool = False) -> str:
    lines = [f"id {t.id}"]
    if not unknown:  # an unknown token's bytes are its name (b"[UNK]"), not the text it stands for
        lines += [f"bytes {hexbytes(t.bytes) or '(none)'}", f"repr {t.bytes!r}"]
    if t.piece:
        lines.append(f"piece {t.piece}")
    if rank is not None:
        lines.append(f"merge rank {rank}")
    if t.special:
        lines.append("special token")
    if t.byte_fallback:
        lines.append("byte-fallback piece (no piece for this character)")
    if unknown:
        lines.append("unknown token: the vocabulary cannot spell this text")
    return "\n".join(lines)


def segment_tooltip(seg: Segment, text: str, rank_of: Callable[[int], int | None] | None = None,
                    unknown_id: int | None = None) -> str:
    if not seg.grouped:
        t = seg.tokens[0]
        return token_tooltip(t, rank_of(t.id) if rank_of else None, t.id == unknown_id)
    chars = text[seg.char_span[0]:seg.char_span[1]]
    lines = [f"{len(seg.tokens)} tokens share {chars!r}:"]
    lines += [f"id {t.id}: bytes {hexbytes(t.bytes)}" for t in seg.tokens]
    return "\n".join(lines)


def _palette_css() -> str:
    light = "".join(f".tl-c{k}{{background:{c}}}" for k, c in enumerate(PALETTE))
    light += "".join(f".tl-a{k}{{background:{c}}}" for k, c in enumerate(ALTERNATING))
    dark = "".join(f".tl-c{k}{{background:{c}}}" for k, c in enumerate(PALETTE_DARK))
    dark += "".join(f".tl-a{k}{{background:{c}}}" for k, c in enumerate(ALTERNATING_DARK))
    return light + "@media (prefers-color-scheme: dark){" + dark + DARK_RULES + "}"


# Colors outside the token boxes inherit the page's text color, so the same HTML reads on Streamlit's
# light and dark themes; inside a box the text color belongs to the box's palette.
DARK_RULES = (".tl-spans{color:#f3f4f6}.tl-tok:hover,.tl-pin{outline-color:#f9fafb}.tl-ws,.tl-nl{color:#9ca3af}"
              ".tl-ids{color:#d1d5db}.tl-fallback{outline-color:#f87171}.tl-group{outline-color:#d1d5db}"
              ".tl-same{box-shadow:inset 1px 0 0 rgba(255,255,255,.75)}.tl-neutral{background:#374151}.tl-sp{color:#c4b5fd}"
              ".tl-hl{outline-color:#fbbf24}.tl-tok:focus-visible{outline-color:#93c5fd;box-shadow:0 0 0 2px #0e1117}"
              ".tl-wm{color:#5eead4}.tl-unk{background:#7f1d1d !important;color:#fecaca}.tl-head,.tl-head b{color:inherit !important}")

CSS = """
<style>
.tl-spans{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95rem;
  line-height:2.1;white-space:pre-wrap;word-break:break-word;color:#111827;}
.tl-spans{direction:ltr;}
/* a box never wraps inside itself: white-space:pre in the box, a wbr element after each box */
.tl-tok{border-radius:3px;padding:1px 0;margin-right:1px;unicode-bidi:isolate;white-space:pre;
  box-shadow:inset 0 -1px 0 rgba(0,0,0,.18);cursor:default;}
.tl-spans[data-owner] .tl-tok{cursor:pointer;}
/* positioned (the tooltip's anchor, above its neighbours) only when hovered, focused or pinned: a positioned
   box is a layer of its own to Chromium, and thousands of them made each keystroke's paint cost 100 ms */
.tl-tok:hover,.tl-tok:focus-visible,.tl-pin{position:relative;}
.tl-tok:hover{outline:2px solid #111827;outline-offset:0;z-index:2;}
/* the keyboard's focus: a ring outside the box, apart from hover's and a pin's outline (on the
   box's edge), on the page's background; the tooltip opens as on hover */
.tl-tok:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px;box-shadow:0 0 0 2px #fff;z-index:4;}
.tl-tok[data-tip]:hover::after,.tl-tok[data-tip]:focus-visible::after{
  content:attr(data-tip);position:absolute;left:0;top:1.9em;z-index:10;
  white-space:pre-wrap;overflow-wrap:anywhere;width:max-content;max-width:min(300px,80vw);
  background:#111827;color:#f9fafb;font-size:.78rem;line-height:1.35;direction:ltr;font-weight:400;
  padding:6px 8px;border-radius:6px;border:1px solid rgba(255,255,255,.3);
  box-shadow:0 4px 14px rgba(0,0,0,.25);pointer-events:none;}
.tl-flip .tl-tok:hover::after,.tl-flip .tl-tok:focus-visible::after{left:auto;right:0;}
/* a long box (span_model's tl-long, see breakable) is the one that may break: an inline-block, so it
   first moves to a line of its own, and inside it white-space:pre except at its tl-brk elements, each
   a soft hyphen drawn as ↩ where its line breaks and as nothing elsewhere (generated content: never
   in the text nor in a copy of it); line-height:normal keeps it the height of an inline box */
.tl-long{display:inline-block;max-width:100%;line-height:normal;vertical-align:baseline;}
.tl-brk{white-space:pre-wrap;hyphens:manual;-webkit-hyphenate-character:"\\21A9";hyphenate-character:"\\21A9";}
.tl-brk::before{content:"\\AD";}
.tl-long[data-tip]:hover::after,.tl-long[data-tip]:focus-visible::after{top:calc(100% + .6em);}
.tl-mark{color:#9ca3af;}
.tl-nl{color:#6b7280;}
.tl-group{outline:2px dashed #6b7280;outline-offset:-1px;}
.tl-special{background:#111827 !important;color:#fef08a;font-weight:600;}
.tl-fallback{outline:2px dotted #b91c1c;outline-offset:-1px;}
.tl-sp{color:#7c3aed;font-weight:700;}
.tl-ws{color:#6b7280;}
.tl-diff{border-left:3px solid #dc2626;}
.tl-same{margin-left:3px;box-shadow:inset 1px 0 0 rgba(0,0,0,.5);}
.tl-pin{outline:3px solid #111827;outline-offset:1px;z-index:3;}
.tl-hl{outline:3px solid #b45309;outline-offset:0;font-weight:700;}
.tl-wm{color:#0f766e;font-weight:700;font-size:.78em;}
.tl-unk{background:#fecaca !important;outline:2px solid #b91c1c;outline-offset:-1px;color:#7f1d1d;}
.tl-ids{font-size:.68rem;color:#374151;vertical-align:super;}
.tl-neutral{background:#e5e7eb;}
""" + _palette_css() + """
</style>
"""


LONG_CELLS = 16  # a box whose line is wider than this many cells can break (breakable): at XL (1.6rem)
#                  a phone's line holds about 22 cells, so every box up to this width fits one line
CONTINUED = "\u21a9"  # ↩, drawn where a long box's line breaks (the CSS's hyphenate-character)
_UNBROKEN = frozenset(("ids", "wm", "nl"))  # parts that stay whole: "[3]", "##", "</w>", a run of ↵
MAX_BREAKS = 4096  # break marks in one box, about at most (breakable)
BREAK_STEP = 16    # clusters between two marks, at most: every line holds more (LONG_CELLS)


def cells(s: str) -> int:
    """Monospace cells of `s`: East Asian wide characters and emoji take two, combining marks none."""
    if s.isascii():
        return len(s)
    n, prev = 0, ""
    for ch in s:
        if unicodedata.combining(ch) or ch in "\u200d\ufe0f":
            # subtle: after the app's ◌ a mark is drawn beside it, not on it (◌ and most marks come from
            # different fallback fonts, which do not combine), so it takes a cell there
            n += prev == "◌"
        else:
            n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        prev = ch
    return n


def is_long(parts: Sequence[Sequence[str]]) -> bool:
    """Whether a box's parts hold a line wider than LONG_CELLS (a cheap length check first: a line
    of up to LONG_CELLS / 2 characters is narrower, wide or not)."""
    if sum(len(t) for _, t in parts) <= LONG_CELLS // 2:
        return False
    return any(cells(line) > LONG_CELLS for line in "".join(t for _, t in parts).split("\n"))


def breakable(parts: Sequence[Sequence[str]], *, fast: bool = True) -> list[list[str]]:
    """A long box's parts (as span_model's rows hold them: [class, text] lists) with a ["brk", ""] part
    between every two grapheme clusters: the only places its lines may break, each drawn as ↩ when it
    does (the CSS, and spans_svg). A cluster (a letter and its accents, an emoji sequence, a flag) is
    never split, nor the parts in _UNBROKEN, nor ◌ from the mark it carries; a line break needs no
    mark. A giant box (a token of a million "a"s from an uploaded vocabulary) gets at most about
    MAX_BREAKS marks: one every `step` clusters, at most BREAK_STEP (its lines then end up to that many
    cells short). `fast=False`: every part through the regex (the reference a test holds the ASCII
    shortcut equal to)."""
    step = min(BREAK_STEP, max(1, -(-sum(len(t) for _, t in parts) // MAX_BREAKS)))
    out: list[list[str]] = []
    prev = ""
    since = 0  # clusters since the last break mark
    for c, t in parts:
        if fast and t and t.isascii() and prev.isascii() and prev not in ("\r", "\n") and "\r" not in t \
                and "\n" not in t and c not in _UNBROKEN and c != "mark":
            # ASCII without line breaks: every character is a cluster of its own that extends nothing
            # before it (most long boxes: runs of "=", URLs, base64), so no regex per character
            at = 0
            while at < len(t):
                if since >= step:
                    if prev:
                        out.append(["brk", ""])
                    since = 0
                piece = t[at:at + step - since]
                if out and out[-1][0] == c:
                    out[-1] = [c, out[-1][1] + piece]
                else:
                    out.append([c, piece])
                since += len(piece)
                at += len(piece)
                prev = piece[-1]
            continue
        for u in [t] if c in _UNBROKEN or c == "mark" else regex.findall(r"\X", t):
            if not prev or regex.match(r"\X", prev + u).end() <= len(prev):  # u starts a cluster
                if since >= step:
                    if prev and prev != "\n" and u != "\n" and c != "ids":
                        out.append(["brk", ""])
                    since = 0
                since += 1
            if out and out[-1][0] == c:
                out[-1] = [c, out[-1][1] + u]
            else:
                out.append([c, u])
            prev = u
    return out


def _visible_parts(s: str, whitespace: bool) -> list[tuple[str, str]]:
    """`s` as (class, text) parts: with `whitespace`, space as ·, tab as →, CR as ␍ and newline as ↵
    (then the real line break), each a "ws" part; other text is a plain ("") part."""
    if not whitespace:
        return [("", s)] if s else []
    out: list[tuple[str, str]] = []
    run = []
    for ch in s:
        mark = WHITESPACE_MARKS.get(ch)
        if mark is None:
            run.append(ch)
            continue
        if run:
            out.append(("", "".join(run)))
            run = []
        out.append(("ws", mark))
        if ch == "\n":
            run.append("\n")
    if run:
        out.append(("", "".join(run)))
    return out


def word_markers(t: Token) -> tuple[str, str] | None:
    """(prefix, suffix) that a token's vocabulary spelling adds around its own characters and that
    cover no input bytes: WordPiece's `##` ("##est" for the bytes "est"), classic BPE's `</w>`
    ("low</w>" for "low"; a lone "</w>" has no bytes at all). None when the spelling is the text
    itself, or is not of that shape (SentencePiece's ▁ stands for a space, drawn by _body_parts)."""
    if not t.piece:
        return None
    try:
        surface = t.bytes.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if t.piece == surface:
        return None
    if t.piece.startswith(surface):
        return "", t.piece[len(surface):]
    if t.piece.endswith(surface):
        return t.piece[:-len(surface)], ""
    return None


def _marked_parts(t: Token, shown: str, prefix: str, suffix: str, whitespace: bool) -> list[tuple[str, str]]:
    """A word-level token: its characters with its marker(s) drawn beside them, and the whitespace it
    carries (the models discard whitespace; spans give it to the token before) kept outside."""
    surface = t.bytes.decode("utf-8")
    at = shown.find(surface) if surface else 0
    if at < 0:
        at, surface = 0, shown
    pre, post = shown[:at], shown[at + len(surface):]
    out = _visible_parts(pre, whitespace)
    if prefix:
        out.append(("wm", prefix))
    if surface and unicodedata.category(surface[0]).startswith("M"):
        out.append(("mark", "◌"))
    out += _visible_parts(surface, whitespace)
    if suffix:
        out.append(("wm", suffix))
    return out + _visible_parts(post, whitespace)


def _body_parts(t_first: Token, shown: str, whitespace: bool) -> list[tuple[str, str]]:
    """The visible text of a segment. SentencePiece's word marker ▁ is drawn where the piece has
    it: one per space it stands for, plus one for the dummy prefix (which stands for no text). A
    segment that starts with a combining mark gets a dotted circle ◌ to sit on, or it would be
    invisible. Word-level markers (`##`, `</w>`) are drawn by _marked_parts."""
    markers = word_markers(t_first)
    if markers is not None:
        return _marked_parts(t_first, shown, *markers, whitespace)
    piece = t_first.piece
    # subtle: only a piece that differs from its bytes stands for spaces with ▁ (a word-level model
    # that met a literal ▁ in the text spells it as itself)
    if piece and piece == t_first.bytes.decode("utf-8", errors="replace"):
        piece = ""
    marks = len(piece) - len(piece.lstrip("\u2581")) if piece else 0
    prefix: list[tuple[str, str]] = []
    if marks:
        spaces = len(shown) - len(shown.lstrip(" "))
        prefix.append(("sp", "▁" * marks))
        shown = shown[min(marks, spaces):]
    if shown and unicodedata.category(shown[0]).startswith("M"):
        prefix.append(("mark", "◌"))
    return prefix + _visible_parts(shown, whitespace)


# Whitespace and invisible characters a screen reader would skip or read as nothing, by name. The
# leading space of " the" is the lesson of a token view, so it is said ("space the").
_SPOKEN = {" ": ("space", "spaces"), "\n": ("newline", "newlines"), "\t": ("tab", "tabs"),
           "\r": ("carriage return", "carriage returns")}


def _spoken_char(ch: str) -> str | None:
    """A name for a character that reads as nothing (whitespace, format, control), else None."""
    if ch in _SPOKEN:
        return _SPOKEN[ch][0]
    if ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") or ch == "\ufffd":
        return unicodedata.name(ch, f"U+{ord(ch):04X}").lower()
    return None


def spoken(s: str) -> str:
    """`s` as a screen reader should say it: visible text as itself, each run of whitespace or
    invisible characters by name ("space the", "2 newlines", "zero width joiner"), nothing as
    "empty"."""
    if " " not in s and s.isprintable():  # most tokens: no space, nothing invisible (isprintable is
        return s or "empty"                  # False for every category _spoken_char names)
    words: list[str] = []
    run: list[str] = []
    k = 0
    while k < len(s):
        ch = s[k]
        name = _spoken_char(ch)
        if name is None:
            run.append(ch)
            k += 1
            continue
        if run:
            words.append("".join(run))
            run = []
        n = 1
        while k + n < len(s) and s[k + n] == ch:
            n += 1
        words.append(name if n == 1 else f"{n} {_SPOKEN[ch][1] if ch in _SPOKEN else name + 's'}")
        k += n
    if run:
        words.append("".join(run))
    return " ".join(words) or "empty"


def token_label(seg: Segment, text: str, *, name: str | None = None, unknown: bool = False) -> str:
    """A segment's accessible name: its text said readably (or the name drawn instead of it), what
    kind of token it is, and its id or ids ("space the, id 262")."""
    said = spoken(name if name is not None else text[seg.char_span[0]:seg.char_span[1]])
    kinds = []
    if any(t.special for t in seg.tokens):
        kinds.append("special token")
    if any(t.byte_fallback for t in seg.tokens):
        kinds.append("byte fallback")
    if unknown:
        kinds.append("unknown token")
    ids = " ".join(str(t.id) for t in seg.tokens)
    which = f"{len(seg.tokens)} tokens, ids {ids}" if seg.grouped else f"id {ids}"
    return ", ".join([said, *kinds, which])


def _split_breaks(shown: str) -> tuple[str, str]:
    """(text, trailing line breaks). A segment's trailing newlines are written after its box, so a
    box never wraps onto the next line as an empty sliver (Mistral's <0x0A> piece)."""
    core = shown.rstrip("\r\n")
    return core, shown[len(core):]


def span_model(text: str, tokens: Sequence[Token], *, whitespace: bool = False, alternating: bool = False,
               marks: set[int] | frozenset[int] = frozenset(),
               rank_of: Callable[[int], int | None] | None = None, flip_tips: bool = False,
               owner: str | None = None, start: int = 0, pinned: int | None = None,
               highlight: AbstractSet[int] = frozenset(), names: Mapping[int, str] | None = None,
               font_size: str | None = None, unknown_id: int | None = None, label: str = "Tokens") -> dict:
    """Token spans as plain data (what render_spans writes as HTML, and what the Compare page's
    spans component builds with DOM calls): {"owner", "flip", "font", "label", "tips": [tooltip…],
    "segs": [[classes, tip index, ids, pos, [[part class, text]…], line breaks after the box]…],
    "labels": [accessible name…], "label_of": [each segment's name, an index in labels…]}. Part
    classes: "" plain text, "ws" a whitespace mark, "sp" SentencePiece's ▁, "mark" ◌, "nl" a faint ↵,
    "ids" a group's count. `label` names the whole block for a screen reader. Other arguments as
    render_spans."""
    segs = segments(text, tokens)
    colors = assign_colors([tuple(t.id for t in seg.tokens) for seg in segs]) if not alternating else None
    tips: list[str] = []
    tip_of: dict[int, int] = {}
    rows = []
    labels: list[str] = []        # each distinct name once (as tips): a 5,000-token view repeats most
    label_ix: dict[tuple, int] = {}
    label_of: list[int] = []      # per segment, its name's index in labels
    pos = start
    for k, seg in enumerate(segs):
        first = seg.tokens[0]
        group = seg.tokens
        classes = ["tl-tok"]  # kinds first, color last: "tl-tok tl-special" reads as before
        if len(group) > 1:
            classes.append("tl-group")
        if first.special if len(group) == 1 else any(t.special for t in group):
            classes.append("tl-special")
        if first.byte_fallback if len(group) == 1 else any(t.byte_fallback for t in group):
            classes.append("tl-fallback")
        if marks and any(t.byte_span[0] in marks for t in group):
            classes.append("tl-diff")
        if unknown_id is not None and any(t.id == unknown_id for t in group):
            classes.append("tl-unk")
        if highlight and any(t.id in highlight for t in group):
            classes.append("tl-hl")
        if pinned is not None and pos <= pinned < pos + len(group):
            classes.append("tl-pin")
        classes.append(f"tl-a{k % 2}" if alternating else f"tl-c{colors[k][0]}")
        if colors and colors[k][1]:
            classes.append("tl-same")
        core, breaks = _split_breaks(text[seg.char_span[0]:seg.char_span[1]])
        named = names.get(first.id) if names and not seg.grouped else None
        # a name depends on the ids, the text and the kind: said once per distinct one
        key = (first.id if len(group) == 1 else tuple(t.id for t in group), text[seg.char_span[0]:seg.char_span[1]],
               named)
        said = label_ix.get(key)
        if said is None:
            said = label_ix[key] = len(labels)
            labels.append(token_label(seg, text, name=named,
                                      unknown=unknown_id is not None and any(t.id == unknown_id for t in group)))
        label_of.append(said)
        if named is not None:
            body = [("", named)]
        else:
            body = _body_parts(first, core, whitespace) if core or first.piece else []
        if breaks:
            if whitespace:
                body += [p for p in _visible_parts(breaks, True) if p[1] != "\n"]
            elif not body:  # a token that is only a line break: a faint mark so its box can be seen
                body = [("nl", "↵" * breaks.count("\n") or "␍")]
        if seg.grouped:
            body.append(("ids", f"[{len(seg.tokens)}]"))
            tip = len(tips)
            tips.append(segment_tooltip(seg, text, rank_of, unknown_id))
        else:  # a token's tooltip depends only on its id and kind: built once per id
            tip = tip_of.get(first.id)
            if tip is None:
                tip = tip_of[first.id] = len(tips)
                tips.append(segment_tooltip(seg, text, rank_of, unknown_id))
        long = is_long(body)
        if long:
            if "\n" not in core:  # one line: it moves to a line of its own before it breaks (the CSS)
                classes.append("tl-long")
            body = breakable(body)  # already the lists a row holds
        rows.append([" ".join(classes), tip, " ".join(str(t.id) for t in seg.tokens), pos,
                     body if long else [list(p) for p in body], breaks])
        pos += len(seg.tokens)
    return {"owner": owner or "", "flip": flip_tips, "font": font_size or "", "label": label, "tips": tips,
            "segs": rows, "labels": labels, "label_of": label_of}


def segment_labels(model: dict) -> list[str]:
    """Each segment's accessible name, in order, from a span_model."""
    return [model["labels"][k] for k in model.get("label_of", ())]


def _parts_html(parts) -> str:
    return "".join(html.escape(t) if not c else f'<span class="tl-{c}">{html.escape(t)}</span>' for c, t in parts)


def model_html(model: dict) -> str:
    """The HTML of a span_model (with the CSS): what render_spans returns.

    For a screen reader: spans with an owner (clickable, app_pages.kit.widgets.token_clicks) are a
    listbox of options, one tab stop (roving tabindex: the pinned token, else the first), arrows move,
    Enter pins; screen readers switch to their focus mode in a listbox, so the arrows reach the page,
    and say each option's name with its position ("space the, id 262, 2 of 40"). Spans that cannot be
    clicked are a group of images, each named: read in browse mode token by token, text and id."""
    owned = bool(model["owner"])
    attrs = f' data-owner="{html.escape(model["owner"], quote=True)}"' if owned else ""
    style = f' style="font-size:{html.escape(model["font"], quote=True)}"' if model["font"] else ""
    role, item = ("listbox", "option") if owned else ("group", "img")
    orient = ' aria-orientation="horizontal"' if owned else ""
    label = html.escape(model.get("label") or "Tokens", quote=True)
    tips = [html.escape(t, quote=True) for t in model["tips"]]
    names = [html.escape(t, quote=True) for t in model.get("labels", ())]  # each distinct name escaped once
    label_of = model.get("label_of") or [None] * len(model["segs"])
    stop = focus_stop(model) if owned else -1
    out = [CSS, f'<div class="tl-spans{" tl-flip" if model["flip"] else ""}"{attrs}{style} role="{role}"{orient} '
                f'aria-label="{label}">']
    for k, ((cls, tip, ids, pos, parts, breaks), said) in enumerate(zip(model["segs"], label_of)):
        extra = ""
        if owned:  # one tab stop; token_clicks.js moves it (the others need no tabindex to be focused from script)
            pinned = "tl-pin" in cls.split()
            extra = (' tabindex="0"' if k == stop else "") + (' aria-selected="true"' if pinned else "")
        out.append(f'<span class="{cls}" data-tip="{tips[tip]}" data-ids="{ids}" data-pos="{pos}" role="{item}" '
                   f'aria-label="{names[said] if said is not None else ""}"{extra}>{_parts_html(parts)}'
                   f'</span>{html.escape(breaks)}<wbr>')
    out.append("</div>")
    return "".join(out)


def focus_stop(model: dict) -> int:
    """The index of the segment that takes the Tab stop of clickable spans: the pinned one, else
    the first (token_spans.js makes the same choice)."""
    for k, seg in enumerate(model["segs"]):
        if "tl-pin" in seg[0].split():
            return k
    return 0


def render_spans(text: str, tokens: Sequence[Token], **options) -> str:
    """HTML for colored token spans (for st.html). Options (all keyword):
    `whitespace`: space ·, tab →, newline ↵; `alternating`: two colors in turn instead of by id;
    `marks`: byte offsets of boundaries to flag (boundary diff); `rank_of`: id -> merge rank for the
    tooltips; `flip_tips`: open tooltips to the left (for a column at the right edge of the page);
    `owner`: makes the tokens clickable (data-owner on the container, data-pos = `start` + the index of
    each segment's first token, for app_pages.kit.widgets.token_clicks); `pinned`: that position outlined;
    `highlight`: ids drawn outlined (the Lab's newest merge); `names`: ids drawn as a name instead of
    their text (the Lab's Z, Y, X…); `font_size`: a CSS size for the text (presentation mode);
    `unknown_id`: the tokenizer's unknown token, drawn red over the text it stands for; `label`: the
    block's name for a screen reader (each token is named by its text, said readably, and its id)."""
    return model_html(span_model(text, tokens, **options))


def box_inner(s: str, whitespace: bool = False) -> tuple[str, str]:
    """(extra classes, inner HTML) of a box drawn around the text `s` outside span_model (Inside's
    pre-tokenization chunks and merge steps): the text escaped, whitespace marked with `whitespace`, and
    a box wider than LONG_CELLS given its break marks as span_model does (" tl-long" unless the text
    holds a line break; "" for an ordinary box)."""
    parts = _visible_parts(s, whitespace)
    if not is_long(parts):
        return "", _parts_html(parts)
    return ("" if "\n" in s else " tl-long"), _parts_html(breakable(parts))


def visible(s: str, whitespace: bool) -> str:
    """Escaped text; with `whitespace`, space as ·, tab as →, newline as ↵ then a real line break."""
    return _parts_html(_visible_parts(s, whitespace))

def render_header(name: str, title: str, n_tokens: int, n_chars: int, n_bytes: int, *, unknown: int = 0,
                  note: str = "") -> str:
    """A tokenizer's heading and counts, with stable hooks (data-tokenizer, .tl-count, .tl-unknown)
    for tests. `unknown`: how many unknown tokens, shown in red when there are any; `note`: a line under
    the heading on what the tokenizer is (plain text). Its colors inherit the page's, so it reads on
    light and dark themes."""
    unk = (f' · <b class="tl-unknown" style="color:#dc2626">{unknown:,} unknown</b>' if unknown else "")
    about = f'<div class="tl-head-note" style="font-size:.8rem;opacity:.75">{html.escape(note)}</div>' if note else ""
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;margin:.2rem 0 .4rem">'
            f'<span style="font-size:1.15rem;font-weight:700">{html.escape(title)}</span> '
            f'<span style="opacity:.8">· <b class="tl-count">{n_tokens:,}</b> {plural(n_tokens, "token")} · '
            f'{n_chars:,} {plural(n_chars, "character")} · {n_bytes:,} {plural(n_bytes, "byte")}{unk}</span>'
            f'{about}</div>')


# -- notebooks: a TokenList's _repr_html_ and tokenizers.show -----------------------------------------------
NOTEBOOK_LIMIT = 5_000  # tokens drawn per tokenization in a notebook; the counts are always of all of them


def tokens_html(tokens, *, limit: int = NOTEBOOK_LIMIT, title: str | None = None, **options) -> str:
    """A TokenList as one self-contained block (its CSS inline, no script, nothing fetched): the
    tokenizer's heading (`title`, or the tokenizer's) with the counts, then the colored spans of its
    first `limit` tokens (said when cut). `options` are span_model's (whitespace, alternating...).
    What `TokenList._repr_html_` shows in Jupyter, and each column of `tokenizers.show` and of the
    app's HTML download."""
    tok, text = tokens.tokenizer, tokens.text
    n = len(tokens)
    shown = tokens[:limit]
    out = ['<div class="tl-notebook">',
           render_header(tok.name, title or _title(tok), n, len(text), len(text.encode("utf-8", "surrogatepass"))),
           model_html(span_model(text, shown, **options))]
    if n > len(shown):
        out.append(f'<div class="tl-more" style="font-family:sans-serif;opacity:.8">… the first {len(shown):,} of '
                   f'{n:,} tokens</div>')
    out.append("</div>")
    return "".join(out)


def tokens_text(tokens, *, limit: int = 200) -> str:
    """A TokenList in plain text for a terminal: its heading and count, then its segments between
    bars as the spans draw them (whitespace as · → ↵ ␍; tokens that share a character as one
    segment with their count in brackets)."""
    tok, text, n = tokens.tokenizer, tokens.text, len(tokens)
    segs = segments(text, tokens[:limit])
    pieces = "|".join("".join(WHITESPACE_MARKS.get(c, c) for c in text[a:b]) + (f"[{len(s.tokens)}]" if s.grouped else "")
                      for s in segs for a, b in [s.char_span])
    more = f"|… ({n - limit:,} more)" if n > limit else ""
    return f"{_title(tok)}: {n:,} {plural(n, 'token')}\n  |{pieces}{more}|"


def _title(tok) -> str:
    title = tok.title or tok.name
    return title if tok.name in title else f"{title} ({tok.name})"


def entry_options(name: str, options: Mapping, each: Mapping[str, Mapping] | None) -> tuple[str | None, dict]:
    """(heading, span_model options) of one entry of a comparison: `options` for all, overridden by
    `each[name]` (an entry's own marks, unknown_id... and "title", its heading)."""
    own = dict((each or {}).get(name, {}))
    title = own.pop("title", None)
    return title, {**options, **own}


class Comparison:
    """Several tokenizations side by side: `tokenizers.show(text, tokenizers=[...])`. Jupyter draws
    `_repr_html_` (a column per entry, each with its counts); a terminal prints `repr`. `results`
    maps each entry's name to its TokenList (each carries its own text); `each`: an entry's own
    options and heading (entry_options)."""

    def __init__(self, text: str, results: Mapping[str, object], *, limit: int = NOTEBOOK_LIMIT,
                 each: Mapping[str, Mapping] | None = None, **options):
        self.text = text
        self.results = dict(results)
        self.limit = limit
        self.each = each
        self.options = options  # span_model's: whitespace, alternating...

    def counts(self) -> dict[str, int]:
        return {name: len(toks) for name, toks in self.results.items()}

    def _repr_html_(self) -> str:
        return self.html()

    def html(self) -> str:
        """The columns as one self-contained block of HTML (what Jupyter draws)."""
        columns = "".join(f'<div class="tl-col" style="min-width:0">'
                          f'{tokens_html(toks, limit=self.limit, title=title, **opts)}</div>'
                          for name, toks in self.results.items()
                          for title, opts in [entry_options(name, self.options, self.each)])
        return ('<div class="tl-compare" style="display:grid;gap:1rem 1.5rem;align-items:start;'
                'grid-template-columns:repeat(auto-fit,minmax(18rem,1fr))">' + columns + "</div>")

    def __repr__(self) -> str:
        return "\n".join(tokens_text(toks) for toks in self.results.values())
