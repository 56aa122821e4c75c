"""The obvious BPE trainer: recount every pair at every merge. Slow, small, easy to check.

The rules here define what the fast trainer (bpe/fast.py) must reproduce exactly:
- pairs are counted at every adjacent position, overlapping ones included ("aaa" has 2 x (a, a));
- the chosen pair has the highest count; among equal counts, by the tie rule (`ties`):
  "smallest": the smallest pair (a, b) by id, as Hugging Face tokenizers and rustbpe break ties;
  "first": the pair met first walking the current ids of the text, chunk after chunk, as minbpe
  and the "Let's build the GPT Tokenizer" lecture do (`max(stats, key=stats.get)`: a dict keeps
  its keys in the order they were first seen, and max keeps the first of equal counts);
- a merge replaces occurrences left to right without overlap ("aaaa" -> X X, "aaa" -> X a);
- training stops early when no pair is left (every chunk has become a single token).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def get_stats(ids: Sequence[int], counts: dict | None = None, weight: int = 1) -> dict:
    """Count adjacent pairs of `ids` into `counts` (each counted `weight` times)."""
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + weight
    return counts


def merge(ids: Sequence[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Replace every occurrence of `pair` in `ids` with `idx`, left to right."""
    out, i, n = [], 0, len(ids)
    a, b = pair
    while i < n:
        if i < n - 1 and ids[i] == a and ids[i + 1] == b:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


TIES = ("smallest", "first")  # how a tie between equal counts is broken (see the module docstring)


def check_ties(ties: str) -> str:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TIES))}, not {ties!r}")
    return ties


def best_pair(stats: dict, ties: str = "smallest") -> tuple[tuple[int, int], int]:
    """The pair to merge next: the highest count; among equal counts the smallest pair, or with
    ties="first" the pair first seen (`stats` filled by get_stats walking the text in order)."""
    if ties == "first":
        pair = max(stats, key=stats.get)  # the first of equal counts in the dict's order: first seen
    else:
        pair = min(stats, key=lambda p: (-stats[p], p))
    return pair, stats[pair]


def train_reference(chunks: Sequence[bytes], num_merges: int,
                    progress: Callable[[int, int], None] | None = None, *,
                    ties: str = "smallest") -> list[tuple[tuple[int, int], int, int]]:
    """Learn up to `num_merges` merges from byte chunks, in the order they occur in the text.
    Returns [(pair, count_when_merged, tokens_saved)]; the i-th merge creates token id 256 + i."""
    check_ties(ties)
    seqs = [list(c) for c in chunks]
    merges = []
    for i in range(num_merges):
        stats: dict = {}
        for s in seqs:
            get_stats(s, stats)
        if not stats:
            break  # every chunk is a single token: nothing left to merge
        pair, count = best_pair(stats, ties)
        before = sum(len(s) for s in seqs)
        seqs = [merge(s, pair, 256 + i) for s in seqs]
        merges.append((pair, count, before - sum(len(s) for s in seqs)))
        if progress:
            progress(i + 1, num_merges)
    return merges
