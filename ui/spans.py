"""Token spans as HTML. Works from token bytes and spans, never from decoded strings.

Tokens that each hold part of one character (a byte-level BPE splitting an emoji, SentencePiece's
byte-fallback pieces) are grouped into one character-aligned *segment* that lists every id and its
bytes in hex, so the page never shows a bare U+FFFD. All user text passes through html.escape;
colors and classes come from the fixed palette below.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tokenizers import Token
from tokenizers.text import ByteCharMap

from .formatting import hexbytes, plural

# pastel backgrounds that keep dark text readable (contrast > 7:1), spread over hue and lightness
# so that neighbours differ for common kinds of color blindness too
PALETTE = ("#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6", "#ffadad", "#a0c4ff",
           "#d0f4de", "#fcf6bd", "#e4c1f9", "#b5ead7")
ALTERNATING = ("#dbeafe", "#fde68a")


def color_for(token_id: int) -> str:
    """A stable color per id: the same token always gets the same color."""
    return PALETTE[(token_id * 2654435761 & 0xFFFFFFFF) % len(PALETTE)]


@dataclass(frozen=True)
class Segment:
    tokens: tuple[Token, ...]
    char_span: tuple[int, int]

    @property
    def grouped(self) -> bool:
        return len(self.tokens) > 1


def segments(text: str, tokens: Sequence[Token]) -> list[Segment]:
    """Group consecutive tokens so that every segment ends on a character boundary."""
    cmap = ByteCharMap.of(text)
    out: list[Segment] = []
    group: list[Token] = []
    for t in tokens:
        group.append(t)
        if cmap.is_boundary(t.byte_span[1]):
            out.append(Segment(tuple(group), (group[0].char_span[0], group[-1].char_span[1])))
            group = []
    if group:  # cannot happen when spans tile the text; kept so nothing is ever dropped
        out.append(Segment(tuple(group), (group[0].char_span[0], group[-1].char_span[1])))
    return out


def visible(s: str, whitespace: bool) -> str:
    """Escaped text; with `whitespace`, space as ·, tab as →, newline as ↵ then a real line break."""
    s = html.escape(s)
    if not whitespace:
        return s
    return (s.replace(" ", '<span class="tl-ws">·</span>').replace("\t", '<span class="tl-ws">→</span>')
             .replace("\r", '<span class="tl-ws">␍</span>').replace("\n", '<span class="tl-ws">↵</span>\n'))


def token_tooltip(t: Token, rank: int | None = None) -> str:
    lines = [f"id {t.id}", f"bytes {hexbytes(t.bytes) or '(none)'}", f"repr {t.bytes!r}"]
    if t.piece:
        lines.append(f"piece {t.piece}")
    if rank is not None:
        lines.append(f"merge rank {rank}")
    if t.special:
        lines.append("special token")
    if t.byte_fallback:
        lines.append("byte-fallback piece (no piece for this character)")
    return "\n".join(lines)


def segment_tooltip(seg: Segment, text: str, rank_of: Callable[[int], int | None] | None = None) -> str:
    if not seg.grouped:
        t = seg.tokens[0]
        return token_tooltip(t, rank_of(t.id) if rank_of else None)
    chars = text[seg.char_span[0]:seg.char_span[1]]
    lines = [f"{len(seg.tokens)} tokens share {chars!r}:"]
    lines += [f"id {t.id}: bytes {hexbytes(t.bytes)}" for t in seg.tokens]
    return "\n".join(lines)


CSS = """
<style>
.tl-spans{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95rem;
  line-height:2.1;white-space:pre-wrap;word-break:break-word;color:#111827;}
.tl-spans{direction:ltr;}
.tl-tok{position:relative;border-radius:3px;padding:1px 0;margin-right:1px;unicode-bidi:isolate;
  box-shadow:inset 0 -1px 0 rgba(0,0,0,.18);cursor:default;}
.tl-tok:hover{outline:2px solid #111827;outline-offset:0;z-index:2;}
.tl-tok:hover::after{content:attr(data-tip);position:absolute;left:0;top:1.9em;z-index:10;
  white-space:pre-wrap;overflow-wrap:anywhere;width:max-content;max-width:min(300px,80vw);
  background:#111827;color:#f9fafb;font-size:.78rem;line-height:1.35;direction:ltr;
  padding:6px 8px;border-radius:6px;box-shadow:0 4px 14px rgba(0,0,0,.25);pointer-events:none;}
.tl-flip .tl-tok:hover::after{left:auto;right:0;}
.tl-mark{color:#9ca3af;}
.tl-group{outline:2px dashed #6b7280;outline-offset:-1px;}
.tl-special{background:#111827 !important;color:#fef08a;font-weight:600;}
.tl-fallback{outline:2px dotted #b91c1c;outline-offset:-1px;}
.tl-sp{color:#7c3aed;font-weight:700;}
.tl-ws{color:#6b7280;}
.tl-diff{border-left:3px solid #dc2626;}
.tl-ids{font-size:.68rem;color:#374151;vertical-align:super;}
</style>
"""


def _body(t_first: Token, shown: str, whitespace: bool) -> str:
    """The visible text of a segment. SentencePiece's word marker ▁ is drawn where the piece has
    it: one per space it stands for, plus one for the dummy prefix (which stands for no text). A
    segment that starts with a combining mark gets a dotted circle ◌ to sit on, or it would be
    invisible."""
    marks = len(t_first.piece) - len(t_first.piece.lstrip("\u2581")) if t_first.piece else 0
    prefix = ""
    if marks:
        spaces = len(shown) - len(shown.lstrip(" "))
        prefix = f'<span class="tl-sp">{"▁" * marks}</span>'
        shown = shown[min(marks, spaces):]
    if shown and unicodedata.category(shown[0]).startswith("M"):
        prefix += '<span class="tl-mark">◌</span>'
    return prefix + visible(shown, whitespace)


def render_spans(text: str, tokens: Sequence[Token], *, whitespace: bool = False, alternating: bool = False,
                 marks: set[int] | frozenset[int] = frozenset(),
                 rank_of: Callable[[int], int | None] | None = None, flip_tips: bool = False) -> str:
    """HTML for colored token spans. `marks`: byte offsets of boundaries to flag (boundary diff).
    `flip_tips`: open tooltips to the left (for a column at the right edge of the page)."""
    parts = [CSS, f'<div class="tl-spans{" tl-flip" if flip_tips else ""}">']
    for k, seg in enumerate(segments(text, tokens)):
        first = seg.tokens[0]
        classes = ["tl-tok"]
        if seg.grouped:
            classes.append("tl-group")
        if any(t.special for t in seg.tokens):
            classes.append("tl-special")
        if any(t.byte_fallback for t in seg.tokens):
            classes.append("tl-fallback")
        if marks and any(t.byte_span[0] in marks for t in seg.tokens):
            classes.append("tl-diff")
        bg = ALTERNATING[k % 2] if alternating else color_for(first.id)
        body = _body(first, text[seg.char_span[0]:seg.char_span[1]], whitespace)
        if seg.grouped:
            body += f'<span class="tl-ids">[{len(seg.tokens)}]</span>'
        tip = html.escape(segment_tooltip(seg, text, rank_of), quote=True)
        ids = " ".join(str(t.id) for t in seg.tokens)
        parts.append(f'<span class="{" ".join(classes)}" style="background:{bg}" data-tip="{tip}" '
                     f'data-ids="{ids}">{body}</span>')
    parts.append("</div>")
    return "".join(parts)


def render_header(name: str, title: str, n_tokens: int, n_chars: int, n_bytes: int) -> str:
    """A tokenizer's heading and counts, with stable hooks (data-tokenizer, .tl-count) for tests."""
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;margin:.2rem 0 .4rem">'
            f'<span style="font-size:1.15rem;font-weight:700">{html.escape(title)}</span> '
            f'<span style="color:#374151">· <b class="tl-count">{n_tokens:,}</b> {plural(n_tokens, "token")} · '
            f'{n_chars:,} {plural(n_chars, "character")} · {n_bytes:,} {plural(n_bytes, "byte")}</span></div>')


LEGEND = (CSS + '<div style="font-family:sans-serif;font-size:.85rem;color:#374151;line-height:2.2">'
          '<span class="tl-tok tl-group" style="background:#e5e7eb">&nbsp;👋<span class="tl-ids">[3]</span>&nbsp;</span> '
          'several tokens share one character (count in brackets) &nbsp; '
          '<span class="tl-tok tl-fallback" style="background:#e5e7eb">&nbsp;녕&nbsp;</span> byte-fallback pieces &nbsp; '
          '<span class="tl-tok tl-special">&lt;|endoftext|&gt;</span> special token &nbsp; '
          '<span class="tl-tok" style="background:#e5e7eb"><span class="tl-sp">▁</span>word</span> '
          "SentencePiece's word marker &nbsp; "
          '<span class="tl-tok tl-diff" style="background:#e5e7eb">&nbsp;cut&nbsp;</span> boundary not in the reference'
          ' &nbsp; hover a token for its id and bytes</div>')


def render_chunks(chunks: Sequence[str]) -> str:
    """Pre-tokenization chunks as alternately shaded boxes, whitespace made visible."""
    parts = [CSS, '<div class="tl-spans">']
    for k, c in enumerate(chunks):
        parts.append(f'<span class="tl-tok" style="background:{ALTERNATING[k % 2]}" '
                     f'data-tip="{html.escape(repr(c), quote=True)}">{visible(c, True)}</span>')
    parts.append("</div>")
    return "".join(parts)


def render_parts(labels: Sequence[str], highlight: int | None = None) -> str:
    """The parts of a chunk during encoding, as boxes; the just-merged part outlined."""
    boxes = []
    for k, lab in enumerate(labels):
        style = "background:#fde68a;outline:2px solid #b45309;" if k == highlight else "background:#e0e7ff;"
        boxes.append(f'<span class="tl-tok" style="{style}padding:2px 4px;margin-right:4px">{html.escape(lab)}</span>')
    return CSS + '<div class="tl-spans">' + "".join(boxes) + "</div>"


def render_small_header(name: str, title: str, n_tokens: int, n_chars: int, note: str = "") -> str:
    """A one-line heading for a small panel (the Quirks cards): title, token and character counts and
    an optional note, with the same hooks as render_header (data-tokenizer, .tl-count)."""
    extra = f' <span style="color:#6b7280">· {html.escape(note)}</span>' if note else ""
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;font-size:.9rem;margin:.1rem 0 .1rem;color:#374151">'
            f'<b style="color:#111827">{html.escape(title)}</b> · <b class="tl-count">{n_tokens:,}</b> '
            f'{plural(n_tokens, "token")} · {n_chars:,} {plural(n_chars, "char")}{extra}</div>')
