"""The Compare page's counts as an HTML table that fits a phone: on a narrow screen each tokenizer's
row becomes a small card of label: value lines instead of a grid cut off at the right edge. Colors
inherit the page's, for light and dark themes. No Streamlit calls."""

from __future__ import annotations

import html

COUNTS_CSS = """
<style>
.tl-counts{width:100%;border-collapse:collapse;font-family:sans-serif;font-size:.9rem;}
.tl-counts th,.tl-counts td{padding:.35rem .6rem;border-bottom:1px solid rgba(128,128,128,.3);text-align:right;}
.tl-counts th{font-weight:600;opacity:.8;}
.tl-counts th:first-child,.tl-counts td:first-child{text-align:left;}
@media (max-width: 640px){
  .tl-counts thead{display:none;}
  .tl-counts tr{display:block;margin-bottom:.6rem;border:1px solid rgba(128,128,128,.35);border-radius:.5rem;}
  .tl-counts td{display:flex;justify-content:space-between;gap:1rem;text-align:right;border-bottom:none;}
  .tl-counts td::before{content:attr(data-label);opacity:.7;text-align:left;}
  .tl-counts td:first-child{font-weight:700;}
}
</style>
"""


def _cell(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.3f}".rstrip("0").rstrip(".")
    if isinstance(v, int):
        return f"{v:,}"
    return html.escape(str(v))


def render_counts(rows: list[dict]) -> str:
    """rows: dicts with the same keys (the first is the row's name), as ui.analysis.stats_rows."""
    if not rows:
        return ""
    cols = list(rows[0])
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f'<td data-label="{html.escape(c, quote=True)}">{_cell(r.get(c))}</td>'
                                    for c in cols) + "</tr>" for r in rows)
    return COUNTS_CSS + f'<table class="tl-counts"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
