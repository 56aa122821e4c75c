"""Paging of long texts: every tokenizer's column shows the same stretch of characters."""

from __future__ import annotations

from collections.abc import Sequence

def chars_per_page(n_chars: int, token_counts: Sequence[int], tokens_per_page: int) -> int:
    """Characters per page such that no tokenizer draws many more than `tokens_per_page` tokens."""
    densest = max((n / n_chars for n in token_counts if n_chars), default=1.0) or 1.0
    return max(500, int(tokens_per_page / densest))


def char_window(tokens, c0: int, c1: int) -> tuple[int, int]:
    """[lo, hi) indices of the tokens that cover characters [c0, c1) of a TokenList, widened so
    that no character is cut at the edges. Every tokenizer's window shows the same stretch of text.
    The whole text (one page: every pause rerun of a short text) needs no character map: its tokens up
    to the last one that starts before the text's end (char_window_mapped, the general way, gives the
    same: tests/test_compare_page.py)."""
    from bisect import bisect_left

    if c0 == 0 and c1 >= len(tokens.text):
        n_bytes = tokens.byte_ends[-1] if len(tokens) else 0  # the tokens tile the text's bytes
        return 0, bisect_left(tokens.byte_starts, n_bytes)
    return char_window_mapped(tokens, c0, c1)


def char_window_mapped(tokens, c0: int, c1: int) -> tuple[int, int]:
    """char_window for any stretch, through the text's character map."""
    from bisect import bisect_left, bisect_right

    cmap, starts = tokens.cmap, tokens.byte_starts
    n = len(starts)
    b0, b1 = cmap.byte_of(c0), cmap.byte_of(c1)
    # the token that holds character c0 (from the very first token on page one, so that
    # SentencePiece's empty dummy-prefix piece is not skipped)
    lo = 0 if c0 == 0 else max(0, bisect_right(starts, b0) - 1)
    while lo > 0 and not cmap.is_boundary(starts[lo]):
        lo -= 1
    hi = bisect_left(starts, b1)
    while hi < n and not cmap.is_boundary(starts[hi]):
        hi += 1
    return lo, max(lo, hi)
