"""Byte-level BPE in the minbpe tradition: state is `merges`, `vocab`, `special_tokens` (+ pattern).

Two ways to get one:
- `BPETokenizer().train(text, vocab_size, pattern=...)` learns merges. Trainers, all giving
  identical merges: "reference" (the obvious algorithm), "python" (bpe_fast: incremental counts),
  "native" (the same algorithm in C, tokenizers/native), and "fast", the default: native when the
  C core is built, else python. Encoding likewise runs in C when it can (`encode_ordinary`), with
  `encode_ordinary_python` as its pure-Python twin;
- `BPETokenizer.from_tiktoken("cl100k_base")` takes OpenAI's ranks. Its token ids are tiktoken's.
  subtle: in those vocabularies the 256 single bytes are *not* ids 0..255 in byte order, so every
  tokenizer keeps `byte_ids` (byte -> id). Merges are recovered per token on demand
  (`merge_parents`), so start-up costs only reading the file.
"""

from __future__ import annotations

import heapq
from itertools import chain
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import AbstractSet, NamedTuple

from . import bpe_fast, bpe_reference, native
from .base import Tokenizer
from .patterns import SPLIT_MODES, chunk_counts, compile_pattern, split_text


class MergeRecord(NamedTuple):
    rank: int          # 0 for the first merge
    pair: tuple[int, int]
    new_id: int
    count: int         # how often the pair occurred in the training text when it was merged
    tokens_after: int  # token count of the whole training text after this merge


@dataclass
class TrainReport:
    requested_vocab_size: int
    vocab_size: int
    merges: int
    stopped_early: str = ""      # why fewer merges than asked, in words; empty when not
    replaced_bytes: int = 0      # invalid UTF-8 bytes in the corpus replaced by U+FFFD
    chunks: int = 0
    unique_chunks: int = 0
    text_bytes: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    trainer: str = ""            # the trainer that ran: "native", "python" or "reference"


TRAINERS = ("fast", "native", "python", "reference")


class TrainingError(ValueError):
    """Training cannot start; the message says what to change."""


def resolve_pattern(pattern: str | None) -> str | None:
    """'none' | 'gpt2' | 'gpt4' | a regex -> the regex (or None for no split)."""
    if pattern is None:
        return None
    return SPLIT_MODES[pattern] if pattern in SPLIT_MODES else pattern


def apply_merges(ids: list[int], pair_rank: Callable[[int, int], int | None],
                 result_of: Callable[[int, int], int]) -> list[int]:
    """BPE-encode one chunk: repeatedly merge the adjacent pair of lowest rank.

    A heap of (rank, position) over a linked list makes this O(n log n), so a long chunk (no split
    pattern, 1 MB of text) stays fast; short chunks use the plain loops below, which are faster.
    Equal ranks are taken left to right, which is the same as merging every occurrence of the best
    pair left to right (minbpe) or the leftmost one first (tiktoken)."""
    n = len(ids)
    if n < 2:
        return ids
    vals = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap = []
    for i in range(n - 1):
        r = pair_rank(vals[i], vals[i + 1])
        if r is not None:
            heap.append((r, i, vals[i], vals[i + 1]))
    heapq.heapify(heap)
    while heap:
        r, i, a, b = heapq.heappop(heap)
        j = nxt[i] if alive[i] else n
        if j >= n or vals[i] != a or vals[j] != b:
            continue  # stale: one side was merged away since this entry was pushed
        vals[i] = result_of(a, b)
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
        p = prv[i]
        if p >= 0:
            rp = pair_rank(vals[p], vals[i])
            if rp is not None:
                heapq.heappush(heap, (rp, p, vals[p], vals[i]))
        k = nxt[i]
        if k < n:
            rk = pair_rank(vals[i], vals[k])
            if rk is not None:
                heapq.heappush(heap, (rk, i, vals[i], vals[k]))
    return [vals[i] for i in range(n) if alive[i]]


_NEVER = float("inf")


def _merge_by_pairs(ids: list[int], merges: dict) -> list[int]:
    """minbpe's rule for a short chunk: merge the pair with the lowest merge id, leftmost first.
    After a merge at i only the ranks of the pairs at i-1 and i change, so only they are redone."""
    get = merges.get
    ranks = [get(p, _NEVER) for p in zip(ids, ids[1:])]
    while ranks:
        best = min(ranks)
        if best == _NEVER:
            break
        i = ranks.index(best)
        ids[i:i + 2] = [best]  # the merge's rank is the new token's id
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get((best, ids[i + 1]), _NEVER)
        if i > 0:
            ranks[i - 1] = get((ids[i - 1], best), _NEVER)
    return ids


def _merge_by_byte_ranks(data: bytes, ranks: dict[bytes, int]) -> list[int]:
    """tiktoken's rule for a short chunk: merge the adjacent parts whose concatenation has the
    lowest rank, leftmost first; ids are the ranks of the final parts."""
    parts = [data[i:i + 1] for i in range(len(data))]
    get = ranks.get
    rs = [get(a + b, _NEVER) for a, b in zip(parts, parts[1:])]
    while rs:
        best = min(rs)
        if best == _NEVER:
            break
        i = rs.index(best)
        merged = parts[i] + parts[i + 1]
        parts[i:i + 2] = [merged]
        del rs[i]
        if i < len(rs):
            rs[i] = get(merged + parts[i + 1], _NEVER)
        if i > 0:
            rs[i - 1] = get(parts[i - 1] + merged, _NEVER)
    return [ranks[p] for p in parts]


class _ChunkCache(dict):
    """chunk -> ids; a miss encodes the chunk (and keeps it while the cache is not too big)."""

    LIMIT = 500_000

    def __init__(self, tok: "BPETokenizer"):
        super().__init__()
        self._encode = tok._encode_chunk

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        ids = self._encode(chunk)
        if len(self) < self.LIMIT and len(chunk) < 256:
            self[chunk] = ids
        return ids


class BPETokenizer(Tokenizer):
    kind = "bpe"

    def __init__(self, pattern: str | None = "gpt4", *, name: str = "custom_bpe"):
        self.name = name
        self.pattern = resolve_pattern(pattern)
        self._compiled = compile_pattern(self.pattern)
        self.merges: dict[tuple[int, int], int] = {}
        self.vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
        self.byte_ids: list[int] = list(range(256))
        self.special_tokens: dict[str, int] = {}
        self.history: list[MergeRecord] = []
        self._ranks: dict[bytes, int] | None = None  # set for tiktoken-derived vocabularies
        self._parents: dict[int, tuple[int, int] | None] = {}
        self._reset_caches()

    # -- state -----------------------------------------------------------------------------------
    def _reset_caches(self) -> None:
        self._chunk_cache = _ChunkCache(self)
        self._bytes_to_id = {b: i for i, b in self.vocab.items()} if self._ranks is None else self._ranks
        self._special_id_set = None
        self._special_re = None
        self._native = None  # (mode, native encoder) once built; False when C cannot encode this

    @property
    def vocab_size(self) -> int:
        top = max(self.vocab) if self.vocab else -1
        return max([top, *self.special_tokens.values()]) + 1

    def token_bytes(self, token_id: int) -> bytes:
        b = self.vocab.get(token_id)
        if b is not None:
            return b
        for s, i in self.special_tokens.items():
            if i == token_id:
                return s.encode("utf-8")
        self.check_ids([token_id])  # out of range: raises a clear error
        raise KeyError(f"{self.name}: token id {token_id} is unused in this vocabulary")

    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Add special tokens, e.g. {"<|endoftext|>": 100257}. Ids must not collide."""
        for s, i in special_tokens.items():
            if not s:
                raise ValueError("A special token cannot be the empty string.")
            if i in self.vocab or (i in self.special_tokens.values() and self.special_tokens.get(s) != i):
                raise ValueError(f"Special token {s!r}: id {i} is already taken.")
        self.special_tokens.update(special_tokens)
        self._reset_caches()

    # -- training --------------------------------------------------------------------------------
    def train(self, text: str | bytes, vocab_size: int, *, pattern: str | None = None,
              progress: Callable[[int, int], None] | None = None,
              trainer: str = "fast") -> TrainReport:
        """Learn `vocab_size - 256` merges from `text`. Returns what happened, in a TrainReport."""
        import time

        t0 = time.perf_counter()
        if pattern is not None:
            self.pattern = resolve_pattern(pattern)
            self._compiled = compile_pattern(self.pattern)
        replaced = 0
        if isinstance(text, (bytes, bytearray)):
            decoded = bytes(text).decode("utf-8", errors="replace")
            replaced = decoded.count("\ufffd") - bytes(text).count("\ufffd".encode())
            text = decoded
        from .text import clean_text

        text, lone = clean_text(text)
        replaced += lone
        if vocab_size < 256:
            raise TrainingError(f"vocab_size must be at least 256 (the 256 single bytes); got {vocab_size}.")
        if not text:
            raise TrainingError("The training text is empty: paste or upload some text first.")
        num_merges = vocab_size - 256
        data = text.encode("utf-8")
        if trainer not in TRAINERS:
            raise ValueError(f"trainer must be one of {', '.join(TRAINERS)}, not {trainer!r}")
        if trainer == "fast":
            trainer = "native" if native.available() else "python"
        if trainer == "native":
            from .native import api

            mode = api.mode_of(self.pattern)
            if mode is not None:  # C cuts and counts the chunks too
                chunks = api.Chunks.from_text(data, mode)
            else:  # a custom pattern: Python's regex cuts, C counts
                chunks = api.Chunks.from_counts(
                    (c.encode("utf-8"), n) for c, n in chunk_counts(text, self._compiled).items())
            merges = api.train(chunks, num_merges, progress)
            n_chunks, n_unique, tokens = chunks.total, chunks.distinct, chunks.tokens
        else:
            counts = chunk_counts(text, self._compiled)
            byte_counts = [(c.encode("utf-8"), n) for c, n in counts.items()]
            n_chunks, n_unique = sum(counts.values()), len(counts)
            tokens = sum(len(b) * n for b, n in byte_counts)
            if trainer == "python":
                merges = bpe_fast.train_fast(byte_counts, num_merges, progress)
            else:  # the obvious algorithm sees every chunk, in order, as the course material does
                chunks = [c.encode("utf-8") for c in split_text(text, self._compiled)]
                merges = bpe_reference.train_reference(chunks, num_merges, progress)

        self.merges, self.vocab, self.history = {}, {i: bytes([i]) for i in range(256)}, []
        self.byte_ids, self._ranks, self._parents = list(range(256)), None, {}
        for rank, (pair, count, saved) in enumerate(merges):
            idx = 256 + rank
            self.merges[pair] = idx
            self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
            tokens -= saved
            self.history.append(MergeRecord(rank, pair, idx, count, tokens))
        clash = [s for s, i in self.special_tokens.items() if i in self.vocab]
        if clash:  # specials registered before training keep their strings, move past the vocab
            base = max(self.vocab) + 1
            for k, s in enumerate(clash):
                self.special_tokens[s] = base + k
        self._reset_caches()
        report = TrainReport(vocab_size, 256 + len(merges), len(merges), replaced_bytes=replaced,
                             chunks=n_chunks, unique_chunks=n_unique,
                             text_bytes=len(data))
        if len(merges) < num_merges:
            report.stopped_early = (
                f"Stopped after {len(merges)} of {num_merges} merges: every chunk of the training text "
                f"is already a single token, so no pair is left to merge. Use more (or more varied) "
                f"text, or a vocab size of at most {256 + len(merges)}.")
        report.seconds = time.perf_counter() - t0
        report.trainer = trainer
        return report

    # -- encoding --------------------------------------------------------------------------------
    def _pair_rank(self, a: int, b: int) -> int | None:
        if self._ranks is not None:  # tiktoken's rule: the rank of the concatenated bytes
            return self._ranks.get(self.vocab[a] + self.vocab[b])
        return self.merges.get((a, b))

    def _merge_result(self, a: int, b: int) -> int:
        if self._ranks is not None:
            return self._ranks[self.vocab[a] + self.vocab[b]]
        return self.merges[(a, b)]

    def _apply_rule(self, data: bytes) -> list[int]:
        """BPE on one chunk's bytes by the merge rule alone (no whole-chunk shortcut)."""
        if len(data) > 64:  # long chunk (no split pattern): heap-based, O(n log n)
            return apply_merges([self.byte_ids[b] for b in data], self._pair_rank, self._merge_result)
        if self._ranks is not None:
            return _merge_by_byte_ranks(data, self._ranks)
        return _merge_by_pairs([self.byte_ids[b] for b in data], self.merges)

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        data = chunk.encode("utf-8")
        whole = self._bytes_to_id.get(data)
        if whole is not None:  # whole-chunk shortcut: the chunk is itself a token
            return (whole,)
        return tuple(self._apply_rule(data))

    def _native_encoder(self):
        """(mode, C encoder) when the C core knows this model's split (GPT-2, GPT-4 or none);
        None otherwise (a custom pattern, or no C core). Trained models go by their merges,
        tiktoken vocabularies by their ranks."""
        if self._native is None:
            self._native = False
            if native.available():
                from .native import api

                mode = api.mode_of(self.pattern)
                if mode is not None:
                    merges = self.merges if self._ranks is None else None
                    self._native = (mode, api.Encoder(self.byte_ids, merges, self._bytes_to_id))
        return self._native or None

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ignoring special tokens entirely (their strings are plain text)."""
        from .text import clean_text

        text, _ = clean_text(text)
        fast = self._native_encoder()
        if fast is not None:
            return fast[1].encode(fast[0], text.encode("utf-8"))
        return self._encode_ordinary(text)

    def encode_ordinary_python(self, text: str) -> list[int]:
        """encode_ordinary on the pure-Python path (the native encoder's twin, for tests)."""
        from .text import clean_text

        return self._encode_ordinary(clean_text(text)[0])

    def _encode_ordinary(self, text: str) -> list[int]:
        # the loop runs in C: a cache hit is a dict lookup, a miss calls _ChunkCache.__missing__
        return list(chain.from_iterable(map(self._chunk_cache.__getitem__, split_text(text, self._compiled))))

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        if not specials:
            return self.encode_ordinary(text)
        import regex

        # longest first, so that "<|a|>x" is not cut by a shorter special that is its prefix
        alt = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
        out: list[int] = []
        for part in regex.split(f"({alt})", text):
            if part in specials:
                out.append(self.special_tokens[part])
            elif part:
                out.extend(self.encode_ordinary(part))
        return out


    # -- merge trees -----------------------------------------------------------------------------
    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The two tokens whose merge made `token_id`; None for single bytes and specials."""
        if token_id in self._parents:
            return self._parents[token_id]
        parents = None
        if self._ranks is None:
            if not hasattr(self, "_inverse_merges"):
                self._inverse_merges = {v: k for k, v in self.merges.items()}
            parents = self._inverse_merges.get(token_id)
        else:
            data = self.vocab.get(token_id, b"")
            if len(data) >= 2:
                parts = self._rank_bpe(data, max_rank=token_id)
                if len(parts) != 2:
                    raise AssertionError(f"token {token_id} does not split into two parents: {parts}")
                parents = (self._ranks[parts[0]], self._ranks[parts[1]])
        self._parents[token_id] = parents
        return parents

    # -- tiktoken vocabularies -------------------------------------------------------------------
    def _rank_bpe(self, data: bytes, max_rank: int | None = None) -> list[bytes]:
        """tiktoken's own rule on byte strings: merge the adjacent pair whose concatenation has the
        lowest rank (only ranks below max_rank, when recovering a token's parents)."""
        ranks = self._ranks
        parts = [data[i:i + 1] for i in range(len(data))]
        while len(parts) > 1:
            best, at = None, -1
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1])
                if r is not None and (max_rank is None or r < max_rank) and (best is None or r < best):
                    best, at = r, i
            if best is None:
                break
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        return parts

    @classmethod
    def from_ranks(cls, mergeable_ranks: dict[bytes, int], *, pattern: str | None,
                   special_tokens: dict[str, int] | None = None, name: str) -> "BPETokenizer":
        """A tokenizer over tiktoken-style ranks (bytes -> rank); ids are the ranks."""
        tok = cls(None, name=name)
        tok.pattern = pattern
        tok._compiled = compile_pattern(pattern)
        tok._ranks = dict(mergeable_ranks)
        tok.vocab = {r: b for b, r in tok._ranks.items()}
        tok.byte_ids = [tok._ranks[bytes([b])] for b in range(256)]
        tok.merges = _LazyMerges(tok)
        tok.special_tokens = dict(special_tokens or {})
        tok._reset_caches()
        return tok

    @classmethod
    def from_tiktoken(cls, encoding_name: str) -> "BPETokenizer":
        """Rebuild one of OpenAI's encodings ("gpt2", "cl100k_base", "o200k_base") as a BPETokenizer
        whose ids are identical to tiktoken's."""
        from .openai import get_encoding

        enc = get_encoding(encoding_name)
        return cls.from_ranks(enc._mergeable_ranks, pattern=enc._pat_str,
                              special_tokens=enc._special_tokens, name=f"bpe:{encoding_name}")


class _LazyMerges(dict):
    """merges for a tiktoken vocabulary, as the pair -> id lookups encoding needs, answered from
    the ranks: (a, b) is a merge iff bytes(a)+bytes(b) is a token whose parents are (a, b)."""

    def __init__(self, tok: BPETokenizer):
        super().__init__()
        self._tok = tok

    def get(self, pair, default=None):
        hit = dict.get(self, pair, None)
        if hit is not None:
            return hit
        tok = self._tok
        r = tok._ranks.get(tok.vocab[pair[0]] + tok.vocab[pair[1]])
        if r is None or tok.merge_parents(r) != pair:
            return default
        dict.__setitem__(self, pair, r)
        return r

    def __getitem__(self, pair):
        r = self.get(pair)
        if r is None:
            raise KeyError(pair)
        return r

    def materialize(self) -> dict[tuple[int, int], int]:
        """Every merge, in rank order (recovers the parents of all tokens: takes seconds)."""
        tok = self._tok
        out = {}
        for r in sorted(tok.vocab):
            p = tok.merge_parents(r)
            if p is not None:
                out[p] = r
        return out
