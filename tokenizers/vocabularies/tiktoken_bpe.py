"""OpenAI's encodings, and other vendors' vocabularies published as tiktoken ranks (Llama 3, Qwen,
Whisper, Mistral's Tekken; tokenizers/vocabularies/vendors.py): the same BPE model as every other
(`BPETokenizer.from_ranks`), encoded by tiktoken's Rust core, the fast path the tests hold equal to
the model's own rule. A vendor that normalizes first (Qwen: NFC) has its model wrapped in a
`PipelineTokenizer` (tokenizers/hf/models.py) with that normalizer, applied before the model sees the
text."""

from __future__ import annotations

from typing import AbstractSet

from tokenizers.core.tokenizer import Tokenizer, UnknownTokenIdError
from tokenizers.bpe.model import BPETokenizer
from tokenizers.bpe.merges import RecoveredMerges
from tokenizers.vocabularies import records
from tokenizers.vocabularies.tiktoken_files import encoding_params, get_encoding


def from_tiktoken(encoding_name: str) -> Tokenizer:
    """One of the tiktoken-format vocabularies ("gpt2", "cl100k_base", "llama3", ...) as the plain
    model, encoded by this library's own rule (C core or Python), not by tiktoken; ids identical to
    tiktoken's. tiktoken_tokenizer(name).twin is the same model (with the vendor's normalizer, if any)."""
    p = encoding_params(encoding_name)
    return with_normalizer(BPETokenizer.from_ranks(p["mergeable_ranks"], pattern=p["pat_str"],
                                                   special_tokens=p["special_tokens"], name=f"bpe:{encoding_name}"),
                           p.get("normalizer"))


def tiktoken_tokenizer(encoding_name: str) -> Tokenizer:
    """The registry's tokenizer for a tiktoken-format vocabulary: TiktokenTokenizer, wrapped with the
    vendor's normalizer when it has one (Qwen: NFC)."""
    return with_normalizer(TiktokenTokenizer(encoding_name), encoding_params(encoding_name).get("normalizer"))


def with_normalizer(model: BPETokenizer, normalizer: str | None) -> Tokenizer:
    """`model`, or the pipeline that normalizes the text (a tokenizers.pipeline.normalizers name)
    before it; special tokens are matched in the text as typed, as before."""
    if not normalizer:
        return model
    from tokenizers.hf.models import PipelineTokenizer
    from tokenizers.pipeline.added_tokens import AddedToken
    from tokenizers.pipeline.normalizers import from_name

    return PipelineTokenizer(name=model.name, title=model.title, model=model, normalizer=from_name(normalizer),
                             added_tokens=[AddedToken(s, i) for s, i in model.special_tokens.items()])


class ReproducedIds(list):
    """Ids that tiktoken could not produce (its regex engine gave up on the input), made by this
    library's own reproduction of the same rules instead; `note` says so."""

    note = ""


_VOCABS: dict[int, dict[int, bytes]] = {}  # id(ranks) -> id -> bytes; the ranks live as long as the process


def _vocab_of(ranks: dict[bytes, int]) -> dict[int, bytes]:
    """The vocabulary (id -> bytes) of a ranks table, made once per table: encodings that share their
    ranks (o200k_base and o200k_harmony) share it too."""
    vocab = _VOCABS.get(id(ranks))
    if vocab is None:
        vocab = _VOCABS[id(ranks)] = {r: b for b, r in ranks.items()}
    return vocab


class TiktokenTokenizer(BPETokenizer):
    """One of OpenAI's vocabularies. The model (ranks, recovered merges, pattern, special tokens) is
    read through tiktoken's own constructors; encoding goes through tiktoken. Where tiktoken fails on
    an input (o200k_base's regex gives up on a million spaces), the model's own encoder answers, with
    the same ids, and `tokenize` says so in its result's `note`."""

    def __init__(self, encoding_name: str):
        p = encoding_params(encoding_name)
        vocab = _vocab_of(p["mergeable_ranks"])
        self.name = encoding_name
        record = records.find(encoding_name)
        self.title = record.title if record is not None else encoding_name
        self.pattern = p["pat_str"]
        self.vocab = vocab
        self.merges = RecoveredMerges(vocab, p["mergeable_ranks"])
        self.special_tokens = dict(p["special_tokens"])
        self.history = []
        self.whole_chunk_shortcut = True
        self.encoding = get_encoding(encoding_name)
        self._twin = None
        self._reset_caches()

    def __reduce__(self):
        # rebuilt from the provisioned files (read once per process), not pickled entry by entry
        return (type(self), (self.name,))

    @property
    def twin(self) -> BPETokenizer:
        """The same model with this library's own encoder instead of tiktoken's (for the tests
        that hold the two equal). Shares the vocabulary and merges."""
        if self._twin is None:
            self._twin = BPETokenizer.from_model(vocab=self.vocab, merges=self.merges, pattern=self.pattern,
                                                 special_tokens=self.special_tokens, name=f"bpe:{self.name}")
        return self._twin

    def _reproduce(self, text: str, specials: AbstractSet[str], error: Exception) -> list[int]:
        out = ReproducedIds(self.twin._encode(text, specials))
        out.note = (f"tiktoken could not encode this text ({type(error).__name__}: {str(error)[:120]}); "
                    "these ids come from Token Lens's own implementation of the same vocabulary and rules, "
                    "which the tests hold equal to tiktoken's.")
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        from tokenizers.core.text import clean_text

        text, _ = clean_text(text)
        try:
            return self.encoding.encode_ordinary(text)
        except ValueError as e:  # "Regex error while tokenizing: ... backtracking"
            return self._reproduce(text, frozenset(), e)

    def _encode(self, text: str, specials: AbstractSet[str]) -> list[int]:
        try:
            return self.encoding.encode(text, allowed_special=specials, disallowed_special=())
        except ValueError as e:
            return self._reproduce(text, specials, e)

    def decode_bytes(self, ids) -> bytes:
        try:
            return self.encoding.decode_bytes(ids)
        except (KeyError, OverflowError, TypeError, ValueError):
            ids = list(ids)
            self.check_ids(ids)
            bad = [i for i in ids if i not in self.vocab and not self.is_special(i)]
            raise UnknownTokenIdError(self.name, bad, self.vocab_size, unused=True) from None

    def check_ids(self, ids) -> None:
        super().check_ids(ids)
        bad = [i for i in ids if i not in self.vocab and not self.is_special(i)]
        if bad:  # cl100k_base has a hole at 100256
            raise UnknownTokenIdError(self.name, bad, self.vocab_size, unused=True)
