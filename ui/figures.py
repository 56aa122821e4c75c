"""Plotly figures: merge trees, the BPE Lab's curves, token-length histograms, count charts.
No Streamlit calls."""

from __future__ import annotations

from collections.abc import Iterable

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from tokenizers import Tokenizer

from .formatting import hexbytes, render_token


def _label(tok: Tokenizer, token_id: int) -> str:
    piece = tok.piece_of(token_id)
    return piece if piece else render_token(tok.token_bytes(token_id))


def tree_figure(tok: Tokenizer, token_id: int) -> go.Figure:
    nodes: list[dict] = []
    edges: list[tuple[int, int]] = []
    next_leaf = [0]

    def place(tid: int, depth: int) -> int:
        parents = tok.merge_parents(tid)
        k = len(nodes)
        nodes.append({"id": tid, "depth": depth})
        if parents:
            a, b = place(parents[0], depth + 1), place(parents[1], depth + 1)
            nodes[k]["x"] = (nodes[a]["x"] + nodes[b]["x"]) / 2
            edges.extend([(k, a), (k, b)])
        else:
            nodes[k]["x"] = float(next_leaf[0])
            next_leaf[0] += 1
        return k

    place(token_id, 0)
    depth = max(n["depth"] for n in nodes)
    ex, ey = [], []
    for a, b in edges:
        ex += [nodes[a]["x"], nodes[b]["x"], None]
        ey += [-nodes[a]["depth"], -nodes[b]["depth"], None]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color="#9ca3af", width=1.5), hoverinfo="skip"))
    texts, hovers, colors = [], [], []
    for n in nodes:
        tid = n["id"]
        rank = tok.merge_rank(tid)
        texts.append(f"{_label(tok, tid)}<br><sub>{tid}</sub>")
        hovers.append(f"id {tid}<br>bytes {hexbytes(tok.token_bytes(tid))}"
                      + (f"<br>merge rank {rank}" if rank is not None else "<br>base token"))
        colors.append("#c7d2fe" if tok.merge_parents(tid) else "#fde68a")
    fig.add_trace(go.Scatter(x=[n["x"] for n in nodes], y=[-n["depth"] for n in nodes], mode="markers+text",
                             text=texts, textposition="middle center", hovertext=hovers, hoverinfo="text",
                             marker=dict(size=38, color=colors, line=dict(color="#374151", width=1), symbol="square"),
                             textfont=dict(family="monospace", size=12, color="#111827")))
    fig.update_layout(showlegend=False, height=140 + 80 * depth, margin=dict(l=10, r=10, t=10, b=10),
                      xaxis=dict(visible=False), yaxis=dict(visible=False), plot_bgcolor="white")
    return fig


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
    lengths = list(lengths)
    fig = go.Figure(go.Histogram(x=lengths, marker_color="#7c3aed", xbins=dict(size=1)))
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), bargap=0.05)
    fig.update_xaxes(title_text="token length in bytes (merged tokens)")
    fig.update_yaxes(title_text="tokens")
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
