"""Token tables for the table view and the CSV/JSON downloads, built in bulk from token arrays; and the
one way a CSV is written (`csv_text`, `frame_csv`), which keeps spreadsheets from reading a cell as a
formula."""

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


# -- CSV: every CSV the app offers is written here ------------------------------------------------------
# A spreadsheet reads a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|..., @SUM,
# and a leading tab or carriage return that it strips first): OWASP's "CSV injection". Such a string
# cell gets a leading apostrophe, OWASP's remedy: the spreadsheet then takes the cell as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A CSV cell that no spreadsheet runs: a string starting with a formula character gets a leading
    `'`; everything else (numbers, booleans, other strings) is returned as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(header: Sequence, *blocks: Sequence[Sequence]) -> str:
    """CSV text of `header` and then each block's rows; a block is a list of columns (lists of equal
    length). Every cell goes through csv_cell, by column: a column without strings (ids, offsets: most
    of a token table) is left as it is, and the rows are written by the csv module in C."""
    import csv
    import io

    def safe(col: Sequence) -> Sequence:
        if str not in set(map(type, col)):
            return col
        # each distinct string once (a token table repeats its tokens), then a lookup per cell in C: only
        # strings are keys, and no number equals a string, so every other cell comes back as it was
        fixed = {v: csv_cell(v) for v in set(col) if isinstance(v, str) and v.startswith(FORMULA_STARTS)}
        return list(map(fixed.get, col, col)) if fixed else col

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([csv_cell(h) for h in header])
    for columns in blocks:
        w.writerows(zip(*map(safe, columns)))
    return buf.getvalue()


def vocab_diff_csv(diff, selection) -> str:
    """A vocabulary diff's tokens as CSV, one row per (status, token bytes) of `selection`
    (ui.tables.diff_selection), with the columns of the page's table (ui.tables.diff_row): the token's
    text, its exact bytes in hex, where it is, its kind, ids and ranks. Through csv_text, as every CSV."""
    from .tables import diff_row

    rows = [diff_row(diff, status, t) for status, t in selection]
    if not rows:
        return csv_text("token,bytes_hex,status,kind,bytes,id A,id B,rank A,rank B,rank shift".split(","), [])
    header = list(rows[0])
    return csv_text(header, [[r[h] for r in rows] for h in header])


def frame_csv(df, *, digits: int | None = None) -> str:
    """A pandas DataFrame as CSV (its index first, as DataFrame.to_csv writes it), string cells, index
    labels and column names through csv_cell; numbers keep their type and formatting (floats rounded to
    `digits` when given)."""
    import pandas as pd

    if digits is not None:
        df = df.round(digits)
    out = df.map(csv_cell)
    out.index = df.index.map(csv_cell) if not isinstance(df.index, pd.MultiIndex) else pd.MultiIndex.from_tuples(
        [tuple(map(csv_cell, t)) for t in df.index], names=df.index.names)
    out.columns = df.columns.map(csv_cell) if not isinstance(df.columns, pd.MultiIndex) else pd.MultiIndex.from_tuples(
        [tuple(map(csv_cell, t)) for t in df.columns], names=df.columns.names)
    return out.to_csv()


def export_csv(results: dict[str, Sequence[Token]]) -> str:
    """Compare's token table of every tokenizer, one row per token."""
    blocks = ([[name] * len(cols[0]), *cols] for name, toks in results.items() for cols in [_columns(toks)])
    return csv_text(["tokenizer", *COLUMNS], *blocks)
