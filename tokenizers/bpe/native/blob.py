"""A byte-level BPE model as one compact binary blob, for the WebAssembly build of the C core
(tokenizers/bpe/native/tl_wasm.js reads it and calls tl_encoder_new with the same arrays that
BPETokenizer._c_encoder gives the ctypes build, so both hosts encode with the same C and the same data).

Layout, little-endian, every array aligned to 4 bytes:
    0   magic b"TLVOCAB\\0"
    8   uint32 format version (FORMAT)
    12  uint32 length H of the JSON header
    16  32 bytes: sha256 of everything from byte 48 on (the header and the arrays)
    48  the JSON header (UTF-8): name, pattern, mode (the C pre-tokenizer's: 0 none, 1 GPT-2, 2 GPT-4),
        by_ranks, shortcut, npairs, ntok, first_id (ids are first_id + k when "sequential_ids"),
        len_bytes (1, 2 or 4: the width of each token's length), special_tokens, native (the digest
        of the C sources and Unicode tables, lib.digest(), that the module carrying the same name was
        built from)
    then, each from a multiple of 4: byte_ids int32[256]; pa, pb, pnew int32[npairs] (a model that
    goes by its merges; none for tiktoken's byte-rank form); token lengths uint{8,16,32}[ntok];
    token ids int32[ntok] unless sequential; the tokens' bytes, one after the other, in id order.

A SentencePiece BPE model (mistral_sp: SentencePieceTokenizer.native_state) uses the same layout
for what tl_sp_new takes, with three header fields added: "algorithm": "sentencepiece_bpe" (absent:
byte-level BPE), "sp_flags" (tl_native.h's TL_SP_* bits: dummy prefix, space escape, byte fallback),
"unk_id"; and "scores": true, which puts float32 scores[ntok] after the ids (before the tokens' bytes).
For the spans drawn in the browser (ui/web/live_spans.js) it also carries "byte_pieces": the spelling of
each byte's piece, byte_ids[b]'s ("<0x0A>"; "" where the model has none and byte_ids[b] is <unk>'s).
Its byte_ids are the byte pieces' ids (<0xXX>), its tokens the normal pieces (U+2581 for a space),
npairs is 0, mode 0 and pattern "".

The pre-tokenizer's Unicode tables are not in the blob: they are compiled into the module (tl_tables.h,
from the same `regex` install), and "native" names them. A pattern the C pre-tokenizer cannot cut
(a custom or uploaded one) raises ValueError: the browser cannot give the library's ids for it.
"""

from __future__ import annotations

import hashlib
import json
import struct
from array import array
from dataclasses import dataclass

MAGIC = b"TLVOCAB\0"
FORMAT = 1
PREFIX = 48  # magic, version, header length, sha256


@dataclass(frozen=True)
class Blob:
    data: bytes
    sha256: str   # of the whole blob: the browser's cache key
    header: dict


def _pad(out: bytearray) -> None:
    out += b"\0" * (-len(out) % 4)


def _i32(values) -> bytes:
    a = array("i", values)
    if a.itemsize != 4:  # pragma: no cover - every platform CPython runs on has a 4-byte int
        raise AssertionError("array('i') is not 32-bit here")
    return a.tobytes() if struct.pack("=i", 1) == struct.pack("<i", 1) else _swapped(a)


def _swapped(a: array) -> bytes:
    a = array(a.typecode, a)
    a.byteswap()
    return a.tobytes()


def serialize(tok) -> Blob:
    """The blob of a byte-level BPETokenizer (a trained one, or a tiktoken vocabulary such as gpt2,
    cl100k_base): the same byte ids, merges, token table and shortcut flag as its C encoder, plus
    its pattern's C pre-tokenizer mode and its special tokens."""
    from tokenizers.bpe.model import BPETokenizer

    from . import api

    if getattr(tok, "kind", None) == "sentencepiece":
        return _serialize_sentencepiece(tok)
    if hasattr(tok, "native_stages"):  # a pipeline (tokenizers/hf/models.py PipelineTokenizer)
        return _serialize_pipeline(tok)
    if not isinstance(tok, BPETokenizer):
        raise ValueError(f"{getattr(tok, 'name', tok)!r} is not a byte-level BPE model (a pipeline or "
                         "another algorithm): the browser build cannot encode it")
    mode = api.mode_of(tok.pattern)
    if mode is None:
        raise ValueError(f"{tok.name}: the C pre-tokenizer has no mode for its split pattern, so the "
                         "browser cannot cut its text as the library does")
    return _serialize_bpe(tok, mode, {"name": tok.name, "special_tokens": dict(tok.special_tokens)})


def _serialize_bpe(model, mode: int, fields: dict) -> Blob:
    """A byte-level BPE model's blob: what BPETokenizer._c_encoder hands the C core, in the same form, with the
    header's `fields` (name, special tokens, a pipeline's stages)."""
    from tokenizers.bpe.merges import RecoveredMerges

    from .lib import digest

    by_ranks = isinstance(model.merges, RecoveredMerges)
    pairs = [] if by_ranks else list(dict.items(model.merges))
    toks = sorted(model._bytes_to_id.items(), key=lambda kv: kv[1])
    header = {
        "name": fields["name"], "pattern": model.pattern or "", "mode": mode, "by_ranks": int(by_ranks),
        "shortcut": int(bool(model.whole_chunk_shortcut)), "npairs": len(pairs), **_token_fields(toks),
        **{k: v for k, v in fields.items() if k != "name"}, "native": digest(),
    }
    return _pack(header, model.byte_ids, pairs, toks)


def _serialize_pipeline(tok) -> Blob:
    """A pipeline whose stages the browser follows exactly (PipelineTokenizer.native_stages says which, or why
    not: Qwen's NFC, Claude's NFKC, DeepSeek V3's splits and added tokens): its model's blob, with "normalizer"
    (the Unicode form, or absent) and "added" (the non-special added tokens, always matched, as
    [[content, id, normalized], ...]) in the header."""
    st = tok.native_stages()  # ValueError with the reason when the browser cannot follow them
    fields = {"name": tok.name, "special_tokens": dict(tok.special_tokens), "added": st["added"]}
    if st["normalizer"]:
        fields["normalizer"] = st["normalizer"]
    return _serialize_bpe(st["model"], st["mode"], fields)


def _token_fields(toks: list[tuple[bytes, int]]) -> dict:
    """The header's fields about the token table (bytes, id), in id order."""
    ids = [i for _, i in toks]
    first = ids[0] if ids else 0
    longest = max((len(b) for b, _ in toks), default=0)
    return {"ntok": len(toks), "first_id": first, "sequential_ids": ids == list(range(first, first + len(ids))),
            "len_bytes": 1 if longest < 1 << 8 else 2 if longest < 1 << 16 else 4}


def _serialize_sentencepiece(tok) -> Blob:
    """The blob of a SentencePiece BPE model the C core encodes exactly (see the module docstring);
    ValueError with SentencePieceTokenizer.native_refusal's reason otherwise."""
    from .lib import SP_FLAGS, digest

    why = tok.native_refusal()
    if why:
        raise ValueError(f"{why}, so the browser cannot give its ids")
    st = tok.native_state()
    toks = [(p, i) for p, i, _ in st["pieces"]]
    header = {
        "name": tok.name, "pattern": "", "mode": 0, "by_ranks": 0, "shortcut": 0, "npairs": 0, **_token_fields(toks),
        "special_tokens": dict(tok.special_tokens), "native": digest(),
        "algorithm": "sentencepiece_bpe", "sp_flags": sum(SP_FLAGS[f] for f in st["flags"]),
        "unk_id": st["unk_id"], "scores": True,
        "byte_pieces": [tok.piece_of(i) if tok.is_byte_fallback(i) else "" for i in st["byte_ids"]],
    }
    return _pack(header, st["byte_ids"], [], toks, scores=[s for _, _, s in st["pieces"]])


def _pack(header: dict, byte_ids, pairs, toks, scores=None) -> Blob:
    """The blob's bytes: the prefix, the header, then the arrays in the module docstring's order."""
    width, sequential = header["len_bytes"], header["sequential_ids"]
    body = bytearray(json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    hlen = len(body)
    _pad(body)
    body += _i32(byte_ids)
    for k in range(3):
        body += _i32(p[0][0] if k == 0 else p[0][1] if k == 1 else p[1] for p in pairs)
    lengths = array({1: "B", 2: "H", 4: "I"}[width], (len(b) for b, _ in toks))
    if lengths.itemsize != width:  # pragma: no cover
        raise AssertionError("unexpected array item size")
    body += lengths.tobytes() if struct.pack("=H", 1) == struct.pack("<H", 1) else _swapped(lengths)
    _pad(body)
    if not sequential:
        body += _i32(i for _, i in toks)
    if scores is not None:
        f = array("f", scores)
        body += f.tobytes() if struct.pack("=H", 1) == struct.pack("<H", 1) else _swapped(f)
    body += b"".join(b for b, _ in toks)
    digest_body = hashlib.sha256(body).digest()
    data = MAGIC + struct.pack("<II", FORMAT, hlen) + digest_body + bytes(body)
    return Blob(data, hashlib.sha256(data).hexdigest(), header)


def parse(data: bytes) -> dict:
    """The blob read back (the reference for tl_wasm.js's reader, and the tests' check that nothing is
    lost): header, byte_ids, pairs [((a, b), new)], whole {bytes: id}, and for a SentencePiece model
    scores {id: score}. Raises ValueError on a wrong magic, version or checksum."""
    if data[:8] != MAGIC:
        raise ValueError("not a Token Lens vocabulary blob")
    version, hlen = struct.unpack_from("<II", data, 8)
    if version != FORMAT:
        raise ValueError(f"blob format {version}, this library reads {FORMAT}")
    body = data[PREFIX:]
    if hashlib.sha256(body).digest() != data[16:48]:
        raise ValueError("blob checksum does not match: truncated or altered")
    header = json.loads(body[:hlen].decode("utf-8"))
    pos = hlen + (-hlen % 4)

    def take(code: str, n: int) -> list[int]:
        nonlocal pos
        a = array(code)
        a.frombytes(body[pos:pos + n * a.itemsize])
        if struct.pack("=H", 1) != struct.pack("<H", 1):  # pragma: no cover
            a.byteswap()
        pos += n * a.itemsize
        return a.tolist()

    byte_ids = take("i", 256)
    npairs, ntok = header["npairs"], header["ntok"]
    pa, pb, pnew = take("i", npairs), take("i", npairs), take("i", npairs)
    lengths = take({1: "B", 2: "H", 4: "I"}[header["len_bytes"]], ntok)
    pos += -pos % 4
    ids = list(range(header["first_id"], header["first_id"] + ntok)) if header["sequential_ids"] else take("i", ntok)
    scores = take("f", ntok) if header.get("scores") else None
    whole = {}
    for n, i in zip(lengths, ids):
        whole[bytes(body[pos:pos + n])] = i
        pos += n
    if pos != len(body):
        raise ValueError("blob has trailing bytes")
    out = {"header": header, "byte_ids": byte_ids, "pairs": [((a, b), c) for a, b, c in zip(pa, pb, pnew)],
           "whole": whole}
    if scores is not None:  # a SentencePiece model: id -> score
        out["scores"] = dict(zip(ids, scores))
    return out
