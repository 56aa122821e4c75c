"""The fast BPE trainer. Same merges as reference.train_reference, by a different road:

1. count each distinct chunk once (a word that occurs 10,000 times is one sequence, weight 10,000);
2. keep pair counts incrementally, with an index from each pair to the chunks that hold it, so a
   merge touches only the chunks it changes, and in them only the pairs beside each occurrence;
3. find the best pair with a lazy max-heap of (-count, tie, pair), where `tie` carries the
   reference's tie rule: the pair itself for ties="smallest" (the smallest pair comes out first),
   and for ties="first" the position of the pair's first occurrence (below).

Heap invariant: every pair with a positive count has an entry whose count is at least its current
count (and, for ties="first", whose position is at most its current one). A count that rises is pushed at once; one that falls is left alone, and when its stale
entry is popped it goes back in with the current count. So the first entry popped whose count is
current is the true best pair, ties included.

Overlaps need care. A merge of (a, b) into X walks a chunk left to right, replacing occurrences as
it goes; at each occurrence (left, a) becomes (left, X) and (b, right) becomes (X, right), where
`left` is read from the *new* sequence. So "aaaa" with (a, a): the first X turns (a, a)@1..2 into
(X, a); the second occurrence then turns that (X, a) into (X, X). Net: (a, a) -3, (X, X) +1.

Ties "first": the reference walks every chunk of the text in order; here each distinct chunk is
kept once, numbered in the order it was first met (patterns.chunk_counts and the C counter keep that
order), so a pair's first occurrence in the text is its first occurrence in the lowest-numbered chunk
that holds it. Its position is a byte offset into the distinct chunks laid end to end (`base[ci]` plus
the offset of the pair's left token in its chunk); a merge never moves a surviving token's bytes, so
positions compare the same way before and after. `firsts[pair]` holds that position; a merge that
removes the occurrence there sets it to None, and it is found again (`locate`) when the pair is next
pushed. A pair only ever loses occurrences (every new pair holds the new id), so its count falls
whenever its first occurrence goes: an entry whose count is current has a current position too.

The walk over a chunk is `bpe.reference.merge` written inline, with the count updates at each
occurrence: calling merge and then diffing the pairs would walk every chunk twice in the hot loop.
The tests hold this trainer's merges equal to the reference trainer's (tests/test_bpe.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable

from tokenizers.bpe.reference import check_ties


def train_fast(chunk_counts: Iterable[tuple[bytes, int]], num_merges: int,
               progress: Callable[[int, int], None] | None = None, *,
               ties: str = "smallest") -> list[tuple[tuple[int, int], int, int]]:
    """Learn up to `num_merges` merges from (chunk, count) pairs, the chunks in the order first met in
    the text. Returns [(pair, count_when_merged, tokens_saved)], exactly as the reference trainer does."""
    first = check_ties(ties) == "first"
    seqs: list[list[int]] = []
    weights: list[int] = []
    base: list[int] = []  # where each chunk starts in the chunks laid end to end (ties="first")
    end = 0
    for chunk, w in chunk_counts:
        if len(chunk) >= 2:  # single bytes hold no pair and never change
            seqs.append(list(chunk))
            weights.append(w)
            base.append(end)
            end += len(chunk)
    length = [1] * 256  # bytes per token id

    counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], list[int]] = {}  # the chunks that held the pair, ascending (some no longer do)
    firsts: dict[tuple[int, int], int | None] = {}  # ties="first": position of the first occurrence
    for ci, s in enumerate(seqs):
        w = weights[ci]
        for i, pair in enumerate(zip(s, s[1:])):
            counts[pair] = counts.get(pair, 0) + w
            chunks = where.get(pair)
            if chunks is None:
                where[pair] = [ci]
                if first:
                    firsts[pair] = base[ci] + i  # single bytes: the i-th pair starts i bytes in
            elif chunks[-1] != ci:
                chunks.append(ci)

    def locate(pair: tuple[int, int]) -> int:
        """The position of the pair's first occurrence, found by walking its chunks in order."""
        a, b = pair
        chunks = where[pair]
        for k, ci in enumerate(chunks):
            s, i, last = seqs[ci], -1, len(seqs[ci]) - 1
            while True:
                try:
                    i = s.index(a, i + 1, last)  # list.index runs in C: a long chunk is walked quickly
                except ValueError:
                    break
                if s[i + 1] == b:
                    del chunks[:k]  # the chunks before no longer hold the pair, and never will again
                    return base[ci] + sum(map(length.__getitem__, s[:i]))
        raise AssertionError(f"{pair} has a count but no occurrence")

    def tie(pair: tuple[int, int]):
        if not first:
            return pair
        pos = firsts[pair]
        if pos is None:
            pos = firsts[pair] = locate(pair)
        return pos

    heap = [(-c, tie(p), p) for p, c in counts.items()]
    heapq.heapify(heap)

    merges: list[tuple[tuple[int, int], int, int]] = []
    step = max(1, num_merges // 200)
    while len(merges) < num_merges and heap:
        neg, _, pair = heapq.heappop(heap)
        current = counts.get(pair, 0)
        if current != -neg:
            if current > 0:  # stale after a fall: back in with its true count
                heapq.heappush(heap, (-current, tie(pair), pair))
            continue
        a, b = pair
        x = 256 + len(merges)
        la = length[a]
        length.append(la + length[b])
        lx = length[x]
        rises: dict[tuple[int, int], int] = {}
        saved = 0
        for ci in where.pop(pair, ()):
            s, w = seqs[ci], weights[ci]
            n = len(s)
            new: list[int] = []
            i = 0
            at, seen = base[ci], 0  # ties="first": `at` is the position of s[seen]
            while i < n:
                if s[i] == a and i + 1 < n and s[i + 1] == b:
                    if first:  # positions are brought up to date only here, off the walk's hot path
                        at += sum(map(length.__getitem__, s[seen:i]))
                        seen = i
                    if new:
                        left = new[-1]
                        p = (left, a)
                        counts[p] -= w
                        if first and firsts[p] == at - length[left]:
                            firsts[p] = None  # its first occurrence is gone
                        p = (left, x)
                        counts[p] = counts.get(p, 0) + w
                        rises[p] = 1
                        chunks = where.get(p)
                        if chunks is None:
                            where[p] = [ci]
                            if first:
                                firsts[p] = at - length[left]
                        elif chunks[-1] != ci:
                            chunks.append(ci)
                    if i + 2 < n:
                        right = s[i + 2]
                        p = (b, right)
                        counts[p] -= w
                        if first and firsts[p] == at + la:
                            firsts[p] = None
                        p = (x, right)
                        counts[p] = counts.get(p, 0) + w
                        rises[p] = 1
                        chunks = where.get(p)
                        if chunks is None:
                            where[p] = [ci]
                            if first:
                                firsts[p] = at
                        elif chunks[-1] != ci:
                            chunks.append(ci)
                    new.append(x)
                    i += 2
                    if first:
                        at += lx
                        seen = i
                else:
                    new.append(s[i])
                    i += 1
            if len(new) != n:  # otherwise a stale index entry: the pair left this chunk earlier
                saved += w * (n - len(new))
                seqs[ci] = new
        del counts[pair]  # every occurrence is gone
        firsts.pop(pair, None)  # ties="first" only; empty otherwise
        merges.append((pair, -neg, saved))
        for p in rises:
            c = counts[p]
            if c > 0:
                heapq.heappush(heap, (-c, tie(p), p))
        if progress and (len(merges) % step == 0 or len(merges) == num_merges):
            progress(len(merges), num_merges)
    return merges
