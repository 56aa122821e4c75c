"""The one interface every backend answers: `Token` and `Tokenizer`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections import Counter
from functools import cached_property
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import AbstractSet, Literal, Union

from tokenizers.core.patterns import NO_BUDGET
from tokenizers.core.spans import tile
from tokenizers.core.text import ByteCharMap, clean_text

AllowedSpecial = Union[Literal["all", "none", "raise"], AbstractSet[str], Collection[str]]


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
    """A special-token string was found in text where special tokens are disallowed (the default,
    as in tiktoken)."""

    def __init__(self, name: str, found: str):
        super().__init__(
            f"{name}: the text contains the special-token string {found!r}, and by default (as in tiktoken) "
            f"special-token strings are refused, because text from a user must not be able to inject them. "
            f"Choose what it means:\n"
            f"  - as text: encode(text, disallowed_special=()) or encode_ordinary(text)\n"
            f"  - as the special token: encode(text, allowed_special={{{found!r}}}) or allowed_special='all'\n"
            f"  - remove it from the text before encoding"
        )
        self.found = found


class ModelFormatError(ValueError):
    """A model file that is not in its format: minbpe's .model (bpe/files.py), SentencePiece's .model
    (sentencepiece/model.py). The message names the line or the bound."""


class VocabularyMissingError(RuntimeError):
    """A vocabulary or model file is not provisioned (or fails its checksum)."""


class UnknownTokenIdError(KeyError, ValueError):
    """Token ids that the vocabulary does not have: out of range, or (`unused`) inside the range
    but never assigned (cl100k_base has no id 100256; a loaded model may have gaps).

    A `KeyError`, as tiktoken raises for an unknown id (so code written for tiktoken, its own test
    suite included, catches it), and a `ValueError`, as it was here first. `str()` is the plain
    message: KeyError's own would wrap it in quotes on every page that shows it."""

    def __init__(self, name: str, bad: Sequence[int], vocab_size: int, *, unused: bool = False):
        bad = list(bad)
        shown = ", ".join(str(i) for i in bad[:10]) + (" …" if len(bad) > 10 else "")
        why = "unused in this vocabulary" if unused else f"valid ids are 0 to {vocab_size - 1}"
        super().__init__(f"{name} has no token id {shown} ({why}).")
        self.bad = bad

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Capabilities:
    """What a tokenizer can show beyond encoding and decoding, declared by its class (or, where it
    depends on the file loaded, by the instance), so that a page asks `tok.capabilities` instead of
    probing attributes or checking classes. tests/test_capabilities.py holds each flag true exactly
    when the feature works, on every registered tokenizer and every kind trained in the app."""

    model_type: str = "unknown"     # how tokens are made: "bpe" (pairs merged), "unigram", "wordpiece",
                                    # "char", "word", or "unknown"
    merge_trees: bool = False       # merge_parents(id) is the pair whose merge made a token (merge_tree too)
    merge_steps: bool = False       # the byte-level BPE model's own data: encode_steps, split, byte_ids, vocab
    byte_fallback: bool = False     # a character outside the vocabulary becomes byte pieces (is_byte_fallback)
    unknown_token: bool = False     # a character outside the vocabulary becomes `unk_id`
    training_history: bool = False  # `history` lists the steps training took here (empty otherwise)
    scores: bool = False            # score_of(id) is the piece's log-probability (SentencePiece)
    code_points: bool = False       # base tokens are whole characters (byte pieces aside), not bytes
    parses_specials: bool = True    # special-token strings in text can be parsed as special tokens


# the default of `disallowed_special`: every special token not explicitly allowed
ALL: Literal["all"] = "all"


class Tokenizer(ABC):
    """Base class of every backend, with tiktoken's `Encoding` API on top.

    The contract. A backend implements three things:

    - `vocab_size`: one more than the largest id;
    - `token_bytes(id)`: the bytes a token stands for (KeyError or UnknownTokenIdError for an id
      the vocabulary does not have);
    - `_encode(clean_text, specials)`: text with no lone surrogates -> ids, parsing exactly the
      special-token strings in `specials` (the policy is applied here, before it is called).

    Everything else (encode with tiktoken's special-token rules, batches, every decode, tokenize
    with spans) is built here on those three. Optionally a backend

    - declares `capabilities` (a `Capabilities`; a class attribute, or a property where it depends
      on the model loaded) and provides what each flag promises (`merge_parents`, `unk_id`,
      `history`, `is_byte_fallback`, `score_of`, ...);
    - overrides the span hook, `span_lengths(text, ids)`, and `aligned_spans(text, ids, n_bytes)`
      for when lengths alone do not tile the text: `tokenize` calls them for byte spans. The
      default (each token covers its own bytes) is right for byte-level BPE.
    """

    name: str = "tokenizer"
    title: str = ""
    kind: str = "bpe"  # "bpe" (byte-level), "sentencepiece", or another algorithm's name
    special_tokens: dict[str, int]
    capabilities: Capabilities = Capabilities()
    unk_id: int | None = None  # the unknown token's id, where the vocabulary has one
    history: Sequence = ()     # the training steps, for a model trained here (capabilities.training_history)
    notes: Sequence[str] = ()  # what building the model did that a reader should know
    source_format: str = ""    # for a file a person uploaded: its format ("tiktoken ranks (.tiktoken)", ...)

    @property
    @abstractmethod
    def vocab_size(self) -> int: ...

    @abstractmethod
    def token_bytes(self, token_id: int) -> bytes: ...

    @abstractmethod
    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        """Encode clean text, parsing exactly the special-token strings in `specials`."""

    # -- tiktoken's names --------------------------------------------------------------------------
    @property
    def n_vocab(self) -> int:
        """One more than the largest token id (tiktoken's n_vocab)."""
        return self.vocab_size

    @property
    def max_token_value(self) -> int:
        return self.vocab_size - 1

    @property
    def eot_token(self) -> int:
        """The id of <|endoftext|>, where the vocabulary has one (AttributeError otherwise)."""
        i = self.special_tokens.get("<|endoftext|>")
        if i is None:
            raise AttributeError(f"{self.name} has no <|endoftext|> token")
        return i

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self.special_tokens)

    def parseable_specials(self) -> AbstractSet[str]:
        """Special-token strings this tokenizer can parse from text (SentencePiece: none)."""
        return self.special_tokens.keys()

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The two tokens whose merge made `token_id`; None for base tokens and specials."""
        return None

    def merge_rank(self, token_id: int) -> int | None:
        """Which merge made this token (0 = the first merge learned); None where none did. For a
        byte-level BPE trained here, ids 0-255 are bytes and id 256 + k was made by merge k;
        SentencePiece keeps scores, not merge ranks."""
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
    def _resolve_specials(self, text: str, allowed_special, disallowed_special=ALL) -> AbstractSet[str]:
        """tiktoken's rule: the strings in `allowed_special` ("all" = every one) are parsed as special
        tokens; if any string in `disallowed_special` ("all" = every one not allowed) occurs in the
        text, SpecialTokenError; other special-token strings are plain text. The older spellings
        allowed_special="none" (all as text) and "raise" (refuse all) are still understood."""
        parseable = self.parseable_specials()
        if allowed_special == "none":
            allowed_special, disallowed_special = frozenset(), ()
        elif allowed_special == "raise":
            allowed_special, disallowed_special = frozenset(), ALL
        if allowed_special == "all":
            allowed = set(parseable)
        else:
            allowed = set(allowed_special)
            unknown = allowed - set(self.special_tokens)
            if unknown:
                raise ValueError(f"{self.name} has no special token(s) {sorted(unknown)}; "
                                 f"it has {sorted(self.special_tokens) or 'none'}.")
            allowed &= set(parseable)
        if disallowed_special == "all":
            disallowed = [s for s in parseable if s not in allowed]
        else:
            disallowed = [s for s in disallowed_special if s in self.special_tokens]
        if disallowed and text:  # one automaton for all of them (tokenizers.core.literals), not one scan each
            from tokenizers.core.literals import shared_finder

            hit = shared_finder(disallowed).find(text)[:1]
            if hit:  # the first in the text; of those starting there, the first in sort order
                at = hit[0][0]
                raise SpecialTokenError(self.name, min(s for s in disallowed if text.startswith(s, at)))
        return allowed

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: Union[Literal["all"], Collection[str]] = ALL) -> list[int]:
        """Text -> ids, with tiktoken's meaning of the two options: by default a special-token string
        in the text raises SpecialTokenError (its message names the remedies);
        `disallowed_special=()` encodes it as text; `allowed_special={...}` or "all" parses it."""
        text, _ = clean_text(text)
        with self._pattern_budget():  # one time budget for every uploaded pattern this text meets
            return self._encode(text, self._resolve_specials(text, allowed_special, disallowed_special))

    def encode_ordinary(self, text: str) -> list[int]:
        """Text -> ids with every special-token string treated as plain text."""
        return self._encode(clean_text(text)[0], frozenset())

    def encode_batch(self, texts: Sequence[str], *, num_threads: int = 8, allowed_special: AllowedSpecial = frozenset(),
                     disallowed_special: Union[Literal["all"], Collection[str]] = ALL) -> list[list[int]]:
        """encode over a list of texts, in threads (the C core and tiktoken release the GIL)."""
        def one(t: str) -> list[int]:
            return self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special)

        return self._batch(one, texts, num_threads)

    def encode_ordinary_batch(self, texts: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        return self._batch(self.encode_ordinary, texts, num_threads)

    @staticmethod
    def _batch(fn, texts, num_threads: int) -> list:
        texts = list(texts)
        if num_threads <= 1 or len(texts) < 2:
            return [fn(t) for t in texts]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(num_threads, len(texts))) as pool:
            return list(pool.map(fn, texts))

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token whose bytes are exactly these (special tokens included);
        KeyError if no single token is."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        table = getattr(self, "_single_token_index", None)
        if table is None:
            table = {}
            for i, b in self.iter_vocab():
                table.setdefault(b, i)
            for s, i in self.special_tokens.items():
                table[s.encode("utf-8")] = i
            self._single_token_index = table
        try:
            return table[data]
        except KeyError:
            raise KeyError(f"{self.name}: no single token has the bytes {data!r}") from None

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        ids = list(ids)
        self.check_ids(ids)
        return b"".join(map(self.token_bytes, ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        return self.token_bytes(token_id)

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        ids = list(ids)
        self.check_ids(ids)
        return [self.token_bytes(i) for i in ids]

    def decode_with_offsets(self, ids: Iterable[int]) -> tuple[str, list[int]]:
        """(text, the character offset where each token starts). A token that begins inside a
        character (a continuation byte first) is given the offset of that character."""
        parts = self.decode_tokens_bytes(ids)
        offsets, chars = [], 0
        for b in parts:
            starts_inside = bool(b) and 0x80 <= b[0] < 0xC0
            offsets.append(max(0, chars - starts_inside))
            chars += sum(1 for x in b if not 0x80 <= x < 0xC0)  # one lead byte per character
        return b"".join(parts).decode("utf-8", errors="strict"), offsets

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary (non-special) token, sorted, as tiktoken gives them."""
        return sorted(b for i, b in self.iter_vocab() if not self.is_special(i))

    def iter_vocab(self) -> Iterator[tuple[int, bytes]]:
        """(id, bytes) for every token id in use, in id order, special tokens included."""
        for i in range(self.vocab_size):
            try:
                yield i, self.token_bytes(i)
            except (UnknownTokenIdError, KeyError):
                continue  # a hole in the id range (cl100k has one at 100256)

    def check_ids(self, ids: Sequence[int]) -> None:
        n = self.vocab_size
        if ids and (min(ids) < 0 or max(ids) >= n):
            bad = [i for i in ids if not (0 <= i < n)]
            raise UnknownTokenIdError(self.name, bad, n)

    def is_byte_fallback(self, token_id: int) -> bool:
        return False

    def is_unused(self, token_id: int) -> bool:
        """A slot the vocabulary reserves that stands for no text and that encoding never produces
        (SentencePiece's unused pieces). Special tokens and the unknown token are not unused."""
        return False

    def piece_of(self, token_id: int) -> str:
        """The vocabulary's own spelling of a token, where it has one (SentencePiece); else ''."""
        return ""

    def token_length(self, token_id: int) -> int:
        """len(token_bytes(id)), from a table built once per tokenizer."""
        table = self._length_table_of()
        n = table.get(token_id)
        if n is None:
            n = table[token_id] = len(self.token_bytes(token_id))
        return n

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                 disallowed_special: Union[Literal["all"], Collection[str]] = ALL) -> "TokenList":
        """Text -> Tokens with spans (same options as encode). Byte spans tile the clean text's
        UTF-8 bytes."""
        text, _ = clean_text(text)
        with self._pattern_budget():  # the encoding and the span alignment share one budget
            return self._tokenize(text, self._resolve_specials(text, allowed_special, disallowed_special))

    # -- an edit: only the lines it touched encoded again (tokenizers/core/edits.py) -------------------
    @property
    def line_local(self) -> bool:
        """Whether a line cut (just after a newline with a non-space character on each side) splits this
        tokenizer's work, so that `tokenize_edit` can reuse the tokens of an earlier text around an edit.
        False unless a backend declares it (tokenizers/core/edits.py says which stages are, and why)."""
        return False

    def _line_local_text(self, text: str) -> bool:
        """Whether this text keeps the line-local promise (a backend's stage may refuse a text as a whole:
        a normalizer's growth bound)."""
        return True

    def tokenize_edit(self, before: "TokenList", text: str, *, allowed_special: AllowedSpecial = frozenset(),
                      disallowed_special: Union[Literal["all"], Collection[str]] = ALL) -> "TokenList":
        """tokenize(text), the same tokens and offsets, reusing those of `before` (this tokenizer's
        tokenize of another text, with the same options) outside the lines where the two texts differ:
        a small edit to a long text costs about the lines it touched. The whole text is tokenized
        when the tokenizer is not line-local or nothing can be reused. `tokenize` is the reference the
        tests hold this equal to."""
        from tokenizers.core import edits

        text, _ = clean_text(text)
        with self._pattern_budget():
            specials = self._resolve_specials(text, allowed_special, disallowed_special)
            if (before is not None and before.tokenizer is self and self.line_local
                    and self._line_local_text(text)):
                try:
                    got = edits.retokenize(before, text, lambda part: self._tokenize(part, specials))
                except Exception:  # noqa: BLE001 - a stretch the whole text would not fail on: the reference decides
                    got = None
                if got is not None:
                    return TokenList(text, *got[:3], self, note=got[3])
            return self._tokenize(text, specials)

    def _pattern_budget(self):
        """The context one text's work runs in: `patterns.pattern_budget()` for a tokenizer that may run
        patterns from outside (a split or normalizer from an upload), so that they share one time
        budget for the text; a no-op (NO_BUDGET) for the others, which is the default."""
        return NO_BUDGET

    def _tokenize(self, text: str, specials: AbstractSet[str]) -> "TokenList":
        note = ""
        if text:
            ids = self._encode(text, specials)
            note = getattr(ids, "note", "")
        else:
            ids = []
        n_bytes = len(text.encode("utf-8"))
        lengths = self.span_lengths(text, ids)
        if lengths is not None:
            starts, ends = tile(lengths)
            if (ends[-1] if ends else 0) == n_bytes:
                return TokenList(text, ids, starts, ends, self, note=note)
        return TokenList(text, *self.aligned_spans(text, ids, n_bytes), self, note=note)

    # -- the span hook: how tokenize finds each token's bytes in the input --------------------------
    def span_lengths(self, text: str, ids: Sequence[int]) -> Iterable[int] | None:
        """How many input bytes each token covers, when that follows from the ids alone (byte-level
        BPE: its token's length). None when it does not; `tokenize` then calls aligned_spans, as it
        does when the lengths do not add up to the text's bytes. token_length's table read for all the
        ids at once (a call per token was a tenth of a pause rerun's tokenizing), token_length itself for
        ids not in it yet."""
        known = list(map(self._length_table_of().get, ids))
        if None in known:
            return [self.token_length(i) if n is None else n for i, n in zip(ids, known)]
        return known

    def _length_table_of(self) -> dict:
        table = getattr(self, "_length_table", None)
        if table is None:
            table = self._length_table = {}
        return table

    def aligned_spans(self, text: str, ids: Sequence[int], n_bytes: int):
        """(ids, starts, ends) that tile the text's `n_bytes` UTF-8 bytes, when span_lengths cannot
        give them (a model that normalizes, drops or replaces text aligns its pieces to the input
        here). For byte-level BPE it is a bug in a backend: fail loudly rather than render lies."""
        raise AssertionError(f"{self.name}: token bytes do not cover the {n_bytes} input bytes")

    # -- saving ------------------------------------------------------------------------------------
    def save(self, prefix) -> tuple:
        """Write the model next to `prefix` in its own format; the paths written."""
        raise NotImplementedError(f"{type(self).__name__} cannot be saved")


class TokenList(Sequence[Token]):
    """The tokens of one text, stored compactly: ids and byte offsets in arrays (about 24 bytes a
    token instead of ~300 for Token objects). Tokens are built when indexed or sliced, so a 1 MB
    text costs a few MB, and a page that draws 5,000 of its tokens builds only those."""

    def __init__(self, text: str, ids: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                 tokenizer: "Tokenizer", *, note: str = ""):
        self.text = text
        self.note = note  # how the ids were made, when not by the tokenizer's usual engine
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

    def _repr_html_(self, *, whitespace: bool = True) -> str:
        """The colored spans in Jupyter, with the counts (tokenizers.core.html.tokens_html)."""
        from tokenizers.core.html import tokens_html

        return tokens_html(self, whitespace=whitespace)

    @cached_property
    def odd_count(self) -> int:
        """Byte-fallback pieces and unknown tokens, counted once per text."""
        tok, unk = self._tok, self._tok.unk_id
        return sum(n for i, n in Counter(self.ids).items() if tok.is_byte_fallback(i) or i == unk)

    @cached_property
    def boundaries(self) -> frozenset[int]:
        """Byte offsets where a non-empty token starts, computed once per text."""
        return frozenset(a for a, b in zip(self.byte_starts, self.byte_ends) if b > a)
