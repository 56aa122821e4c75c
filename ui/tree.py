"""A token's merge tree as a plotly figure: leaves (bytes, or code points for SentencePiece) at the
bottom in reading order, each merge above its two parts, the token itself at the top."""

from __future__ import annotations

import plotly.graph_objects as go

from tokenizers import Tokenizer

from .lab import render_token
from .spans import hexbytes


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


PATTERN_PARTS = {
    "GPT-2": [
        ("'(?:[sdmt]|ll|ve|re)", "English contractions after an apostrophe: 's 'd 'm 't 'll 've 're (lower case "
                                "only, and only the straight ' (U+0027), not the curly ’ (U+2019) that word processors type)"),
        (" ?\\p{L}+", "a run of letters, with at most one space in front: ' hello'"),
        (" ?\\p{N}+", "a run of digits of any length, with at most one space in front: ' 2024'"),
        (" ?[^\\s\\p{L}\\p{N}]+", "a run of punctuation and symbols, with at most one space in front: ' !!!'"),
        ("\\s+(?!\\S)", "a run of whitespace, except its last character if a word follows: so '   x' gives '  ' + ' x'"),
        ("\\s+", "any other run of whitespace (at the end of the text)"),
    ],
    "GPT-4": [
        ("'(?i:[sdmt]|ll|ve|re)", "contractions, now in any case: 'S 'LL 'Re (still only the straight ', not the curly ’ U+2019)"),
        ("[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++", "a run of letters with at most one non-letter, non-digit, non-newline "
                                           "character in front: ' hello', '(hello', '_init'"),
        ("\\p{N}{1,3}+", "numbers in groups of at most three digits: '1234567' → '123' '456' '7'"),
        (" ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+", "punctuation and symbols with at most one space in front, "
                                             "keeping the newlines right after them: ':\\n'"),
        ("\\s++$", "whitespace at the very end of the text"),
        ("\\s*[\\r\\n]", "whitespace up to and including a newline: '  \\n'"),
        ("\\s+(?!\\S)", "a run of whitespace, except the last space before a word (which joins the word)"),
        ("\\s", "any single remaining whitespace character"),
    ],
}
