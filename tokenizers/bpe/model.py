"""Byte-level BPE in the minbpe tradition. The model is data: `merges` ((a, b) -> new id, in the
order learned), `vocab` (id -> bytes), `special_tokens` (string -> id) and `pattern` (the split
regex, or None for no split). Every byte-level BPE here is this one model, however it was made:

- `BPETokenizer().train(text, vocab_size, pattern=..., ties=...)` learns merges. Trainers, all giving
  identical merges: "reference" (the obvious algorithm), "python" (bpe/fast.py: incremental counts),
  "native" (the same algorithm in C, tokenizers/bpe/native), and "fast", the default: native when the
  C core is built, else python. `ties` breaks a tie between equal counts: "smallest" (the default)
  takes the smallest pair, as Hugging Face tokenizers and rustbpe do; "first" the pair met first in
  the text, as minbpe and the "Let's build the GPT Tokenizer" lecture do;
- `BPETokenizer.from_ranks(...)` (and `vocabularies.from_tiktoken("cl100k_base")`) read OpenAI's ranks; the
  merges are recovered from them lazily (`merges.RecoveredMerges`), so loading costs only reading
  the file, and the ids are tiktoken's. subtle: in those vocabularies the 256 single bytes are *not*
  ids 0..255 in byte order, so every model keeps `byte_ids` (byte -> id);
- `BPETokenizer.load` (or `bpe.files.load`) reads minbpe's .model files.

The model sees the text as typed. Vocabularies that normalize it first (Qwen's NFC, Claude's NFKC),
split it by more than one regex (DeepSeek V3's sequence of Split regexes) or match added tokens (Hugging
Face's tokenizer.json) wrap this model in `PipelineTokenizer` (tokenizers/hf/models.py), which runs
those stages and hands the model each stretch of text or each chunk; the C core still merges them.

Encoding follows one rule (`bpe.rule.bpe_merge`: merge the adjacent pair that makes the lowest id,
leftmost first), after a whole-chunk shortcut (a chunk that is itself a token is that token, as in
tiktoken; `whole_chunk_shortcut = False` turns it off, as Hugging Face's BPE does without
`ignore_merges`). It runs in C when it can (`encode_ordinary`), with `encode_ordinary_python` as
its pure-Python twin; `encode_steps` shows it merge by merge.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import AbstractSet, NamedTuple

from tokenizers.bpe import fast as bpe_fast
from tokenizers.bpe import reference as bpe_reference
from tokenizers.bpe import native
from tokenizers.core.tokenizer import Capabilities, Tokenizer
from tokenizers.bpe.rule import bpe_merge
from tokenizers.bpe.merges import Merges, RecoveredMerges, apply_merges  # apply_merges: the heap lives there
from tokenizers.core.patterns import (NO_BUDGET, SPLIT_MODES, TimedPattern, chunk_counts, compile_pattern,
                                      pattern_budget, split_text)
from tokenizers.core.text import clean_text


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
    ties: str = "smallest"       # the tie rule it followed: "smallest" or "first" (bpe.reference.TIES)


TRAINERS = ("fast", "native", "python", "reference")


class TrainingError(ValueError):
    """Training cannot start; the message says what to change."""


def resolve_pattern(pattern: str | None) -> str | None:
    """'none' | 'gpt2' | 'gpt4' | a regex -> the regex (or None for no split)."""
    if pattern is None:
        return None
    return SPLIT_MODES[pattern] if pattern in SPLIT_MODES else pattern


_NEVER = float("inf")
LONG_CHUNK = 64  # bytes; longer chunks take the heap


def _merge_by_pairs(ids: list[int], merges) -> list[int]:
    """The BPE rule (bpe.rule.bpe_merge) for a short chunk, the pure-Python encoder's common case:
    the same loop, but after a merge at i only the ranks of the pairs at i-1 and i are recomputed."""
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


class _SparseDecoder(dict):
    """id -> bytes for vocabularies whose ids leave big gaps; None for an unused id, like the list."""

    def __missing__(self, token_id):
        if not isinstance(token_id, int):
            raise TypeError(token_id)
        return None


class _ChunkCache(dict):
    """chunk -> ids; a miss encodes the chunk (and keeps it while the cache is not too big). Bounded in
    chunks and in their characters: a registry tokenizer's cache serves every visitor, and 500,000
    distinct chunks of 255 characters would have held ~200 MB."""

    LIMIT = 500_000
    CHAR_LIMIT = 4_000_000  # characters of the chunks kept (the common short chunks fill it first)

    def __init__(self, encode: Callable[[str], tuple[int, ...]]):
        super().__init__()
        self._encode = encode
        self.chars = 0

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        ids = self._encode(chunk)
        n = len(chunk)
        if n < 256 and len(self) < self.LIMIT and self.chars + n <= self.CHAR_LIMIT:
            self[chunk] = ids
            self.chars += n
        return ids


@dataclass(frozen=True)
class EncodeStep:
    step: int                 # 1 for the first merge applied
    position: int             # index of the left part in the parts before this merge
    pair: tuple[int, int]     # ids of the two parts merged
    new_id: int
    rank: int                 # which merge it is (0 = the first one learned)
    parts: tuple[int, ...]    # all parts after this merge


class BPETokenizer(Tokenizer):
    kind = "bpe"
    whole_chunk_shortcut = True
    _STATE = ("name", "title", "pattern", "merges", "vocab", "special_tokens", "history", "whole_chunk_shortcut")

    def __init__(self, pattern: str | None = "gpt4", *, name: str = "custom_bpe"):
        self.name = name
        self.pattern = resolve_pattern(pattern)
        self.merges: Merges = Merges()
        self.vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
        self.special_tokens: dict[str, int] = {}
        self.history: list[MergeRecord] = []
        self._reset_caches()

    @classmethod
    def from_model(cls, *, vocab: dict[int, bytes], merges, pattern: str | None,
                   special_tokens: dict[str, int] | None = None, name: str,
                   whole_chunk_shortcut: bool = True) -> "BPETokenizer":
        """A tokenizer from the model's data. `vocab` must hold the 256 single bytes."""
        tok = cls.__new__(cls)
        tok.name, tok.title, tok.pattern, tok.history = name, "", resolve_pattern(pattern), []
        tok.vocab, tok.merges = vocab, merges if isinstance(merges, Merges) else Merges(merges)
        tok.special_tokens = dict(special_tokens or {})
        tok.whole_chunk_shortcut = whole_chunk_shortcut
        tok._reset_caches()
        return tok

    @classmethod
    def from_ranks(cls, mergeable_ranks: dict[bytes, int], *, pattern: str | None,
                   special_tokens: dict[str, int] | None = None, name: str) -> "BPETokenizer":
        """A tokenizer over tiktoken-style ranks (bytes -> rank); ids are the ranks, merges are
        recovered from them when first needed."""
        vocab = {r: b for b, r in mergeable_ranks.items()}
        return cls.from_model(vocab=vocab, merges=RecoveredMerges(vocab, mergeable_ranks), pattern=pattern,
                              special_tokens=special_tokens, name=name)

    @property
    def capabilities(self) -> Capabilities:
        """Merge trees and merge steps always; a training history when this model was trained here."""
        return Capabilities(model_type="bpe", merge_trees=True, merge_steps=True, training_history=bool(self.history))

    # -- state -----------------------------------------------------------------------------------
    def _reset_caches(self) -> None:
        """Rebuild what is derived from the model's data; call after changing it."""
        if not isinstance(self.merges, Merges):
            self.merges = Merges(self.merges)
        self._compiled = compile_pattern(self.pattern)
        single = {b[0]: i for i, b in self.vocab.items() if len(b) == 1}
        if len(single) != 256:
            missing = sorted(set(range(256)) - set(single))[:8]
            raise ValueError(f"{self.name}: a byte-level vocabulary needs a token for each of the 256 bytes; "
                             f"none for {', '.join(f'0x{m:02X}' for m in missing)}")
        self.byte_ids = [single[b] for b in range(256)]
        ranks = getattr(self.merges, "ranks", None)  # recovered merges already hold bytes -> id
        self._bytes_to_id = ranks if ranks is not None else {b: i for i, b in self.vocab.items()}
        top = max(self.vocab) if self.vocab else -1
        self._vocab_size = max([top, *self.special_tokens.values()]) + 1
        self._decoder = None
        self._special_of_id = {}
        for s, i in self.special_tokens.items():  # an id spelled two ways decodes to the first, as in tiktoken
            self._special_of_id.setdefault(i, s)
        self._chunk_cache = _ChunkCache(self._encode_chunk)
        self._python_cache = _ChunkCache(self._encode_chunk_python)
        self._special_id_set = None
        self._special_res = {}
        self._native = None     # (mode, C encoder) once built; False when C cannot encode this model
        self._chunk_native = None
        self._single_token_index = None
        self._length_table = None

    def __getstate__(self) -> dict:
        """Pickle and deepcopy the model's data; caches and C handles are rebuilt on loading."""
        return {k: getattr(self, k) for k in self._STATE if k in self.__dict__ or hasattr(self, k)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._reset_caches()

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    def token_bytes(self, token_id: int) -> bytes:
        b = self.vocab.get(token_id)
        if b is not None:
            return b
        s = self._special_of_id.get(token_id)
        if s is not None:
            return s.encode("utf-8")
        self.check_ids([token_id])  # out of range: raises a clear error
        from tokenizers.core.tokenizer import UnknownTokenIdError

        raise UnknownTokenIdError(self.name, [token_id], self.vocab_size, unused=True)

    def decode_bytes(self, ids) -> bytes:
        table = self._decoder
        if table is None:
            # a list indexed by id is faster than a dict (within 2x of tiktoken's Rust on 100,000
            # ids). Its second half is None, as are unused ids, so that a negative id (which a list
            # would take from the end) and a hole both fail the join instead of decoding quietly
            n = self.vocab_size
            used = len(self.vocab) + len(self.special_tokens)
            if n > 4 * used + 4096:  # ids spread far apart (an uploaded model): a dict, not a huge list
                table = _SparseDecoder({**{i: s.encode("utf-8") for i, s in self._special_of_id.items()},
                                        **self.vocab})
            else:
                table = [None] * (2 * n)
                for i, b in self.vocab.items():
                    table[i] = b
                for i, s in self._special_of_id.items():
                    table[i] = s.encode("utf-8")
            self._decoder = table
        try:
            return b"".join(map(table.__getitem__, ids))
        except (IndexError, TypeError):
            ids = list(ids)
            self.check_ids(ids)
            from tokenizers.core.tokenizer import UnknownTokenIdError

            raise UnknownTokenIdError(self.name, [i for i in ids if table[i] is None], self.vocab_size,
                                      unused=True) from None

    def iter_vocab(self) -> Iterator[tuple[int, bytes]]:
        # one entry per id (tiktoken's o200k_harmony spells id 200018 two ways; the first spelling is
        # the one tiktoken decodes to, as token_bytes does)
        table = {**{i: s.encode("utf-8") for i, s in self._special_of_id.items()}, **self.vocab}
        return iter(sorted(table.items()))

    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Add special tokens, e.g. {"<|endoftext|>": 100257}. Ids must not collide."""
        for s, i in special_tokens.items():
            if not s:
                raise ValueError("A special token cannot be the empty string.")
            if i in self.vocab or (i in self.special_tokens.values() and self.special_tokens.get(s) != i):
                raise ValueError(f"Special token {s!r}: id {i} is already taken.")
        self.special_tokens.update(special_tokens)
        self._reset_caches()

    # -- saving ----------------------------------------------------------------------------------
    def save(self, prefix) -> tuple:
        """Write the model next to `prefix`; the two paths. minbpe's prefix.model and prefix.vocab
        when the 256 bytes are ids 0-255 (models trained here), else tiktoken's prefix.tiktoken with
        prefix.json (pattern, special tokens, and no whole-chunk shortcut when it is off), the format
        OpenAI's vocabularies come in."""
        from pathlib import Path

        from tokenizers.bpe.files import export_tiktoken, model_text, vocab_text

        prefix = Path(prefix)
        if self.byte_ids != list(range(256)) or not self.whole_chunk_shortcut:  # minbpe's format holds neither
            return export_tiktoken(self, prefix)
        model, vocab = prefix.with_suffix(".model"), prefix.with_suffix(".vocab")
        model.write_text(model_text(self), encoding="utf-8")
        vocab.write_text(vocab_text(self), encoding="utf-8")
        return model, vocab

    @classmethod
    def load(cls, model_file, *, name: str = "custom_bpe") -> "BPETokenizer":
        """Read what `save` wrote: a minbpe .model file, or a .tiktoken file (with its .json beside
        it for the pattern and special tokens, when there is one)."""
        import json
        from pathlib import Path

        path = Path(model_file)
        if path.suffix == ".tiktoken":
            from tiktoken.load import load_tiktoken_bpe

            meta_file = path.with_suffix(".json")
            meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.exists() else {}
            tok = cls.from_ranks(load_tiktoken_bpe(str(path)), pattern=meta.get("pattern") or None,
                                 special_tokens=meta.get("special_tokens", {}), name=name)
            if meta.get("whole_chunk_shortcut") is False:
                tok.whole_chunk_shortcut = False
                tok._reset_caches()
            return tok
        return cls.loads(path.read_text(encoding="utf-8"), name=name)

    @classmethod
    def loads(cls, text: str, *, name: str = "custom_bpe", limits=None) -> "BPETokenizer":
        """A minbpe .model file's text; a malformed one raises ModelFormatError naming the line, and
        one past `limits` (tokenizers.pipeline.components.Limits) says which bound."""
        from tokenizers.bpe.files import parse_model

        m = parse_model(text, limits)
        return cls.from_model(vocab=m.vocab, merges=m.merges, pattern=m.pattern, special_tokens=m.special_tokens,
                              name=name)

    # -- training --------------------------------------------------------------------------------
    def train(self, text: str | bytes, vocab_size: int, *, pattern: str | None = None,
              progress: Callable[[int, int], None] | None = None,
              trainer: str = "fast", ties: str = "smallest") -> TrainReport:
        """Learn `vocab_size - 256` merges from `text`. Returns what happened, in a TrainReport.
        `ties`: which of equally frequent pairs is merged, "smallest" (the smallest pair (a, b), as
        Hugging Face tokenizers and rustbpe) or "first" (the pair met first in the text, as minbpe)."""
        import time

        t0 = time.perf_counter()
        bpe_reference.check_ties(ties)
        if pattern is not None:
            compile_pattern(resolve_pattern(pattern))  # a bad pattern fails here, before anything changes
            self.pattern = resolve_pattern(pattern)
            self._reset_caches()
        replaced = 0
        if isinstance(text, (bytes, bytearray)):
            decoded = bytes(text).decode("utf-8", errors="replace")
            replaced = decoded.count("\ufffd") - bytes(text).count("\ufffd".encode())
            text = decoded
        from tokenizers.core.text import clean_text

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
            from tokenizers.bpe.native import api

            mode = api.mode_of(self.pattern)
            if mode is not None:  # C cuts and counts the chunks too
                chunks = api.Chunks.from_text(data, mode)
            else:  # a custom pattern: Python's regex cuts, C counts
                chunks = api.Chunks.from_counts(
                    (c.encode("utf-8"), n) for c, n in chunk_counts(text, self._compiled).items())
            merges = api.train(chunks, num_merges, progress, ties=ties)
            n_chunks, n_unique, tokens = chunks.total, chunks.distinct, chunks.tokens
        else:
            counts = chunk_counts(text, self._compiled)
            byte_counts = [(c.encode("utf-8"), n) for c, n in counts.items()]
            n_chunks, n_unique = sum(counts.values()), len(counts)
            tokens = sum(len(b) * n for b, n in byte_counts)
            if trainer == "python":
                merges = bpe_fast.train_fast(byte_counts, num_merges, progress, ties=ties)
            else:  # the obvious algorithm sees every chunk, in order, as the course material does
                chunks = [c.encode("utf-8") for c in split_text(text, self._compiled)]
                merges = bpe_reference.train_reference(chunks, num_merges, progress, ties=ties)

        self.merges, self.vocab, self.history = Merges(), {i: bytes([i]) for i in range(256)}, []
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
        report.ties = ties
        return report

    # -- encoding --------------------------------------------------------------------------------
    def apply_rule(self, data: bytes) -> list[int]:
        """BPE on one chunk's bytes by the merge rule alone (no whole-chunk shortcut), in Python."""
        ids = [self.byte_ids[b] for b in data]
        if len(ids) > LONG_CHUNK:
            return apply_merges(ids, self.merges.get)
        return _merge_by_pairs(ids, self.merges)

    def _encode_chunk_python(self, chunk: str) -> tuple[int, ...]:
        data = chunk.encode("utf-8")
        if self.whole_chunk_shortcut:
            whole = self._bytes_to_id.get(data)
            if whole is not None:  # the chunk is itself a token
                return (whole,)
        return tuple(self.apply_rule(data))

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        """One chunk, in C when the core is built (whatever the split pattern), else in Python."""
        enc = self._chunk_encoder()
        if enc is None:
            return self._encode_chunk_python(chunk)
        return tuple(enc.encode(0, chunk.encode("utf-8")))

    def _c_encoder(self):
        from tokenizers.bpe.native import api

        # trained models go by their merges; recovered ones by the bytes -> id table, the byte form
        # of the same rule (bpe/rule.py), which spares recovering every merge first
        by_merges = None if isinstance(self.merges, RecoveredMerges) else self.merges
        return api.Encoder(self.byte_ids, by_merges, self._bytes_to_id, shortcut=self.whole_chunk_shortcut)

    def _chunk_encoder(self):
        if self._chunk_native is None:
            self._chunk_native = False
            if native.available():
                self._chunk_native = self._c_encoder()
        return self._chunk_native or None

    def _native_encoder(self):
        """(mode, C encoder) when the C core cuts this model's text too (GPT-2, GPT-4 or no split);
        None otherwise (another pattern: Python's regex cuts, C encodes each chunk)."""
        if self._native is None:
            self._native = False
            if native.available():
                from tokenizers.bpe.native import api

                mode = api.mode_of(self.pattern)
                if mode is not None:
                    self._native = (mode, self._chunk_encoder())
        return self._native or None

    @property
    def line_local(self) -> bool:
        """Its split pattern is one a line cut splits, and no special token holds a newline
        (tokenizers/core/edits.py)."""
        from tokenizers.core.edits import line_local_pattern

        return line_local_pattern(self.pattern) and not any("\n" in s for s in self.special_tokens)

    @property
    def engine(self) -> str:
        """Which code encodes: "C" (split and merges), "Python split, C merges", or "Python"."""
        if self._native_encoder() is not None:
            return "C"
        return "Python split, C merges" if self._chunk_encoder() is not None else "Python"

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ignoring special tokens entirely (their strings are plain text)."""
        text, _ = clean_text(text)
        fast = self._native_encoder()
        if fast is not None:
            return fast[1].encode(fast[0], text.encode("utf-8"))
        # the loop runs in C: a cache hit is a dict lookup, a miss calls _ChunkCache.__missing__
        return list(chain.from_iterable(map(self._chunk_cache.__getitem__, split_text(text, self._compiled))))

    def encode_ordinary_python(self, text: str) -> list[int]:
        """encode_ordinary on the pure-Python path, no C at all (the twin the tests hold C to)."""
        text, _ = clean_text(text)
        return list(chain.from_iterable(map(self._python_cache.__getitem__, split_text(text, self._compiled))))

    def encode_cut(self, text: str, mode: int) -> list[int] | None:
        """`text` cut by the C pre-tokenizer's `mode` (a pipeline's pre-tokenizer that one stands for:
        tokenizers.core.patterns.CUTTERS) and each chunk merged, all in C; None without the C core."""
        enc = self._chunk_encoder()
        return None if enc is None else enc.encode(mode, clean_text(text)[0].encode("utf-8"))

    def encode_chunk(self, chunk: str) -> tuple[int, ...]:
        """The ids of one chunk already cut (by a pipeline's pre-tokenizer), merged on its own; cached."""
        return self._chunk_cache[chunk]

    def encode_chunks(self, chunks) -> list[int]:
        """The ids of chunks already cut, each merged on its own."""
        return list(chain.from_iterable(map(self._chunk_cache.__getitem__, chunks)))

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        if not specials:
            return self.encode_ordinary(text)
        out: list[int] = []
        for part in self._special_splitter(specials).split(text):
            if part in specials:
                out.append(self.special_tokens[part])
            elif part:
                out.extend(self.encode_ordinary(part))
        return out

    def _special_splitter(self, specials: AbstractSet[str]):
        """The allowed specials found by the one finder of added and special tokens
        (tokenizers.core.literals): leftmost, then the longest, so that "<|a|>x" is not cut by a
        shorter special that is its prefix. One per set of allowed specials, a few kept."""
        from tokenizers.core.literals import cached_finder

        return cached_finder(self._special_res, specials)

    def _pattern_budget(self):
        """A split pattern from outside runs under one time budget per text (a text with special tokens
        is split stretch by stretch: the stretches share it)."""
        return pattern_budget() if isinstance(self._compiled, TimedPattern) else NO_BUDGET

    # -- looking inside --------------------------------------------------------------------------
    def split(self, text: str) -> list[str]:
        """The chunks the split pattern cuts `text` into; merges never cross them."""
        return split_text(clean_text(text)[0], self._compiled)

    def encode_steps(self, chunk: str) -> tuple[tuple[int, ...], list[EncodeStep]]:
        """(starting byte tokens, every merge applied in order) for one chunk, by the BPE rule
        (bpe.rule.bpe_merge). Ends in the ids `encode` gives for the chunk, unless the chunk is a
        whole token that the rule alone would not reach (`encode` takes that shortcut, as tiktoken
        does)."""
        start = tuple(self.byte_ids[b] for b in clean_text(chunk)[0].encode("utf-8"))
        steps: list[EncodeStep] = []
        before: list[list[int]] = [list(start)]

        def record(parts: list, at: int, rank) -> None:
            if at >= 0:
                prev = before[0]
                steps.append(EncodeStep(len(steps) + 1, at, (prev[at], prev[at + 1]), rank,
                                        self.merge_rank(rank) or 0, tuple(parts)))
            before[0] = parts

        bpe_merge(start, lambda a, b: self.merges.get((a, b)), visualise=record)
        return start, steps

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The two tokens whose merge made `token_id`; None for single bytes and specials."""
        if token_id in self.vocab:
            return self.merges.parents(token_id)
        self.token_bytes(token_id)  # raises for an unknown id
        return None

    def merge_rank(self, token_id: int) -> int | None:
        """Which merge made this token (0 = the first merge learned); None for single bytes and
        specials. A lower id is an earlier merge in every vocabulary here."""
        if token_id not in self.vocab or self.merge_parents(token_id) is None:
            return None
        return token_id - self._first_merge_id()

    def _first_merge_id(self) -> int:
        first = getattr(self, "_first_merge", None)
        if first is None:
            first = self._first_merge = min((i for i, b in self.vocab.items() if len(b) > 1), default=256)
        return first

    def truncated(self, k: int) -> "BPETokenizer":
        """The same tokenizer with only its first k merges."""
        ordered = self.merges.ordered()
        k = max(0, min(k, len(ordered)))
        keep = ordered[:k]
        vocab = {i: self.vocab[i] for i in self.byte_ids}
        merges = Merges()
        for (a, b), idx in keep:
            merges[(a, b)] = idx
            vocab[idx] = vocab[a] + vocab[b]
        out = BPETokenizer.from_model(vocab=vocab, merges=merges, pattern=self.pattern, name=f"{self.name}@{k}")
        out.history = self.history[:k]
        return out

    def pair_counts_at(self, text: str, k: int, top: int = 10, *,
                       ties: str = "smallest") -> list[tuple[tuple[int, int], int]]:
        """The `top` most frequent pairs in `text` after the first k merges, best first (the order
        the trainer uses: count, then the tie rule `ties`). For the training text, the first is merge k."""
        bpe_reference.check_ties(ties)
        small = self.truncated(k)
        stats: dict = {}
        for chunk, n in chunk_counts(clean_text(text)[0], self._compiled).items():
            # by the merge rule itself (no whole-chunk shortcut): the state the trainer had at step k;
            # the chunks come in the order first met, so the dict keeps each pair's first sight in order
            bpe_reference.get_stats(small.apply_rule(chunk.encode("utf-8")), stats, n)
        if ties == "first":  # sorted() is stable: equal counts stay in the order first seen
            return sorted(stats.items(), key=lambda kv: -kv[1])[:top]
        return sorted(stats.items(), key=lambda kv: (-kv[1], kv[0]))[:top]

    def longest_tokens(self, n: int = 20) -> list[int]:
        """Ids of the n longest merged tokens, longest first."""
        ids = [i for i, b in self.vocab.items() if len(b) > 1]
        return sorted(ids, key=lambda i: (-len(self.vocab[i]), i))[:n]


# -- the BPE Lab's training, as one call a child process runs (tokenizers.jobs.run: a page can stop it, and
# other visitors never wait on it): plain values in, a picklable (tokenizer, report) out
SMALL_TEXT_CHARS = 2_000   # a BPE training this small (the classic example: 11 characters, 3 merges) takes
SMALL_MERGES = 500         # well under a second: a small job (tokenizers.jobs: its own lane, never behind long ones)


def bpe_is_small(text: str, vocab_size: int) -> bool:
    """True for a BPE Lab training small enough to run as a small job."""
    return len(text) <= SMALL_TEXT_CHARS and int(vocab_size) - 256 <= SMALL_MERGES


def train_bpe(text: str, vocab_size: int, pattern: str | None, specials: list[str], *, name: str = "lab_bpe",
              ties: str = "smallest", progress: Callable | None = None):
    """The BPE Lab's model: (BPETokenizer, TrainReport). Special tokens get the ids right after the
    learned vocabulary, in the order given; `ties` as BPETokenizer.train takes it. `progress(done,
    total)` as merges are learned."""
    tok = BPETokenizer(None, name=name)
    report = tok.train(text, int(vocab_size), pattern=pattern, progress=progress, ties=ties)
    if specials:
        base = max(tok.vocab) + 1
        tok.register_special_tokens({s: base + k for k, s in enumerate(dict.fromkeys(specials))})
    tok.title = f"Lab BPE ({tok.vocab_size:,} tokens)"
    return tok, report
