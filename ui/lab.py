"""Pure helpers for the BPE Lab: upload decoding, merge-table rows, plotly figures."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from tokenizers import BPETokenizer

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
TEXT_SUFFIXES = (".txt", ".md", ".py", ".json", ".csv", ".tsv", ".yaml", ".yml", ".html", ".xml", ".js",
                 ".ts", ".rs", ".go", ".c", ".h", ".java", ".rst", ".tex", ".log", ".ini", ".toml")


class UploadError(ValueError):
    pass


def decode_upload(name: str, data: bytes) -> tuple[str, int]:
    """(text, replaced) from an uploaded file, or UploadError saying what is wrong and what to do."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadError(f"{name} is {len(data) / 1e6:.1f} MB; the lab takes files up to "
                          f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB. Upload a part of it.")
    if not data:
        raise UploadError(f"{name} is empty.")
    sample = data[:65536]
    if sample.count(b"\x00") > len(sample) // 100:
        raise UploadError(f"{name} looks like a binary file (it is full of zero bytes), not text. "
                          f"Upload a text file ({', '.join(TEXT_SUFFIXES[:6])}, …).")
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, replaced


def render_token(b: bytes) -> str:
    """Token bytes as readable text: whitespace made visible, undecodable bytes as \\xNN."""
    s = b.decode("utf-8", errors="backslashreplace")
    return s.replace(" ", "·").replace("\n", "↵").replace("\t", "→").replace("\r", "␍")


def merge_rows(tok: BPETokenizer) -> list[dict]:
    v = tok.vocab
    if not tok.history:  # a loaded model: merges without a training record
        return [{"rank": idx - 256, "left": render_token(v[a]), "right": render_token(v[b]),
                 "new token": render_token(v[idx]), "new id": idx, "pair ids": f"{a}, {b}", "count": None}
                for (a, b), idx in sorted(tok.merges.items(), key=lambda kv: kv[1])]
    return [{"rank": r.rank, "left": render_token(v[r.pair[0]]), "right": render_token(v[r.pair[1]]),
             "new token": render_token(v[r.new_id]), "new id": r.new_id, "pair ids": f"{r.pair[0]}, {r.pair[1]}",
             "count": r.count} for r in tok.history]


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


def compression_figure(tok: BPETokenizer, text_bytes: int) -> go.Figure:
    merges = [0] + [r.rank + 1 for r in tok.history]
    tokens = [text_bytes] + [r.tokens_after for r in tok.history]
    ratio = [text_bytes / t if t else None for t in tokens]
    return _two_axes(merges, (tokens, "tokens", "tokens in the training text", "#2563eb"),
                     (ratio, "bytes per token", "compression (bytes per token)", "#dc2626"), x_title="merges learned")


def sweep_figure(tok: BPETokenizer, text_bytes: int, d_model: int) -> go.Figure:
    """Sequence length against vocabulary size, with the embedding table's size on a second axis."""
    sizes = [256] + [r.new_id + 1 for r in tok.history]
    tokens = [text_bytes] + [r.tokens_after for r in tok.history]
    params = [v * d_model for v in sizes]
    return _two_axes(sizes, (tokens, "tokens in the text", "tokens", "#2563eb"),
                     (params, f"embedding parameters (vocab × {d_model})", "parameters", "#059669"),
                     x_title="vocabulary size")


def length_histogram(tok: BPETokenizer) -> go.Figure:
    lengths = [len(b) for i, b in tok.vocab.items() if i >= 256]
    fig = go.Figure(go.Histogram(x=lengths, marker_color="#7c3aed", xbins=dict(size=1)))
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), bargap=0.05)
    fig.update_xaxes(title_text="token length in bytes (merged tokens)")
    fig.update_yaxes(title_text="tokens")
    return fig


def pair_rows(tok: BPETokenizer, pairs: list[tuple[tuple[int, int], int]], chosen: tuple[int, int] | None) -> list[dict]:
    v = tok.vocab
    return [{"": "◀ merged next" if p == chosen else "", "left": render_token(v[p[0]]), "right": render_token(v[p[1]]),
             "pair ids": f"{p[0]}, {p[1]}", "count": c} for p, c in pairs]


def duration(seconds: float) -> str:
    """'0.4 ms', '35 ms', '1.25 s': training in C often takes less than a hundredth of a second."""
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"
