"""A token's merge tree as HTML: nested boxes that size themselves to their labels (so no label
overflows its box, and a 128-byte token's 128 leaves sit side by side without overlapping; a wide
tree scrolls sideways). Readable on light and dark themes. No Streamlit calls."""

from __future__ import annotations

import html

from tokenizers import Tokenizer

from .formatting import hexbytes, render_token

TREE_CSS = """
<style>
.tl-tree{overflow-x:auto;padding:.3rem 0 .6rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;}
.tl-tree-in{display:inline-flex;min-width:100%;justify-content:center;}
.tl-tn{display:flex;flex-direction:column;align-items:center;position:relative;}
.tl-tbox{position:relative;white-space:pre;padding:3px 7px;border-radius:5px;font-size:.85rem;line-height:1.3;
  background:#c7d2fe;color:#111827;border:1px solid #6366f1;text-align:center;cursor:default;}
.tl-tbox sub{display:block;font-size:.62rem;opacity:.75;line-height:1.1;}
.tl-tleaf{background:#fde68a;border-color:#b45309;}
.tl-tmore{background:transparent;border-style:dashed;color:inherit;}
.tl-tkids{display:flex;align-items:flex-start;position:relative;margin-top:10px;}
.tl-tkids::before{content:"";position:absolute;top:-10px;left:50%;height:10px;border-left:1.5px solid #9ca3af;}
.tl-tkids>.tl-tn{padding:12px 3px 0;}
.tl-tkids>.tl-tn::before,.tl-tkids>.tl-tn::after{content:"";position:absolute;top:0;width:50%;height:12px;
  border-top:1.5px solid #9ca3af;}
.tl-tkids>.tl-tn::before{right:50%;border-right:1.5px solid #9ca3af;}
.tl-tkids>.tl-tn::after{left:50%;}
.tl-tkids>.tl-tn:first-child::before{border-top:none;}
.tl-tkids>.tl-tn:last-child::after{border-top:none;}
.tl-tbox[data-tip]:hover::after{content:attr(data-tip);position:absolute;left:50%;transform:translateX(-50%);
  top:calc(100% + 4px);z-index:10;white-space:pre;background:#111827;color:#f9fafb;font-size:.75rem;
  padding:5px 7px;border-radius:6px;border:1px solid rgba(255,255,255,.3);pointer-events:none;}
@media (prefers-color-scheme: dark){
  .tl-tbox{background:#312e81;color:#e0e7ff;border-color:#818cf8;}
  .tl-tleaf{background:#78350f;color:#fef3c7;border-color:#f59e0b;}
  .tl-tmore{background:transparent;color:inherit;}
}
</style>
"""

MAX_NODES = 1024  # a tree bigger than this is cut at a depth that keeps it under


def _label(tok: Tokenizer, token_id: int) -> str:
    piece = tok.piece_of(token_id)
    return piece if piece else render_token(tok.token_bytes(token_id))


def _depth_for(tok: Tokenizer, token_id: int, max_nodes: int) -> int | None:
    """The deepest level to draw so that at most `max_nodes` boxes are drawn (None: all of it)."""
    level, frontier, total = 0, [token_id], 1
    while frontier:
        nxt = [c for t in frontier for c in (tok.merge_parents(t) or ())]
        if total + len(nxt) > max_nodes:
            return level
        total += len(nxt)
        frontier, level = nxt, level + 1
    return None


def render_tree(tok: Tokenizer, token_id: int, *, max_depth: int | None = None, max_nodes: int = MAX_NODES) -> str:
    """HTML for the merge tree of `token_id` down to base tokens (single bytes, or code points for
    SentencePiece). Levels below `max_depth` (or below what `max_nodes` allows) are folded into a
    dashed box."""
    limit = _depth_for(tok, token_id, max_nodes)
    if max_depth is not None:
        limit = max_depth if limit is None else min(limit, max_depth)

    def node(tid: int, depth: int) -> str:
        parents = tok.merge_parents(tid)
        rank = tok.merge_rank(tid)
        tip = (f"id {tid}\nbytes {hexbytes(tok.token_bytes(tid)) or '(none)'}\n"
               + (f"merge rank {rank}" if rank is not None else "joins the two below" if parents else "base token"))
        cls = "tl-tbox" if parents else "tl-tbox tl-tleaf"
        box = (f'<div class="{cls}" data-id="{tid}" data-tip="{html.escape(tip, quote=True)}">'
               f'{html.escape(_label(tok, tid))}<sub>{tid}</sub></div>')
        if not parents:
            return f'<div class="tl-tn">{box}</div>'
        if limit is not None and depth >= limit:
            more = '<div class="tl-tkids"><div class="tl-tn"><div class="tl-tbox tl-tmore">…</div></div></div>'
            return f'<div class="tl-tn">{box}{more}</div>'
        kids = node(parents[0], depth + 1) + node(parents[1], depth + 1)
        return f'<div class="tl-tn">{box}<div class="tl-tkids">{kids}</div></div>'

    return TREE_CSS + f'<div class="tl-tree"><div class="tl-tree-in">{node(token_id, 0)}</div></div>'
