"""Literal strings found in text: the added and special tokens a tokenizer cuts out before anything else.

    LiteralFinder(strings).find(text) -> [(start, end, string)]     character offsets, left to right

The rule: the leftmost match, and at that position the longest; then on from its end (matches never
overlap). It is Hugging Face's rule for added tokens, and the rule the one regex of all the strings,
longest first, gave before (tokenizers/pipeline/added_tokens.py, BPETokenizer's special tokens).
That regex took minutes and gigabytes to compile for 100,000 strings (the most an uploaded file may
add); an Aho–Corasick automaton (ahocorasick_rs, over the Rust crate Hugging Face's tokenizers use,
with the same leftmost-longest rule) builds in about a second for them. Its scan is linear in the
text, except that after a match it may read ahead as far as the longest string that could still
extend it before settling (so at worst the text's length times the longest string's, which
Limits.max_token_bytes bounds at 16 KB: as for the regex it replaced).

`find_reference` is the plain scan, written to be obviously right; the tests hold the two equal.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

Match = tuple[int, int, str]


class LiteralFinder:
    """Finds any of a fixed set of non-empty strings in text, leftmost then longest."""

    def __init__(self, strings: Iterable[str]):
        self.strings = tuple(dict.fromkeys(s for s in strings if s))
        self._automaton = None
        if self.strings:
            import ahocorasick_rs

            self._automaton = ahocorasick_rs.AhoCorasick(self.strings,
                                                         matchkind=ahocorasick_rs.MatchKind.LeftmostLongest)

    def __bool__(self) -> bool:
        return bool(self.strings)

    def find(self, text: str) -> list[Match]:
        if self._automaton is None or not text:
            return []
        strings = self.strings
        return [(a, b, strings[k]) for k, a, b in self._automaton.find_matches_as_indexes(text)]

    def split(self, text: str) -> list[str]:
        """The text cut around each match, matches included (as `regex.split` with a group gives):
        [text before, match, text between, match, ..., text after]."""
        out, last = [], 0
        for a, b, s in self.find(text):
            out += [text[last:a], s]
            last = b
        out.append(text[last:])
        return out


def find_reference(strings: Iterable[str], text: str) -> list[Match]:
    """The same answer by a plain scan: at each position, the longest string that starts there."""
    by_length = sorted({s for s in strings if s}, key=len, reverse=True)
    out, i = [], 0
    while i < len(text):
        hit = next((s for s in by_length if text.startswith(s, i)), None)
        if hit is None:
            i += 1
        else:
            out.append((i, i + len(hit), hit))
            i += len(hit)
    return out


def cached_finder(cache: dict, strings: Iterable[str], *, keep: int = 32,
                  keep_strings: int = 250_000) -> LiteralFinder:
    """The finder for this set of strings, from `cache` (keyed by the set) or built and kept there.
    The cache holds at most `keep` finders and `keep_strings` strings in all (the automaton of 100,000
    added tokens takes about 400 MB), dropping the oldest first."""
    key = frozenset(strings)
    got = cache.get(key)
    if got is None:
        got = LiteralFinder(sorted(key))
        while cache and (len(cache) >= keep or sum(len(f.strings) for f in cache.values()) + len(key) > keep_strings):
            cache.pop(next(iter(cache)))
        cache[key] = got
    return got


_shared: dict = {}
_shared_lock = threading.Lock()


def shared_finder(strings: Iterable[str]) -> LiteralFinder:
    """cached_finder over one cache for the whole process (for callers that keep no cache of their
    own: the special-token check every encode makes, a page's note on the specials in a text)."""
    key = frozenset(strings)
    with _shared_lock:
        return cached_finder(_shared, key)
