"""Looking at training step by step: the tokenizer after k merges, and the pair counts the trainer
saw at step k. Both are read off a trained BPETokenizer without retraining. (Kept as functions for
older callers; they are BPETokenizer methods.)"""

from __future__ import annotations

from .bpe import BPETokenizer


def truncated(tok: BPETokenizer, k: int) -> BPETokenizer:
    """The same tokenizer with only its first k merges (vocab 256 + k)."""
    return tok.truncated(k)


def pair_counts_at(tok: BPETokenizer, text: str, k: int, top: int = 10) -> list[tuple[tuple[int, int], int]]:
    """The `top` most frequent pairs in `text` after the first k merges, best first."""
    return tok.pair_counts_at(text, k, top)


def longest_tokens(tok: BPETokenizer, n: int = 20) -> list[int]:
    return tok.longest_tokens(n)
