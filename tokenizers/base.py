"""The one interface every backend answers: `Token` and `Tokenizer`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections import Counter
from functools import cached_property
from collections.abc import Iterable, Sequence
from itertools import accumulate
from dataclasses import dataclass
from typing import AbstractSet, Literal, Union

from .text import ByteCharMap, clean_text

AllowedSpecial = Union[Literal["all", "none", "raise"], AbstractSet[str]]


@dataclass(frozen=True, slots=True)
class Token:
    """One token of an input text.

    `bytes` are the vocabulary bytes of `id`. `byte_span` is the half-open range of the input's
    UTF-8 bytes this token covers; spans of consecutive tokens tile the input. `char_span` is the
    range of characters the token touches; `partial` is True when the token starts or ends inside a
    character (a byte-level BPE token holding part of an emoji, say).
    """

    id: int
    bytes: bytes
    byte_span: tuple[int, int]
    char_span: tuple[int, int]
    special: bool = False
    byte_fallback: bool = False
    partial: bool = False
    piece: str = ""  # the vocabulary's own spelling where it has one (SentencePiece's "▁hell")


class SpecialTokenError(ValueError):
    """A special-token string was found in text encoded with allowed_special="raise"."""

    def __init__(self, name: str, found: str):
        super().__init__(
            f"{name}: the text contains the special token {found!r}. Choose what it means:\n"
            f"  - as text (the default): encode(text) or allowed_special='none'\n"
            f"  - as the special token: allowed_special={{{found!r}}} or allowed_special='all'\n"
            f"  - remove it from the text before encoding"
        )
        self.found = found


class VocabularyMissingError(RuntimeError):
    """A vocabulary or model file is not provisioned (or fails its checksum)."""


class UnknownTokenIdError(ValueError):
    def __init__(self, name: str, bad: Sequence[int], vocab_size: int):
        shown = ", ".join(str(i) for i in list(bad)[:10]) + (" …" if len(bad) > 10 else "")
        super().__init__(f"{name} has no token id {shown} (valid ids are 0 to {vocab_size - 1}).")
        self.bad = list(bad)


class Tokenizer(ABC):
    """Base class. Subclasses implement `_encode`, `token_bytes`, `vocab_size`."""

    name: str = "tokenizer"
    kind: str = "bpe"  # "bpe" (byte-level) or "sentencepiece"
    special_tokens: dict[str, int]

    @property
    @abstractmethod
    def vocab_size(self) -> int: ...

    @abstractmethod
    def token_bytes(self, token_id: int) -> bytes: ...

    @abstractmethod
    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        """Encode clean text, parsing exactly the special-token strings in `specials`."""

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The two tokens whose merge made `token_id`; None for base tokens and specials."""
        return None

    def merge_rank(self, token_id: int) -> int | None:
        """Which merge made this token (0 = the first merge learned); None where none did. For a
        byte-level BPE, ids 0-255 are bytes and id 256 + k was made by merge k; SentencePiece keeps
        scores, not merge ranks."""
        if self.kind != "bpe" or token_id < 256 or self.is_special(token_id) or self.merge_parents(token_id) is None:
            return None
        return token_id - 256

    def merge_tree(self, token_id: int) -> dict:
        """{"id", "bytes", "children": [left, right] or []}, unfolded down to base tokens."""
        p = self.merge_parents(token_id)
        children = [self.merge_tree(p[0]), self.merge_tree(p[1])] if p else []
        return {"id": token_id, "bytes": self.token_bytes(token_id), "children": children}

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special_ids()

    def _special_ids(self) -> frozenset[int]:
        cached = getattr(self, "_special_id_set", None)
        if cached is None:
            cached = frozenset(self.special_tokens.values())
            self._special_id_set = cached
        return cached

    # -- special-token policy, shared by every backend -----------------------------------------
    def _resolve_specials(self, text: str, allowed_special: AllowedSpecial) -> AbstractSet[str]:
        if allowed_special == "all":
            return set(self.special_tokens)
        if allowed_special == "none":
            return set()
        if allowed_special == "raise":
            for s in self.special_tokens:
                if s in text:
                    raise SpecialTokenError(self.name, s)
            return set()
        unknown = set(allowed_special) - set(self.special_tokens)
        if unknown:
            raise ValueError(f"{self.name} has no special token(s) {sorted(unknown)}; "
                             f"it has {sorted(self.special_tokens) or 'none'}.")
        return set(allowed_special)

    def encode(self, text: str, *, allowed_special: AllowedSpecial = "none") -> list[int]:
        """Text -> ids. By default a special-token string in the text is encoded as plain text."""
        text, _ = clean_text(text)
        return self._encode(text, self._resolve_specials(text, allowed_special))

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        ids = list(ids)
        self.check_ids(ids)
        return b"".join(self.token_bytes(i) for i in ids)

    def decode(self, ids: Iterable[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def check_ids(self, ids: Sequence[int]) -> None:
        bad = [i for i in ids if not (0 <= i < self.vocab_size)]
        if bad:
            raise UnknownTokenIdError(self.name, bad, self.vocab_size)

    def is_byte_fallback(self, token_id: int) -> bool:
        return False

    def piece_of(self, token_id: int) -> str:
        """The vocabulary's own spelling of a token, where it has one (SentencePiece); else ''."""
        return ""

    def token_length(self, token_id: int) -> int:
        """len(token_bytes(id)), from a table built once per tokenizer."""
        table = getattr(self, "_length_table", None)
        if table is None:
            table = self._length_table = {}
        n = table.get(token_id)
        if n is None:
            n = table[token_id] = len(self.token_bytes(token_id))
        return n

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = "none") -> "TokenList":
        """Text -> Tokens with spans. Byte spans tile the clean text's UTF-8 bytes."""
        text, _ = clean_text(text)
        ids = self._encode(text, self._resolve_specials(text, allowed_special)) if text else []
        n_bytes = len(text.encode("utf-8"))
        lengths = self._span_lengths(text, ids)
        if lengths is not None:
            starts, ends = cumulative_spans(lengths)
            if (ends[-1] if ends else 0) == n_bytes:
                return TokenList(text, ids, starts, ends, self)
        return TokenList(text, *self._untiled_spans(text, ids, n_bytes), self)

    def _span_lengths(self, text: str, ids: Sequence[int]) -> Iterable[int] | None:
        """How many input bytes each token covers, when that follows from the ids alone (byte-level
        BPE: its token's length). None when it does not."""
        return map(self.token_length, ids)

    def _untiled_spans(self, text: str, ids: Sequence[int], n_bytes: int):
        """(ids, starts, ends) when the lengths do not tile the text. For byte-level BPE that is a bug
        in a backend: fail loudly rather than render lies."""
        raise AssertionError(f"{self.name}: token bytes do not cover the {n_bytes} input bytes")


class TokenList(Sequence[Token]):
    """The tokens of one text, stored compactly: ids and byte offsets in arrays (about 24 bytes a
    token instead of ~300 for Token objects). Tokens are built when indexed or sliced, so a 1 MB
    text costs a few MB, and a page that draws 5,000 of its tokens builds only those."""

    def __init__(self, text: str, ids: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                 tokenizer: "Tokenizer"):
        self.text = text
        self.ids = array("q", ids)
        self.byte_starts = array("q", starts)
        self.byte_ends = array("q", ends)
        self._tok = tokenizer

    @cached_property
    def cmap(self) -> ByteCharMap:
        return ByteCharMap.shared(self.text)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._make(i) for i in range(*k.indices(len(self.ids)))]
        if k < 0:
            k += len(self.ids)
        if not 0 <= k < len(self.ids):
            raise IndexError("token index out of range")
        return self._make(k)

    def _make(self, k: int) -> Token:
        i, b0, b1 = self.ids[k], self.byte_starts[k], self.byte_ends[k]
        cmap, tok = self.cmap, self._tok
        partial = not (cmap.is_boundary(b0) and cmap.is_boundary(b1))
        return Token(i, tok.token_bytes(i), (b0, b1), cmap.char_span(b0, b1), tok.is_special(i),
                     tok.is_byte_fallback(i), partial, tok.piece_of(i))

    @property
    def tokenizer(self) -> "Tokenizer":
        return self._tok

    @cached_property
    def odd_count(self) -> int:
        """Byte-fallback pieces and unknown tokens, counted once per text."""
        tok, unk = self._tok, getattr(self._tok, "unk_id", None)
        return sum(n for i, n in Counter(self.ids).items() if tok.is_byte_fallback(i) or i == unk)

    @cached_property
    def boundaries(self) -> frozenset[int]:
        """Byte offsets where a non-empty token starts, computed once per text."""
        return frozenset(a for a, b in zip(self.byte_starts, self.byte_ends) if b > a)


def cumulative_spans(lengths: Iterable[int]) -> tuple[list[int], list[int]]:
    """Byte spans of tokens laid end to end: ([starts], [ends])."""
    ends = list(accumulate(lengths))
    return [0, *ends[:-1]] if ends else [], ends
