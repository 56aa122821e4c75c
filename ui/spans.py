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
.tl-wm{color:#0f766e;font-weight:700;font-size:.78em;}
.tl-unk{background:#fecaca !important;outline:2px solid #b91c1c;outline-offset:-1px;color:#7f1d1d;}
.tl-ids{font-size:.68rem;color:#374151;vertical-align:super;}
</style>
"""


def word_markers(t: Token) -> tuple[str, str] | None:
    """(prefix, suffix) that a token's vocabulary spelling adds around its own characters and that
    cover no input bytes: WordPiece's `##` ("##est" for the bytes "est"), classic BPE's `</w>`
    ("low</w>" for "low"; a lone "</w>" has no bytes at all). None when the spelling is the text
    itself, or is not of that shape (SentencePiece's ▁ stands for a space, drawn by _body)."""
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


def _marked_body(t: Token, shown: str, prefix: str, suffix: str, whitespace: bool) -> str:
    """A word-level token: its characters with its marker(s) drawn beside them, and the whitespace it
    carries (the models discard whitespace; spans give it to the token before) kept outside."""
    surface = t.bytes.decode("utf-8")
    at = shown.find(surface) if surface else 0
    if at < 0:
        at, surface = 0, shown
    pre, post = shown[:at], shown[at + len(surface):]
    body = visible(pre, whitespace)
    if prefix:
        body += f'<span class="tl-wm">{html.escape(prefix)}</span>'
    if surface and unicodedata.category(surface[0]).startswith("M"):
        body += '<span class="tl-mark">◌</span>'
    body += visible(surface, whitespace)
    if suffix:
        body += f'<span class="tl-wm">{html.escape(suffix)}</span>'
    return body + visible(post, whitespace)


def _body(t_first: Token, shown: str, whitespace: bool) -> str:
    """The visible text of a segment. SentencePiece's word marker ▁ is drawn where the piece has
    it: one per space it stands for, plus one for the dummy prefix (which stands for no text). A
    segment that starts with a combining mark gets a dotted circle ◌ to sit on, or it would be
    invisible. Word-level markers (`##`, `</w>`) are drawn by _marked_body."""
    markers = word_markers(t_first)
    if markers is not None:
        return _marked_body(t_first, shown, *markers, whitespace)
    piece = t_first.piece
    # subtle: only a piece that differs from its bytes stands for spaces with ▁ (a word-level model
    # that met a literal ▁ in the text spells it as itself)
    if piece and piece == t_first.bytes.decode("utf-8", errors="replace"):
        piece = ""
    marks = len(piece) - len(piece.lstrip("\u2581")) if piece else 0
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
                 rank_of: Callable[[int], int | None] | None = None, flip_tips: bool = False,
                 unknown_id: int | None = None) -> str:
    """HTML for colored token spans. `marks`: byte offsets of boundaries to flag (boundary diff).
    `flip_tips`: open tooltips to the left (for a column at the right edge of the page).
    `unknown_id`: the tokenizer's unknown token, drawn red over the text it stands for."""
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
        if unknown_id is not None and any(t.id == unknown_id for t in seg.tokens):
            classes.append("tl-unk")
        bg = ALTERNATING[k % 2] if alternating else color_for(first.id)
        body = _body(first, text[seg.char_span[0]:seg.char_span[1]], whitespace)
        if seg.grouped:
            body += f'<span class="tl-ids">[{len(seg.tokens)}]</span>'
        tip = html.escape(segment_tooltip(seg, text, rank_of, unknown_id), quote=True)
        ids = " ".join(str(t.id) for t in seg.tokens)
        parts.append(f'<span class="{" ".join(classes)}" style="background:{bg}" data-tip="{tip}" '
                     f'data-ids="{ids}">{body}</span>')
    parts.append("</div>")
    return "".join(parts)


def render_header(name: str, title: str, n_tokens: int, n_chars: int, n_bytes: int, *, unknown: int = 0) -> str:
    """A tokenizer's heading and counts, with stable hooks (data-tokenizer, .tl-count, .tl-unknown)
    for tests. `unknown`: how many unknown tokens, shown in red when there are any."""
    unk = (f' · <b class="tl-unknown" style="color:#b91c1c">{unknown:,} unknown</b>' if unknown else "")
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;margin:.2rem 0 .4rem">'
            f'<span style="font-size:1.15rem;font-weight:700">{html.escape(title)}</span> '
            f'<span style="color:#374151">· <b class="tl-count">{n_tokens:,}</b> {plural(n_tokens, "token")} · '
            f'{n_chars:,} {plural(n_chars, "character")} · {n_bytes:,} {plural(n_bytes, "byte")}{unk}</span></div>')


LEGEND = (CSS + '<div style="font-family:sans-serif;font-size:.85rem;color:#374151;line-height:2.2">'
          '<span class="tl-tok tl-group" style="background:#e5e7eb">&nbsp;👋<span class="tl-ids">[3]</span>&nbsp;</span> '
          'several tokens share one character (count in brackets) &nbsp; '
          '<span class="tl-tok tl-fallback" style="background:#e5e7eb">&nbsp;녕&nbsp;</span> byte-fallback pieces &nbsp; '
          '<span class="tl-tok tl-special">&lt;|endoftext|&gt;</span> special token &nbsp; '
          '<span class="tl-tok" style="background:#e5e7eb"><span class="tl-sp">▁</span>word</span> '
          "SentencePiece's word marker &nbsp; "
          '<span class="tl-tok tl-diff" style="background:#e5e7eb">&nbsp;cut&nbsp;</span> boundary not in the reference'
          ' &nbsp; hover a token for its id and bytes</div>')


WORD_LEGEND = (CSS + '<div style="font-family:sans-serif;font-size:.85rem;color:#374151;line-height:2.2">'
               '<span class="tl-tok" style="background:#e5e7eb">low<span class="tl-wm">&lt;/w&gt;</span></span> '
               "classic BPE's end of word &nbsp; "
               '<span class="tl-tok" style="background:#e5e7eb"><span class="tl-wm">##</span>est</span> '
               "WordPiece's continuation (markers cover no text) &nbsp; "
               '<span class="tl-tok" style="background:#e5e7eb"><span class="tl-sp">▁</span>word</span> '
               "SentencePiece's space &nbsp; "
               '<span class="tl-tok tl-unk">&nbsp;안녕&nbsp;</span> unknown token, over the text it replaces &nbsp; '
               "hover a token for its id and spelling</div>")


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
