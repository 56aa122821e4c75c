"""Plotly figures: the BPE Lab's curves, token-length histograms, count charts.
No Streamlit calls."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots


def _two_axes(x, left, right, *, x_title: str) -> go.Figure:
    """A line on the left axis and a dashed line on the right, sharing x. `left` and `right` are
    (values, name, axis title, color)."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for (values, name, title, color), secondary in ((left, False), (right, True)):
        fig.add_trace(go.Scatter(x=x, y=values, name=name,
                                 line=dict(color=color, dash="dash" if secondary else "solid")),
                      secondary_y=secondary)
        fig.update_yaxes(title_text=title, secondary_y=secondary)
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=1.12),
                      hovermode="x unified")
    fig.update_xaxes(title_text=x_title)
    return fig


def compression_figure(tok, text_bytes: int) -> go.Figure:
    merges = [0] + [r.rank + 1 for r in tok.history]
    tokens = [text_bytes] + [r.tokens_after for r in tok.history]
    ratio = [text_bytes / t if t else None for t in tokens]
    return _two_axes(merges, (tokens, "tokens", "tokens in the training text", "#2563eb"),
                     (ratio, "bytes per token", "compression (bytes per token)", "#dc2626"), x_title="merges learned")


def sweep_figure(tok, text_bytes: int, d_model: int) -> go.Figure:
    """Sequence length against vocabulary size, with the embedding table's size on a second axis."""
    sizes = [256] + [r.new_id + 1 for r in tok.history]
    tokens = [text_bytes] + [r.tokens_after for r in tok.history]
    params = [v * d_model for v in sizes]
    return _two_axes(sizes, (tokens, "tokens in the text", "tokens", "#2563eb"),
                     (params, f"embedding parameters (vocab × {d_model})", "parameters", "#059669"),
                     x_title="vocabulary size")


def length_histogram(lengths: Iterable[int]) -> go.Figure:
    """Histogram of token lengths in bytes (pass the merged tokens' lengths)."""
    from collections import Counter

    # counted here, not by plotly: the raw lengths of a million-token vocabulary were 2 MB per rerun
    counts = sorted(Counter(lengths).items())
    fig = go.Figure(go.Bar(x=[k for k, _ in counts], y=[n for _, n in counts], marker_color="#7c3aed"))
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), bargap=0.05)
    fig.update_xaxes(title_text="token length in bytes (merged tokens)")
    fig.update_yaxes(title_text="tokens")
    return fig


def number_heatmap(counts: list[int], splits: list[str], title: str = "", *, most: int | None = None) -> go.Figure:
    """How many tokens each number 0-9999 takes: a 100 x 100 grid, row = the first two digits
    (n // 100), column = the last two (n % 100); hover shows the number and how it was cut. One color
    per count, from 1 to `most` tokens: give every heatmap shown together the same `most` (the largest
    count of any of them), so a color means the same count in each; the color bar names every count."""
    n = len(counts)
    rows = (n + 99) // 100
    z = [[counts[r * 100 + c] if r * 100 + c < n else None for c in range(100)] for r in range(rows)]
    hover = [[f"{r * 100 + c}: {plotly_text(splits[r * 100 + c])}<br>{counts[r * 100 + c]} token(s)" if r * 100 + c < n else ""
              for c in range(100)] for r in range(rows)]
    top = max(2, most or 0, max(counts, default=1))
    fig = go.Figure(go.Heatmap(z=z, x=list(range(100)), y=[r * 100 for r in range(rows)], text=hover,
                               hoverinfo="text", zmin=0.5, zmax=top + 0.5, colorscale=count_colorscale(top),
                               colorbar=dict(title=dict(text="tokens per number"), tickvals=list(range(1, top + 1)))))
    fig.update_layout(title=plotly_text(title), height=420, margin=dict(l=10, r=10, t=40, b=10))
    fig.update_xaxes(title_text="last two digits (n mod 100)")
    fig.update_yaxes(title_text="number, rounded down to the hundred", autorange="reversed")
    return fig


def count_colorscale(top: int) -> list:
    """A stepped Viridis scale for whole counts 1..top over zmin=0.5, zmax=top+0.5: one flat color per count."""
    from plotly.colors import sample_colorscale

    colors = sample_colorscale("Viridis", [k / max(1, top - 1) for k in range(top)])
    scale = []
    for k, c in enumerate(colors):
        scale += [[k / top, c], [(k + 1) / top, c]]
    return scale


def grouped_bars(table, metric_title: str, *, reference_line: float | None = None,
                 colors: list[str] | None = None) -> go.Figure:
    """Grouped bars from a languages x tokenizers frame (one bar group per language, one color per
    tokenizer, in the frame's column order; `colors` to match another figure, else the theme's)."""
    fig = go.Figure()
    for k, col in enumerate(table.columns):
        name = plotly_text(str(col))
        fig.add_trace(go.Bar(name=name, x=[plotly_text(str(i)) for i in table.index], y=table[col],
                             marker_color=colors[k % len(colors)] if colors else None,
                             hovertemplate="%{x}: %{y:.3g}<extra>%{fullData.name}</extra>"))
    fig.update_layout(barmode="group", height=420, margin=dict(l=10, r=10, t=30, b=10),
                      legend=dict(orientation="h", y=1.1), yaxis_title=metric_title)
    if reference_line is not None:
        fig.add_hline(y=reference_line, line_dash="dot", line_color="#6b7280")
    return fig


# One color per tokenizer on every page and chart (GPT-2 is the same rose on Compare and on Languages):
# Paul Tol's color-blind-safe qualitative set, one color per registry name in the picker's order; the
# darkest two go last, where a dark theme needs them least. A visitor's own tokenizer (trained in a lab,
# uploaded) gets one of Tol's light colors, chosen by its name, so it too keeps its color between pages.
TOKENIZER_COLORS = ["#88CCEE", "#CC6677", "#DDCC77", "#117733", "#AA4499", "#6699CC", "#44AA99", "#999933",
                    "#882255", "#888888", "#661100", "#332288"]
OWN_COLORS = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00"]


def color_of(name: str) -> str:
    """The one color of the tokenizer called `name` (a registry name, or a visitor's own)."""
    import zlib

    from tokenizers import REGISTRY

    names = list(REGISTRY)
    if name in names:
        return TOKENIZER_COLORS[names.index(name) % len(TOKENIZER_COLORS)]
    return OWN_COLORS[zlib.crc32(name.encode("utf-8")) % len(OWN_COLORS)]


# An empty template (what plotly makes of one): Streamlit's default template (placeholder colorscales and
# colorway, which the page themes in the browser) was nine tenths of the counts chart's spec and of its
# copying, and bars that have their own colors use none of it; the page's theme (fonts, grid, light or
# dark) still applies.
EMPTY_TEMPLATE = go.Layout(template={}).to_plotly_json()["template"]


def _count_bars_layout(metric: str) -> dict:
    return {"showlegend": False, "height": 320, "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
            "xaxis": {"title": {"text": "tokenizer"}}, "yaxis": {"title": {"text": metric}}, "template": EMPTY_TEMPLATE}


@functools.lru_cache(maxsize=64)
def count_bars(labels: tuple, values: tuple, colors: tuple, metric: str) -> go.Figure:
    """One metric per tokenizer as bars (Compare's counts chart), built on every pause in typing: from
    plain data, without plotly's validation of each property (`_validate=False`), which was most of a
    pause rerun's chart (about 1 ms of 1.5); count_bars_reference builds the same figure validated, and
    tests/test_compact_spans.py holds the two equal. Cached per distinct chart (a rerun that changes no
    count reuses it; st.plotly_chart only reads it)."""
    text = [None if v is None else str(v) for v in values]  # what plotly's validation makes of them
    trace = {"type": "bar", "x": list(labels), "y": list(values), "text": text, "marker": {"color": list(colors)}}
    return go.Figure({"data": [trace], "layout": _count_bars_layout(metric)}, _validate=False)


def count_bars_reference(labels: tuple, values: tuple, colors: tuple, metric: str) -> go.Figure:
    """count_bars the slow, checked way: every property validated by plotly."""
    return go.Figure(go.Bar(x=labels, y=values, text=values, marker_color=colors),
                     layout=go.Layout(_count_bars_layout(metric)))


def metric_panels(frame, panels: dict[str, str], *, columns: int = 4, colors: list[str] | None = None) -> go.Figure:
    """One small bar chart per metric: `frame` is tokenizers x metrics (index = the names shown),
    `panels` maps a column to its panel title. One color per tokenizer (`colors`, one per row of the
    frame: color_of each; else the theme's), the same in every panel, named once in the legend above them."""
    cols = [c for c in panels if c in frame.columns]
    rows = max(1, -(-len(cols) // columns))
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[plotly_text(panels[c]) for c in cols],
                        horizontal_spacing=0.06, vertical_spacing=0.18)
    palette = colors or list(qualitative.Plotly)
    for k, name in enumerate(frame.index):
        label = plotly_text(str(name))
        for j, col in enumerate(cols):
            fig.add_trace(go.Bar(x=[label], y=[frame[col].iloc[k]], name=label, legendgroup=label,
                                 showlegend=j == 0, marker_color=palette[k % len(palette)],
                                 hovertemplate="%{x}: %{y:.4g}<extra></extra>"),
                          row=j // columns + 1, col=j % columns + 1)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(height=250 * rows + 90, margin=dict(l=10, r=10, t=90, b=10), barmode="group", bargap=0.15,
                      legend=dict(orientation="h", yref="container", y=1.0, yanchor="top", x=0))
    return fig


def table_heatmap(table, metric_title: str, *, fmt: str = ".2f") -> go.Figure:
    """A languages x tokenizers frame as an annotated heatmap (rows top to bottom in frame order)."""
    fig = go.Figure(go.Heatmap(z=table.values, x=[plotly_text(str(c)) for c in table.columns],
                               y=[plotly_text(str(i)) for i in table.index],
                               colorscale="YlOrRd", texttemplate="%{z:" + fmt + "}",
                               hovertemplate="%{y} · %{x}: %{z:" + fmt + "}<extra></extra>",
                               colorbar=dict(title=metric_title)))
    fig.update_layout(height=max(300, 26 * len(table.index) + 120), margin=dict(l=10, r=10, t=30, b=10))
    fig.update_yaxes(autorange="reversed")
    return fig


# -- SentencePiece --------------------------------------------------------------------------------
def plotly_text(s: str) -> str:
    """A vocabulary string for a plotly label: plotly reads <b>, <a href> and friends in text, so a
    piece from an uploaded model is escaped to show as itself."""
    import html

    return html.escape(s, quote=False)


LAYOUT_KINDS = {  # kind -> (lane label, color)
    "control": ("control (unk, bos, eos, …)", "#111827"),
    "user-defined": ("user-defined", "#0891b2"),
    "byte": ("byte pieces <0x00>…<0xFF>", "#dc2626"),
    "learned": ("learned pieces", "#7c3aed"),
    "character": ("single characters", "#d97706"),
    "unused": ("unused", "#9ca3af"),
}


def layout_figure(runs: list[tuple[str, int, int]], vocab_size: int) -> go.Figure:
    """The vocabulary in id order: one lane per kind of piece, a bar wherever ids of that kind are."""
    fig = go.Figure()
    lanes = [k for k in LAYOUT_KINDS if any(r[0] == k for r in runs)]
    for kind in lanes:
        label, color = LAYOUT_KINDS[kind]
        xs, ys = [], []
        mine = [r for r in runs if r[0] == kind]
        for _, a, b in mine:
            xs += [a - 0.5, b + 0.5, None]
            ys += [label, label, None]
        n = sum(b - a + 1 for _, a, b in mine)
        first = ", ".join(f"{a}–{b}" if b > a else str(a) for _, a, b in mine[:4]) + (" …" if len(mine) > 4 else "")
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=color, width=22), name=f"{label}: {n:,}",
                                 hovertemplate=f"{label}<br>{n:,} pieces: ids {first}<extra></extra>"))
    fig.update_layout(height=90 + 44 * len(lanes), margin=dict(l=10, r=10, t=10, b=30), showlegend=False,
                      plot_bgcolor="white", hovermode="closest")
    fig.update_xaxes(range=[-0.5, vocab_size - 0.5], title_text="token id", showgrid=True, gridcolor="#f3f4f6")
    fig.update_yaxes(categoryorder="array", categoryarray=[LAYOUT_KINDS[k][0] for k in reversed(lanes)])
    return fig


def lattice_figure(lattice, *, max_lanes: int = 14) -> go.Figure:
    """The segmentation lattice: the normalized text's characters along x; every piece that matches as
    a bar over the characters it covers, labelled with its log-probability; the Viterbi path in the
    top lane, in red. Other pieces are packed into lanes below (first fit), at most `max_lanes`."""
    best = set(lattice.best)
    lanes: list[list] = [list(lattice.best)]
    ends: list[int] = []
    for node in sorted((n for n in lattice.nodes if n not in best), key=lambda n: (n.start, -(n.end - n.start))):
        for k, end in enumerate(ends):
            if node.start >= end:
                lanes[k + 1].append(node)
                ends[k] = node.end
                break
        else:
            if len(ends) < max_lanes:
                ends.append(node.end)
                lanes.append([node])
    shown = sum(len(lane) for lane in lanes)
    fig = go.Figure()
    for k, lane in enumerate(lanes):
        on_path = k == 0
        for node in lane:
            color = "#dc2626" if on_path else ("#fca5a5" if node.unknown else "#c7d2fe")
            fig.add_shape(type="rect", x0=node.start + 0.04, x1=node.end - 0.04, y0=-k - 0.4, y1=-k + 0.4,
                          fillcolor=color, line=dict(color="#7f1d1d" if on_path else "#6b7280", width=1),
                          layer="below")
        fig.add_trace(go.Scatter(
            x=[(n.start + n.end) / 2 for n in lane], y=[-k] * len(lane), mode="text",
            text=[f"{plotly_text(n.piece)}<br>{n.score:.2f}" for n in lane],
            textfont=dict(family="monospace", size=11, color="white" if on_path else "#111827"),
            hovertext=[f"{plotly_text(n.piece)} · id {n.id} · log-prob {n.score:.4f}"
                       + (" · <unk>: no piece for this character" if n.unknown else "")
                       + (" · on the best path" if on_path else "") for n in lane],
            hoverinfo="text", showlegend=False))
    n_chars = len(lattice.normalized)
    fig.update_xaxes(range=[-0.1, n_chars + 0.1], tickmode="array", tickvals=[i + 0.5 for i in range(n_chars)],
                     ticktext=[plotly_text(c) for c in lattice.normalized], side="top", showgrid=False,
                     tickfont=dict(family="monospace", size=15))
    fig.update_yaxes(visible=False, range=[-len(lanes) + 0.4, 0.6])
    for i in range(n_chars + 1):
        fig.add_vline(x=i, line=dict(color="#e5e7eb", width=1), layer="below")
    fig.update_layout(height=70 + 46 * len(lanes), margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white")
    fig.layout.meta = {"shown": shown, "total": len(lattice.nodes)}
    return fig


def sample_figure(rows: list[dict], title: str) -> go.Figure:
    """How often each distinct sampled segmentation came up (rows from ui.tables.sample_rows)."""
    top = rows[:15]
    fig = go.Figure(go.Bar(x=[r["times"] for r in top][::-1], y=[plotly_text(r["segmentation"]) for r in top][::-1],
                           orientation="h", marker_color=["#dc2626" if r["best"] else "#7c3aed" for r in top][::-1],
                           hovertemplate="%{y}<br>%{x} times<extra></extra>"))
    fig.update_layout(height=120 + 26 * len(top), margin=dict(l=10, r=10, t=36, b=10), title=title,
                      plot_bgcolor="white")
    fig.update_yaxes(tickfont=dict(family="monospace", size=12), automargin=True)
    fig.update_xaxes(title_text="times drawn")
    return fig


# one fixed color per algorithm of the Algorithms page, so every chart and legend agrees
ALGORITHM_COLORS = {"char": "#6b7280", "word_bpe": "#2563eb", "wordpiece": "#d97706", "unigram": "#7c3aed",
                    "byte_bpe": "#059669"}


def length_curve_figure(curves: dict[str, list[tuple[int, int]]], titles: dict[str, str], *,
                        held_out_chars: int, ticks: list[int] = ()) -> go.Figure:
    """Held-out sequence length against vocab size, one line per algorithm. `curves` maps an
    algorithm's name to [(vocab size, tokens)]; `ticks` are the vocab sizes to label."""
    fig = go.Figure()
    for name, points in curves.items():
        if not points:
            continue
        xs, ys = zip(*points)
        fig.add_trace(go.Scatter(x=xs, y=ys, name=titles.get(name, name), mode="lines+markers",
                                 line=dict(color=ALGORITHM_COLORS.get(name, "#111827"), width=2),
                                 hovertemplate="%{x:,} tokens in the vocabulary<br>%{y:,} tokens for the held-out text"
                                               "<extra>%{fullData.name}</extra>"))
    fig.add_hline(y=held_out_chars, line=dict(color="#9ca3af", dash="dot"),
                  annotation_text="one token per character", annotation_position="top left")
    fig.update_layout(height=420, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=1.1),
                      hovermode="closest", plot_bgcolor="white")
    fig.update_xaxes(title_text="vocabulary size (log scale)", type="log", gridcolor="#e5e7eb",
                     **(dict(tickvals=list(ticks), ticktext=[f"{t:,}" for t in ticks]) if ticks else {}))
    fig.update_yaxes(title_text="tokens for the held-out text", rangemode="tozero", gridcolor="#e5e7eb")
    return fig


# -- the vocabulary diff ---------------------------------------------------------------------------------
DIFF_COLORS = {"shared": "#9ca3af", "only_a": "#dc2626", "only_b": "#2563eb"}


def vocab_diff_figure(by_kind: dict[str, dict[str, int]], title_a: str, title_b: str) -> go.Figure:
    """Horizontal bars per kind of token (vocab_audit.KINDS, top to bottom): how many are shared, only in
    A (dropped) and only in B (added). Kinds with no token on any side are left out."""
    kinds = [k for k, c in by_kind.items() if any(c.values())]
    def short(t: str) -> str:
        return plotly_text(t if len(t) <= 32 else t[:31] + "…")

    names = {"shared": "shared", "only_a": f"only in A ({short(title_a)})", "only_b": f"only in B ({short(title_b)})"}
    fig = go.Figure()
    for side in ("only_b", "only_a", "shared"):
        fig.add_trace(go.Bar(name=names[side], y=kinds, x=[by_kind[k][side] for k in kinds], orientation="h",
                             marker_color=DIFF_COLORS[side],
                             hovertemplate="%{y}: %{x:,}<extra>" + names[side] + "</extra>"))
    fig.update_layout(barmode="group", height=max(300, 30 * len(kinds) + 100), margin=dict(l=10, r=10, t=30, b=10),
                      legend=dict(orientation="h", y=1.06, x=0), xaxis_title="tokens", bargap=0.25)
    fig.update_yaxes(autorange="reversed")
    return fig
