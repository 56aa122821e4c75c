"""Rows for the pages' tables: merges, pair counts, vocabulary search. No Streamlit calls."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .formatting import hexbytes, render_token


def merge_rows(tok) -> list[dict]:
    v = tok.vocab
    if not tok.history:  # a loaded model: merges without a training record
        return [{"rank": idx - 256, "left": render_token(v[a]), "right": render_token(v[b]),
                 "new token": render_token(v[idx]), "new id": idx, "pair ids": f"{a}, {b}", "count": None}
                for (a, b), idx in sorted(tok.merges.items(), key=lambda kv: kv[1])]
    return [{"rank": r.rank, "left": render_token(v[r.pair[0]]), "right": render_token(v[r.pair[1]]),
             "new token": render_token(v[r.new_id]), "new id": r.new_id, "pair ids": f"{r.pair[0]}, {r.pair[1]}",
             "count": r.count} for r in tok.history]


def pair_rows(tok, pairs: list[tuple[tuple[int, int], int]], chosen: tuple[int, int] | None) -> list[dict]:
    v = tok.vocab
    return [{"": "◀ merged next" if p == chosen else "", "left": render_token(v[p[0]]), "right": render_token(v[p[1]]),
             "pair ids": f"{p[0]}, {p[1]}", "count": c} for p, c in pairs]


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


def id_rows(tok, ids: Sequence[int]) -> list[dict]:
    """One row per token id for the decoder: the id, its text and its bytes."""
    rows = []
    for i in ids:
        b = tok.token_bytes(i)
        rows.append({"id": i, "token": tok.piece_of(i) or render_token(b), "bytes_hex": hexbytes(b)})
    return rows
