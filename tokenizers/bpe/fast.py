"""The fast BPE trainer. Same merges as bpe_reference.train_reference, by a different road:

1. count each distinct chunk once (a word that occurs 10,000 times is one sequence, weight 10,000);
2. keep pair counts incrementally, with an index from each pair to the chunks that hold it, so a
   merge touches only the chunks it changes, and in them only the pairs beside each occurrence;
3. find the best pair with a lazy max-heap of (-count, pair). Heap order gives the reference's tie
   rule for free: among equal counts the smallest pair comes out first.

Heap invariant: every pair with a positive count has an entry whose count is at least its current
count. A count that rises is pushed at once; one that falls is left alone, and when its stale
entry is popped it goes back in with the current count. So the first entry popped whose count is
current is the true best pair, ties included.

Overlaps need care. A merge of (a, b) into X walks a chunk left to right, replacing occurrences as
it goes; at each occurrence (left, a) becomes (left, X) and (b, right) becomes (X, right), where
`left` is read from the *new* sequence. So "aaaa" with (a, a): the first X turns (a, a)@1..2 into
(X, a); the second occurrence then turns that (X, a) into (X, X). Net: (a, a) -3, (X, X) +1.

The walk over a chunk is `bpe.reference.merge` written inline, with the count updates at each
occurrence: calling merge and then diffing the pairs would walk every chunk twice in the hot loop.
The tests hold this trainer's merges equal to the reference trainer's (tests/test_bpe.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable


def train_fast(chunk_counts: Iterable[tuple[bytes, int]], num_merges: int,
               progress: Callable[[int, int], None] | None = None) -> list[tuple[tuple[int, int], int, int]]:
    """Learn up to `num_merges` merges from (chunk, count) pairs. Returns [(pair, count_when_merged,
    tokens_saved)], exactly as the reference trainer does."""
    seqs: list[list[int]] = []
    weights: list[int] = []
    for chunk, w in chunk_counts:
        if len(chunk) >= 2:  # single bytes hold no pair and never change
            seqs.append(list(chunk))
            weights.append(w)

    counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for ci, s in enumerate(seqs):
        w = weights[ci]
        for pair in zip(s, s[1:]):
            counts[pair] = counts.get(pair, 0) + w
            where.setdefault(pair, set()).add(ci)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)

    merges: list[tuple[tuple[int, int], int, int]] = []
    step = max(1, num_merges // 200)
    while len(merges) < num_merges and heap:
        neg, pair = heapq.heappop(heap)
        current = counts.get(pair, 0)
        if current != -neg:
            if current > 0:  # stale after a fall: back in with its true count
                heapq.heappush(heap, (-current, pair))
            continue
        a, b = pair
        x = 256 + len(merges)
        rises: dict[tuple[int, int], int] = {}
        saved = 0
        for ci in where.pop(pair, ()):
            s, w = seqs[ci], weights[ci]
            n = len(s)
            new: list[int] = []
            i = 0
            while i < n:
                if s[i] == a and i + 1 < n and s[i + 1] == b:
                    if new:
                        left = new[-1]
                        counts[(left, a)] -= w
                        p = (left, x)
                        counts[p] = counts.get(p, 0) + w
                        rises[p] = 1
                        where.setdefault(p, set()).add(ci)
                    if i + 2 < n:
                        right = s[i + 2]
                        counts[(b, right)] -= w
                        p = (x, right)
                        counts[p] = counts.get(p, 0) + w
                        rises[p] = 1
                        where.setdefault(p, set()).add(ci)
                    new.append(x)
                    i += 2
                else:
                    new.append(s[i])
                    i += 1
            if len(new) != n:  # otherwise a stale index entry: the pair left this chunk earlier
                saved += w * (n - len(new))
                seqs[ci] = new
        del counts[pair]  # every occurrence is gone
        merges.append((pair, -neg, saved))
        for p in rises:
            c = counts[p]
            if c > 0:
                heapq.heappush(heap, (-c, p))
        if progress and (len(merges) % step == 0 or len(merges) == num_merges):
            progress(len(merges), num_merges)
    return merges
