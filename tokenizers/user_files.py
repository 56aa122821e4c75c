"""A person's own tokenizer file, read into a tokenizer with the common interface. No Streamlit.

    load_user_file(filename, data, pattern=..., specials=..., expect=...) -> Tokenizer   (or UserFileError)

Every page that takes a tokenizer file reads it here (Compare's panel, the BPE Lab's and the
SentencePiece Lab's uploaders), so the same file gets the same verdict and message everywhere; a page
that takes only some formats says which (`expect`), and a file of another kind is told so.

Formats, told apart by the name and then the content:
- `.tiktoken`: base64 token + rank per line (OpenAI's format). The file has no split pattern or
  special tokens: the caller passes them (a known pattern by name, or a regex; specials as JSON
  {"<|endoftext|>": 100257} or "token id" lines);
- SentencePiece `.model` (a protobuf; loaded in a child process first, so that a corrupt file cannot
  take the app down with it);
- minbpe `.model` (text starting "minbpe v1");
- Hugging Face `tokenizer.json` (tokenizers/hf/tokenizer_json.py), and Mistral's Tekken `.json`;
- BERT's `vocab.txt` (one WordPiece token per line, the line number is the id): BERT's normalizer
  (lowercase and accents stripped when the vocabulary has no capital letters, as uncased BERT),
  BERT's pre-tokenizer, WordPiece.

Everything is bounded by one `Limits`, LIMITS below (file size, tokens, merges, ids, the bytes of
one token, added or special tokens, pattern length; and the time a pattern that is not a vendor's may
run: tokenizers.core.patterns.UNTRUSTED_TIMEOUT) so that a hostile file cannot stall a page; whatever
is wrong is said in a UserFileError's message. Each format's reader checks the bounds before it
builds anything from what it checks: a count the file declares (Tekken's special tokens, a line
count) before the objects it counts, a token's length before its bytes (a minbpe merge's length is
the sum of its parts'; a base64 token's is read off its encoded length).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tokenizers.core.tokenizer import Tokenizer
from tokenizers.hf.tokenizer_json import Limits, TokenizerFileError, read_tokenizer_json
from tokenizers.core.patterns import PatternError, compile_pattern

# The one statement of what an uploaded tokenizer file may hold, whatever the page and the format.
# 20 MB is also Streamlit's own cap on an upload (.streamlit/config.toml, server.maxUploadSize).
LIMITS = Limits(max_bytes=20_000_000, max_vocab=1_000_000, max_merges=1_000_000, max_id=2_000_000,
                max_token_bytes=16_384, max_added=100_000, max_pattern_chars=10_000)

FORMATS = {
    "tiktoken": "tiktoken ranks (.tiktoken)",
    "sentencepiece": "SentencePiece model (.model)",
    "minbpe": "minbpe model (.model)",
    "tokenizer.json": "Hugging Face tokenizer.json",
    "tekken": "Mistral Tekken (.json)",
    "vocab.txt": "BERT WordPiece vocab.txt",
}


FIRST_PATTERN = "GPT-4 (cl100k_base)"  # offered first, so the upload form's default


def known_patterns() -> dict[str, str]:
    """Split patterns a .tiktoken file can be paired with, by name: each vocabulary record's that has an
    upload label (GPT-4's first), and no split."""
    from tokenizers.vocabularies import records

    out = {}
    for r in records.VOCABULARIES:
        if r.upload_pattern is None:
            continue
        pattern = r.pattern
        if pattern is None:
            try:
                from tokenizers.vocabularies.tiktoken_files import encoding_params

                pattern = encoding_params(r.name)["pat_str"]
            except Exception:  # not provisioned: the others are still offered
                continue
        out[r.upload_pattern] = pattern
    out = {label: out[label] for label in sorted(out, key=lambda label: label != FIRST_PATTERN)}
    out["no split (whole text is one chunk)"] = ""
    return out


class UserFileError(ValueError):
    """The file cannot be used; the message names what is wrong (and nothing else changed)."""


def detect_format(filename: str, data: bytes) -> str:
    name = filename.lower()
    head = data[:64].lstrip()
    if name.endswith(".tiktoken"):
        return "tiktoken"
    if name.endswith(".model"):
        return "minbpe" if head.startswith(b"minbpe v") else "sentencepiece"
    if name.endswith(".json"):
        try:
            if b'"config"' in data[:4096] and b'"token_bytes"' in data[:200_000]:
                return "tekken"
        except Exception:
            pass
        return "tokenizer.json"
    if name.endswith(".txt") or name.endswith(".vocab"):
        return "vocab.txt"
    if head.startswith(b"{"):
        return "tokenizer.json"
    if head.startswith(b"minbpe v"):
        return "minbpe"
    raise UserFileError(f"Cannot tell the format of {filename!r} from its name: use .tiktoken, .model, .json "
                        "(tokenizer.json or Tekken) or vocab.txt.")


def parse_specials(text: str) -> dict[str, int]:
    """Special tokens typed by a person: JSON {"<|endoftext|>": 100257} or one "token id" per line."""
    text = (text or "").strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise UserFileError(f"The special tokens are not valid JSON (line {e.lineno}, column {e.colno}).") from None
        items = list(obj.items()) if isinstance(obj, dict) else None
    else:
        items = []
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            tok, _, i = line.strip().rpartition(" ")
            if not tok or not i.lstrip("-").isdigit():
                raise UserFileError(f"Special tokens line {k} should be '<token> <id>', not {line.strip()[:60]!r}.")
            items.append((tok, int(i)))
    if items is None or not all(isinstance(s, str) and s and isinstance(i, int) and not isinstance(i, bool)
                                for s, i in items):
        raise UserFileError("The special tokens must map non-empty strings to integer ids.")
    if len(items) > LIMITS.max_added:
        raise UserFileError(f"{len(items):,} special tokens; at most {LIMITS.max_added:,} are accepted.")
    for s, i in items:
        if len(s.encode("utf-8")) > LIMITS.max_token_bytes:
            raise UserFileError(LIMITS.long_token(f"Special token {s[:40]!r}…", len(s.encode("utf-8"))) + ".")
        if not 0 <= i <= LIMITS.max_id:
            raise UserFileError(f"Special token {s[:40]!r} has id {i}: ids go from 0 to {LIMITS.max_id:,}.")
    return dict(items)


def limits_words() -> str:
    """LIMITS in words, for a page to say before a visitor picks a file."""
    return (f"up to {LIMITS.max_bytes / 1e6:.0f} MB; at most {LIMITS.max_vocab:,} tokens and {LIMITS.max_merges:,} "
            f"merges, ids up to {LIMITS.max_id:,}, {LIMITS.max_added:,} added or special tokens, "
            f"{LIMITS.max_token_bytes // 1024} KB in one token")


def _check_pattern(filename: str, pattern: str | None) -> None:
    if pattern and len(pattern) > LIMITS.max_pattern_chars:
        raise UserFileError(f"{filename}: the split pattern is {len(pattern):,} characters long; at most "
                            f"{LIMITS.max_pattern_chars:,} are accepted.")


def _check_size(filename: str, data: bytes) -> None:
    if not data:
        raise UserFileError(f"{filename} is empty.")
    if len(data) > LIMITS.max_bytes:
        raise UserFileError(f"{filename} is {len(data) / 1e6:.1f} MB; tokenizer files up to "
                            f"{LIMITS.max_bytes / 1e6:.0f} MB are accepted.")


def _tiktoken(filename: str, data: bytes, pattern: str | None, specials: dict[str, int], name: str):
    from tokenizers.bpe.model import BPETokenizer
    from tokenizers.vocabularies.vendors import FileBoundsError, read_tiktoken_ranks

    import binascii

    try:
        ranks = read_tiktoken_ranks(data, filename, LIMITS)
    except FileBoundsError as e:
        raise UserFileError(f"{filename}: {e}") from None
    except (ValueError, binascii.Error) as e:
        raise UserFileError(f"{filename} is not a .tiktoken file: {e}") from None
    if not ranks:
        raise UserFileError(f"{filename} holds no tokens.")
    if len(ranks) > LIMITS.max_vocab or max(ranks.values()) > LIMITS.max_id:
        raise UserFileError(f"{filename} has {len(ranks):,} tokens with ids up to {max(ranks.values()):,}; "
                            f"at most {LIMITS.max_vocab:,} tokens and ids up to {LIMITS.max_id:,} are accepted.")
    if len(set(ranks.values())) != len(ranks):
        raise UserFileError(f"{filename} gives two tokens the same rank.")
    clash = [s for s, i in specials.items() if i in set(ranks.values())]
    if clash:
        raise UserFileError(f"Special token {clash[0]!r} has id {specials[clash[0]]}, which the file already uses "
                            f"(its ranks run to {max(ranks.values()):,}).")
    _check_pattern(filename, pattern)
    try:
        compile_pattern(pattern or None)
    except PatternError as e:
        raise UserFileError(str(e)) from None
    try:
        tok = BPETokenizer.from_ranks(ranks, pattern=pattern or None, special_tokens=specials, name=name)
    except ValueError as e:
        raise UserFileError(f"{filename}: {e}") from None
    return tok


def _sentencepiece(filename: str, data: bytes, name: str):
    """Checked in a child process first (sentencepiece_train.load_model): SentencePiece can abort the
    process on a malformed protobuf."""
    from tokenizers.sentencepiece.model import ModelFormatError, check_bounds
    from tokenizers.sentencepiece.train import load_model

    try:
        check_bounds(data, LIMITS, filename)  # before SentencePiece itself builds anything from it
    except ModelFormatError as e:
        raise UserFileError(str(e)) from None
    try:
        tok = load_model(data, name=name, title=name)
    except ModelFormatError as e:
        raise UserFileError(f"{filename}: {e}") from None
    if tok.vocab_size > LIMITS.max_vocab:
        raise UserFileError(f"{filename} has {tok.vocab_size:,} pieces; at most {LIMITS.max_vocab:,} are accepted.")
    return tok


def _minbpe(filename: str, data: bytes, name: str):
    from tokenizers.bpe.model import BPETokenizer
    from tokenizers.bpe.files import ModelFormatError

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserFileError(f"{filename} is not a text file (it is not valid UTF-8), so not a minbpe model: "
                            "a minbpe .model is text whose first line is 'minbpe v1'.") from None
    _check_pattern(filename, text.split("\n", 2)[1] if text.count("\n") >= 2 else None)  # before it compiles
    # bounded while it is read (tokenizers/bpe/files.py): the format's merges and token bytes, and one
    # token's bytes by LIMITS, each merge's before its two parts are joined
    try:
        tok = BPETokenizer.loads(text, name=name, limits=LIMITS)
    except (ModelFormatError, PatternError, ValueError) as e:
        raise UserFileError(f"{filename}: {e}") from None
    merges = len(tok.merges)
    if merges > LIMITS.max_merges:
        raise UserFileError(f"{filename} has {merges:,} merges; at most {LIMITS.max_merges:,} are accepted.")
    if any(not 0 <= i <= LIMITS.max_id for i in tok.special_tokens.values()):
        raise UserFileError(f"{filename}: special-token ids go from 0 to {LIMITS.max_id:,}.")
    return tok


def _vocab_txt(filename: str, data: bytes, name: str):
    from tokenizers.pipeline import normalizers as nz
    from tokenizers.pipeline import pre_tokenizers as pt
    from tokenizers.pipeline.added_tokens import AddedToken
    from tokenizers.hf.models import PipelineTokenizer, WordPieceVocab

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserFileError(f"{filename} is not UTF-8 text, so not a vocab.txt.") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if len(lines) > LIMITS.max_vocab:
        raise UserFileError(f"{filename} has {len(lines):,} tokens; at most {LIMITS.max_vocab:,} are accepted.")
    if "[UNK]" not in lines:
        raise UserFileError(f"{filename} has no [UNK] line, so it is not a BERT-style WordPiece vocabulary.")
    vocab: dict[str, int] = {}
    for i, tok in enumerate(lines):
        if len(tok) > LIMITS.max_token_bytes // 4 and len(tok.encode("utf-8")) > LIMITS.max_token_bytes:
            raise UserFileError(f"{filename}: " + LIMITS.long_token(f"line {i + 1:,}", len(tok.encode("utf-8"))) + ".")
        vocab.setdefault(tok, i)
    specials = [AddedToken(s, vocab[s]) for s in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]") if s in vocab]
    uncased = not any(c.isupper() for t in vocab if not (t.startswith("[") and t.endswith("]")) for c in t)
    model = WordPieceVocab(vocab, "[UNK]", "##", 100)
    return PipelineTokenizer(name=name, title=name, model=model,
                             normalizer=nz.BertNormalizer(lowercase=uncased), pre_tokenizer=pt.BertPreTokenizer(),
                             added_tokens=specials,
                             about="uncased (lowercased, accents stripped)" if uncased else "cased")


def _tekken(filename: str, data: bytes, name: str):
    from tokenizers.bpe.model import BPETokenizer
    from tokenizers.vocabularies.vendors import tekken_params

    try:
        p = tekken_params(data, name, LIMITS)  # its declared counts are checked before anything is built
    except ValueError as e:  # FileBoundsError too
        raise UserFileError(f"{filename}: {e}") from None
    try:
        compile_pattern(p["pat_str"])
        tok = BPETokenizer.from_ranks(p["mergeable_ranks"], pattern=p["pat_str"], special_tokens=p["special_tokens"],
                                      name=name)
    except (PatternError, ValueError) as e:
        raise UserFileError(f"{filename}: {e}") from None
    return tok


def display_name(filename: str) -> str:
    """The tokenizer's name: the file's name, without folders or odd characters."""
    base = Path(filename.replace("\\", "/")).name or "upload"
    base = re.sub(r"[^\w.\-+ ]", "_", base)[:60]
    return base


def _not_taken(filename: str, fmt: str, expect) -> UserFileError:
    takes = " or ".join(FORMATS[e] for e in expect)
    return UserFileError(f"{filename} is a {FORMATS[fmt]}; here only a {takes} can be loaded.")


def load_user_file(filename: str, data: bytes, *, pattern: str | None = None, specials: str | dict | None = None,
                   fmt: str | None = None, expect: tuple[str, ...] | None = None, name: str | None = None) -> Tokenizer:
    """A tokenizer from an uploaded file, named by the file (or `name`). UserFileError says what is
    wrong. `fmt` forces a format (else it is told from the name and the content); `expect` is the
    formats the caller takes (keys of FORMATS): a file of another kind is refused, saying so."""
    _check_size(filename, data)
    fmt = fmt or detect_format(filename, data)
    if expect and fmt not in expect:
        if {fmt, *expect} <= {"minbpe", "sentencepiece"}:  # both .model, told apart by content only:
            fmt = expect[0]  # the reader of the kind taken here says what is wrong with it
        else:
            raise _not_taken(filename, fmt, expect)
    name = name or display_name(filename)
    try:
        if fmt == "tiktoken":
            sp = parse_specials(specials) if isinstance(specials, str) or specials is None else dict(specials)
            tok = _tiktoken(filename, data, pattern, sp, name)
        elif fmt == "sentencepiece":
            tok = _sentencepiece(filename, data, name)
        elif fmt == "minbpe":
            tok = _minbpe(filename, data, name)
        elif fmt == "tokenizer.json":
            tok = read_tokenizer_json(data, name=name, limits=LIMITS)
        elif fmt == "tekken":
            tok = _tekken(filename, data, name)
        elif fmt == "vocab.txt":
            tok = _vocab_txt(filename, data, name)
        else:
            raise UserFileError(f"Unknown format {fmt!r}.")
    except TokenizerFileError as e:
        raise UserFileError(f"{filename}: {e}") from None
    except (RecursionError, MemoryError) as e:
        raise UserFileError(f"{filename} could not be read ({type(e).__name__}).") from None
    tok.title = name
    tok.source_format = FORMATS[fmt]
    # a first encoding, so that a file whose model fails on ordinary text is refused now, not later
    try:
        tok.encode("Hello, world! 안녕 👋 123", disallowed_special=())
    except Exception as e:
        raise UserFileError(f"{filename} loads, but cannot encode text: {type(e).__name__}: {str(e)[:200]}") from None
    return tok
