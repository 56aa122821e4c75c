"""Pre-tokenizers: how a tokenizer cuts (normalized) text into the chunks its model encodes one by
one. A `pattern` (one regex whose matches are the chunks) covers OpenAI's and most byte-level BPEs;
these objects cover the rest of what Hugging Face's tokenizer.json can say: a Sequence of Split
regexes (DeepSeek V3), Digits, Metaspace (SentencePiece-style ▁), whitespace and BERT splitting.

Each works on `Piece`s: the chunk's text, and (only when spans are wanted) for every character the
range of input characters it came from, so that a chunk whose text differs from the input (a ▁ for
a space, an inserted prefix space) still maps back to what was typed. `split(text)` is the fast form:
the chunks' texts alone. The behaviours are Hugging Face's (Removed, Isolated, MergedWithPrevious,
MergedWithNext, Contiguous; `invert`); the reader is tokenizers/hf/tokenizer_json.py.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex

from tokenizers.pipeline.normalizers import WHITE_SPACE, Offs, is_chinese_char
from tokenizers.core.patterns import GPT2_PATTERN

BEHAVIOURS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Piece:
    __slots__ = ("text", "offs", "first")

    def __init__(self, text: str, offs: Offs | None, first: bool = False):
        self.text = text
        self.offs = offs      # per character: (start, end) in the input; None when not tracked
        self.first = first    # starts at the very beginning of the input (Metaspace's "first")

    def slice(self, a: int, b: int) -> "Piece":
        return Piece(self.text[a:b], None if self.offs is None else self.offs[a:b], self.first and a == 0)

    def prepend(self, s: str) -> "Piece":
        offs = None
        if self.offs is not None:
            at = self.offs[0][0] if self.offs else 0
            offs = [(at, at)] * len(s) + self.offs
        return Piece(s + self.text, offs, self.first)

    def __repr__(self) -> str:
        return f"Piece({self.text!r})"


def _segments(text: str, finder) -> list[tuple[int, int, bool]]:
    """(start, end, is_match) covering text, as Hugging Face's find_matches lays them out."""
    out, prev = [], 0
    for a, b in finder(text):
        if prev != a:
            out.append((prev, a, False))
        out.append((a, b, True))
        prev = b
    if prev != len(text):
        out.append((prev, len(text), False))
    return out or [(0, 0, False)]


def split_piece(piece: Piece, finder, behaviour: str, invert: bool = False) -> list[Piece]:
    segs = _segments(piece.text, finder)
    if invert:
        segs = [(a, b, not m) for a, b, m in segs]
    keep: list[list] = []  # [start, end, removed]
    if behaviour == "Removed":
        keep = [[a, b, m] for a, b, m in segs]
    elif behaviour == "Isolated":
        keep = [[a, b, False] for a, b, _ in segs]
    elif behaviour == "Contiguous":
        prev = False
        for a, b, m in segs:
            if m == prev and keep:
                keep[-1][1] = b
            else:
                keep.append([a, b, False])
            prev = m
    elif behaviour == "MergedWithPrevious":
        prev = False
        for a, b, m in segs:
            if m and not prev and keep:
                keep[-1][1] = b
            else:
                keep.append([a, b, False])
            prev = m
    elif behaviour == "MergedWithNext":
        prev = False
        for a, b, m in reversed(segs):
            if m and not prev and keep:
                keep[-1][0] = a
            else:
                keep.append([a, b, False])
            prev = m
        keep.reverse()
    else:
        raise ValueError(f"unknown split behaviour {behaviour!r}")
    return [piece.slice(a, b) for a, b, removed in keep if not removed and b > a]


# Oniguruma (Hugging Face's regex engine) counts as word characters \p{Alphabetic}, marks, decimal
# digits and connector punctuation; Python's `regex` also counts the joiners U+200C/U+200D
_ONIG_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"


def onig_compatible(pattern: str) -> str:
    r"""`pattern` with \w spelled as Oniguruma reads it (outside and inside [...])."""
    if "\\w" not in pattern:
        return pattern
    out, i, depth = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "w":
                out.append(_ONIG_WORD if depth else f"[{_ONIG_WORD}]")
            else:
                out.append(c + nxt)
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


def _regex_finder(compiled):
    return lambda text: (m.span() for m in compiled.finditer(text))


def _char_finder(pred):
    def find(text: str):
        return ((i, i + 1) for i, c in enumerate(text) if pred(c))

    return find


def is_bert_punctuation(c: str) -> bool:
    """BERT's punctuation, as Hugging Face's BertPreTokenizer tests it: a Unicode punctuation
    character (category P*, by this Python's Unicode tables) or an ASCII symbol (!"#$%&'()*+,-./ and
    the rest of ASCII's non-alphanumeric printable characters but the space)."""
    return (c.isascii() and not c.isalnum() and c.isprintable() and c != " ") or unicodedata.category(c)[0] == "P"


def _char_class(code_points) -> str:
    """A regex character class's body holding exactly these code points (as ranges)."""
    out, run = [], None
    for cp in sorted(code_points):
        if run and cp == run[1] + 1:
            run[1] = cp
            continue
        if run:
            out.append(f"\\U{run[0]:08x}-\\U{run[1]:08x}")
        run = [cp, cp]
    if run:
        out.append(f"\\U{run[0]:08x}-\\U{run[1]:08x}")
    return "".join(out)


_BERT_WORDS: dict = {}


def bert_word_spans(text: str, *, chinese_chars: bool = False,
                    whitespace: frozenset[str] = WHITE_SPACE) -> list[tuple[int, int]]:
    """BERT's words, as (start, end) character spans of `text`: whitespace cuts the text and is
    dropped, every punctuation character (`is_bert_punctuation`) is a word of its own, and with
    `chinese_chars` so is every CJK ideograph (what BertNormalizer's spaces around them lead to).
    Hugging Face's BertPreTokenizer is this with the Unicode White_Space property; the trained
    WordPiece (tokenizers/classic/wordpiece.py) passes str.isspace's whitespace, as classic BPE
    cuts words. One regex, built once per setting from the same predicates the rest of the
    pipeline uses."""
    key = (chinese_chars, whitespace)
    compiled = _BERT_WORDS.get(key)
    if compiled is None:
        punct = _char_class(cp for cp in range(0x110000) if is_bert_punctuation(chr(cp)))
        space = _char_class(map(ord, whitespace))
        if chinese_chars:
            cjk = _char_class(cp for cp in range(0x110000) if is_chinese_char(cp))
            compiled = regex.compile(f"[{punct}]|[{cjk}]|[^{space}{punct}{cjk}]+")
        else:
            compiled = regex.compile(f"[{punct}]|[^{space}{punct}]+")
        _BERT_WORDS[key] = compiled
    return [m.span() for m in compiled.finditer(text)]


class PreTokenizer:
    kind = "pre-tokenizer"
    identity = True  # the chunks always tile the text exactly (nothing removed, added or replaced)

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        out: list[Piece] = []
        for p in pieces:
            out.extend(self.piece(p))
        return out

    def piece(self, p: Piece) -> list[Piece]:
        raise NotImplementedError

    def split(self, text: str, *, first: bool = True) -> list[str]:
        """The chunks of `text`, as strings (no offsets kept)."""
        if first and self.fast_path:
            return self.split_texts([text])
        return [p.text for p in self.pre_tokenize([Piece(text, None, first)]) if p.text]

    fast_path = False  # split_texts gives the same chunks as pre_tokenize, on plain strings

    def split_texts(self, texts: list[str]) -> list[str]:
        return [p.text for t in texts for p in self.piece(Piece(t, None, False)) if p.text]

    def describe(self) -> str:
        return self.kind

    def spec(self) -> dict:
        """This pre-tokenizer as tokenizer.json writes it (hf.tokenizer_json.read_pre_tokenizer reads it back)."""
        return {"type": self.kind}


@dataclass(frozen=True)
class Split(PreTokenizer):
    pattern: str            # a regex (a literal string is escaped by the reader)
    behaviour: str = "Isolated"
    invert: bool = False
    kind = "Split"

    def __post_init__(self):
        if self.behaviour not in BEHAVIOURS:
            raise ValueError(f"Split behaviour must be one of {', '.join(BEHAVIOURS)}, not {self.behaviour!r}")

    @property
    def identity(self) -> bool:
        return self.behaviour != "Removed"

    def compiled(self):
        c = self.__dict__.get("_compiled")
        if c is None:
            from tokenizers.core.patterns import compile_pattern

            c = compile_pattern(self.pattern)  # a pattern from a file not trusted runs with a time limit
            object.__setattr__(self, "_compiled", c)
        return c

    def piece(self, p: Piece) -> list[Piece]:
        return split_piece(p, _regex_finder(self.compiled()), self.behaviour, self.invert)

    @property
    def fast_path(self) -> bool:
        return self.behaviour == "Isolated" and not self.invert

    def split_texts(self, texts: list[str]) -> list[str]:
        if not self.fast_path:
            return super().split_texts(texts)
        from tokenizers.core.patterns import split_text

        c = self.compiled()
        return [chunk for t in texts for chunk in split_text(t, c) if chunk]

    def describe(self) -> str:
        return f"Split({self.behaviour}{', inverted' if self.invert else ''})"

    def spec(self) -> dict:
        return {"type": "Split", "pattern": {"Regex": self.pattern}, "behavior": self.behaviour, "invert": self.invert}

    def __getstate__(self):
        return {"pattern": self.pattern, "behaviour": self.behaviour, "invert": self.invert}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True)
class ByteLevel(PreTokenizer):
    """Byte-level BPE's step: optionally a space before each piece, optionally GPT-2's regex. (Its
    byte-to-character mapping is how the file spells bytes; the model here works on bytes directly.)"""

    add_prefix_space: bool = False
    use_regex: bool = True
    kind = "ByteLevel"

    @property
    def identity(self) -> bool:
        return not self.add_prefix_space

    @property
    def fast_path(self) -> bool:
        return not self.add_prefix_space

    def split_texts(self, texts: list[str]) -> list[str]:
        if self.add_prefix_space:
            return super().split_texts(texts)
        if not self.use_regex:
            return [t for t in texts if t]
        from tokenizers.core.patterns import split_text

        return [chunk for t in texts for chunk in split_text(t, _gpt2()) if chunk]

    def piece(self, p: Piece) -> list[Piece]:
        if not p.text:
            return []
        if self.add_prefix_space and not p.text.startswith(" "):
            p = p.prepend(" ")
        if not self.use_regex:
            return [p] if p.text else []
        return split_piece(p, _regex_finder(_gpt2()), "Isolated")

    def describe(self) -> str:
        return f"ByteLevel({'GPT-2 regex' if self.use_regex else 'no regex'}{', prefix space' if self.add_prefix_space else ''})"

    def spec(self) -> dict:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "use_regex": self.use_regex}


_GPT2 = None


def _gpt2():
    global _GPT2
    if _GPT2 is None:
        _GPT2 = regex.compile(GPT2_PATTERN)
    return _GPT2


@dataclass(frozen=True)
class Digits(PreTokenizer):
    individual_digits: bool = False
    kind = "Digits"

    def spec(self) -> dict:
        return {"type": "Digits", "individual_digits": self.individual_digits}

    def piece(self, p: Piece) -> list[Piece]:
        return split_piece(p, _char_finder(lambda c: unicodedata.category(c)[0] == "N"),
                           "Isolated" if self.individual_digits else "Contiguous")


@dataclass(frozen=True)
class Metaspace(PreTokenizer):
    """SentencePiece's convention: spaces become ▁, a ▁ is put before the text ("always"), before
    the start of the input only ("first") or never, and (with split) each ▁ starts a new chunk."""

    replacement: str = "\u2581"
    prepend_scheme: str = "always"
    split_on_replacement: bool = True
    kind = "Metaspace"
    identity = False

    def spec(self) -> dict:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split_on_replacement}

    def piece(self, p: Piece) -> list[Piece]:
        p = Piece(p.text.replace(" ", self.replacement), p.offs, p.first)
        if self.prepend_scheme != "never" and not p.text.startswith(self.replacement):
            if self.prepend_scheme == "always" or p.first:
                p = p.prepend(self.replacement)
        if not self.split_on_replacement:
            return [p] if p.text else []
        r = self.replacement
        return split_piece(p, _char_finder(lambda c: c == r), "MergedWithNext")


@dataclass(frozen=True)
class WhitespaceSplit(PreTokenizer):
    kind = "WhitespaceSplit"
    identity = False

    def piece(self, p: Piece) -> list[Piece]:
        return split_piece(p, _char_finder(WHITE_SPACE.__contains__), "Removed")


_WORDS = None


@dataclass(frozen=True)
class Whitespace(PreTokenizer):
    """Words (\\w+) and runs of other non-space characters; whitespace removed."""

    kind = "Whitespace"
    identity = False

    def piece(self, p: Piece) -> list[Piece]:
        global _WORDS
        if _WORDS is None:
            # Hugging Face runs this one with Rust's regex crate, whose \w (like Python's `regex`)
            # includes the joiners; the patterns in a file run on Oniguruma (onig_compatible)
            _WORDS = regex.compile(r"\w+|[^\w\s]+")
        return split_piece(p, _regex_finder(_WORDS), "Removed", invert=True)


@dataclass(frozen=True)
class BertPreTokenizer(PreTokenizer):
    kind = "BertPreTokenizer"
    identity = False

    def piece(self, p: Piece) -> list[Piece]:
        return [p.slice(a, b) for a, b in bert_word_spans(p.text)]


@dataclass(frozen=True)
class Punctuation(PreTokenizer):
    behaviour: str = "Isolated"
    kind = "Punctuation"

    def spec(self) -> dict:
        return {"type": "Punctuation", "behavior": self.behaviour}

    @property
    def identity(self) -> bool:
        return self.behaviour != "Removed"

    def piece(self, p: Piece) -> list[Piece]:
        return split_piece(p, _char_finder(is_bert_punctuation), self.behaviour)


@dataclass(frozen=True)
class CharDelimiterSplit(PreTokenizer):
    delimiter: str = " "
    kind = "CharDelimiterSplit"

    def spec(self) -> dict:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}
    identity = False

    def piece(self, p: Piece) -> list[Piece]:
        d = self.delimiter
        return split_piece(p, _char_finder(lambda c: c == d), "Removed")


@dataclass(frozen=True)
class Sequence(PreTokenizer):
    steps: tuple
    kind = "Sequence"

    @property
    def identity(self) -> bool:
        return all(s.identity for s in self.steps)

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        for s in self.steps:
            pieces = s.pre_tokenize(pieces)
        return pieces

    @property
    def fast_path(self) -> bool:
        return all(s.fast_path for s in self.steps)

    def split_texts(self, texts: list[str]) -> list[str]:
        for s in self.steps:
            texts = s.split_texts(texts)
        return texts

    def describe(self) -> str:
        return " → ".join(s.describe() for s in self.steps)

    def spec(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [s.spec() for s in self.steps]}


class RegexSplit(PreTokenizer):
    """A plain `pattern` as a pre-tokenizer (matches are chunks, text between them kept as chunks)."""

    kind = "regex"

    def __init__(self, compiled):
        self.compiled = compiled

    def piece(self, p: Piece) -> list[Piece]:
        if self.compiled is None:
            return [p] if p.text else []
        return split_piece(p, _regex_finder(self.compiled), "Isolated")


def split_patterns(pre) -> tuple[str, ...] | None:
    """The patterns of a pre-tokenizer that only cuts, each Isolated (a Split not inverted, ByteLevel without
    a prefix space: GPT-2's regex or none, or a Sequence of those), in order; None for any other, whose cut
    no C mode stands for (tokenizers.core.patterns.cutter_of takes what this gives)."""
    steps = pre.steps if isinstance(pre, Sequence) else (pre,)
    out = []
    for s in steps:
        if isinstance(s, Sequence):
            inner = split_patterns(s)
            if inner is None:
                return None
            out += inner
        elif isinstance(s, Split) and s.fast_path:
            out.append(s.pattern)
        elif isinstance(s, ByteLevel) and not s.add_prefix_space:
            if s.use_regex:
                out.append(GPT2_PATTERN)
        else:
            return None
    return tuple(out)
