"""The file formats of a byte-level BPE model, and saving and loading a BPETokenizer in them.
The formats are read and written here without the tokenizer class, which imports this module;
`save`, `load` and `loads` import the class when called (BPETokenizer.save/load/loads are the same).

minbpe's `.model` format:

    minbpe v1
    <split pattern, or an empty line for none>
    <number of special tokens>
    <special> <id>          one line per special token
    <left id> <right id>    one line per merge, in rank order; the i-th merge makes id 256 + i

plus a `.vocab` file for people only (each token rendered, with its parents), never read back.

tiktoken's format: a `.tiktoken` file (base64(token bytes) rank, one per line) with a `.json` file
for the pattern and special tokens, so that `tiktoken.Encoding` can load a model trained here.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

from tokenizers.bpe.merges import Merges
from tokenizers.core.text import printable_bytes
from tokenizers.core.tokenizer import ModelFormatError

MAGIC = "minbpe v1"
MAX_MERGES = 1_000_000       # merges a .model file may hold (GPT-4's vocabulary has 100,000)
MAX_SPECIALS = 10_000
MAX_ID_GAP = 1_000_000       # how far past the last merge a special token's id may be
# the bytes of all tokens together: each merge spells its token out, so a chain of merges ("256 97",
# "257 97", …) makes tokens as long as the chain and memory quadratic in the file (100,000 such lines,
# a 1 MB file, would spell 5 GB). Real vocabularies hold far less: o200k_base's 200,000 tokens 1.4 MB
MAX_VOCAB_BYTES = 40_000_000  # the Lab's worst case, a chain of 8,192 merges, spells 33.6 MB


def save(tok, prefix: str | Path) -> tuple[Path, Path]:
    """Write prefix.model and prefix.vocab (BPETokenizer.save)."""
    return tok.save(prefix)


def loads(text: str, *, name: str = "custom_bpe"):
    """Parse a minbpe .model file's text into a BPETokenizer; a malformed file raises ModelFormatError
    naming the line."""
    from tokenizers.bpe.model import BPETokenizer

    return BPETokenizer.loads(text, name=name)


def load(model_file: str | Path, *, name: str = "custom_bpe"):
    """Read a .model file (or a .tiktoken one with its .json) into a BPETokenizer (BPETokenizer.load)."""
    from tokenizers.bpe.model import BPETokenizer

    return BPETokenizer.load(model_file, name=name)


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


def parse_model(text: str, limits=None) -> ModelData:
    """Parse a minbpe .model file's text; a malformed file raises ModelFormatError naming the line.
    `limits` (tokenizers.pipeline.components.Limits; its LIMITS by default) bounds one token: each
    merge's length is the sum of its parts', checked before the two are joined, because a few lines
    that double a token ("256 256", "257 257", ...) spell 2**k bytes from a file of a few hundred."""
    if limits is None:
        from tokenizers.pipeline.components import LIMITS as limits
    lines = text.split("\n")
    if not lines or lines[0].strip() != MAGIC:
        raise ModelFormatError(f"Not a minbpe model: the first line should be {MAGIC!r}.")
    if len(lines) < 3:
        raise ModelFormatError("The model file ends before its special-token count.")
    try:
        n_special = int(lines[2])
    except ValueError:
        raise ModelFormatError(f"Line 3 should be the number of special tokens, not {lines[2][:60]!r}.") from None
    if not 0 <= n_special <= MAX_SPECIALS:
        raise ModelFormatError(f"Line 3 says {n_special:,} special tokens; a model here may have 0 to {MAX_SPECIALS:,}.")
    if len(lines) - 3 - n_special > MAX_MERGES + 1:
        raise ModelFormatError(f"The file holds about {len(lines) - 3 - n_special:,} merges; a model here may have at "
                               f"most {MAX_MERGES:,}.")
    specials = {}
    for k in range(n_special):
        line = lines[3 + k] if 3 + k < len(lines) else ""
        s, _, i = line.rpartition(" ")
        if not s or not i.isdigit() or len(i) > 12:
            raise ModelFormatError(f"Line {4 + k} should be '<special> <id>', not {line[:60]!r}.")
        if len(s.encode("utf-8")) > limits.max_token_bytes:
            raise ModelFormatError(f"Line {4 + k}: " + limits.long_token("the special token",
                                                                          len(s.encode("utf-8"))) + ".")
        specials[s] = int(i)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = Merges()
    idx = 256
    total = 256
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
        size = len(vocab[a]) + len(vocab[b])
        if size > limits.max_token_bytes:
            raise ModelFormatError(f"Line {lineno}: " + limits.long_token(f"token {idx:,}, the merge of {a:,} and {b:,},",
                                                                         size) + ".")
        total += size
        if total > MAX_VOCAB_BYTES:
            raise ModelFormatError(f"Line {lineno}: the merges so far spell {total:,} bytes of tokens, more than a model "
                                   f"here may hold ({MAX_VOCAB_BYTES:,}; o200k_base's 200,000 tokens take 1.4 MB). "
                                   "Its tokens grow with every line (a chain of merges).")
        merges[(a, b)] = idx
        vocab[idx] = vocab[a] + vocab[b]
        idx += 1
    for s, i in specials.items():
        if i in vocab:
            raise ModelFormatError(f"The special token {s[:40]!r} has id {i}, which a merge already made; "
                                   f"special tokens need ids from {idx} on.")
        if i > idx + MAX_ID_GAP:
            raise ModelFormatError(f"The special token {s[:40]!r} has id {i:,}, far beyond the {idx:,} ids of the "
                                   f"vocabulary (at most {MAX_ID_GAP:,} past it).")
    if len(set(specials.values())) != len(specials):
        raise ModelFormatError("Two special tokens share one id.")
    return ModelData(lines[1] or None, specials, merges, vocab)


def tiktoken_ranks(tok) -> dict[bytes, int]:
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


def tiktoken_text(tok) -> str:
    # an empty token (Whisper has one) is written "=" as in Whisper's own file: tiktoken reads it back
    return "".join(f"{base64.b64encode(b).decode() or '='} {r}\n"
                   for b, r in sorted(tiktoken_ranks(tok).items(), key=lambda kv: kv[1]))


def tiktoken_meta(tok, stages: dict | None = None) -> str:
    """The JSON that goes with a .tiktoken file: what tiktoken.Encoding needs besides the ranks, the
    model's `whole_chunk_shortcut` when it is off, and the `stages` of a pipeline around the model
    (tokenizers/hf/models.py), in tokenizer.json's spelling."""
    meta = {"name": tok.name, "pattern": tok.pattern or "", "special_tokens": tok.special_tokens}
    if not tok.whole_chunk_shortcut:
        meta["whole_chunk_shortcut"] = False
    meta.update(stages or {})
    return json.dumps(meta, indent=2, ensure_ascii=False)


def export_tiktoken(tok, prefix: str | Path, stages: dict | None = None) -> tuple[Path, Path]:
    """Write prefix.tiktoken and prefix.json ({"pattern", "special_tokens", ...})."""
    prefix = Path(prefix)
    ranks, meta = prefix.with_suffix(".tiktoken"), prefix.with_suffix(".json")
    ranks.write_text(tiktoken_text(tok), encoding="ascii")
    meta.write_text(tiktoken_meta(tok, stages), encoding="utf-8")
    return ranks, meta


def to_tiktoken_encoding(tok):
    """A tiktoken.Encoding with this tokenizer's vocabulary (tiktoken needs a pattern; for
    'no split' the whole text is one chunk, which the pattern (?s:.+) expresses)."""
    import tiktoken

    return tiktoken.Encoding(name=tok.name, pat_str=tok.pattern or r"(?s:.+)",
                             mergeable_ranks=tiktoken_ranks(tok), special_tokens=dict(tok.special_tokens))
