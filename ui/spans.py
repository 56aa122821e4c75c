"""Token spans for the app: the renderer itself is the library's (tokenizers.core.html, which a
notebook uses too); this module re-exports it for the pages and adds what only the app draws:
the legends, the chunk and part boxes of Inside a token, a small heading, and `window` (the tokens of
a page of a long text, built in bulk).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from tokenizers import Token
from tokenizers.core.html import (ALTERNATING, ALTERNATING_DARK, CSS, DARK_RULES, PALETTE,  # noqa: F401
                                  PALETTE_DARK, Segment, assign_colors, box_inner, color_distance, color_for, model_html,
                                  render_header, render_spans, segment_tooltip, segments, span_model,
                                  token_tooltip, visible, word_markers)

from .formatting import plural


def window(tokens, lo: int, hi: int) -> list[Token]:
    """tokens[lo:hi] of a TokenList, built in bulk from its arrays: what depends on the id is looked
    up once per distinct id, character spans from the text's byte -> char table. The same Token
    objects as slicing (a test holds them equal), at about a third of the cost, which is most of a
    keystroke's server time on Compare. Other sequences are simply sliced."""
    if not hasattr(tokens, "byte_starts"):
        return list(tokens[lo:hi])
    tok, cmap = tokens.tokenizer, tokens.cmap
    ids = tokens.ids[lo:hi]
    b0s, b1s = tokens.byte_starts[lo:hi], tokens.byte_ends[lo:hi]
    per_id = {}
    for i in set(ids):
        per_id[i] = (tok.token_bytes(i), tok.is_special(i), tok.is_byte_fallback(i), tok.piece_of(i))
    out = []
    if cmap.starts is None:  # ASCII: byte offsets are character offsets, and no token splits a character
        for i, b0, b1 in zip(ids, b0s, b1s):
            data, special, fallback, piece = per_id[i]
            out.append(Token(i, data, (b0, b1), (b0, b1), special, fallback, False, piece))
        return out
    char_of, flags = cmap.char_of_byte, cmap.boundary_flags
    for i, b0, b1 in zip(ids, b0s, b1s):
        data, special, fallback, piece = per_id[i]
        c0 = char_of[b0]
        out.append(Token(i, data, (b0, b1), (c0, char_of[b1 - 1] + 1 if b1 > b0 else c0), special, fallback,
                         not (flags[b0] and flags[b1]), piece))
    return out


LEGEND = (CSS + '<div class="tl-legend" style="font-family:sans-serif;font-size:.85rem;line-height:2.2;opacity:.9">'
          '<span class="tl-tok tl-group tl-neutral" data-tip="Several tokens that each hold part of one character '
          '(here the 4 bytes of an emoji in 3 tokens) are drawn as one box; the tooltip lists every id.">'
          '&nbsp;👋<span class="tl-ids">[3]</span>&nbsp;</span> '
          'several tokens share one character (count in brackets) &nbsp; '
          '<span class="tl-tok tl-fallback tl-neutral" data-tip="SentencePiece had no piece for this character, '
          'so it spelled out its UTF-8 bytes, one piece per byte (&lt;0xEB&gt; …).">&nbsp;녕&nbsp;</span> byte-fallback '
          'pieces &nbsp; <span class="tl-tok tl-special" data-tip="A special token: one id for a control string '
          'such as &lt;|endoftext|&gt;, parsed only when Parse special tokens is on.">&lt;|endoftext|&gt;</span> '
          'special token &nbsp; <span class="tl-tok tl-neutral" data-tip="SentencePiece writes a space as ▁ '
          'inside the piece that follows it."><span class="tl-sp">▁</span>word</span> '
          "SentencePiece's word marker &nbsp; "
          '<span class="tl-tok tl-diff tl-neutral" data-tip="With Mark boundaries that differ on: this tokenizer '
          'cuts here, the reference does not.">&nbsp;cut&nbsp;</span> boundary not in the reference'
          ' &nbsp; <span class="tl-tok tl-neutral" data-tip="A token longer than the line (a run of = or a piece of '
          'a URL) breaks between its characters, and each line it continues from ends in ↩; other tokens never '
          'break.">====↩</span> a token too long for its line, continued'
          ' &nbsp; hover a token (or Tab to it) for its id and bytes, click it (or press Enter) to pin its details'
          '</div>')


WORD_LEGEND = (CSS + '<div class="tl-legend" style="font-family:sans-serif;font-size:.85rem;line-height:2.2;opacity:.9">'
               '<span class="tl-tok tl-neutral" data-tip="Classic BPE marks the end of a word with &lt;/w&gt;, '
               'which covers no text.">low<span class="tl-wm">&lt;/w&gt;</span></span> '
               "classic BPE's end of word &nbsp; "
               '<span class="tl-tok tl-neutral" data-tip="WordPiece writes ## before a piece that continues a '
               'word.">'
               '<span class="tl-wm">##</span>est</span> '
               "WordPiece's continuation (markers cover no text) &nbsp; "
               '<span class="tl-tok tl-neutral" data-tip="SentencePiece writes a space as ▁ inside the piece that '
               'follows it."><span class="tl-sp">▁</span>word</span> '
               "SentencePiece's space &nbsp; "
               '<span class="tl-tok tl-unk" data-tip="The vocabulary cannot spell this text: one unknown token '
               'stands for it.">&nbsp;안녕&nbsp;</span> unknown token, over the text it replaces &nbsp; '
               "hover a token for its id and spelling</div>")


def render_chunks(chunks: Sequence[str]) -> str:
    """Pre-tokenization chunks as alternately shaded boxes, whitespace made visible; lines break between
    boxes, and a chunk longer than the line with a ↩ at each break (box_inner), as token boxes do."""
    parts = [CSS, '<div class="tl-spans">']
    for k, c in enumerate(chunks):
        long, inner = box_inner(c, True)
        parts.append(f'<span class="tl-tok tl-a{k % 2}{long}" '
                     f'data-tip="{html.escape(repr(c), quote=True)}">{inner}</span><wbr>')
    parts.append("</div>")
    return "".join(parts)


def render_parts(labels: Sequence[str], highlight: int | None = None) -> str:
    """The parts of a chunk during encoding, as boxes; the just-merged part outlined. Lines break as
    between token boxes (render_chunks)."""
    boxes = []
    for k, lab in enumerate(labels):
        cls = "tl-a1 tl-hl" if k == highlight else "tl-a0"
        long, inner = box_inner(lab)
        boxes.append(f'<span class="tl-tok {cls}{long}" style="padding:2px 4px;margin-right:4px">{inner}</span><wbr>')
    return CSS + '<div class="tl-spans">' + "".join(boxes) + "</div>"


def render_small_header(name: str, title: str, n_tokens: int, n_chars: int, note: str = "") -> str:
    """A one-line heading for a small panel (the Quirks cards): title, token and character counts and
    an optional note, with the same hooks as render_header (data-tokenizer, .tl-count)."""
    extra = f' <span style="color:#6b7280">· {html.escape(note)}</span>' if note else ""
    return (f'<div class="tl-head" data-tokenizer="{html.escape(name, quote=True)}" '
            f'style="font-family:sans-serif;font-size:.9rem;margin:.1rem 0 .1rem;color:#374151">'
            f'<b style="color:#111827">{html.escape(title)}</b> · <b class="tl-count">{n_tokens:,}</b> '
            f'{plural(n_tokens, "token")} · {n_chars:,} {plural(n_chars, "char")}{extra}</div>')
