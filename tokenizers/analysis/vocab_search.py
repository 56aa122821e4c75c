"""Searching a vocabulary: one rule for what a query means, used by every page that lists tokens (the
vocabulary browser, the SentencePiece Lab's pieces, the audit lists, the BPE Lab's merges).

A token matches a query when any of these holds:
- the query is a token id (ASCII digits: "300") and it is this token's id;
- the query spells bytes in hex and the token's bytes hold them (byte-aligned): one or more groups
  separated by spaces, each an optional 0x and whole bytes as pairs of hex digits ("E2 96 81",
  "e296 81", "0x41", "0xE2 0x96");
- the query as typed, spaces included (" the" is not "the"), is in the token's text: its bytes as
  UTF-8, as the tables show them (a space ·, a newline ↵, a tab →), or its piece as the model spells
  it (SentencePiece's ▁the, also with ▁ read as a space; WordPiece's ##ing).

A query of nothing but whitespace matches every token. A query can mean several things at once
("cafe" is text and the bytes CA FE): a token matching any of them matches.

The second kind of query is by prefix: the ordinary tokens (not special, not the unknown token, whose
bytes are its name rather than text) whose bytes start with given bytes, `prefix_index(tok).ids_with_prefix(b"://")`. The index is the vocabulary's token bytes sorted
once per tokenizer, so a query is two binary searches and a slice; `ids_with_prefix_reference` is
the plain scan over every id it is tested against.
"""

from __future__ import annotations

import re
import threading
import weakref
from array import array
from bisect import bisect_left
from dataclasses import dataclass

from tokenizers.core.text import printable_bytes
from tokenizers.core.tokenizer import Tokenizer, UnknownTokenIdError

_ID = re.compile(r"[0-9]+")
_HEX_GROUP = re.compile(r"(?:0[xX])?((?:[0-9A-Fa-f]{2})+)")


def hex_query(query: str) -> bytes | None:
    """The bytes `query` spells in hex, or None when it is not a hex query (the module's rule)."""
    groups = query.split()
    found = [_HEX_GROUP.fullmatch(g) for g in groups]
    if not groups or not all(found):
        return None
    return bytes.fromhex("".join(m.group(1) for m in found))


@dataclass(frozen=True)
class VocabQuery:
    text: str                   # as typed; "" matches every token
    token_id: int | None        # the query read as an id
    hex_bytes: bytes | None     # the bytes the query spells in hex
    marked: bool = False        # it holds a mark of the tables' rendering (· ↵ → ␍, a backslash)

    @classmethod
    def parse(cls, query: str) -> "VocabQuery":
        q = query.strip()
        if not q:
            return cls("", None, None)
        return cls(query, int(q) if _ID.fullmatch(q) and len(q) < 20 else None, hex_query(q),
                   any(c in query for c in "\u00b7\u21b5\u2192\u240d\\"))

    def matches(self, token_id: int, data: bytes, piece: str = "") -> bool:
        """Whether the token with this id, these bytes and this spelling matches the query."""
        if not self.text or token_id == self.token_id:
            return True
        if self.hex_bytes is not None and self.hex_bytes in data:
            return True
        q = self.text
        return (q in data.decode("utf-8", errors="replace") or (self.marked and q in printable_bytes(data))
                or (bool(piece) and (q in piece or q in piece.replace("\u2581", " "))))


def search(entries, query: str) -> list[int]:
    """The ids of the (id, bytes, piece) entries that match `query`, in order."""
    q = VocabQuery.parse(query)
    return [i for i, b, piece in entries if q.matches(i, b, piece)]


# -- by prefix ----------------------------------------------------------------------------------------
def prefix_end(prefix: bytes) -> bytes | None:
    """The least byte string greater than every string that starts with `prefix` (drop trailing 0xFF
    bytes, add one to the last byte); None when there is none (the prefix is empty or all 0xFF)."""
    stem = prefix.rstrip(b"\xff")
    if not stem:
        return None
    return stem[:-1] + bytes([stem[-1] + 1])


class PrefixIndex:
    """The bytes of every ordinary token of one tokenizer, sorted (ties by id), for prefix queries.
    Built by `prefix_index`, once per tokenizer."""

    def __init__(self, tok: Tokenizer):
        unk = tok.unk_id
        pairs = sorted((b, i) for i, b in tok.iter_vocab() if not tok.is_special(i) and i != unk)
        self.keys: list[bytes] = [b for b, _ in pairs]
        self.ids = array("q", [i for _, i in pairs])

    def __len__(self) -> int:
        return len(self.keys)

    def span(self, prefix: bytes) -> tuple[int, int]:
        """The positions [lo, hi) of the keys that start with `prefix`."""
        lo = bisect_left(self.keys, prefix)
        end = prefix_end(prefix)
        return lo, (len(self.keys) if end is None else bisect_left(self.keys, end, lo))

    def count(self, prefix: bytes) -> int:
        lo, hi = self.span(prefix)
        return hi - lo

    def ids_with_prefix(self, prefix: bytes) -> list[int]:
        """The ids of the ordinary tokens whose bytes start with `prefix`, ascending."""
        lo, hi = self.span(bytes(prefix))
        return sorted(self.ids[lo:hi])


def ids_with_prefix_reference(tok: Tokenizer, prefix: bytes) -> list[int]:
    """PrefixIndex.ids_with_prefix the slow, obvious way: every id, one at a time."""
    out = []
    for i in range(tok.n_vocab):
        try:
            b = tok.decode_single_token_bytes(i)
        except (KeyError, UnknownTokenIdError):
            continue  # a hole in the id range
        if not tok.is_special(i) and i != tok.unk_id and b.startswith(prefix):
            out.append(i)
    return out


_indexes: "weakref.WeakKeyDictionary[Tokenizer, tuple[tuple, PrefixIndex]]" = weakref.WeakKeyDictionary()
_indexes_lock = threading.Lock()


STAMP_SAMPLES = 64  # token ids read on every query to notice a model changed in place


def _stamp(tok: Tokenizer) -> tuple:
    """What changes when a model is changed in place (trained again, special tokens registered): its
    size, its special tokens and the bytes of ids spread over its range; the index is rebuilt then.
    (Models trained in the app arrive as new objects anyway.)"""
    n = tok.n_vocab
    sample = []
    for i in range(0, n, max(1, n // STAMP_SAMPLES)):
        try:
            sample.append(tok.decode_single_token_bytes(i))
        except (KeyError, UnknownTokenIdError):
            sample.append(None)
    return n, tuple(sorted(tok.special_tokens.items())), tok.unk_id, tuple(sample)


def prefix_index(tok: Tokenizer) -> PrefixIndex:
    """The PrefixIndex of `tok`, built at its first query and kept while the tokenizer lives."""
    stamp = _stamp(tok)
    with _indexes_lock:
        found = _indexes.get(tok)
    if found is not None and found[0] == stamp:
        return found[1]
    index = PrefixIndex(tok)  # outside the lock: two threads may both build it, and either result is right
    with _indexes_lock:
        _indexes[tok] = (stamp, index)
    return index


__all__ = ["PrefixIndex", "VocabQuery", "hex_query", "ids_with_prefix_reference", "prefix_end", "prefix_index",
           "search"]
