"""Token tables for the table view and the CSV/JSON downloads, built in bulk from token arrays."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tokenizers import Token
from tokenizers.core.tokenizer import TokenList

from .formatting import hexbytes, render_token

COLUMNS = ["position", "id", "token", "bytes_hex", "byte_start", "byte_end", "char_start", "char_end", "special",
           "byte_fallback", "partial_char"]


def token_rows(tokens: Sequence[Token]) -> list[dict]:
    """One dict per token: the table view, CSV and JSON all use these columns."""
    return [{"position": k, "id": t.id, "token": t.piece or render_token(t.bytes),
             "bytes_hex": hexbytes(t.bytes), "byte_start": t.byte_span[0], "byte_end": t.byte_span[1],
             "char_start": t.char_span[0], "char_end": t.char_span[1], "special": t.special,
             "byte_fallback": t.byte_fallback, "partial_char": t.partial}
            for k, t in enumerate(tokens)]


def token_columns(tokens: TokenList) -> list[list]:
    """The COLUMNS of token_rows as lists, built in bulk from a TokenList's arrays: what depends on
    the id is computed once per distinct id, character spans from the text's byte/char tables. For
    1 MB of text (~800,000 tokens a tokenizer) this takes about a second, where building Token
    objects took ~10 s."""
    tok, cmap = tokens.tokenizer, tokens.cmap
    ids, b0s, b1s = tokens.ids.tolist(), tokens.byte_starts.tolist(), tokens.byte_ends.tolist()
    per_id = {}
    for i in set(ids):
        data, piece = tok.token_bytes(i), tok.piece_of(i)
        per_id[i] = (piece or render_token(data), hexbytes(data), tok.is_special(i), tok.is_byte_fallback(i))
    text_, hex_, special, fallback = (list(col) for col in zip(*map(per_id.__getitem__, ids))) if ids else ([],) * 4
    if cmap.starts is None:  # ASCII: byte offsets are character offsets, and no token splits a character
        c0s, c1s, partial = b0s, b1s, [False] * len(ids)
    else:
        char_of, is_start = cmap.char_of_byte, cmap.boundary_flags
        c0s = [char_of[b] for b in b0s]
        c1s = [char_of[b1 - 1] + 1 if b1 > b0 else c0 for b0, b1, c0 in zip(b0s, b1s, c0s)]
        partial = [not (is_start[b0] and is_start[b1]) for b0, b1 in zip(b0s, b1s)]
    return [list(range(len(ids))), ids, text_, hex_, b0s, b1s, c0s, c1s, special, fallback, partial]


def _columns(tokens: Sequence[Token]) -> list[list]:
    if isinstance(tokens, TokenList):
        return token_columns(tokens)
    rows = token_rows(tokens)
    return [[r[c] for r in rows] for c in COLUMNS]


def export_json(text: str, results: dict[str, Sequence[Token]], *, parse_special: bool) -> str:
    """Compact and by column: {"text", "parse_special_tokens", "columns", "tokenizers": {name:
    {column: [one value per token]}}}, which pandas reads as pd.DataFrame(data["tokenizers"][name]).
    (One object per token made 1 MB of text a 600 MB file.)"""
    return json.dumps({"text": text, "parse_special_tokens": parse_special, "columns": COLUMNS,
                       "tokenizers": {name: dict(zip(COLUMNS, _columns(toks))) for name, toks in results.items()}},
                      ensure_ascii=False, separators=(",", ":"))


def export_csv(results: dict[str, Sequence[Token]]) -> str:
    import csv
    import io
    from itertools import repeat

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["tokenizer", *COLUMNS])
    for name, toks in results.items():
        w.writerows(zip(repeat(name), *_columns(toks)))
    return buf.getvalue()


def frame_csv(df, *, digits: int | None = 4) -> bytes:
    """A table for a download: UTF-8 CSV with the index, floats rounded to `digits` (None: as they are)."""
    out = df.round(digits) if digits is not None else df
    return out.to_csv().encode("utf-8")
