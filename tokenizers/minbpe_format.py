"""minbpe's `.model` format, read and written without the tokenizer class (so that
BPETokenizer.save/load and bpe_io can both use it without importing each other):

    minbpe v1
    <split pattern, or an empty line for none>
    <number of special tokens>
    <special> <id>          one line per special token
    <left id> <right id>    one line per merge, in rank order; the i-th merge makes id 256 + i

plus a `.vocab` file for people only (each token rendered, with its parents), never read back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .merges import Merges
from .text import printable_bytes

MAGIC = "minbpe v1"


class ModelFormatError(ValueError):
    pass


def render_bytes(b: bytes) -> str:
    """A printable rendering of token bytes for the .vocab file (control characters escaped)."""
    return printable_bytes(b, marks=False)


def model_text(tok) -> str:
    if tok.byte_ids != list(range(256)):
        raise ValueError("The .model format needs the 256 single bytes as ids 0-255 (tokenizers trained here); "
                         "this vocabulary numbers them otherwise (OpenAI's do): export it to .tiktoken.")
    lines = [MAGIC, tok.pattern or "", str(len(tok.special_tokens))]
    lines += [f"{s} {i}" for s, i in tok.special_tokens.items()]
    lines += [f"{a} {b}" for (a, b), _ in tok.merges.ordered()]
    return "\n".join(lines) + "\n"


def vocab_text(tok) -> str:
    out = []
    for i, b in sorted(tok.vocab.items()):
        parents = tok.merge_parents(i)
        if parents:
            a, c = parents
            out.append(f"[{render_bytes(tok.vocab[a])}][{render_bytes(tok.vocab[c])}] -> [{render_bytes(b)}] {i}")
        else:
            out.append(f"[{render_bytes(b)}] {i}")
    return "\n".join(out) + "\n"


@dataclass
class ModelData:
    pattern: str | None
    special_tokens: dict[str, int]
    merges: Merges
    vocab: dict[int, bytes]


def parse_model(text: str) -> ModelData:
    """Parse a minbpe .model file's text; a malformed file raises ModelFormatError naming the line."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != MAGIC:
        raise ModelFormatError(f"Not a minbpe model: the first line should be {MAGIC!r}.")
    if len(lines) < 3:
        raise ModelFormatError("The model file ends before its special-token count.")
    try:
        n_special = int(lines[2])
    except ValueError:
        raise ModelFormatError(f"Line 3 should be the number of special tokens, not {lines[2][:60]!r}.") from None
    specials = {}
    for k in range(n_special):
        line = lines[3 + k] if 3 + k < len(lines) else ""
        s, _, i = line.rpartition(" ")
        if not s or not i.isdigit():
            raise ModelFormatError(f"Line {4 + k} should be '<special> <id>', not {line[:60]!r}.")
        specials[s] = int(i)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = Merges()
    idx = 256
    for lineno, line in enumerate(lines[3 + n_special:], start=4 + n_special):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ModelFormatError(f"Line {lineno} should be two token ids, not {line[:60]!r}.")
        a, b = int(parts[0]), int(parts[1])
        if a not in vocab or b not in vocab:
            raise ModelFormatError(f"Line {lineno} merges id {a if a not in vocab else b}, "
                                   f"which no earlier line defines.")
        merges[(a, b)] = idx
        vocab[idx] = vocab[a] + vocab[b]
        idx += 1
    return ModelData(lines[1] or None, specials, merges, vocab)
