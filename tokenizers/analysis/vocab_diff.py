"""Two vocabularies compared by what their tokens spell.

    >>> from tokenizers import vocab_diff
    >>> d = vocab_diff("cl100k_base", "llama3")
    >>> len(d.shared), len(d.only_a), len(d.only_b)
    (100256, 0, 27744)

Every token is read through the interface every backend has, `decode_single_token_bytes(id)`: the
bytes it stands for. So GPT-2's byte-level `Ġthe`, SentencePiece's `▁the` and its `<0x0A>` byte piece,
Tekken's and tokenizer.json's tokens all arrive as the bytes they stand for (b" the", b"\\n"), and two
tokenizers share a token when some token of each spells the same bytes, whatever their ids.

- Ordinary tokens are compared. Special and control tokens (`is_special`: <|endoftext|>, SentencePiece's
  <s> and <unk>, Tekken's 1,000 reserved ids), the unknown token (`unk_id`) and unused slots
  (`is_unused`: SentencePiece's unused pieces) are listed apart, in `specials`, and compared by nothing.
- A token's **rank** is its position when the ordinary tokens are listed in id order (0 for the first).
  In a tiktoken-format vocabulary ids are merge ranks, so this is the merge rank (Tekken: the id less its
  1,000 reserved ids); in a SentencePiece BPE model it is the order of the pieces (bytes, then merges by
  score, then single characters); for a tokenizer.json it is the order of its ids.
- Two ids of one vocabulary can spell the same bytes (SentencePiece's byte piece <0x61> and its piece
  "a"): the vocabulary's token for those bytes is the first in id order, as encode_single_token reads
  it, and the others are counted in `duplicates`. WordPiece's `##ing` spells "ing", as its token bytes
  say, so it is the same token as a word-initial "ing".

`shared` is in the order of B's ranks, `only_a` of A's, `only_b` of B's. Each token is classified by
`tokenizers.analysis.vocab_audit.token_kind` (script, digits, whitespace, code punctuation, partial UTF-8).
"""

from __future__ import annotations

import hashlib
import heapq
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from tokenizers.analysis.vocab_audit import KINDS, token_kind
from tokenizers.core.tokenizer import Tokenizer


@dataclass(frozen=True, eq=False)
class ByteVocabulary:
    """One tokenizer's vocabulary normalised to bytes (see the module docstring)."""
    name: str
    title: str
    ids: dict[bytes, int]                     # ordinary token bytes -> its id (the first with those bytes),
                                              # in id order, which is rank order
    order: array                              # every ordinary id, in id order (a token's rank is its place)
    specials: tuple[tuple[int, bytes], ...]   # (id, bytes) of special, control, unknown and unused tokens
    duplicates: int = 0                       # ordinary ids whose bytes an earlier id already spells
    kinds: dict[bytes, str] = field(default_factory=dict, repr=False)  # token bytes -> token_kind

    @property
    def size(self) -> int:
        """Distinct ordinary tokens."""
        return len(self.ids)

    def rank(self, token: bytes) -> int | None:
        """The token's rank (its id's place among the ordinary ids), or None when the vocabulary has
        no such token. (A table of ranks would cost as much memory as `ids`: 10 MB for o200k_base.)"""
        i = self.ids.get(token)
        return None if i is None else bisect_left(self.order, i)

    def ranks_of(self, tokens) -> list[int]:
        """rank(t) for many tokens of the vocabulary at once: one walk over the ids in order."""
        ids = [self.ids[t] for t in tokens]
        out = [0] * len(ids)
        order, pos = self.order, 0
        for k in sorted(range(len(ids)), key=ids.__getitem__):
            i = ids[k]
            while order[pos] < i:
                pos += 1
            out[k] = pos
        return out

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the ordinary tokens with their ids and of the tokens listed apart: equal for two
        loads of the same vocabulary, whatever their names (a cache key for a diff)."""
        h = hashlib.sha256()
        for b, i in self.ids.items():
            h.update(i.to_bytes(8, "little") + len(b).to_bytes(4, "little") + b)
        h.update(b"\xff" * 8)
        for i, b in self.specials:
            h.update(i.to_bytes(8, "little") + len(b).to_bytes(4, "little") + b)
        return h.hexdigest()[:32]


def vocabulary(tok: Tokenizer | str) -> ByteVocabulary:
    """Read a tokenizer's (or registry name's) vocabulary: every id in use (`iter_vocab`, which gives
    each id with its decode_single_token_bytes; tests/test_vocab_diff.py holds the two equal)."""
    if isinstance(tok, str):
        from tokenizers.registry import get_tokenizer

        tok = get_tokenizer(tok)
    ids: dict[bytes, int] = {}
    order = array("q")
    apart: list[tuple[int, bytes]] = []
    unk, duplicates = tok.unk_id, 0
    special_ids = {i for i in tok.special_tokens.values()}
    is_unused = tok.is_unused
    for i, b in tok.iter_vocab():
        if i in special_ids or i == unk or is_unused(i):
            apart.append((i, b))
            continue
        if b in ids:
            duplicates += 1
        else:
            ids[b] = i
        order.append(i)
    kinds = {b: token_kind(b) for b in ids}
    return ByteVocabulary(tok.name, tok.title or tok.name, ids, order, tuple(apart), duplicates, kinds)


class RankShift(NamedTuple):
    """A shared token's two ranks; `shift` is rank_b - rank_a: negative when B has it earlier (B's merge
    of it came sooner, a more frequent pair in B's training text)."""
    token: bytes
    rank_a: int
    rank_b: int
    shift: int


@dataclass(frozen=True, eq=False)
class VocabDiff:
    """What two vocabularies share and what each has alone (module docstring: the rules)."""
    a: ByteVocabulary
    b: ByteVocabulary
    shared: tuple[bytes, ...]   # in B's rank order
    only_a: tuple[bytes, ...]   # in A's rank order: what B dropped
    only_b: tuple[bytes, ...]   # in B's rank order: what B added

    @property
    def specials_a(self) -> tuple[tuple[int, bytes], ...]:
        return self.a.specials

    @property
    def specials_b(self) -> tuple[tuple[int, bytes], ...]:
        return self.b.specials

    def ids(self, token: bytes) -> tuple[int | None, int | None]:
        """(id in A, id in B) of a token; None on the side that does not have it."""
        return self.a.ids.get(token), self.b.ids.get(token)

    def ranks(self, token: bytes) -> tuple[int | None, int | None]:
        return self.a.rank(token), self.b.rank(token)

    @property
    def share_of_a(self) -> float:
        """The part of A's ordinary tokens that B has too (1.0: B contains A)."""
        return len(self.shared) / self.a.size if self.a.size else 0.0

    @property
    def share_of_b(self) -> float:
        return len(self.shared) / self.b.size if self.b.size else 0.0

    def kind(self, token: bytes) -> str:
        k = self.a.kinds.get(token) or self.b.kinds.get(token)
        return k if k is not None else token_kind(token)

    @cached_property
    def by_kind(self) -> dict[str, dict[str, int]]:
        """{kind: {"shared", "only_a", "only_b": counts}} for every kind of KINDS, in that order."""
        out = {k: {"shared": 0, "only_a": 0, "only_b": 0} for k in KINDS}
        for side, tokens, kinds in (("shared", self.shared, self.b.kinds), ("only_a", self.only_a, self.a.kinds),
                                    ("only_b", self.only_b, self.b.kinds)):
            for t in tokens:
                out[kinds[t]][side] += 1
        return out

    def longest(self, side: str = "only_b", limit: int = 20) -> list[bytes]:
        """The longest tokens (in bytes; ties in rank order) of `side`: "only_b" (added), "only_a"
        (dropped) or "shared"."""
        tokens = getattr(self, side)
        return sorted(tokens, key=lambda t: -len(t))[:limit]

    def rank_shifts(self, limit: int | None = None) -> list[RankShift]:
        """Shared tokens with their two ranks, the largest moves first (ties in B's rank order); the
        first `limit` of them, or all."""
        pairs = list(zip(self.shared, self.a.ranks_of(self.shared), self.b.ranks_of(self.shared)))
        key = (lambda p: abs(p[2] - p[1]))
        if limit is None:
            top = sorted(pairs, key=key, reverse=True)  # stable: ties stay in B's rank order
        else:
            top = heapq.nlargest(limit, pairs, key=key)  # also stable among ties
        return [RankShift(t, a, b, b - a) for t, a, b in top]


def vocab_diff(a: Tokenizer | str | ByteVocabulary, b: Tokenizer | str | ByteVocabulary) -> VocabDiff:
    """Compare two tokenizers (objects, registry names, or `vocabulary(...)` results) by the bytes their
    ordinary tokens spell: B against A, so `only_b` is what B added and `only_a` what it dropped."""
    va = a if isinstance(a, ByteVocabulary) else vocabulary(a)
    vb = b if isinstance(b, ByteVocabulary) else vocabulary(b)
    ra, rb = va.ids, vb.ids  # each in its rank order (built in id order): no sorting needed
    shared = tuple(t for t in rb if t in ra)
    only_a = tuple(t for t in ra if t not in rb)
    only_b = tuple(t for t in rb if t not in ra)
    return VocabDiff(va, vb, shared, only_a, only_b)


__all__ = ["ByteVocabulary", "KINDS", "RankShift", "VocabDiff", "token_kind", "vocab_diff", "vocabulary"]
