"""Added tokens: strings a tokenizer matches in the text before anything else and turns into one id
each. Special ones (`special=True`: <|endoftext|>, [CLS], <｜begin▁of▁sentence｜>) obey tiktoken's
rule here (parsed only when allowed); the others (DeepSeek's <｜User｜>, a vocabulary's extra words)
are part of the vocabulary and always matched, as Hugging Face does. Options as in tokenizer.json:
`lstrip`/`rstrip` (the token swallows the whitespace before/after it), `single_word` (only as a whole
word), `normalized` (matched in the normalized text instead of the raw one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet

from tokenizers.core.literals import LiteralFinder
from tokenizers.pipeline.normalizers import WHITE_SPACE


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int
    special: bool = True
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = False


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


class Matcher:
    """Finds added tokens in text: leftmost match, the longest at a position (tokenizers.core.literals,
    an Aho–Corasick automaton); then each token's own options."""

    def __init__(self, tokens):
        self.tokens = {t.content: t for t in tokens if t.content}
        self._finder = LiteralFinder(self.tokens)
        self.plain = not any(t.lstrip or t.rstrip or t.single_word for t in self.tokens.values())

    def __bool__(self) -> bool:
        return bool(self.tokens)

    def find(self, text: str) -> list[tuple[int, int, AddedToken]]:
        """[(start, end, token)] in character offsets, in order, not overlapping."""
        out: list[tuple[int, int, AddedToken]] = []
        last = 0
        for a, b, s in self._finder.find(text):
            if a < last:
                continue
            t = self.tokens[s]
            if t.single_word and ((a > 0 and _is_word(text[a - 1])) or (b < len(text) and _is_word(text[b]))):
                continue
            if t.lstrip:
                while a > last and text[a - 1] in WHITE_SPACE:
                    a -= 1
            if t.rstrip:
                while b < len(text) and text[b] in WHITE_SPACE:
                    b += 1
            out.append((a, b, t))
            last = b
        return out


def allowed_matcher(cache: dict, added: tuple, specials: AbstractSet[str], normalized: bool) -> Matcher:
    """The matcher for one pass: in raw text (normalized=False), the special tokens allowed this time
    and the other added tokens marked not normalized; in normalized text, the other added tokens
    marked normalized. Specials are always matched in raw text. Cached in `cache`."""
    key = (frozenset(specials), normalized) if not normalized else (None, True)
    m = cache.get(key)
    if m is None:
        if normalized:
            chosen = [t for t in added if not t.special and t.normalized]
        else:
            chosen = [t for t in added if (t.content in specials if t.special else not t.normalized)]
        # at most 8 kept, holding at most 250,000 tokens in all (an automaton of 100,000 takes about 400 MB)
        while cache and (len(cache) >= 8 or sum(len(k.tokens) for k in cache.values()) + len(chosen) > 250_000):
            cache.pop(next(iter(cache)))
        m = cache[key] = Matcher(chosen)
    return m
