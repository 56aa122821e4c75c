"""Normalizers: what a tokenizer does to text before it splits it (Unicode normal forms, lowercasing,
BERT's clean-up, replacements). Each is a small picklable object with

    normalize(text) -> str                     the text the tokenizer really encodes
    normalize_aligned(text, offs) -> (str, offs)   the same, keeping for every output character the
                                               range of input characters it came from

`offs` is a list with one (start, end) range of input characters per character of `text`; the
aligned form is what lets a tokenizer that normalizes still give every token a span of the text the
person typed (tokenizers/core/spans.py).

Growth is bounded. A file's normalizer could multiply text without end (two Replace steps each
turning "x" into 1,000 x's make a million characters of each x typed, and one offset pair per
character of that). So both forms take `limit`, the most characters the text may have after any
step (default `growth_limit(len(text))`: 4 × the input + 256), and refuse with a
NormalizerGrowthError when a step would pass it; Replace and Prepend check before they build
anything. Why 4 and 256: the normal forms grow one code point to at most 3 (NFC), 4 (NFD), 18 (NFKC,
U+FDFA) characters, and only 19 of the 1.1 million code points grow by more than 4 under NFKC; a
lowercased character is at most 2; BERT's clean-up makes an ideograph 3 (" 中 "), Prepend adds one
"▁". So any text that real normalizers grow past 4 × is made mostly of those 19 characters (the
256 characters of slack let a short run of them through: 18 U+FDFA on their own), and a Sequence of
steps, which could compound, is held to the same bound on its whole result. The spellings follow Hugging Face's tokenizer.json
("NFC", "NFKC", "Lowercase", "BertNormalizer", "Replace", "Prepend", "Strip", "StripAccents",
"Sequence"); hf/tokenizer_json.py builds them from a file.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


Offs = list  # list[tuple[int, int]]: per character, the input characters it came from

# the Unicode White_Space property (what Rust's char::is_whitespace, and so Hugging Face, tests)
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def identity_offs(text: str, start: int = 0) -> Offs:
    return [(start + i, start + i + 1) for i in range(len(text))]


MAX_GROWTH = 4        # a normalizer may make a text at most this many times as long...
GROWTH_SLACK = 256    # ...plus this many characters (see above)


def growth_limit(n: int) -> int:
    """The most characters a normalizer may make of n characters."""
    return MAX_GROWTH * n + GROWTH_SLACK


class NormalizerGrowthError(ValueError):
    """A normalizer would grow a text past growth_limit; the message names the step."""


def span_of(offs: Offs, a: int, b: int, at: int | None = None) -> tuple[int, int]:
    """The input range of output characters a..b (an empty range at `at`, or at a, when a == b)."""
    if b > a:
        return (offs[a][0], offs[b - 1][1])
    if at is None:
        at = offs[a][0] if a < len(offs) else (offs[-1][1] if offs else 0)
    return (at, at)


class Normalizer:
    kind = "normalizer"

    def normalize(self, text: str, limit: int | None = None) -> str:
        """The normalized text; NormalizerGrowthError if it would be longer than `limit` characters
        (default growth_limit(len(text)))."""
        limit = growth_limit(len(text)) if limit is None else limit
        out = self._normalize(text, limit)
        if len(out) > limit:
            raise self.too_long(limit)
        return out

    def normalize_aligned(self, text: str, offs: Offs, limit: int | None = None) -> tuple[str, Offs]:
        """normalize, and for every output character the input range it came from (see above)."""
        limit = growth_limit(len(text)) if limit is None else limit
        out, new = self._aligned(text, offs, limit)
        if len(out) > limit:
            raise self.too_long(limit)
        return out, new

    def too_long(self, limit: int) -> NormalizerGrowthError:
        return NormalizerGrowthError(
            f"The tokenizer's normalizer grows this text too much: its step {self.describe()} would make it "
            f"longer than {limit:,} characters (a normalizer may make a text at most {MAX_GROWTH} times as "
            f"long, plus {GROWTH_SLACK} characters). Fix the normalizer in the file, or pick another tokenizer.")

    def _normalize(self, text: str, limit: int) -> str:
        raise NotImplementedError

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        """Default for normalizers that act on one character at a time (with the combining marks
        after it): normalize each such group; groups whose normalized forms interact (a Hangul jamo
        run, a starter that composes with the next starter) are merged until the pieces add up. Line by
        line: a newline composes with nothing, so no group reaches across one, and where a line's
        pieces do not add up (a mark after a space, say) only that line is one coarse piece, whatever
        the rest of the text holds (tokenizers/core/edits.py relies on it)."""
        out = self.normalize(text, limit)
        if out == text:
            return text, offs
        pieces: list[tuple[int, int, str]] = []
        start = 0
        while start < len(text):
            end = text.find("\n", start) + 1 or len(text)
            pieces += self._line_pieces(text, start, end)
            start = end
        if "".join(p[2] for p in pieces) != out:  # never seen; correct, if coarse
            pieces = [(0, len(text), out)]
        new_offs: Offs = []
        for a, b, seg in pieces:
            r = span_of(offs, a, b)
            new_offs.extend([r] * len(seg))
        return out, new_offs

    def _line_pieces(self, text: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """(start, end, normalized) pieces of text[start:end], which add up to its normalized form: one a
        character where the line is already normalized (as where the whole text is), so that a line's
        spans do not depend on whether another line needed normalizing."""
        whole = self.normalize(text[start:end])
        if whole == text[start:end]:
            return [(i, i + 1, text[i]) for i in range(start, end)]
        groups: list[tuple[int, int]] = []  # [start, end) in text
        for i in range(start, end):
            if groups and unicodedata.combining(text[i]):
                groups[-1] = (groups[-1][0], i + 1)
            else:
                groups.append((i, i + 1))
        pieces: list[tuple[int, int, str]] = []
        for a, b in groups:
            seg = self.normalize(text[a:b])
            if pieces:
                pa, pb, ps = pieces[-1]
                joined = self.normalize(text[pa:b])
                if joined != ps + seg:
                    pieces[-1] = (pa, b, joined)
                    continue
            pieces.append((a, b, seg))
        if "".join(p[2] for p in pieces) != whole:  # correct, if coarse
            pieces = [(start, end, whole)]
        return pieces

    def describe(self) -> str:
        return self.kind

    def spec(self) -> dict:
        """This normalizer as tokenizer.json writes it (hf.tokenizer_json.read_normalizer reads it back)."""
        return {"type": self.kind}


@dataclass(frozen=True)
class UnicodeForm(Normalizer):
    form: str  # "NFC", "NFD", "NFKC" or "NFKD"

    @property
    def kind(self) -> str:
        return self.form

    def _normalize(self, text: str, limit: int) -> str:
        if unicodedata.is_normalized(self.form, text):
            return text
        return unicodedata.normalize(self.form, text)


@dataclass(frozen=True)
class Lowercase(Normalizer):
    kind = "Lowercase"

    def _normalize(self, text: str, limit: int) -> str:
        # character by character, as Hugging Face does: no final-sigma rule (str.lower has one)
        return text.lower() if "\u03a3" not in text else "".join(c.lower() for c in text)

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        out, new = [], []
        for ch, r in zip(text, offs):
            low = ch.lower()
            out.append(low)
            new.extend([r] * len(low))
        return "".join(out), new


def _is_mark(ch: str) -> bool:
    # nonspacing marks only (Mn), as Hugging Face's is_mark_nonspacing: a spacing mark such as
    # Devanagari's vowel sign AA (U+093E, Mc) stays, and BERT then has no piece for it ([UNK])
    return unicodedata.category(ch) == "Mn"


@dataclass(frozen=True)
class StripAccents(Normalizer):
    """Removes nonspacing combining marks (Hugging Face's StripAccents; put NFD before it to strip accents)."""

    kind = "StripAccents"

    def _normalize(self, text: str, limit: int) -> str:
        return "".join(c for c in text if not _is_mark(c))

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        keep = [(c, r) for c, r in zip(text, offs) if not _is_mark(c)]
        return "".join(c for c, _ in keep), [r for _, r in keep]


def is_chinese_char(cp: int) -> bool:
    """BERT's "Chinese characters" as Hugging Face tests them: the CJK Unified Ideographs blocks and
    their compatibility forms (Hugging Face starts the fifth range at U+2B920, not U+2B820)."""
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


@dataclass(frozen=True)
class BertNormalizer(Normalizer):
    """BERT's clean-up: drop NUL, U+FFFD and control characters; whitespace becomes a space; CJK
    ideographs get a space on each side; then accents stripped (NFD, marks removed) and lowercase."""

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None  # None: follow lowercase, as BERT does
    lowercase: bool = True
    kind = "BertNormalizer"

    def spec(self) -> dict:
        return {"type": "BertNormalizer", "clean_text": self.clean_text, "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}

    def _char(self, ch: str) -> str:
        if self.clean_text:
            cp = ord(ch)
            # control: Cc, Cf, Co, Cs (not Cn: unassigned code points are kept, as Hugging Face keeps them)
            if cp == 0 or cp == 0xFFFD or (ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")):
                return ""
            if ch in WHITE_SPACE:
                ch = " "
        if self.handle_chinese_chars and is_chinese_char(ord(ch)):
            ch = f" {ch} "
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        if strip:
            ch = "".join(c for c in unicodedata.normalize("NFD", ch) if not _is_mark(c))
        if self.lowercase:
            ch = "".join(c.lower() for c in ch)
        return ch

    def _normalize(self, text: str, limit: int) -> str:
        return "".join(map(self._char, text))

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        out, new = [], []
        for ch, r in zip(text, offs):
            s = self._char(ch)
            out.append(s)
            new.extend([r] * len(s))
        return "".join(out), new


class _TooLong(Exception):
    """Raised inside Replace's substitution to stop it at the limit."""


@dataclass(frozen=True)
class Replace(Normalizer):
    pattern: str   # a regex (literal strings are escaped by the reader)
    content: str
    kind = "Replace"

    def spec(self) -> dict:
        return {"type": "Replace", "pattern": {"Regex": self.pattern}, "content": self.content}

    def describe(self) -> str:
        shown = self.pattern if len(self.pattern) <= 40 else self.pattern[:40] + "…"
        return f"Replace({shown!r} → {len(self.content):,} characters)"

    def _re(self):
        """The pattern, compiled once; one not trusted (from an upload) runs under the text's time
        budget (tokenizers/core/patterns.py)."""
        c = self.__dict__.get("_compiled")
        if c is None:
            from tokenizers.core.patterns import compile_untrusted

            c = compile_untrusted(self.pattern, "normalizer's Replace pattern")
            object.__setattr__(self, "_compiled", c)
        return c

    def __getstate__(self):
        return {"pattern": self.pattern, "content": self.content}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def _normalize(self, text: str, limit: int) -> str:
        content, grow = self.content, len(self.content)
        size = len(text)

        def one(m):  # counts the output as it is built, and stops it at the limit
            nonlocal size
            size += grow - (m.end() - m.start())
            if size > limit:
                raise _TooLong
            return content

        try:
            return self._re().sub(one, text)
        except _TooLong:
            raise self.too_long(limit) from None

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        spans = [m.span() for m in self._re().finditer(text)]
        if len(text) + sum(len(self.content) - (b - a) for a, b in spans) > limit:  # before building
            raise self.too_long(limit)
        out, new, pos = [], [], 0
        for a, b in spans:
            out.append(text[pos:a])
            new.extend(offs[pos:a])
            out.append(self.content)
            new.extend([span_of(offs, a, b)] * len(self.content))
            pos = b
        out.append(text[pos:])
        new.extend(offs[pos:])
        return "".join(out), new


@dataclass(frozen=True)
class Prepend(Normalizer):
    prepend: str
    kind = "Prepend"

    def spec(self) -> dict:
        return {"type": "Prepend", "prepend": self.prepend}

    def _normalize(self, text: str, limit: int) -> str:
        if text and len(self.prepend) + len(text) > limit:
            raise self.too_long(limit)
        return self.prepend + text if text else text

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        if not text:
            return text, offs
        if len(self.prepend) + len(text) > limit:
            raise self.too_long(limit)
        at = offs[0][0]
        return self.prepend + text, [(at, at)] * len(self.prepend) + list(offs)


@dataclass(frozen=True)
class Strip(Normalizer):
    left: bool = True
    right: bool = True
    kind = "Strip"

    def spec(self) -> dict:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    def _cut(self, text: str) -> tuple[int, int]:
        a, b = 0, len(text)
        while self.left and a < b and text[a] in WHITE_SPACE:
            a += 1
        while self.right and b > a and text[b - 1] in WHITE_SPACE:
            b -= 1
        return a, b

    def _normalize(self, text: str, limit: int) -> str:
        a, b = self._cut(text)
        return text[a:b]

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        a, b = self._cut(text)
        return text[a:b], offs[a:b]


@dataclass(frozen=True)
class Sequence(Normalizer):
    normalizers: tuple
    kind = "Sequence"

    # every step is held to the limit of the whole (which is of the input given to the Sequence), so
    # steps that each grow the text a little cannot compound, and a refusal comes at the first step past it
    def _normalize(self, text: str, limit: int) -> str:
        for n in self.normalizers:
            text = n.normalize(text, limit)
        return text

    def _aligned(self, text: str, offs: Offs, limit: int) -> tuple[str, Offs]:
        for n in self.normalizers:
            text, offs = n.normalize_aligned(text, offs, limit)
        return text, offs

    def describe(self) -> str:
        return " → ".join(n.describe() for n in self.normalizers) or "none"

    def spec(self) -> dict:
        return {"type": "Sequence", "normalizers": [n.spec() for n in self.normalizers]}


def from_name(name: str | None) -> Normalizer | None:
    """"NFC" etc. -> the normalizer (None stays None)."""
    if name is None:
        return None
    if name in ("NFC", "NFD", "NFKC", "NFKD"):
        return UnicodeForm(name)
    raise ValueError(f"unknown normalizer {name!r}")
