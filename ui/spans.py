"""Token spans as HTML. Works from token bytes and spans, never from decoded strings.

Tokens that each hold part of one character (a byte-level BPE splitting an emoji, SentencePiece's
byte-fallback pieces) are grouped into one character-aligned *segment* that lists every id and its
bytes in hex, so the page never shows a bare U+FFFD. All user text passes through html.escape;
colors and classes come from the fixed palette below.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from tokenizers import Token
from tokenizers.text import ByteCharMap

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


def hexbytes(b: bytes) -> str:
    return " ".join(f"{x:02X}" for x in b)


def visible(s: str, whitespace: bool) -> str:
    """Escaped text; with `whitespace`, space as ·, tab as →, newline as ↵ then a real line break."""
    s = html.escape(s)
    if not whitespace:
        return s
    return (s.replace(" ", "·").replace("\t", "→").replace("\r", "␍").replace("\n", "↵\n"))


def token_tooltip(t: Token) -> str:
    parts = [f"id {t.id}", f"bytes {hexbytes(t.bytes) or '(none)'}", f"repr {t.bytes!r}"]
    if t.piece:
        parts.append(f"piece {t.piece}")
    if t.special:
        parts.append("special token")
    if t.byte_fallback:
        parts.append("byte-fallback piece")
    return " · ".join(parts)


def segment_tooltip(seg: Segment, text: str) -> str:
    if not seg.grouped:
        return token_tooltip(seg.tokens[0])
    chars = text[seg.char_span[0]:seg.char_span[1]]
    lines = [f"{len(seg.tokens)} tokens share {len(chars)} character(s) {chars!r}:"]
    lines += [f"id {t.id}: bytes {hexbytes(t.bytes)}" for t in seg.tokens]
    return "\n".join(lines)


CSS = """
<style>
.tl-spans{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95rem;
  line-height:2.0;white-space:pre-wrap;word-break:break-word;color:#111827;}
.tl-tok{border-radius:3px;padding:1px 0;margin-right:1px;box-shadow:inset 0 -1px 0 rgba(0,0,0,.18);}
.tl-group{outline:2px dashed #6b7280;outline-offset:-1px;}
.tl-special{background:#111827 !important;color:#fef08a;font-weight:600;}
.tl-fallback{outline:2px dotted #b91c1c;outline-offset:-1px;}
.tl-prefix{color:#6b7280;}
.tl-ids{font-size:.7rem;color:#374151;vertical-align:super;}
</style>
"""


def render_spans(text: str, tokens: Sequence[Token], *, whitespace: bool = False,
                 alternating: bool = False, limit: int | None = None) -> str:
    """HTML for colored token spans (at most `limit` segments)."""
    parts = [CSS, '<div class="tl-spans">']
    segs = segments(text, tokens)
    for k, seg in enumerate(segs[:limit] if limit else segs):
        first = seg.tokens[0]
        classes = ["tl-tok"]
        if seg.grouped:
            classes.append("tl-group")
        if any(t.special for t in seg.tokens):
            classes.append("tl-special")
        if any(t.byte_fallback for t in seg.tokens):
            classes.append("tl-fallback")
        bg = ALTERNATING[k % 2] if alternating else color_for(first.id)
        shown = text[seg.char_span[0]:seg.char_span[1]]
        if seg.char_span[0] == seg.char_span[1]:  # SentencePiece's dummy-prefix piece
            body = '<span class="tl-prefix">▁</span>'
        else:
            body = visible(shown, whitespace)
        if seg.grouped:
            body += f'<span class="tl-ids">[{len(seg.tokens)}]</span>'
        title = html.escape(segment_tooltip(seg, text), quote=True)
        ids = " ".join(str(t.id) for t in seg.tokens)
        parts.append(f'<span class="{" ".join(classes)}" style="background:{bg}" title="{title}" '
                     f'data-ids="{ids}">{body}</span>')
    parts.append("</div>")
    return "".join(parts)


def render_header(name: str, title: str, n_tokens: int, n_chars: int, n_bytes: int) -> str:
    """A tokenizer's heading and counts, with stable hooks (data-tokenizer, .tl-count) for tests."""
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;margin:.2rem 0 .4rem">'
            f'<span style="font-size:1.15rem;font-weight:700">{html.escape(title)}</span> '
            f'<span style="color:#374151">· <b class="tl-count">{n_tokens:,}</b> tokens · '
            f'{n_chars:,} characters · {n_bytes:,} bytes</span></div>')
