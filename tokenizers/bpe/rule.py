"""The BPE encoding rule, written once and plainly. Every other way this library applies merges is
a faster copy of this function for one data form, and the tests hold each of them equal to it.

    Repeatedly find the adjacent pair of parts with the lowest rank; merge it (the leftmost one when
    several pairs share that rank); stop when no adjacent pair has a rank.

The same loop serves every use, by what `rank` and `join` say:
- encoding with a byte-level BPE (`BPETokenizer`): parts are token ids, rank(a, b) is
  merges.get((a, b)), the id of the token the pair makes (a lower id is an earlier merge, for
  minbpe's models, OpenAI's and Hugging Face's alike), and that id is the merged part;
- recovering the merge that made an OpenAI token from its ranks alone: parts are byte strings,
  rank(a, b) is the rank of a + b when that is below the token's own rank (tiktoken's rule), and
  join is concatenation; the last merge names the two parents;
- SentencePiece's BPE pieces: parts are strings, the rank is minus the score of the joined piece.

Quadratic in the length of the chunk, which is fine for teaching and for chunks of a few dozen
bytes. The fast copies, each with its reason:
- `bpe._merge_by_pairs`: the same loop on a list of ids, recomputing only the two ranks beside
  each merge (short chunks, the pure-Python encoder's common case);
- `merges.apply_merges`: a heap of (rank, position) over a linked list, O(n log n), for long chunks
  (text with no split pattern, a megabyte of spaces), and for recovering a long token's merge
  (`merges.last_merge_fast`);
- the C core's `bpe_short`, `bpe_short_ranks` and `bpe_long` (tokenizers/bpe/native/bpe.c), the same
  two shapes in C; the `_ranks` variant looks a pair up by its joined bytes, which is the same rule
  for tokenizers whose merges are recovered from ranks and saves recovering them all at start-up;
- tiktoken itself, for OpenAI's vocabularies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

P = TypeVar("P")

# visualise(parts_after, position, rank): called once with the starting parts (position -1, rank
# None) and then after every merge, with the position of the merged part and the rank it had
Visualise = Callable[[list, int, Any], None]


def bpe_merge(parts: Sequence[P], rank: Callable[[P, P], Any], join: Callable[[P, P], P] | None = None,
              *, visualise: Visualise | None = None) -> list[P]:
    """Apply the BPE rule to `parts`. `rank(a, b)` is the priority of merging the adjacent parts a
    and b (lower first; None: they never merge). `join(a, b)` makes the merged part; without it the
    merged part is the rank itself (a token id)."""
    parts = list(parts)
    if visualise:
        visualise(list(parts), -1, None)
    while len(parts) > 1:
        best, at = None, -1
        for i in range(len(parts) - 1):
            r = rank(parts[i], parts[i + 1])
            if r is not None and (best is None or r < best):  # strict: ties go to the leftmost
                best, at = r, i
        if best is None:
            break
        parts[at:at + 2] = [join(parts[at], parts[at + 1]) if join else best]
        if visualise:
            visualise(list(parts), at, best)
    return parts


def bpe_encode_ids(ids: Sequence[int], merges, *, visualise: Visualise | None = None) -> list[int]:
    """The rule on token ids with a minbpe-style `merges` mapping ((a, b) -> new id)."""
    return bpe_merge(ids, lambda a, b: merges.get((a, b)), visualise=visualise)


def last_merge_of(data: bytes, ranks: dict[bytes, int], limit: int) -> tuple[bytes, bytes] | None:
    """The two parts that tiktoken's rule joins last when it encodes `data` using only ranks up to
    `limit`: the parents of the token whose rank is `limit` and whose bytes are `data` (only its own
    rank can join the last two parts into all of `data`). None when the rule does not end in one part."""
    def rank(a: bytes, b: bytes):
        r = ranks.get(a + b)
        return r if r is not None and r <= limit else None

    two: list = []

    def remember(parts: list, at: int, r) -> None:
        if len(parts) == 2:  # each merge removes one part, so this state comes exactly once
            two[:] = parts

    out = bpe_merge([data[i:i + 1] for i in range(len(data))], rank, bytes.__add__, visualise=remember)
    return (two[0], two[1]) if len(out) == 1 and two else None
