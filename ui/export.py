"""The downloads: token tables (CSV/JSON, built in bulk from token arrays); the one way a CSV is written
(`csv_text`, `frame_csv`), which keeps spreadsheets from reading a cell as a formula; and token spans
for slides as a self-contained HTML page or an SVG picture, both drawn from the one span renderer
(tokenizers.core.html.span_model): the same colors, whitespace marks and split-character segments as
on screen."""

from __future__ import annotations

import html
import json
import unicodedata
from collections.abc import Mapping, Sequence

from tokenizers import Token
from tokenizers.core.html import (ALTERNATING, ALTERNATING_DARK, CONTINUED, NOTEBOOK_LIMIT, PALETTE, PALETTE_DARK,
                                  Comparison, cells, entry_options, span_model)
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


# -- spans for slides -------------------------------------------------------------------------------------
SPANS_LIMIT = NOTEBOOK_LIMIT  # tokens drawn per tokenizer in a download (a slide holds far fewer)


def spans_html(text: str, results: Mapping[str, TokenList], *, title: str = "Token Lens",
               each: Mapping[str, Mapping] | None = None, **options) -> str:
    """One self-contained HTML page (CSS inline, no script, nothing fetched) with each entry's
    heading, counts and spans side by side, as tokenizers.show draws them in a notebook. `options`
    are span_model's (whitespace, alternating, marks...), `each` an entry's own (entry_options)."""
    body = Comparison(text, results, limit=SPANS_LIMIT, each=each, **options).html()
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><title>{html.escape(title)}</title>'
            '<style>body{margin:1.5rem;font-family:sans-serif}'
            '@media (prefers-color-scheme: dark){body{background:#0e1117;color:#f3f4f6}}</style></head>'
            f"<body>{body}</body></html>\n")


# SVG colors per class of span_model, light and dark (the CSS's, as SVG fills)
_SVG_TEXT = {"light": "#111827", "dark": "#f3f4f6"}
_SVG_RING = {"light": "#b45309", "dark": "#fbbf24"}  # .tl-hl's outline
_DIFF_EDGE = "#dc2626"  # .tl-diff's left border
_SVG_PART = {"light": {"ws": "#6b7280", "nl": "#6b7280", "sp": "#7c3aed", "wm": "#0f766e", "ids": "#374151"},
             "dark": {"ws": "#9ca3af", "nl": "#9ca3af", "sp": "#c4b5fd", "wm": "#5eead4", "ids": "#d1d5db"}}
# a "cont" part (↩ where a long box breaks, _broken) takes the box's text color, as on screen


# characters XML 1.0 forbids even as references: C0 controls (but tab, newline, CR) shown as their
# Control Pictures (U+2400 + code), U+FFFE/U+FFFF as U+FFFD
_XML_SAFE = {**{c: 0x2400 + c for c in range(0x20) if c not in (9, 10, 13)}, 0xFFFE: 0xFFFD, 0xFFFF: 0xFFFD}


def _xml_text(s: str) -> str:
    return html.escape(s.translate(_XML_SAFE), quote=False)


def _broken(line: list[tuple[str, str]], room: int) -> list[list[tuple[str, str]]]:
    """A box's line wider than the picture as rows of at most `room` cells, cut at its ("brk", "")
    parts (span_model's breakable: between grapheme clusters), each row but the last ending in ↩,
    as the browser draws it (the CSS's hyphenate-character)."""
    rows: list[list[tuple[str, str]]] = [[]]
    used = 0
    unit: list[tuple[str, str]] = []

    def place(unit: list[tuple[str, str]]) -> None:
        nonlocal used
        n = cells("".join(t for _, t in unit))
        if rows[-1] and used + n > room:
            rows[-1].append(("cont", CONTINUED))
            rows.append([])
            used = 0
        rows[-1].extend(unit)
        used += n

    for part in line:
        if part[0] == "brk":
            place(unit)
            unit = []
        else:
            unit.append(part)
    place(unit)
    return rows


def _box_style(classes: list[str], scheme: str) -> tuple[str, str, str]:
    """(background, text color, outline dash) of a box from its span_model classes."""
    dark = scheme == "dark"
    bg, fg, dash = "none", _SVG_TEXT[scheme], ""
    for c in classes:
        if c.startswith("tl-c") and c[4:].isdigit():
            bg = (PALETTE_DARK if dark else PALETTE)[int(c[4:])]
        elif c.startswith("tl-a") and c[4:].isdigit():
            bg = (ALTERNATING_DARK if dark else ALTERNATING)[int(c[4:])]
    if "tl-special" in classes:
        bg, fg = "#111827", "#fef08a"
    if "tl-unk" in classes:
        bg, fg = ("#7f1d1d", "#fecaca") if dark else ("#fecaca", "#7f1d1d")
    if "tl-group" in classes:
        dash = "4 2"
    if "tl-fallback" in classes:
        dash = "1 2"
    return bg, fg, dash


def spans_svg(text: str, results: Mapping[str, TokenList], *, font_size: int = 16, width: int = 960,
              scheme: str = "light", each: Mapping[str, Mapping] | None = None, **options) -> str:
    """Each tokenizer's heading and spans as one SVG picture for a slide: a rect behind each box, the
    text in <text> elements (XML-escaped), the colors, whitespace marks and split-character segments
    of span_model. Lines are laid out on a monospace grid (a character 0.6 em wide, East Asian wide
    characters and emoji two) and wrap only between boxes; a box's own line breaks start new lines.
    Fonts are generic (monospace, sans-serif), so the picture needs nothing installed."""
    cw, lh, pad = font_size * 0.6, round(font_size * 1.9), 2
    parts_color = _SVG_PART[scheme]
    out: list[str] = []
    y = 0.0

    def text_el(x: float, y: float, w: float, fg: str, parts: list[tuple[str, str]]) -> str:
        # ◌ (the base the app gives a leading combining mark) goes in the same run as the mark: a run
        # boundary between them would draw the mark on its own, outside the box
        spans = "".join(f'<tspan class="tl-{c}" fill="{parts_color.get(c, fg)}">{_xml_text(t)}</tspan>'
                        if c and c != "mark" else _xml_text(t) for c, t in parts)
        # textLength holds the text to the grid's width; not where a combining mark is, which Chromium
        # then lays out as a character of its own (the mark pushed out of the box)
        fit = "" if any(unicodedata.combining(ch) for _, t in parts for ch in t) else \
            f' textLength="{w:.1f}" lengthAdjust="spacingAndGlyphs"'
        return f'<text x="{x:.1f}" y="{y:.1f}" fill="{fg}"{fit} xml:space="preserve">{spans}</text>'

    for name, toks in results.items():
        tok = toks.tokenizer
        head, opts = entry_options(name, options, each)
        n = len(toks)
        shown = toks[:SPANS_LIMIT]
        y += lh
        count = f"{n:,} token{'' if n == 1 else 's'}" + (f" (the first {len(shown):,} drawn)" if n > len(shown) else "")
        out.append(f'<text class="tl-head" x="0" y="{y - lh * 0.3:.1f}" font-family="sans-serif" font-weight="700" '
                   f'fill="{_SVG_TEXT[scheme]}">{_xml_text(head or tok.title or name)}'
                   f'<tspan font-weight="400"> · {count}</tspan></text>')
        y += lh * 0.2
        x = 0.0
        model = span_model(toks.text, shown, **opts)
        for cls, tip, ids, pos, parts, breaks in model["segs"]:
            classes = cls.split()
            bg, fg, dash = _box_style(classes, scheme)
            ring = _SVG_RING[scheme] if "tl-hl" in classes else _SVG_TEXT[scheme] if "tl-pin" in classes else ""
            lines: list[list[tuple[str, str]]] = [[]]
            for c, t in parts:
                for k, chunk in enumerate(t.split("\n")):
                    if k:
                        lines.append([])
                    if chunk or c == "brk":
                        lines[-1].append((c, chunk))
            group = [f'<g class="{html.escape(cls)}" data-ids="{ids}"><title>{_xml_text(model["tips"][tip])}'
                     "</title>"]
            rows: list[tuple[bool, list[tuple[str, str]]]] = []  # (starts a new line, its parts)
            for k, line in enumerate(lines):
                if cells("".join(t for _, t in line)) * cw + 2 * pad > width:
                    # wider than the picture: on lines of its own, broken at its brk parts, each break
                    # marked (the HTML's long box, an inline-block, also starts a line of its own)
                    rows += [(True, row) for row in _broken(line, max(int((width - 2 * pad) // cw) - 1, 2))]
                else:
                    rows.append((k > 0, line))
            for k, (fresh, line) in enumerate(rows):
                line = [(c, t) for c, t in line if c != "brk"]
                w = cells("".join(t for _, t in line)) * cw
                if fresh and (k or x > 0):
                    x, y = 0.0, y + lh
                elif x > 0 and x + w + 2 * pad > width:
                    x, y = 0.0, y + lh  # wrap between boxes, never inside one
                box_w = max(w + 2 * pad, 3)
                stroke = f' stroke="{fg if bg != "none" else _SVG_TEXT[scheme]}" stroke-dasharray="{dash}"' if dash else ""
                if ring:  # highlighted or pinned: a solid outline, as on screen
                    stroke = f' stroke="{ring}" stroke-width="3"'
                group.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{box_w:.1f}" height="{lh - 4}" rx="3" '
                             f'fill="{bg}"{stroke}/>')
                if k == 0 and "tl-diff" in classes:  # a boundary the reference does not have: a red edge
                    group.append(f'<rect class="tl-edge" x="{x:.1f}" y="{y:.1f}" width="3" height="{lh - 4}" '
                                 f'fill="{_DIFF_EDGE}"/>')
                if line:
                    group.append(text_el(x + pad, y + lh * 0.62, w, fg, line))
                x += box_w + (4 if "tl-same" in classes else 1)
            if len(rows) > len(lines):  # a broken box fills its last row too (on screen: a block as wide as the line)
                x = float(width)
            out.append("".join(group) + "</g>")
            for _ in range(breaks.count("\n") or (1 if breaks else 0)):
                x, y = 0.0, y + lh
        y += lh
    bg = "#ffffff" if scheme == "light" else "#0e1117"
    height = round(y + lh * 0.5)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="{font_size}">'
            f'<rect width="100%" height="100%" fill="{bg}"/>' + "".join(out) + "</svg>\n")
