"""Bounds on what one visitor's input may cost the server, and the words that say so. No Streamlit
calls. Every page that tokenizes text a visitor typed cuts it to its bound first (at a character
boundary) and says what it did; the bounds are listed in the README ("Limits")."""

from __future__ import annotations

import math

COMPARE_TEXT_BYTES = 1_000_000    # Compare's text A and B: counts and spans cover at most this much
INSIDE_TEXT_BYTES = 200_000       # Inside a token: its tokens, chunks and steps
CARD_TEXT_BYTES = 100_000         # each Quirks card's text
SEGMENT_TEXT_BYTES = 100_000      # the Algorithms page's text to segment (five models, three in pure Python)
ENCODE_TEXT_BYTES = 200_000       # the SentencePiece Lab's text to encode


def cut_text(text: str, limit: int) -> tuple[str, int]:
    """(the longest start of `text` that is at most `limit` bytes of UTF-8, the text's own size in
    bytes). The cut falls between characters; a text within the bound comes back unchanged."""
    if len(text) * 4 <= limit:  # cannot be over: no need to encode
        return text, -1
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, len(data)
    end = limit
    while end > 0 and (data[end] & 0xC0) == 0x80:  # not inside a character
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass"), len(data)


def size_words(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:,.1f} MB" if n_bytes >= 1e6 else f"{n_bytes / 1e3:,.0f} KB"


def cut_message(n_bytes: int, limit: int, what: str = "This page") -> str:
    """The notice for a text cut by cut_text (plain words, no user text in it)."""
    return (f"The text is {size_words(n_bytes)}; {what} works on its first {size_words(limit)} "
            f"({limit:,} bytes of UTF-8), so that one visitor's text cannot slow the server for everyone. "
            "Everything below is about that part.")


def clamp_int(value, lo: int, hi: int, default: int) -> int:
    """A number that came from a widget, a link or state, as an int within [lo, hi]: NaN, infinities
    and what is not a number give `default`."""
    try:
        if isinstance(value, float) and not math.isfinite(value):
            return default
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return max(lo, min(hi, n))
