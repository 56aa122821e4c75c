"""Hugging Face's pipeline, and the models only tokenizer.json files use.

`PipelineTokenizer` runs Hugging Face's steps in order: added/special tokens, normalizer,
pre-tokenizer, model; spans map back to the input through tokenizers/core/spans.py. It is the one
place these stages run, around any model: `BPETokenizer`, the one byte-level model with the C core
(a tokenizer.json whose byte-level merges make ids in id order, as DeepSeek V3's and Claude's legacy
file do; Qwen's vocabulary with its NFC normalizer), or one of the models below, for a file whose
model is not that: a BPE over characters (SentencePiece-style, Metaspace ▁ and byte fallback: Llama
2, Mistral v1), a BPE whose merge ranks are not in id order, and WordPiece (BERT). The models:

- `CharBPE`: the BPE rule (bpe.rule.bpe_merge: the pair with the lowest merge rank first, leftmost
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
from itertools import groupby
from typing import AbstractSet

from tokenizers.core.tokenizer import Capabilities, Tokenizer, UnknownTokenIdError
from tokenizers.bpe.rule import bpe_merge
from tokenizers.classic.wordpiece import longest_match
from tokenizers.core.patterns import pattern_budget
from tokenizers.core.text import clean_text
from tokenizers.pipeline.normalizers import growth_limit

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


def _line_local_split(pre) -> bool:
    """A pre-tokenizer that a line cut splits (tokenizers/core/edits.py)."""
    from tokenizers.core.edits import line_local_pattern
    from tokenizers.pipeline import pre_tokenizers as pt

    if isinstance(pre, pt.Sequence):
        return all(_line_local_split(s) for s in pre.steps)
    if isinstance(pre, pt.Split):
        return pre.behaviour == "Isolated" and not pre.invert and line_local_pattern(pre.pattern)
    if isinstance(pre, pt.ByteLevel):
        return not pre.add_prefix_space  # its regex, when it uses one, is GPT-2's
    return isinstance(pre, pt.Digits)


class PipelineTokenizer(Tokenizer):
    """Normalizer -> pre-tokenizer -> model, with added/special tokens first (Hugging Face's order).

    The model is a `CharBPE` or `WordPieceVocab` (a vocabulary of strings, encoded chunk by chunk),
    or a byte-level model that is itself a `Tokenizer` (`BPETokenizer`, which keeps its vocabulary,
    merges, special tokens and C core; with no pre-tokenizer here, its own split pattern cuts each
    stretch of text). What such a model can show (merge trees and steps, its split, its files) the
    pipeline answers by asking it, after its own stages where they apply."""

    def __init__(self, *, name: str, title: str = "", model, normalizer=None, pre_tokenizer=None,
                 added_tokens: Sequence = (), decode_replacement: str | None = None, about: str = ""):
        self.name = name
        self.title = title or name
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.added_tokens = tuple(added_tokens)
        self.decode_replacement = decode_replacement  # Metaspace's ▁, shown as a space in token bytes
        self.about = about
        self._reset_caches()

    def _reset_caches(self) -> None:
        model = self.model
        self.special_tokens = {t.content: t.id for t in self.added_tokens if t.special}
        self._added_ids = {t.id for t in self.added_tokens}
        self._bytes_model = isinstance(model, Tokenizer)
        self._matchers: dict = {}
        self._cache: dict[str, tuple[list[int], list[int]]] = {}
        self._unk, self._byte_of, self._unbyte = None, {}, None
        if self._bytes_model:
            self.kind = model.kind
            self._pieces = {}
            for t in self.added_tokens:  # an id spelled two ways decodes to the first, as in the model
                self._pieces.setdefault(t.id, t.content)
            self._size = max([model.vocab_size, *(i + 1 for i in self._pieces)])
            self._capabilities = None
            from tokenizers.core.patterns import compile_pattern
            from tokenizers.pipeline.pre_tokenizers import RegexSplit

            self._model_split = RegexSplit(compile_pattern(model.pattern))  # the model's own split, made once
            self._cut = None  # the C pre-tokenizer's mode for the pre-tokenizer's cut (DeepSeek V3's splits)
            if self.pre_tokenizer is not None:
                from tokenizers.bpe.native import api
                from tokenizers.pipeline.pre_tokenizers import split_patterns

                patterns = split_patterns(self.pre_tokenizer)
                self._cut = api.mode_of(patterns) if patterns else None
            return
        self.kind = model.kind if not getattr(model, "byte_level", False) else "bpe"
        self._pieces = {i: s for s, i in model.vocab.items()}
        for t in self.added_tokens:
            self._pieces[t.id] = t.content
        self._size = max(self._pieces) + 1 if self._pieces else 0
        self._unk = model.vocab.get(model.unk_token) if getattr(model, "unk_token", None) else None
        if isinstance(model, CharBPE) and model.byte_fallback:
            for b in range(256):
                i = model.vocab.get(_BYTE_PIECE.format(b))
                if i is not None:
                    self._byte_of[i] = b
        if isinstance(model, CharBPE) and model.byte_level:
            self._unbyte = {c: b for b, c in model.byte_chars.items()}
        byte_level = getattr(model, "byte_level", False)
        self._capabilities = Capabilities(model_type=model.kind, byte_fallback=bool(self._byte_of),
                                          unknown_token=self._unk is not None and not self._byte_of and not byte_level,
                                          code_points=not byte_level)

    @property
    def capabilities(self) -> Capabilities:
        """The model's own, for a byte-level model (merge trees and steps); else from the file."""
        return self.model.capabilities if self._bytes_model else self._capabilities

    _STATE = ("name", "title", "model", "normalizer", "pre_tokenizer", "added_tokens", "decode_replacement", "about")

    def __getstate__(self) -> dict:
        """Pickle and deepcopy the stages and the model; caches are rebuilt on loading."""
        return {k: self.__dict__[k] for k in self._STATE}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._reset_caches()

    # -- the vocabulary ----------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return self._size

    @property
    def unk_id(self):
        return self._unk

    def piece_of(self, token_id: int) -> str:
        return "" if self._bytes_model else self._pieces.get(token_id, "")

    def is_byte_fallback(self, token_id: int) -> bool:
        return token_id in self._byte_of

    def token_bytes(self, token_id: int) -> bytes:
        """What the token stands for: byte-fallback pieces their byte, byte-level pieces their
        bytes, others their text without the model's markers (`##`, the end-of-word suffix), with
        Metaspace's ▁ as the space it replaced; added tokens their content."""
        if self._bytes_model and token_id not in self._added_ids:
            try:
                return self.model.token_bytes(token_id)
            except UnknownTokenIdError:
                self.check_ids([token_id])
                raise UnknownTokenIdError(self.name, [token_id], self.vocab_size, unused=True) from None
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

    def decode_bytes(self, ids) -> bytes:
        if not self._bytes_model:
            return super().decode_bytes(ids)
        ids = ids if isinstance(ids, list) else list(ids)
        self.check_ids(ids)
        added = self._pieces
        try:
            if added.keys().isdisjoint(ids):
                return self.model.decode_bytes(ids)
            return b"".join(b"".join(added[i].encode("utf-8") for i in group) if is_added
                            else self.model.decode_bytes(list(group)) for is_added, group in groupby(ids, added.__contains__))
        except UnknownTokenIdError:
            bad = [i for i in ids if i not in added and not self.model.is_special(i) and i not in self.model.vocab]
            raise UnknownTokenIdError(self.name, bad, self.vocab_size, unused=True) from None

    def iter_vocab(self):
        if not self._bytes_model:
            return super().iter_vocab()
        table = {**{i: s.encode("utf-8") for i, s in self._pieces.items()}, **dict(self.model.iter_vocab())}
        return iter(sorted(table.items()))

    # -- what a byte-level model shows, asked of it ------------------------------------------------
    def merge_parents(self, token_id: int):
        if not self._bytes_model:
            return super().merge_parents(token_id)
        if token_id in self._added_ids:
            return None
        self.token_bytes(token_id)  # raises for an unknown id
        return self.model.merge_parents(token_id)

    def merge_rank(self, token_id: int):
        if not self._bytes_model or token_id in self._added_ids:
            return super().merge_rank(token_id)
        return self.model.merge_rank(token_id)

    # the model's own data that capabilities.merge_steps promises (with `split` below)
    @property
    def vocab(self) -> dict[int, bytes]:
        return self._bpe().vocab

    @property
    def byte_ids(self) -> list[int]:
        return self._bpe().byte_ids

    def encode_steps(self, chunk: str):
        """The model's merges on one chunk (`split` gives the chunks), step by step."""
        return self._bpe().encode_steps(chunk)

    def _bpe(self):
        if not self._bytes_model:
            raise AttributeError(f"{self.name}: its model is not the byte-level BPE (capabilities.merge_steps)")
        return self.model

    @property
    def twin(self) -> "PipelineTokenizer":
        """The same stages around the model's twin (a tiktoken vocabulary's own encoder)."""
        twin = self.__dict__.get("_twin")
        if twin is None:
            model_twin = getattr(self.model, "twin", None)
            if model_twin is None:
                raise AttributeError("twin")
            twin = self._twin = PipelineTokenizer(name=model_twin.name, title=self.title, model=model_twin,
                                                  normalizer=self.normalizer, pre_tokenizer=self.pre_tokenizer,
                                                  added_tokens=self.added_tokens)
        return twin

    @property
    def engine(self) -> str:
        """Which code encodes a byte-level model's text: the model's answer, or, when the pre-tokenizer
        cuts here, "Python split, C merges" (or "Python")."""
        if self.pre_tokenizer is None:
            return self.model.engine
        if self.model.engine == "Python":
            return "Python"
        return "C" if self._cut else "Python split, C merges"

    # the Unicode forms a browser applies as String.normalize does (ui/web/live_spans.js normalizedAlready)
    NATIVE_NORMALIZERS = ("NFC", "NFKC", "NFD", "NFKD")

    def native_stages(self) -> dict:
        """What the C core needs to run this pipeline exactly, outside this process (the browser's blob,
        tokenizers/bpe/native/blob.py): {"model": the byte-level BPETokenizer, "mode": the C pre-tokenizer's
        mode for the pre-tokenizer (or the model's own pattern), "normalizer": a Unicode form or "", "added":
        [[content, id, normalized], ...] of the non-special added tokens}. ValueError naming the stage it
        cannot follow: another model, normalizer or pre-tokenizer, or an added token that strips or matches
        whole words only."""
        from tokenizers.bpe.model import BPETokenizer
        from tokenizers.bpe.native import api
        from tokenizers.pipeline.normalizers import UnicodeForm
        from tokenizers.pipeline.pre_tokenizers import split_patterns

        if not isinstance(self.model, BPETokenizer):
            raise ValueError(f"{self.name}: its model is not the byte-level BPE, so the browser cannot encode it")
        norm = self.normalizer
        if norm is not None and not (isinstance(norm, UnicodeForm) and norm.form in self.NATIVE_NORMALIZERS):
            raise ValueError(f"{self.name}: its normalizer ({norm.kind}) is not one the browser applies exactly")
        if self.pre_tokenizer is None:
            mode = api.mode_of(self.model.pattern)
        else:
            patterns = split_patterns(self.pre_tokenizer)
            mode = None if patterns is None else api.mode_of(patterns) if patterns else 0
        if mode is None:
            raise ValueError(f"{self.name}: the C pre-tokenizer has no mode for its pre-tokenizer, so the browser "
                             "cannot cut its text as the library does")
        if any(t.lstrip or t.rstrip or t.single_word for t in self.added_tokens):
            raise ValueError(f"{self.name}: an added token strips or matches whole words only, which the browser "
                             "does not follow")
        return {"model": self.model, "mode": mode, "normalizer": norm.form if norm is not None else "",
                "added": [[t.content, t.id, int(t.normalized)] for t in self.added_tokens if not t.special]}

    def normalize(self, text: str) -> str:
        """The text the model sees: `text` after the normalizer (unchanged when there is none)."""
        if self.normalizer is None:
            return text
        with pattern_budget():
            return self.normalizer.normalize(text)

    def split(self, text: str) -> list[str]:
        """The chunks the model merges (a byte-level model's): the text after the normalizer, cut by
        the pre-tokenizer, or by the model's own pattern when there is none."""
        with pattern_budget():  # the normalizer's patterns and the splits share one budget
            text = self.normalize(clean_text(text)[0])
            return self.pre_tokenizer.split(text) if self.pre_tokenizer is not None else self.model.split(text)

    # -- encoding ----------------------------------------------------------------------------------
    def _pattern_budget(self):
        """The stages may come from an upload: one time budget per text for their patterns (patterns.py)."""
        return pattern_budget()

    def _chunk(self, text: str) -> tuple[list[int], list[int]]:
        if self._bytes_model:
            ids = self.model.encode_chunk(text)
            return ids, [self.model.token_length(i) for i in ids]
        got = self._cache.get(text)
        if got is None:
            got = self.model.encode(text)
            if len(self._cache) < 200_000 and len(text) < 256:
                self._cache[text] = got
        return got

    def _run(self, text: str, specials: AbstractSet[str], spans: bool):
        """Yields ("token", id, end_char) and ("text", Piece): stretches of normalized text, before
        pre-tokenization."""
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
        # the normalizer's growth is bounded over the whole text, not per stretch: a text cut into many
        # stretches by added tokens gets the same allowance as one stretch (growth_limit of its length)
        allowance = growth_limit(len(text))
        for s in stretches:
            if len(s) == 3:
                yield "token", s[2].id, s[1]
                continue
            a, b = s
            part = text[a:b]
            offs = identity_offs(part, a) if spans else None
            if self.normalizer is not None:
                if spans:
                    part, offs = self.normalizer.normalize_aligned(part, offs, allowance)
                else:
                    part = self.normalizer.normalize(part, allowance)
                allowance -= len(part)
            cut = 0
            for x, y, t in (norm.find(part) if norm else ()):
                yield "text", Piece(part[cut:x], offs[cut:x] if spans else None, a == 0 and cut == 0)
                yield "token", t.id, offs[y - 1][1] if spans else 0
                cut = y
            yield "text", Piece(part[cut:], offs[cut:] if spans else None, a == 0 and cut == 0)

    def _pieces_of(self, p):
        """A stretch cut into the chunks the model encodes."""
        if self.pre_tokenizer is not None:
            return self.pre_tokenizer.pre_tokenize([p])
        if self._bytes_model:
            return self._model_split.pre_tokenize([p])
        return [p] if p.text else []

    @property
    def line_local(self) -> bool:
        """A byte-level model (line-local itself when its own pattern splits) with stages that are all
        line-local: Unicode normalization or none, splits by LINE_LOCAL_PATTERNS, ByteLevel without a prefix
        space, Digits; added tokens with no newline and no lstrip, rstrip or single_word
        (tokenizers/core/edits.py)."""
        from tokenizers.pipeline import normalizers as nz

        if not self._bytes_model or not (self.normalizer is None or isinstance(self.normalizer, nz.UnicodeForm)):
            return False
        if any("\n" in t.content or t.lstrip or t.rstrip or t.single_word for t in self.added_tokens):
            return False
        if self.pre_tokenizer is None:
            return self.model.line_local
        return _line_local_split(self.pre_tokenizer)

    def _line_local_text(self, text: str) -> bool:
        """Within the normalizer's growth bound by far: its decomposed form, which is at least as long as
        what the normalizer makes of any part of the text, is at most MAX_GROWTH times the text, so
        neither the whole text nor any stretch of it can hit the bound (which would fail one and not the
        other)."""
        if self.normalizer is None:
            return True
        import unicodedata

        from tokenizers.pipeline.normalizers import MAX_GROWTH

        form = "NFKD" if "K" in self.normalizer.form else "NFD"
        return len(unicodedata.normalize(form, text)) <= MAX_GROWTH * len(text)

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        with pattern_budget():  # every uploaded pattern this text meets shares one time budget
            return self._encode_in_budget(text, specials)

    def _encode_in_budget(self, text: str, specials: AbstractSet[str]) -> list[int]:
        out: list[int] = []
        bytes_model, pre = self._bytes_model, self.pre_tokenizer
        for item in self._run(text, specials, False):
            if item[0] == "token":
                out.append(item[1])
            elif bytes_model:  # the C core: the model's own split, or each chunk of the pre-tokenizer's
                p = item[1]
                if pre is None:
                    out.extend(self.model.encode_ordinary(p.text))
                elif self._cut and (got := self.model.encode_cut(p.text, self._cut)) is not None:
                    out.extend(got)  # the pre-tokenizer's cut made by the C core (api.mode_of: the same chunks)
                else:
                    out.extend(self.model.encode_chunks(pre.split(p.text, first=p.first)))
            else:
                for q in self._pieces_of(item[1]):
                    out.extend(self._chunk(q.text)[0])
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        return self._encode(clean_text(text)[0], frozenset())

    def span_lengths(self, text: str, ids):
        """A byte-level model's token lengths where the stages leave the text as typed; else None,
        and the spans go through the alignment (the model's text is seldom the input)."""
        if not self._bytes_model or (self.pre_tokenizer is not None and not self.pre_tokenizer.identity) \
                or any(t.lstrip or t.rstrip for t in self.added_tokens) or self.normalize(text) != text:
            return None
        return map(self.token_length, ids)

    def aligned_spans(self, text: str, ids, n_bytes: int):
        used = set(ids)
        specials = {s for s, i in self.special_tokens.items() if i in used}
        with pattern_budget():  # within tokenize, the same budget as the encoding's
            return self._aligned_spans(text, ids, specials)

    def _aligned_spans(self, text: str, ids, specials):
        from tokenizers.core.spans import SpanBuilder

        out = SpanBuilder(text)
        for item in self._run(text, specials, True):
            if item[0] == "token":
                out.add_matched(item[1], item[2])
                continue
            for q in self._pieces_of(item[1]):
                got, lengths = self._chunk(q.text)
                out.add_piece(q, got, lengths)
        got_ids, starts, ends = out.result()
        if self._bytes_model and got_ids != list(ids):
            raise AssertionError(f"{self.name}: the spans' tokens differ from the encoding")
        return got_ids, starts, ends

    def decode(self, ids, errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # -- files -------------------------------------------------------------------------------------
    def stages(self) -> dict:
        """The stages around the model, in tokenizer.json's spelling (saved beside a byte-level
        model's .tiktoken file)."""
        out: dict = {}
        if self.normalizer is not None:
            out["normalizer"] = self.normalizer.spec()
        if self.pre_tokenizer is not None:
            out["pre_tokenizer"] = self.pre_tokenizer.spec()
        if self.added_tokens:
            out["added_tokens"] = [{"id": t.id, "content": t.content, "special": t.special, "lstrip": t.lstrip,
                                    "rstrip": t.rstrip, "single_word": t.single_word, "normalized": t.normalized}
                                   for t in self.added_tokens]
        return out

    def save(self, prefix) -> tuple:
        """A byte-level model: its ranks in prefix.tiktoken, with prefix.json holding its pattern and
        special tokens and these stages; `load` reads them back."""
        if not self._bytes_model:
            return super().save(prefix)
        from tokenizers.bpe.files import export_tiktoken

        return export_tiktoken(self.model, prefix, self.stages())

    @classmethod
    def load(cls, model_file, *, name: str = "custom_bpe") -> "PipelineTokenizer":
        """What `save` wrote: the byte-level model and the stages around it."""
        import json
        from pathlib import Path

        from tokenizers.bpe.model import BPETokenizer
        from tokenizers.pipeline.components import LIMITS, read_added_tokens, read_normalizer, read_pre_tokenizer

        path = Path(model_file)
        meta_file = path.with_suffix(".json")
        meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.exists() else {}
        return cls(name=name, model=BPETokenizer.load(path, name=name),
                   normalizer=read_normalizer(meta["normalizer"]) if meta.get("normalizer") else None,
                   pre_tokenizer=read_pre_tokenizer(meta["pre_tokenizer"]) if meta.get("pre_tokenizer") else None,
                   added_tokens=read_added_tokens(meta.get("added_tokens") or [], LIMITS))

