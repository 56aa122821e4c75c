"""Pure helpers for the Compare page: id parsing, token tables, counts, boundary diffs, exports."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from tokenizers import Token
from tokenizers.base import TokenList

from .spans import hexbytes


class IdParseError(ValueError):
    pass


def parse_ids(s: str) -> list[int]:
    """'15339, 1917' or '[15339 1917]' -> [15339, 1917]; anything else is named in the error."""
    parts = [p for p in re.split(r"[\s,;\[\]]+", s.strip()) if p]
    bad = [p for p in parts if not re.fullmatch(r"\d+", p)]
    if bad:
        shown = ", ".join(repr(b) for b in bad[:5])
        raise IdParseError(f"Token ids are whole numbers separated by commas or spaces; not {shown}.")
    return [int(p) for p in parts]


COLUMNS = ["position", "id", "token", "bytes_hex", "byte_start", "byte_end", "char_start", "char_end", "special",
           "byte_fallback", "partial_char"]


def token_rows(tokens: Sequence[Token]) -> list[dict]:
    """One dict per token: the table view, CSV and JSON all use these columns."""
    return [{"position": k, "id": t.id, "token": repr(t.bytes)[2:-1] if not t.piece else t.piece,
             "bytes_hex": hexbytes(t.bytes), "byte_start": t.byte_span[0], "byte_end": t.byte_span[1],
             "char_start": t.char_span[0], "char_end": t.char_span[1], "special": t.special,
             "byte_fallback": t.byte_fallback, "partial_char": t.partial}
            for k, t in enumerate(tokens)]


def stats_rows(text: str, results: dict[str, Sequence[Token]], titles: dict[str, str]) -> list[dict]:
    """Counts per tokenizer, each also relative to the first tokenizer."""
    n_chars, n_bytes = len(text), len(text.encode("utf-8"))
    rows = []
    for name, toks in results.items():
        n = len(toks)
        rows.append({"tokenizer": titles.get(name, name), "tokens": n, "characters": n_chars, "bytes": n_bytes,
                     "chars/token": round(n_chars / n, 3) if n else None,
                     "bytes/token": round(n_bytes / n, 3) if n else None,
                     "byte-fallback/unknown": toks.odd_count})
    if rows and rows[0]["tokens"]:
        base = rows[0]["tokens"]
        for r in rows:
            r["tokens vs first"] = round(r["tokens"] / base, 3)
    return rows


def differing_starts(tokens: TokenList, reference: TokenList) -> frozenset[int]:
    """Boundaries in `tokens` that the reference tokenizer does not have."""
    return tokens.boundaries - reference.boundaries


def special_strings_in(text: str, special_tokens: Sequence[str]) -> list[str]:
    return sorted({s for s in special_tokens if s and s in text})


def trailing_space_token(text: str, tokens: Sequence[Token]) -> bool:
    """True when the text ends in a space (or tab) that became its own final token; a final newline,
    as in code and YAML, is normal and not flagged, nor is text that is all whitespace."""
    if not tokens or not text.strip() or text[-1] not in " \t":
        return False
    return tokens[-1].bytes.strip() == b""  # SentencePiece's ▁ is already a space in token bytes


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
        per_id[i] = (piece or repr(data)[2:-1], hexbytes(data), tok.is_special(i), tok.is_byte_fallback(i))
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


def chars_per_page(n_chars: int, token_counts: Sequence[int], tokens_per_page: int) -> int:
    """Characters per page such that no tokenizer draws many more than `tokens_per_page` tokens."""
    densest = max((n / n_chars for n in token_counts if n_chars), default=1.0) or 1.0
    return max(500, int(tokens_per_page / densest))


def char_window(tokens, c0: int, c1: int) -> tuple[int, int]:
    """[lo, hi) indices of the tokens that cover characters [c0, c1) of a TokenList, widened so
    that no character is cut at the edges. Every tokenizer's window shows the same stretch of text."""
    from bisect import bisect_left, bisect_right

    cmap, starts = tokens.cmap, tokens.byte_starts
    n = len(starts)
    b0, b1 = cmap.byte_of(c0), cmap.byte_of(c1)
    # the token that holds character c0 (from the very first token on page one, so that
    # SentencePiece's empty dummy-prefix piece is not skipped)
    lo = 0 if c0 == 0 else max(0, bisect_right(starts, b0) - 1)
    while lo > 0 and not cmap.is_boundary(starts[lo]):
        lo -= 1
    hi = bisect_left(starts, b1)
    while hi < n and not cmap.is_boundary(starts[hi]):
        hi += 1
    return lo, max(lo, hi)
