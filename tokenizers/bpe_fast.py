"""The fast BPE trainer. Same merges as bpe_reference.train_reference, by a different road:

1. count each distinct chunk once (a word that occurs 10,000 times is one sequence, weight 10,000);
2. keep pair counts incrementally, with an index from each pair to the chunks that hold it, so a
   merge touches only the chunks it changes;
3. find the best pair with a lazy max-heap: entries are (-count, pair); an entry whose count is
   stale is dropped when popped. Heap order (-count, pair) gives the reference's tie rule for
   free: among equal counts the smallest pair comes out first.

Overlaps ("aaaa") need no special case: a touched chunk has its old pairs subtracted and its new
pairs added in full, using the reference's own `merge`, so both trainers agree by construction.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable

from .bpe_reference import merge


def train_fast(chunk_counts: Iterable[tuple[bytes, int]], num_merges: int,
               progress: Callable[[int, int], None] | None = None) -> list[tuple[tuple[int, int], int, int]]:
    """Learn up to `num_merges` merges from (chunk, count) pairs; same result as the reference."""
    seqs: list[list[int]] = []
    weights: list[int] = []
    for chunk, w in chunk_counts:
        if len(chunk) >= 2:  # single bytes hold no pair and never change
            seqs.append(list(chunk))
            weights.append(w)

    counts: Counter = Counter()
    where: dict[tuple[int, int], set[int]] = {}
    for ci, s in enumerate(seqs):
        w = weights[ci]
        for pair in zip(s, s[1:]):
            counts[pair] += w
            where.setdefault(pair, set()).add(ci)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)

    merges = []
    step = max(1, num_merges // 200)
    while len(merges) < num_merges and heap:
        neg, pair = heapq.heappop(heap)
        if counts.get(pair, 0) != -neg or neg == 0:
            continue  # stale entry: the pair's count changed after it was pushed
        idx = 256 + len(merges)
        changed = set()
        saved = 0
        for ci in where.pop(pair, ()):
            s = seqs[ci]
            w = weights[ci]
            new = merge(s, pair, idx)
            if len(new) == len(s):
                continue  # stale index entry: the pair left this chunk in an earlier merge
            for p in zip(s, s[1:]):
                counts[p] -= w
                changed.add(p)
            for p in zip(new, new[1:]):
                counts[p] += w
                changed.add(p)
                where.setdefault(p, set()).add(ci)
            seqs[ci] = new
            saved += w * (len(s) - len(new))
        merges.append((pair, -neg, saved))
        for p in changed:
            c = counts[p]
            if c > 0:
                heapq.heappush(heap, (-c, p))
            else:
                del counts[p]
        if progress and (len(merges) % step == 0 or len(merges) == num_merges):
            progress(len(merges), num_merges)
    return merges
