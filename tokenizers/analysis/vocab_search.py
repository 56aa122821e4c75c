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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokenizers.core.text import printable_bytes

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


__all__ = ["VocabQuery", "hex_query", "search"]
