"""Pure helpers for the Inside-a-token page: vocabulary search and categories, chunk rendering."""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence

from .lab import render_token
from .spans import ALTERNATING, hexbytes

SCRIPTS = ["Latin", "Hangul", "CJK", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai", "Hiragana",
           "Katakana"]
CATEGORIES = ["all tokens", "whitespace only", "digits only", *[f"only {s}" for s in SCRIPTS]]


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    for s in SCRIPTS:
        if name.startswith(s.upper()) or (s == "CJK" and name.startswith("CJK")):
            return s
    return ""


def in_category(text: str, category: str) -> bool:
    letters = text.strip()
    if category == "all tokens":
        return True
    if category == "whitespace only":
        return bool(text) and text.isspace()
    if category == "digits only":
        return bool(letters) and letters.isdigit() and letters.isascii()
    script = category.removeprefix("only ")
    return bool(letters) and "\ufffd" not in letters and all(_script(c) == script for c in letters if not c.isspace())


def search_vocab(vocab: Sequence[tuple[int, bytes, str]], query: str, category: str, limit: int = 200) -> list[dict]:
    """Tokens whose id equals the query, or whose text, piece spelling (SentencePiece's ▁hell) or hex
    bytes contain it, in a category."""
    q = query.strip()
    q_hex = q.replace(" ", "").upper()
    is_hex = len(q_hex) >= 2 and len(q_hex) % 2 == 0 and all(c in "0123456789ABCDEF" for c in q_hex)
    out = []
    for tid, b, piece in vocab:
        text = b.decode("utf-8", errors="replace")
        if q and not (q == str(tid) or q in text or (piece and q in piece) or (is_hex and q_hex in b.hex().upper())):
            continue
        if not in_category(text, category):
            continue
        out.append({"id": tid, "token": piece or render_token(b), "bytes_hex": hexbytes(b), "length": len(b)})
        if len(out) >= limit:
            break
    return out


def render_chunks(chunks: Sequence[str]) -> str:
    """Pre-tokenization chunks as alternately shaded boxes, whitespace made visible."""
    from .spans import CSS, visible

    parts = [CSS, '<div class="tl-spans">']
    for k, c in enumerate(chunks):
        parts.append(f'<span class="tl-tok" style="background:{ALTERNATING[k % 2]}" '
                     f'data-tip="{html.escape(repr(c), quote=True)}">{visible(c, True)}</span>')
    parts.append("</div>")
    return "".join(parts)


def render_parts(labels: Sequence[str], highlight: int | None = None) -> str:
    """The parts of a chunk during encoding, as boxes; the just-merged part outlined."""
    from .spans import CSS

    boxes = []
    for k, lab in enumerate(labels):
        style = "background:#fde68a;outline:2px solid #b45309;" if k == highlight else "background:#e0e7ff;"
        boxes.append(f'<span class="tl-tok" style="{style}padding:2px 4px;margin-right:4px">{html.escape(lab)}</span>')
    return CSS + '<div class="tl-spans">' + "".join(boxes) + "</div>"
