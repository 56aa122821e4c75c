"""Hugging Face `tokenizer.json` files, read by this project's own code (the package name
`tokenizers` shadows Hugging Face's library here, so it cannot be imported; the tests hold this
reader equal to it, run in a subprocess).

What is read:
- normalizer: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer, Replace, Prepend,
  Strip, Sequence (tokenizers/pipeline/normalizers.py);
- pre_tokenizer: ByteLevel (with or without its regex, with or without a prefix space), Split (each
  behaviour, inverted or not, String or Regex), Sequence, Digits, Metaspace, Whitespace,
  WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit (tokenizers/pipeline/pre_tokenizers.py);
- model: BPE (vocab + merges, `ignore_merges` = the whole-chunk shortcut, `byte_fallback`, unknown
  token, subword prefix/suffix) and WordPiece;
- added_tokens (special or not, lstrip/rstrip/single_word/normalized).
Anything else ("Precompiled", "Unigram", BPE dropout, ...) raises UnsupportedComponent naming it.
The post-processor (which adds [CLS]/<s> around a sequence) and the decoder are not applied:
encode gives the text's own tokens, as tiktoken does.

A byte-level BPE whose merges make ids in merge order (a lower id is an earlier merge: DeepSeek V3,
Claude's legacy file, GPT-2, Llama 3, Qwen2 ...) becomes `BPETokenizer`, the one byte-level model,
encoded by the C core; its split is `pattern` when the pre-tokenizer is one regex. When the file also
normalizes, splits by more than one regex, or has added tokens that are not plain special tokens,
that model is wrapped in a `PipelineTokenizer` (tokenizers/hf/models.py), which runs those stages.
Any other model becomes a `PipelineTokenizer` around a CharBPE or WordPieceVocab.
"""

from __future__ import annotations

import json

from tokenizers.pipeline.components import (LIMITS, SUPPORTED, Limits, TokenizerFileError, UnsupportedComponent,
                                            byte_chars, is_byte_level, pre_tokenizer_steps, read_added_tokens,
                                            read_normalizer, read_pre_tokenizer, single_split_pattern)
from tokenizers.bpe.merges import Merges
from tokenizers.pipeline import normalizers as nz
from tokenizers.pipeline import pre_tokenizers as pt

__all__ = ["LIMITS", "SUPPORTED", "Limits", "TokenizerFileError", "UnsupportedComponent",
           "byte_chars", "ids_in_merge_order", "read_normalizer", "read_pre_tokenizer",
           "read_tokenizer_json"]


def _vocab(model: dict, limits: Limits) -> dict[str, int]:
    vocab = model.get("vocab")
    if not isinstance(vocab, dict):
        raise TokenizerFileError("model: \"vocab\" must be an object (token -> id)")
    if len(vocab) > limits.max_vocab:
        raise TokenizerFileError(f"model: {len(vocab):,} tokens (at most {limits.max_vocab:,})")
    for s, i in vocab.items():
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i <= limits.max_id:
            raise TokenizerFileError(f"model: the id of {s[:40]!r} must be an integer from 0 to {limits.max_id:,}")
        # a character is at least one byte (and a byte-level file spells each byte with one character)
        if len(s) > limits.max_token_bytes // 4 and len(s.encode("utf-8")) > limits.max_token_bytes:
            raise TokenizerFileError("model: " + limits.long_token(f"token {i:,} ({s[:20]!r}…)", len(s.encode("utf-8"))))
    return vocab


def _check_added(added, limits: Limits) -> None:
    for t in added:
        n = len(t.content.encode("utf-8"))
        if n > limits.max_token_bytes:
            raise TokenizerFileError("added_tokens: " + limits.long_token(f"token {t.id:,} ({t.content[:20]!r}…)", n))


def _whole_number(model: dict, key: str, default: int, top: int) -> int:
    """A count the file declares, as a whole number from 1 to `top`."""
    value = model.get(key, default)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
        raise TokenizerFileError(f"model: {key} is {str(value)[:40]!r}; it must be a whole number from 1 to {top:,}")
    return value


def _merges(model: dict, vocab: dict[str, int], limits: Limits) -> list[tuple[int, int, int]]:
    """[(left id, right id, new id)] in rank order."""
    merges = model.get("merges", [])
    if not isinstance(merges, list):
        raise TokenizerFileError("model: \"merges\" must be a list")
    if len(merges) > limits.max_merges:
        raise TokenizerFileError(f"model: {len(merges):,} merges (at most {limits.max_merges:,})")
    out = []
    for k, m in enumerate(merges):
        if isinstance(m, str):
            parts = m.split(" ")
        elif isinstance(m, list):
            parts = m
        else:
            parts = None
        if not parts or len(parts) != 2 or not all(isinstance(p, str) for p in parts):
            raise TokenizerFileError(f"model: merge {k} is not two tokens ({str(m)[:60]!r})")
        a, b = parts
        ia, ib, inew = vocab.get(a), vocab.get(b), vocab.get(a + b)
        if ia is None or ib is None or inew is None:
            missing = a if ia is None else b if ib is None else a + b
            raise TokenizerFileError(f"model: merge {k} ({a!r} + {b!r}) uses {missing!r}, which is not in the vocab")
        out.append((ia, ib, inew))
    return out


def ids_in_merge_order(merges: list[tuple[int, int, int]]) -> bool:
    """True when each merge makes a larger id than every earlier merge and than its own parts, so a
    lower id is an earlier merge (what BPETokenizer and the C core assume)."""
    prev = -1
    for a, b, new in merges:
        if new <= prev or new <= a or new <= b:
            return False
        prev = new
    return True


def read_tokenizer_json(data, *, name: str, title: str = "", limits: Limits = LIMITS):
    """A tokenizer from a tokenizer.json (bytes, str or the parsed dict). Raises TokenizerFileError
    (UnsupportedComponent for what is not implemented) with a message that names the problem."""
    if isinstance(data, (bytes, bytearray)):
        if len(data) > limits.max_bytes:
            raise TokenizerFileError(f"the file is {len(data) / 1e6:.1f} MB (at most {limits.max_bytes / 1e6:.0f} MB)")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise TokenizerFileError(f"not UTF-8 text (byte {e.start}): a tokenizer.json is JSON") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, RecursionError) as e:
            where = f" at line {e.lineno}, column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
            raise TokenizerFileError(f"not valid JSON{where} (is the file complete?)") from None
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise TokenizerFileError("not a tokenizer.json: it has no \"model\" object")
    model = data["model"]
    mtype = model.get("type") or ("BPE" if "merges" in model else "WordPiece" if "continuing_subword_prefix" in model
                                  else None)
    if mtype not in ("BPE", "WordPiece"):
        raise UnsupportedComponent("model", str(mtype))
    normalizer = read_normalizer(data.get("normalizer"), limits)
    pre = read_pre_tokenizer(data.get("pre_tokenizer"), limits)
    added = read_added_tokens(data.get("added_tokens") or [], limits)
    _check_added(added, limits)
    vocab = _vocab(model, limits)
    title = title or name
    from tokenizers.hf.models import CharBPE, PipelineTokenizer, WordPieceVocab

    metaspace = next((s.replacement for s in pre_tokenizer_steps(pre) if isinstance(s, pt.Metaspace)), None)
    if metaspace is None and isinstance(normalizer, (nz.Replace, nz.Sequence)):
        reps = [n for n in ([normalizer] if isinstance(normalizer, nz.Replace) else normalizer.normalizers)
                if isinstance(n, nz.Replace)]
        metaspace = next((r.content for r in reps if r.content == "\u2581"), None)
    if mtype == "WordPiece":
        wp = WordPieceVocab(vocab, str(model.get("unk_token", "[UNK]")),
                            str(model.get("continuing_subword_prefix", "##")),
                            _whole_number(model, "max_input_chars_per_word", 100, limits.max_bytes))
        return PipelineTokenizer(name=name, title=title, model=wp, normalizer=normalizer, pre_tokenizer=pre,
                                 added_tokens=added)
    if model.get("dropout") not in (None, 0, 0.0):
        raise UnsupportedComponent("model", "BPE with dropout (random merges at encoding time)")
    merges = _merges(model, vocab, limits)
    byte_level = is_byte_level(pre)
    options = dict(unk_token=model.get("unk_token"), byte_fallback=bool(model.get("byte_fallback", False)),
                   continuing_subword_prefix=model.get("continuing_subword_prefix") or "",
                   end_of_word_suffix=model.get("end_of_word_suffix") or "",
                   ignore_merges=bool(model.get("ignore_merges", False)), fuse_unk=bool(model.get("fuse_unk", False)))
    chars = byte_chars()
    if byte_level:
        unbyte = {c: b for b, c in chars.items()}
        added_ids = {t.id for t in added}
        byte_vocab: dict[int, bytes] = {}
        for s, i in vocab.items():
            if i in added_ids:
                continue
            try:
                byte_vocab[i] = bytes(unbyte[c] for c in s)
            except KeyError:
                byte_vocab[i] = s.encode("utf-8")  # not in the byte alphabet: no merge can make it
        simple = (ids_in_merge_order(merges) and not options["unk_token"] and not options["byte_fallback"]
                  and not options["continuing_subword_prefix"] and not options["end_of_word_suffix"]
                  and all(chars[b] in vocab for b in range(256))
                  and len({byte_vocab[vocab[chars[b]]] for b in range(256)}) == 256)
        if simple:
            from tokenizers.bpe.model import BPETokenizer

            one_regex, pattern = single_split_pattern(pre)
            specials = {t.content: t.id for t in added if t.special}
            tok = BPETokenizer.from_model(
                vocab=byte_vocab, merges=Merges({(a, b): new for a, b, new in merges}), pattern=pattern,
                special_tokens=specials, name=name, whole_chunk_shortcut=options["ignore_merges"])
            tok.title = title
            plain = all(t.special and not (t.lstrip or t.rstrip or t.single_word or t.normalized) for t in added)
            if normalizer is None and one_regex and plain:
                return tok  # exactly minbpe's model
            return PipelineTokenizer(name=name, title=title, model=tok, normalizer=normalizer,
                                     pre_tokenizer=None if one_regex else pre, added_tokens=added)
    ranked = {}
    for rank, (a, b, new) in enumerate(merges):
        ranked.setdefault((a, b), (rank, new))
    bpe = CharBPE(vocab, ranked, byte_level=byte_level, byte_chars=chars if byte_level else None, **options)
    return PipelineTokenizer(name=name, title=title, model=bpe, normalizer=normalizer, pre_tokenizer=pre,
                             added_tokens=added, decode_replacement=metaspace)
