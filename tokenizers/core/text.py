"""Text hygiene and the byte <-> character bookkeeping every backend shares.

Python strings may hold lone surrogates (a paste from a broken source, or "\\ud83d" typed as an
escape); they have no UTF-8 encoding. Every backend first passes text through `clean_text`, which
replaces each lone surrogate with U+FFFD exactly as tiktoken does internally, so that all backends
see the same string and all spans refer to it.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, repeat
from operator import sub


def hexbytes(b: bytes) -> str:
    """b'hi' -> '68 69'."""
    return " ".join(f"{x:02X}" for x in b)


def plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


WHITESPACE_MARKS = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def printable_bytes(b: bytes, *, marks: bool = True) -> str:
    """Token bytes as one line of readable text: valid UTF-8 as itself, bytes that are not as
    \\xNN, other control characters as \\uNNNN, and (with `marks`) space, newline, tab and CR as
    · ↵ → ␍. The one rendering of token bytes used by the pages and the .vocab file."""
    s = b.decode("utf-8", errors="backslashreplace")
    out = []
    for ch in s:
        if marks and ch in WHITESPACE_MARKS:
            out.append(WHITESPACE_MARKS[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    return "".join(out)


# C0 control bytes other than tab, newline, vertical tab, form feed, carriage return and escape, and
# DEL: text in any encoding (UTF-8, Latin-1, cp1251, Shift-JIS…) almost never holds them, while
# random or compressed bytes hold one in ten
CONTROL_BYTES = frozenset(range(0x20)) - {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B} | {0x7F}


def binary_reason(name: str, sample: bytes) -> str | None:
    """Why the first bytes of a file (64 KB is plenty) say it is binary, not text, as a sentence naming
    it; None for text. More than 1% zero bytes, or more than 1% (at least 3) CONTROL_BYTES."""
    if sample.count(b"\x00") > len(sample) // 100:
        return f"{name} looks like a binary file (it is full of zero bytes), not text"
    controls = sum(sample.count(bytes([c])) for c in CONTROL_BYTES)
    if controls > max(2, len(sample) // 100):
        return (f"{name} looks like a binary file, not text: {controls:,} of its first {len(sample):,} bytes "
                "are control codes that text does not contain")
    return None


def clean_text(text: str) -> tuple[str, int]:
    """Return (text with lone surrogates replaced by U+FFFD, how many were replaced)."""
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        pass
    # subtle: a *pair* of surrogates written as two code points is a valid UTF-16 sequence;
    # round-tripping through utf-16 joins such pairs and replaces only the lone ones.
    fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    replaced = sum(1 for ch in text if "\ud800" <= ch <= "\udfff")
    replaced -= 2 * (len(text) - len(fixed))  # joined pairs were not lone
    return fixed, replaced


# ByteCharMap.shared keeps the maps of the texts tokenized last, for all visitors, within these bounds:
# a map costs ~8 bytes per character (and 9 per byte once its bulk tables are built), so the texts of
# many visitors cannot pile up (an lru_cache of 8 held up to 8 maps of 1 MB texts: ~400 MB)
SHARED_MAPS = 8
SHARED_MAP_CHARS = 3_000_000
_shared: "OrderedDict[str, ByteCharMap]" = OrderedDict()
_shared_lock = threading.Lock()


@dataclass(frozen=True, eq=False)
class ByteCharMap:
    """Maps UTF-8 byte offsets of a (clean) text to character offsets."""

    n_chars: int
    n_bytes: int
    starts: "array | None"  # byte offset where each char starts (array of int64); None when text is ASCII

    @classmethod
    def of(cls, text: str) -> "ByteCharMap":
        data = text.encode("utf-8")
        if len(data) == len(text):
            return cls(len(text), len(data), None)
        starts, pos = array("q", bytes(8 * len(text))), 0
        for k, ch in enumerate(text):
            starts[k] = pos
            o = ord(ch)
            pos += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        return cls(len(text), len(data), starts)

    @staticmethod
    def shared(text: str) -> "ByteCharMap":
        """ByteCharMap.of, built once per text for all the tokenizers that look at it (and kept for the
        last few texts, within SHARED_MAPS and SHARED_MAP_CHARS)."""
        with _shared_lock:
            got = _shared.get(text)
            if got is not None:
                _shared.move_to_end(text)
                return got
        got = ByteCharMap.of(text)
        with _shared_lock:
            _shared[text] = got
            total = sum(map(len, _shared))
            while len(_shared) > 1 and (len(_shared) > SHARED_MAPS or total > SHARED_MAP_CHARS):
                old, _ = _shared.popitem(last=False)
                total -= len(old)
        return got

    def char_at(self, byte_offset: int) -> int:
        """Index of the character that contains `byte_offset` (n_chars at the end)."""
        if self.starts is None or byte_offset >= self.n_bytes:
            return min(byte_offset, self.n_chars)
        return bisect_right(self.starts, byte_offset) - 1

    def byte_of(self, char_index: int) -> int:
        """UTF-8 byte offset where character `char_index` starts (n_bytes at the end)."""
        if char_index >= self.n_chars:
            return self.n_bytes
        return char_index if self.starts is None else self.starts[char_index]

    @cached_property
    def char_of_byte(self) -> array:
        """char_at for every byte offset 0..n_bytes at once, as an array of int64 (for bulk look-ups)."""
        if self.starts is None:
            return array("q", range(self.n_bytes + 1))
        lengths = map(sub, [*self.starts[1:], self.n_bytes], self.starts)
        out = array("q", chain.from_iterable(map(repeat, range(self.n_chars), lengths)))
        out.append(self.n_chars)
        return out

    @cached_property
    def boundary_flags(self) -> bytes:
        """is_boundary for every byte offset 0..n_bytes at once: 1 where a character starts or the text ends."""
        if self.starts is None:
            return b"\1" * (self.n_bytes + 1)
        flags = bytearray(self.n_bytes + 1)
        for b in self.starts:
            flags[b] = 1
        flags[self.n_bytes] = 1
        return bytes(flags)

    def is_boundary(self, byte_offset: int) -> bool:
        if self.starts is None or byte_offset >= self.n_bytes:
            return True
        return self.starts[self.char_at(byte_offset)] == byte_offset

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        """Characters touched by bytes [start, end); an empty byte span gives an empty char span."""
        c0 = self.char_at(start)
        if end <= start:
            return (c0, c0)
        return (c0, self.char_at(end - 1) + 1)
