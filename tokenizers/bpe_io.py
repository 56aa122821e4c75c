"""Saving and loading BPETokenizer models: minbpe's `.model` format (the de facto teaching format,
see minbpe_format.py) and its `.vocab` companion. Export to tiktoken: a `.tiktoken` file
(base64(token bytes) rank, one per line) with the pattern and specials, so that
`tiktoken.Encoding` can load a model trained here.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from .bpe import BPETokenizer
from .minbpe_format import MAGIC, ModelFormatError, model_text, render_bytes, vocab_text

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


def tiktoken_ranks(tok: BPETokenizer) -> dict[bytes, int]:
    """bytes -> rank, as tiktoken wants. Needs byte-order base ids and distinct token bytes."""
    if tok.byte_ids != list(range(256)):  # OpenAI's numbering: the ids are the ranks already
        return {b: i for i, b in tok.vocab.items()}
    ranks: dict[bytes, int] = {}
    for i, b in sorted(tok.vocab.items()):
        if b in ranks:
            raise ValueError(f"Tokens {ranks[b]} and {i} have the same bytes {b!r}; the tiktoken format "
                             f"needs distinct bytes per token.")
        ranks[b] = i
    return ranks


def tiktoken_text(tok: BPETokenizer) -> str:
    return "".join(f"{base64.b64encode(b).decode()} {r}\n"
                   for b, r in sorted(tiktoken_ranks(tok).items(), key=lambda kv: kv[1]))


def tiktoken_meta(tok: BPETokenizer) -> str:
    """The JSON that goes with a .tiktoken file: what tiktoken.Encoding needs besides the ranks."""
    return json.dumps({"name": tok.name, "pattern": tok.pattern or "", "special_tokens": tok.special_tokens},
                      indent=2, ensure_ascii=False)


def export_tiktoken(tok: BPETokenizer, prefix: str | Path) -> tuple[Path, Path]:
    """Write prefix.tiktoken and prefix.json ({"pattern", "special_tokens"})."""
    prefix = Path(prefix)
    ranks, meta = prefix.with_suffix(".tiktoken"), prefix.with_suffix(".json")
    ranks.write_text(tiktoken_text(tok), encoding="ascii")
    meta.write_text(tiktoken_meta(tok), encoding="utf-8")
    return ranks, meta


def to_tiktoken_encoding(tok: BPETokenizer):
    """A tiktoken.Encoding with this tokenizer's vocabulary (tiktoken needs a pattern; for
    'no split' the whole text is one chunk, which the pattern (?s:.+) expresses)."""
    import tiktoken

    return tiktoken.Encoding(name=tok.name, pat_str=tok.pattern or r"(?s:.+)",
                             mergeable_ranks=tiktoken_ranks(tok), special_tokens=dict(tok.special_tokens))
