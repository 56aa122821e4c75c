"""Looking at training step by step: the tokenizer after k merges, and the pair counts the trainer
saw at step k. Both are read off a trained BPETokenizer without retraining."""

from __future__ import annotations

from collections import Counter

from .bpe import BPETokenizer
from .bpe_reference import get_stats
from .patterns import chunk_counts


def truncated(tok: BPETokenizer, k: int) -> BPETokenizer:
    """The same tokenizer with only its first k merges (vocab 256 + k)."""
    if tok._ranks is not None:
        raise ValueError("Step views need a tokenizer trained here (an OpenAI vocabulary has no training history).")
    k = max(0, min(k, len(tok.merges)))
    out = BPETokenizer(tok.pattern, name=f"{tok.name}@{k}")
    ordered = sorted(tok.merges.items(), key=lambda kv: kv[1])[:k]
    for (a, b), idx in ordered:
        out.merges[(a, b)] = idx
        out.vocab[idx] = out.vocab[a] + out.vocab[b]
    out.history = tok.history[:k]
    out._reset_caches()
    return out


def pair_counts_at(tok: BPETokenizer, text: str, k: int, top: int = 10) -> list[tuple[tuple[int, int], int]]:
    """The `top` most frequent pairs in `text` after the first k merges, best first (the order the
    trainer uses: count, then smallest pair). For the training text, the first is merge k itself."""
    small = truncated(tok, k)
    stats: Counter = Counter()
    for chunk, n in chunk_counts(text, tok._compiled).items():
        # by the merge rule itself (no whole-chunk shortcut): the state the trainer had at step k
        get_stats(small._apply_rule(chunk.encode("utf-8")), stats, n)
    return sorted(stats.items(), key=lambda kv: (-kv[1], kv[0]))[:top]


def longest_tokens(tok: BPETokenizer, n: int = 20) -> list[int]:
    ids = [i for i in tok.vocab if i >= 256]
    return sorted(ids, key=lambda i: (-len(tok.vocab[i]), i))[:n]
