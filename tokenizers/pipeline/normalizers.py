"""Normalizers: what a tokenizer does to text before it splits it (Unicode normal forms, lowercasing,
BERT's clean-up, replacements). Each is a small picklable object with

    normalize(text) -> str                     the text the tokenizer really encodes
    normalize_aligned(text, offs) -> (str, offs)   the same, keeping for every output character the
                                               range of input characters it came from

`offs` is a list with one (start, end) range of input characters per character of `text`; the
aligned form is what lets a tokenizer that normalizes still give every token a span of the text the
person typed (tokenizers/core/spans.py). The spellings follow Hugging Face's tokenizer.json
("NFC", "NFKC", "Lowercase", "BertNormalizer", "Replace", "Prepend", "Strip", "StripAccents",
"Sequence"); hf_json.py builds them from a file.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex

Offs = list  # list[tuple[int, int]]: per character, the input characters it came from

# the Unicode White_Space property (what Rust's char::is_whitespace, and so Hugging Face, tests)
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def identity_offs(text: str, start: int = 0) -> Offs:
    return [(start + i, start + i + 1) for i in range(len(text))]


def span_of(offs: Offs, a: int, b: int, at: int | None = None) -> tuple[int, int]:
    """The input range of output characters a..b (an empty range at `at`, or at a, when a == b)."""
    if b > a:
        return (offs[a][0], offs[b - 1][1])
    if at is None:
        at = offs[a][0] if a < len(offs) else (offs[-1][1] if offs else 0)
    return (at, at)


class Normalizer:
    kind = "normalizer"

    def normalize(self, text: str) -> str:
        raise NotImplementedError

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        """Default for normalizers that act on one character at a time (with the combining marks
        after it): normalize each such group; groups whose normalized forms interact (a Hangul jamo
        run, a starter that composes with the next starter) are merged until the pieces add up."""
        out = self.normalize(text)
        if out == text:
            return text, offs
        groups: list[tuple[int, int]] = []  # [start, end) in text
        for i, ch in enumerate(text):
            if groups and unicodedata.combining(ch):
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
        if "".join(p[2] for p in pieces) != out:  # never seen; correct, if coarse
            pieces = [(0, len(text), out)]
        new_offs: Offs = []
        for a, b, seg in pieces:
            r = span_of(offs, a, b)
            new_offs.extend([r] * len(seg))
        return out, new_offs

    def describe(self) -> str:
        return self.kind

    def spec(self) -> dict:
        """This normalizer as tokenizer.json writes it (hf_json.read_normalizer reads it back)."""
        return {"type": self.kind}


@dataclass(frozen=True)
class UnicodeForm(Normalizer):
    form: str  # "NFC", "NFD", "NFKC" or "NFKD"

    @property
    def kind(self) -> str:
        return self.form

    def normalize(self, text: str) -> str:
        if unicodedata.is_normalized(self.form, text):
            return text
        return unicodedata.normalize(self.form, text)


@dataclass(frozen=True)
class Lowercase(Normalizer):
    kind = "Lowercase"

    def normalize(self, text: str) -> str:
        # character by character, as Hugging Face does: no final-sigma rule (str.lower has one)
        return text.lower() if "\u03a3" not in text else "".join(c.lower() for c in text)

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
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

    def normalize(self, text: str) -> str:
        return "".join(c for c in text if not _is_mark(c))

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
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

    def normalize(self, text: str) -> str:
        return "".join(map(self._char, text))

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        out, new = [], []
        for ch, r in zip(text, offs):
            s = self._char(ch)
            out.append(s)
            new.extend([r] * len(s))
        return "".join(out), new


@dataclass(frozen=True)
class Replace(Normalizer):
    pattern: str   # a regex (literal strings are escaped by the reader)
    content: str
    kind = "Replace"

    def spec(self) -> dict:
        return {"type": "Replace", "pattern": {"Regex": self.pattern}, "content": self.content}

    def _re(self):
        return regex.compile(self.pattern)

    def normalize(self, text: str) -> str:
        return self._re().sub(lambda m: self.content, text)

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        out, new, pos = [], [], 0
        for m in self._re().finditer(text):
            a, b = m.span()
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

    def normalize(self, text: str) -> str:
        return self.prepend + text if text else text

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        if not text:
            return text, offs
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

    def normalize(self, text: str) -> str:
        a, b = self._cut(text)
        return text[a:b]

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        a, b = self._cut(text)
        return text[a:b], offs[a:b]


@dataclass(frozen=True)
class Sequence(Normalizer):
    normalizers: tuple
    kind = "Sequence"

    def normalize(self, text: str) -> str:
        for n in self.normalizers:
            text = n.normalize(text)
        return text

    def normalize_aligned(self, text: str, offs: Offs) -> tuple[str, Offs]:
        for n in self.normalizers:
            text, offs = n.normalize_aligned(text, offs)
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
