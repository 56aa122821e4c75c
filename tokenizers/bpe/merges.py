"""A BPE model's merges: (left id, right id) -> the id of the token they make, in the order learned.

minbpe's `merges` dict, with one addition: `parents(token_id)`, the inverse look-up. Two kinds:
- `Merges`, a plain dict filled by training or by reading a file;
- `RecoveredMerges`, for vocabularies published as ranks only (OpenAI's `.tiktoken` files): the
  merge that made a token is recovered from the ranks when first asked for, by the BPE rule itself
  (`bpe.rule.last_merge_of`, run on the heap: `last_merge_fast`, O(n log n) for a token of n
  bytes), so loading a vocabulary costs only reading it. Asking for all of
  them (len, iteration) recovers every merge once: about 0.7 s for GPT-2, 1.5 s for cl100k_base.

In every vocabulary here a lower id is an earlier merge (minbpe: id 256 + k for merge k; OpenAI:
id = rank; Hugging Face files: ids in merge order), so the id a pair makes is also its rank.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

Pair = tuple[int, int]


def apply_merges(ids: list[int], rank: Callable[[tuple[int, int]], int | None]) -> list[int]:
    """The BPE rule (bpe.rule.bpe_merge) for a long chunk: a heap of (rank, position) over a linked
    list makes it O(n log n), so a chunk of a megabyte (no split pattern, a run of spaces) stays
    fast. `rank(pair)` is the id the pair makes, or None. Equal ranks are taken left to right."""
    n = len(ids)
    if n < 2:
        return ids
    vals = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap = []
    for i in range(n - 1):
        r = rank((vals[i], vals[i + 1]))
        if r is not None:
            heap.append((r, i, vals[i], vals[i + 1]))
    heapq.heapify(heap)
    while heap:
        r, i, a, b = heapq.heappop(heap)
        j = nxt[i] if alive[i] else n
        if j >= n or vals[i] != a or vals[j] != b:
            continue  # stale: one side was merged away since this entry was pushed
        vals[i] = r
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
        p = prv[i]
        if p >= 0:
            rp = rank((vals[p], vals[i]))
            if rp is not None:
                heapq.heappush(heap, (rp, p, vals[p], vals[i]))
        k = nxt[i]
        if k < n:
            rk = rank((vals[i], vals[k]))
            if rk is not None:
                heapq.heappush(heap, (rk, i, vals[i], vals[k]))
    return [vals[i] for i in range(n) if alive[i]]


def last_merge_fast(data: bytes, ranks: dict[bytes, int], limit: int) -> tuple[bytes, bytes] | None:
    """bpe.rule.last_merge_of (the reference, quadratic in the token's length: a token of 20,000 bytes
    took 36 s), in O(n log n): the parts are ids and the rule runs on the heap of apply_merges below.

    Only the token's own rank (`limit`) can join two parts into all of `data`, and it can join nothing
    else, so the rule run with the ranks below `limit` stops exactly one merge short: at the two parents
    when the rule ends in one part, at anything else when it does not."""
    if len(data) < 2:
        return None
    # a byte the vocabulary lacks is a part no rank joins: it gets an id of its own below zero
    byte_id = [ranks.get(bytes([b]), -1 - b) for b in range(256)]
    spelled: dict[int, bytes] = {}

    def spell(i: int) -> bytes:
        got = spelled.get(i)
        if got is None:
            got = spelled[i] = bytes([-1 - i]) if i < 0 else by_id[i]
        return got

    by_id: dict[int, bytes] = {}

    def rank(pair: Pair):
        joined = spell(pair[0]) + spell(pair[1])
        r = ranks.get(joined)
        if r is None or r >= limit:
            return None
        by_id.setdefault(r, joined)
        return r

    for b in set(data):
        if byte_id[b] >= 0:
            by_id[byte_id[b]] = bytes([b])
    parts = apply_merges([byte_id[b] for b in data], rank)
    if len(parts) != 2 or spell(parts[0]) + spell(parts[1]) != data or ranks.get(data) != limit:
        return None
    return spell(parts[0]), spell(parts[1])


class Merges(dict):
    """(a, b) -> new id, in the order learned; `parents(id)` is the inverse."""

    def parents(self, token_id: int) -> Pair | None:
        """The pair whose merge made `token_id`; None for a token no merge made."""
        inverse = self.__dict__.get("_inverse")
        if inverse is None or len(inverse) != dict.__len__(self):  # rebuilt after the dict changes
            inverse = self.__dict__["_inverse"] = {v: k for k, v in dict.items(self)}
        return inverse.get(token_id)

    def ordered(self) -> list[tuple[Pair, int]]:
        """(pair, new id) by new id, which is the order they were learned in."""
        return sorted(self.items(), key=lambda kv: kv[1])

    def __reduce__(self):
        return (type(self), (dict(self.items()),))


class RecoveredMerges(Merges):
    """The merges of a vocabulary given as ranks (bytes -> id), recovered lazily. A pair (a, b) is a
    merge iff bytes(a) + bytes(b) is a token whose parents are (a, b)."""

    def __init__(self, vocab: dict[int, bytes], ranks: dict[bytes, int]):
        super().__init__()
        self._vocab = vocab
        self._ranks = ranks
        self._parents: dict[int, Pair | None] = {}
        self._complete = False

    def __reduce__(self):
        return (type(self), (self._vocab, self._ranks))

    # -- the look-ups encoding needs, answered without recovering everything ------------------------
    def parents(self, token_id: int) -> Pair | None:
        if token_id in self._parents:
            return self._parents[token_id]
        data = self._vocab.get(token_id)
        found = None
        if data is not None and len(data) >= 2:
            split = last_merge_fast(data, self._ranks, token_id)
            if split is not None:
                found = (self._ranks[split[0]], self._ranks[split[1]])
        self._parents[token_id] = found
        return found

    def get(self, pair, default=None):
        hit = dict.get(self, pair)
        if hit is not None:
            return hit
        try:
            r = self._ranks.get(self._vocab[pair[0]] + self._vocab[pair[1]])
        except (KeyError, TypeError, IndexError):
            return default
        if r is None or self.parents(r) != pair:
            return default
        dict.__setitem__(self, pair, r)
        return r

    def __getitem__(self, pair):
        r = self.get(pair)
        if r is None:
            raise KeyError(pair)
        return r

    def __contains__(self, pair) -> bool:
        return self.get(pair) is not None

    # -- whole-mapping views recover every merge first ----------------------------------------------
    def materialize(self) -> "RecoveredMerges":
        """Recover every merge (in id order); returns self."""
        if not self._complete:
            found = {}
            for token_id in sorted(self._vocab):
                p = self.parents(token_id)
                if p is not None:
                    found[p] = token_id
            dict.clear(self)
            dict.update(self, found)
            self._complete = True
        return self

    @property
    def ranks(self) -> dict[bytes, int]:
        """bytes -> id for every token (the vocabulary's ranks)."""
        return self._ranks

    @property
    def complete(self) -> bool:
        return self._complete

    def __len__(self) -> int:
        return dict.__len__(self.materialize())

    def __iter__(self) -> Iterator[Pair]:
        return dict.__iter__(self.materialize())

    def keys(self):
        return dict.keys(self.materialize())

    def values(self):
        return dict.values(self.materialize())

    def items(self):
        return dict.items(self.materialize())

    def __eq__(self, other) -> bool:
        return dict.__eq__(self.materialize(), other)

    __hash__ = None

    def copy(self) -> Merges:
        return Merges(self.items())

    def __repr__(self) -> str:
        return f"RecoveredMerges({len(self._vocab):,} tokens, {dict.__len__(self):,} merges recovered so far)"
