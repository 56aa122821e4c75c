"""Saving and loading BPETokenizer models: minbpe's `.model` format (the de facto teaching
format) and its `.vocab` companion, and export to tiktoken's `.tiktoken` + `.json`, so that
`tiktoken.Encoding` can load a model trained here. The formats themselves are in model_files.py.
"""

from __future__ import annotations

from pathlib import Path

from tokenizers.bpe.model import BPETokenizer
from tokenizers.bpe.files import (MAGIC, ModelFormatError, export_tiktoken, model_text, render_bytes, tiktoken_meta,
                          tiktoken_ranks, tiktoken_text, to_tiktoken_encoding, vocab_text)

__all__ = ["MAGIC", "ModelFormatError", "export_tiktoken", "load", "loads", "model_text", "render_bytes", "save",
           "tiktoken_meta", "tiktoken_ranks", "tiktoken_text", "to_tiktoken_encoding", "vocab_text"]


def save(tok: BPETokenizer, prefix: str | Path) -> tuple[Path, Path]:
    """Write prefix.model and prefix.vocab (BPETokenizer.save)."""
    return tok.save(prefix)


def loads(text: str, *, name: str = "custom_bpe") -> BPETokenizer:
    """Parse a minbpe .model file's text; a malformed file raises ModelFormatError naming the line."""
    return BPETokenizer.loads(text, name=name)


def load(model_file: str | Path, *, name: str = "custom_bpe") -> BPETokenizer:
    return BPETokenizer.load(model_file, name=name)
