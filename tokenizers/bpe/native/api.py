"""Thin wrappers over the C core that take and return Python objects (signatures: lib.py)."""

from __future__ import annotations

import ctypes
from array import array
from collections.abc import Callable, Iterable
from ctypes import c_int64

from .lib import MODES, PROGRESS, SP_FLAGS, load


def _lib() -> ctypes.CDLL:
    lib = load()
    if lib is None:
        raise RuntimeError("the native core is not built (python -m tokenizers.bpe.native.build)")
    return lib


def _addr(a: array) -> int:
    return a.buffer_info()[0]


def mode_of(pattern) -> int | None:
    """The C pre-tokenizer mode for a split pattern, or a Sequence of Isolated Splits' patterns (0 = no
    split), or None if C cannot cut it (tokenizers.core.patterns.CUTTERS, the one table)."""
    from tokenizers.core.patterns import cutter_of

    if pattern is None or pattern == "":
        return 0
    name = cutter_of(pattern)
    return MODES[name] if name is not None else None


def split_ends(mode: str, data: bytes) -> list[int]:
    """Byte offsets where the chunks of UTF-8 `data` end, cut by the mode named `mode` (lib.MODES)."""
    cap = len(data)
    ends = (c_int64 * max(cap, 1))()
    n = _lib().tl_split(MODES[mode], data, len(data), ends, cap)
    if n < 0:
        raise ValueError(f"unknown pre-tokenizer mode {mode!r}")
    return ends[:n]


def split(mode: str, text: str) -> list[str]:
    """The chunks of `text` (no lone surrogates) as tokenizers.core.patterns.split_text cuts them."""
    data = text.encode("utf-8")
    out, start = [], 0
    for end in split_ends(mode, data):
        out.append(data[start:end].decode("utf-8"))
        start = end
    return out


class _Handle:
    """A C object owned by a Python one: `_free` names the C function that releases it."""

    _free = ""

    def _own(self, handle: int | None) -> None:
        if not handle:
            raise MemoryError("native core: out of memory")
        self._h = handle

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            getattr(self._lib, self._free)(h)


class Chunks(_Handle):
    """Distinct chunks and their counts, held in C (the twin of patterns.chunk_counts)."""

    _free = "tl_chunks_free"

    def __init__(self):
        self._lib = _lib()
        self._own(self._lib.tl_chunks_new())

    @classmethod
    def from_text(cls, data: bytes, mode: int) -> "Chunks":
        c = cls()
        if mode not in (0, *MODES.values()):
            raise ValueError(f"unknown pre-tokenizer mode {mode!r}")
        if c._lib.tl_chunks_count_text(c._h, mode, data, len(data)) < 0:
            raise MemoryError("native core: chunk counting ran out of memory")
        return c

    @classmethod
    def from_counts(cls, counts: Iterable[tuple[bytes, int]]) -> "Chunks":
        c = cls()
        add = c._lib.tl_chunks_add
        for chunk, n in counts:
            if add(c._h, chunk, len(chunk), n):
                raise MemoryError("native core: out of memory")
        return c

    @property
    def distinct(self) -> int:
        return self._lib.tl_chunks_distinct(self._h)

    @property
    def total(self) -> int:
        return self._lib.tl_chunks_total(self._h)

    @property
    def tokens(self) -> int:
        return self._lib.tl_chunks_tokens(self._h)

    def items(self) -> list[tuple[bytes, int]]:
        out, n = [], c_int64()
        for k in range(self.distinct):
            size = self._lib.tl_chunks_get(self._h, k, None, None)
            buf = ctypes.create_string_buffer(size)
            self._lib.tl_chunks_get(self._h, k, buf, ctypes.byref(n))
            out.append((buf.raw, n.value))
        return out


def train(chunks: Chunks, num_merges: int,
          progress: Callable[[int, int], None] | None = None, *,
          ties: str = "smallest") -> list[tuple[tuple[int, int], int, int]]:
    """The merges, as bpe.fast.train_fast returns them: [((a, b), count_when_merged, tokens_saved)].
    `ties` as there; the chunks must be in the order first met in the text (from_text and
    from_counts over patterns.chunk_counts keep it)."""
    from tokenizers.bpe.reference import check_ties

    first = check_ties(ties) == "first"
    n = max(0, min(num_merges, chunks.tokens))  # a merge removes at least one token
    a, b = array("i", bytes(4 * n)), array("i", bytes(4 * n))
    count, saved = array("q", bytes(8 * n)), array("q", bytes(8 * n))
    raised: list[BaseException] = []

    def call(done: int, total: int) -> int:
        try:
            progress(done, total)
            return 0
        except BaseException as e:  # an exception cannot cross C: stop there, raise it after
            raised.append(e)
            return 1

    cb = PROGRESS(call) if progress else PROGRESS()
    made = chunks._lib.tl_train(chunks._h, n, _addr(a), _addr(b), _addr(count), _addr(saved), cb,
                                max(1, n // 200), int(first))
    if raised:
        raise raised[0]
    if made < 0:
        raise MemoryError("native core: training ran out of memory (or has more than 2^31 words or pairs)")
    return [((a[k], b[k]), count[k], saved[k]) for k in range(made)]


class Encoder(_Handle):
    """A BPE model in C: encode(mode, data) gives BPETokenizer.encode_ordinary_python's ids. With
    `merges` (pair -> new id) the pair that makes the lowest id goes first; with merges=None, the
    byte form of the same rule: `whole` holds every token's id, and the adjacent parts whose joined
    bytes make the lowest id go first. `shortcut`: a chunk that is itself a token (in `whole`)
    becomes that token."""

    _free = "tl_encoder_free"

    def __init__(self, byte_ids: list[int], merges: dict[tuple[int, int], int] | None,
                 whole: dict[bytes, int], *, shortcut: bool = True):
        self._lib = _lib()
        by_ranks = merges is None
        merges = {} if merges is None else merges
        pairs = list(dict.items(merges)) if isinstance(merges, dict) else list(merges.items())
        pa = array("i", (p[0] for p, _ in pairs))
        pb = array("i", (p[1] for p, _ in pairs))
        new = array("i", (i for _, i in pairs))
        toks = list(whole.items())
        blob = b"".join(t for t, _ in toks)
        starts = array("q", [0])
        for t, _ in toks:
            starts.append(starts[-1] + len(t))
        ids = array("i", (i for _, i in toks))
        bids = array("i", byte_ids)
        self._own(self._lib.tl_encoder_new(int(by_ranks), int(shortcut), _addr(bids), _addr(pa), _addr(pb),
                                           _addr(new), len(new), blob, _addr(starts), _addr(ids), len(ids)))

    def encode(self, mode: int, data: bytes) -> list[int]:
        out = array("i", bytes(4 * len(data)))
        if mode not in (0, *MODES.values()):
            raise ValueError(f"unknown pre-tokenizer mode {mode!r}")
        n = self._lib.tl_encode(self._h, mode, data, len(data), _addr(out))
        if n < 0:
            raise MemoryError("native core: encoding ran out of memory")
        del out[n:]
        return out.tolist()


class SentencePieceEncoder(_Handle):
    """A SentencePiece BPE model in C (tl_sp_* in bpe.c): encode(data) gives the sentencepiece
    package's ids for the UTF-8 text `data`. `pieces` are the model's normal pieces as (UTF-8 bytes,
    id, score); byte_ids[b] is the id of <0xbb>; `flags` names the TL_SP_* options that apply
    (lib.SP_FLAGS: dummy_prefix, escape_spaces, byte_fallback)."""

    _free = "tl_sp_free"

    def __init__(self, pieces: list[tuple[bytes, int, float]], byte_ids: list[int], unk_id: int,
                 flags: Iterable[str]):
        self._lib = _lib()
        bits = 0
        for f in flags:
            bits |= SP_FLAGS[f]
        blob = b"".join(p for p, _, _ in pieces)
        starts = array("q", [0])
        for p, _, _ in pieces:
            starts.append(starts[-1] + len(p))
        ids = array("i", (i for _, i, _ in pieces))
        scores = array("f", (s for _, _, s in pieces))
        bids = array("i", byte_ids)
        self._own(self._lib.tl_sp_new(bits, unk_id, _addr(bids), blob, _addr(starts), _addr(ids), _addr(scores),
                                      len(ids)))

    def encode(self, data: bytes, *, at_start: bool = True) -> list[int]:
        """`at_start` False: `data` is a part of a text that does not start it (no dummy prefix in front)."""
        out = array("i", bytes(4 * (3 * len(data) + 3)))
        n = self._lib.tl_sp_encode_part(self._h, data, len(data), _addr(out), int(at_start))
        if n < 0:
            raise MemoryError("native core: encoding ran out of memory")
        del out[n:]
        return out.tolist()
