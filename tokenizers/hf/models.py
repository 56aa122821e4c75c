"""Tokenizers read from a Hugging Face tokenizer.json whose model is not a byte-level BPE with merges
in id order (those become `BPETokenizer`, the one byte-level model, with the C core): a BPE over
characters (SentencePiece-style, Metaspace ▁ and byte fallback: Llama 2, Mistral v1), a BPE whose
merge ranks are not in id order, and WordPiece (BERT).

`PipelineTokenizer` runs Hugging Face's steps in order: added/special tokens, normalizer,
pre-tokenizer, model; spans map back to the input through tokenizers/core/spans.py. The models:

- `CharBPE`: the BPE rule (bpe_rule.bpe_merge: the pair with the lowest merge rank first, leftmost
  first) over a chunk's characters, or its bytes (`byte_level`); a character missing from the
  vocabulary becomes its UTF-8 bytes as <0xNN> pieces (`byte_fallback`), else the unknown token;
  `continuing_subword_prefix` / `end_of_word_suffix` spell the pieces inside / at the end of a chunk;
  `ignore_merges`: a chunk that is itself a token is that token.
- `WordPieceVocab`: greedy longest-match-first over each chunk, `##` for pieces inside a word, the
  unknown token for a word with no match or longer than `max_input_chars_per_word`. The rule is
  tokenizers/classic/wordpiece.py's `longest_match` (the trained WordPiece's too); what differs is
  only the data around it: here a vocabulary of strings (token -> id) spelled with the file's
  `continuing_subword_prefix`, a configurable word limit, lengths in UTF-8 bytes, and an error when
  a word cannot be spelled and the file names no unknown token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import AbstractSet

from tokenizers.core.tokenizer import Capabilities, Tokenizer, UnknownTokenIdError
from tokenizers.bpe.rule import bpe_merge
from tokenizers.classic.wordpiece import longest_match
from tokenizers.core.text import clean_text

_BYTE_PIECE = "<0x{:02X}>"


@dataclass
class CharBPE:
    vocab: dict[str, int]                      # piece -> id
    merges: dict[tuple[int, int], tuple[int, int]]  # (a, b) -> (rank, new id)
    unk_token: str | None = None
    byte_fallback: bool = False
    continuing_subword_prefix: str = ""
    end_of_word_suffix: str = ""
    ignore_merges: bool = False
    fuse_unk: bool = False
    byte_level: bool = False                   # the chunk's bytes are the starting symbols
    byte_chars: dict[int, str] | None = None   # byte -> its character in the file (byte-level files)
    kind = "bpe"

    def encode(self, chunk: str) -> tuple[list[int], list[int]]:
        """(ids, how many of the chunk's UTF-8 bytes each covers)."""
        if self.ignore_merges:
            key = "".join(self.byte_chars[b] for b in chunk.encode()) if self.byte_level else chunk
            whole = self.vocab.get(key)
            if whole is not None:
                return [whole], [len(chunk.encode("utf-8"))]
        # the starting symbols: (spelling, how many of the chunk's bytes it stands for)
        if self.byte_level:
            symbols = [(self.byte_chars[b], 1) for b in chunk.encode("utf-8")]
        else:
            symbols = [(ch, len(ch.encode("utf-8"))) for ch in chunk]
        n = len(symbols)
        unk = self.vocab.get(self.unk_token) if self.unk_token is not None else None
        parts: list[tuple[int, int]] = []  # (id, bytes covered)
        dropped = 0  # bytes of symbols with no token and no unknown token (Hugging Face skips them)
        for k, (ch, size) in enumerate(symbols):
            s = ch
            if k > 0 and self.continuing_subword_prefix:
                s = self.continuing_subword_prefix + s
            if k == n - 1 and self.end_of_word_suffix:
                s = s + self.end_of_word_suffix
            i = self.vocab.get(s)
            if i is not None:
                parts.append((i, size + dropped))
                dropped = 0
                continue
            if self.byte_fallback and not self.byte_level:
                pieces = [self.vocab.get(_BYTE_PIECE.format(b)) for b in ch.encode("utf-8")]
                if all(p is not None for p in pieces):
                    parts.extend((p, 1 + (dropped if j == 0 else 0)) for j, p in enumerate(pieces))
                    dropped = 0
                    continue
            if unk is None:
                if parts:
                    parts[-1] = (parts[-1][0], parts[-1][1] + size)
                else:
                    dropped += size
            elif self.fuse_unk and parts and parts[-1][0] == unk:
                parts[-1] = (unk, parts[-1][1] + size)
            else:
                parts.append((unk, size + dropped))
                dropped = 0
        merges = self.merges

        def rank(a, b):
            m = merges.get((a[0], b[0]))
            return None if m is None else m[0]

        def join(a, b):
            return (merges[(a[0], b[0])][1], a[1] + b[1])

        out = bpe_merge(parts, rank, join)
        return [p[0] for p in out], [p[1] for p in out]


@dataclass
class WordPieceVocab:
    vocab: dict[str, int]
    unk_token: str = "[UNK]"
    continuing_subword_prefix: str = "##"
    max_input_chars_per_word: int = 100
    kind = "wordpiece"
    _longest: int = field(default=0, repr=False)

    def encode(self, word: str) -> tuple[list[int], list[int]]:
        unk = self.vocab.get(self.unk_token)
        if not self._longest:
            self._longest = max((len(t) for t in self.vocab), default=1)
        vocab, prefix = self.vocab, self.continuing_subword_prefix
        got = longest_match(word, lambda s, continues: vocab.get(prefix + s if continues else s), self._longest,
                            self.max_input_chars_per_word)
        if got is None:
            if unk is None and len(word) <= self.max_input_chars_per_word:
                raise ValueError(f"the word {word[:40]!r} cannot be spelled with the vocabulary, which has "
                                 "no unknown token")
            return [unk], [len(word.encode("utf-8"))]
        ids, lengths, start = [], [], 0
        for i, n in got:
            ids.append(i)
            lengths.append(len(word[start:start + n].encode("utf-8")))
            start += n
        return ids, lengths


class PipelineTokenizer(Tokenizer):
    """Normalizer -> pre-tokenizer -> model, with added/special tokens first (Hugging Face's order)."""

    def __init__(self, *, name: str, title: str = "", model, normalizer=None, pre_tokenizer=None,
                 added_tokens: Sequence = (), decode_replacement: str | None = None, about: str = ""):
        self.name = name
        self.title = title or name
        self.model = model
        self.kind = model.kind if not getattr(model, "byte_level", False) else "bpe"
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.added_tokens = tuple(added_tokens)
        self.special_tokens = {t.content: t.id for t in self.added_tokens if t.special}
        self.decode_replacement = decode_replacement  # Metaspace's ▁, shown as a space in token bytes
        self.about = about
        self._pieces: dict[int, str] = {i: s for s, i in model.vocab.items()}
        for t in self.added_tokens:
            self._pieces[t.id] = t.content
        self._added_ids = {t.id for t in self.added_tokens}
        self._size = max(self._pieces) + 1 if self._pieces else 0
        self._unk = model.vocab.get(model.unk_token) if getattr(model, "unk_token", None) else None
        self._byte_of: dict[int, int] = {}
        if isinstance(model, CharBPE) and model.byte_fallback:
            for b in range(256):
                i = model.vocab.get(_BYTE_PIECE.format(b))
                if i is not None:
                    self._byte_of[i] = b
        self._unbyte = None
        if isinstance(model, CharBPE) and model.byte_level:
            self._unbyte = {c: b for b, c in model.byte_chars.items()}
        self._matchers: dict = {}
        self._cache: dict[str, tuple[list[int], list[int]]] = {}
        byte_level = getattr(model, "byte_level", False)
        self.capabilities = Capabilities(model_type=model.kind, byte_fallback=bool(self._byte_of),
                                         unknown_token=self._unk is not None and not self._byte_of and not byte_level,
                                         code_points=not byte_level)

    # -- the vocabulary ----------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return self._size

    @property
    def unk_id(self):
        return self._unk

    def piece_of(self, token_id: int) -> str:
        return self._pieces.get(token_id, "")

    def is_byte_fallback(self, token_id: int) -> bool:
        return token_id in self._byte_of

    def token_bytes(self, token_id: int) -> bytes:
        """What the token stands for: byte-fallback pieces their byte, byte-level pieces their
        bytes, others their text without the model's markers (`##`, the end-of-word suffix), with
        Metaspace's ▁ as the space it replaced; added tokens their content."""
        s = self._pieces.get(token_id)
        if s is None:
            self.check_ids([token_id])
            raise UnknownTokenIdError(self.name, [token_id], self.vocab_size, unused=True)
        if token_id in self._added_ids:
            return s.encode("utf-8")
        if token_id in self._byte_of:
            return bytes([self._byte_of[token_id]])
        if self._unbyte is not None:
            try:
                return bytes(self._unbyte[c] for c in s)
            except KeyError:
                return s.encode("utf-8")
        m = self.model
        prefix = getattr(m, "continuing_subword_prefix", "")
        if prefix and s.startswith(prefix) and len(s) > len(prefix):
            s = s[len(prefix):]
        suffix = getattr(m, "end_of_word_suffix", "")
        if suffix and s.endswith(suffix) and len(s) > len(suffix):
            s = s[:-len(suffix)]
        if self.decode_replacement:
            s = s.replace(self.decode_replacement, " ")
        return s.encode("utf-8")

    # -- encoding ----------------------------------------------------------------------------------
    def _chunk(self, text: str) -> tuple[list[int], list[int]]:
        got = self._cache.get(text)
        if got is None:
            got = self.model.encode(text)
            if len(self._cache) < 200_000 and len(text) < 256:
                self._cache[text] = got
        return got

    def _run(self, text: str, specials: AbstractSet[str], spans: bool):
        """Yields ("token", id, end_char) and ("piece", Piece, ids, lengths)."""
        from tokenizers.pipeline.added_tokens import allowed_matcher
        from tokenizers.pipeline.normalizers import identity_offs
        from tokenizers.pipeline.pre_tokenizers import Piece

        raw = allowed_matcher(self._matchers, self.added_tokens, specials, False)
        norm = allowed_matcher(self._matchers, self.added_tokens, specials, True)
        pos = 0
        found = raw.find(text) if raw else []
        stretches = []
        for a, b, t in found:
            if a > pos:
                stretches.append((pos, a))
            stretches.append((a, b, t))
            pos = b
        if pos < len(text):
            stretches.append((pos, len(text)))
        for s in stretches:
            if len(s) == 3:
                yield "token", s[2].id, s[1]
                continue
            a, b = s
            part = text[a:b]
            offs = identity_offs(part, a) if spans else None
            if self.normalizer is not None:
                if spans:
                    part, offs = self.normalizer.normalize_aligned(part, offs)
                else:
                    part = self.normalizer.normalize(part)
            cut = 0
            subs = []
            for x, y, t in (norm.find(part) if norm else ()):
                subs.append(Piece(part[cut:x], offs[cut:x] if spans else None, a == 0 and cut == 0))
                subs.append((t, offs[y - 1][1] if spans else 0))
                cut = y
            subs.append(Piece(part[cut:], offs[cut:] if spans else None, a == 0 and cut == 0))
            for p in subs:
                if isinstance(p, tuple):
                    yield "token", p[0].id, p[1]
                    continue
                pieces = self.pre_tokenizer.pre_tokenize([p]) if self.pre_tokenizer is not None else \
                    ([p] if p.text else [])
                for q in pieces:
                    ids, lengths = self._chunk(q.text)
                    yield "piece", q, ids, lengths

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        out: list[int] = []
        for item in self._run(text, specials, False):
            if item[0] == "token":
                out.append(item[1])
            else:
                out.extend(item[2])
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        return self._encode(clean_text(text)[0], frozenset())

    def span_lengths(self, text: str, ids):
        return None  # always through the alignment (the model's text is seldom the input)

    def aligned_spans(self, text: str, ids, n_bytes: int):
        from tokenizers.core.spans import SpanBuilder

        used = set(ids)
        specials = {s for s, i in self.special_tokens.items() if i in used}
        out = SpanBuilder(text)
        for item in self._run(text, specials, True):
            if item[0] == "token":
                out.add_matched(item[1], item[2])
            else:
                out.add_piece(item[1], item[2], item[3])
        return out.result()

    def decode(self, ids, errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=errors)
