"""tokenizer.json's components, read without the models (so that tokenizers/bpe/files.py can read
them back for a saved model without importing the tokenizer classes): normalizers, pre-tokenizers,
added tokens, patterns, the errors and the bounds. tokenizers/hf/tokenizer_json.py reads whole files."""

from __future__ import annotations

from dataclasses import dataclass

from tokenizers.pipeline.added_tokens import AddedToken
from tokenizers.core.patterns import GPT2_PATTERN, PatternError, compile_pattern, trust_pattern
from tokenizers.pipeline import normalizers as nz
from tokenizers.pipeline import pre_tokenizers as pt


class TokenizerFileError(ValueError):
    """The file cannot be read as a tokenizer; the message says why."""


class UnsupportedComponent(TokenizerFileError):
    """The file uses a component this reader does not implement; the message names it."""

    def __init__(self, where: str, what: str):
        super().__init__(f"unsupported: {where} {what!r} (this reader handles "
                         f"{SUPPORTED.get(where, 'other components')})")
        self.where, self.what = where, what


SUPPORTED = {
    "normalizer": "NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer, Replace, Prepend, Strip, Sequence",
    "pre_tokenizer": "ByteLevel, Split, Sequence, Digits, Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, "
                     "Punctuation, CharDelimiterSplit",
    "model": "BPE, WordPiece",
}


@dataclass(frozen=True)
class Limits:
    """What a file may hold, so that a hostile one cannot stall a page."""

    max_bytes: int = 50_000_000
    max_vocab: int = 1_000_000
    max_merges: int = 1_000_000
    max_id: int = 2_000_000
    max_token_bytes: int = 16_384  # one token, in any format (the longest in the vocabularies here: 1,024)
    max_added: int = 100_000
    max_pattern_chars: int = 10_000
    trusted: bool = False  # the file's patterns run with no time limit (the vendors' own files only)

    def long_token(self, which: str, n_bytes: int) -> str:
        """The words for a token over max_token_bytes: "token 4,711 is 16.8 MB (...); a token may be ..."."""
        return (f"{which} is {byte_words(n_bytes)}; a token may be at most {byte_words(self.max_token_bytes)}")


def byte_words(n: int) -> str:
    """16,777,216 -> "16.8 MB (16,777,216 bytes)", 16,384 -> "16 KB (16,384 bytes)", 12 -> "12 bytes"."""
    if n < 1024:
        return f"{n:,} bytes"
    short = (f"{n / 1e6:.1f} MB" if n >= 1_000_000 else f"{n // 1024} KB" if n % 1024 == 0 else f"{n / 1024:.1f} KB")
    return f"{short} ({n:,} bytes)"


LIMITS = Limits()  # a file read by the library's caller; uploads have their own: tokenizers.user_files.LIMITS
VENDOR_LIMITS = Limits(trusted=True)


def byte_chars() -> dict[int, str]:
    """The characters byte-level files spell bytes with: printable Latin-1 bytes stand for
    themselves, the other 68 (controls, space, 0x7F-0xA0, 0xAD) for U+0100 onwards, in byte order."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + extra)
            extra += 1
    return table


def _pattern(spec, where: str, limits: Limits) -> str:
    """A tokenizer.json pattern ({"String": s} or {"Regex": r}) as a regex."""
    import regex

    if not isinstance(spec, dict) or len(spec) != 1:
        raise TokenizerFileError(f"{where}: a pattern must be {{\"String\": ...}} or {{\"Regex\": ...}}")
    (kind, value), = spec.items()
    if not isinstance(value, str) or not value:
        raise TokenizerFileError(f"{where}: the pattern is empty or not a string")
    if len(value) > limits.max_pattern_chars:
        raise TokenizerFileError(f"{where}: the pattern is {len(value):,} characters long "
                                 f"(at most {limits.max_pattern_chars:,})")
    if kind == "String":
        return regex.escape(value, special_only=True)
    if kind == "Regex":
        value = pt.onig_compatible(value)
        if limits.trusted:
            trust_pattern(value)
        try:
            compile_pattern(value)
        except PatternError as e:
            raise TokenizerFileError(f"{where}: {e}") from None
        return value
    raise UnsupportedComponent(f"{where} pattern", kind)


def _shortest_match(spec) -> int | None:
    """How few characters a Replace pattern can match: a String's length; for a Regex, what Python's
    own parser says when it can read the pattern (None when it cannot: the check at use still holds)."""
    (kind, value), = spec.items()
    if kind == "String":
        return len(value)
    try:
        import re._parser as parser

        return parser.parse(value).getwidth()[0]
    except Exception:  # noqa: BLE001 - the `regex` module's own syntax, or anything odd: no estimate
        return None


def read_normalizer(spec, limits: Limits = LIMITS):
    if spec is None:
        return None
    if not isinstance(spec, dict) or "type" not in spec:
        raise TokenizerFileError("normalizer: not an object with a \"type\"")
    t = spec["type"]
    if t == "Sequence":
        steps = tuple(n for n in (read_normalizer(x, limits) for x in spec.get("normalizers") or []) if n is not None)
        return nz.Sequence(steps) if len(steps) > 1 else (steps[0] if steps else None)
    if t in ("NFC", "NFD", "NFKC", "NFKD"):
        return nz.UnicodeForm(t)
    if t == "Lowercase":
        return nz.Lowercase()
    if t == "StripAccents":
        return nz.StripAccents()
    if t == "BertNormalizer":
        return nz.BertNormalizer(bool(spec.get("clean_text", True)), bool(spec.get("handle_chinese_chars", True)),
                                 spec.get("strip_accents"), bool(spec.get("lowercase", True)))
    if t == "Replace":
        content = spec.get("content")
        if not isinstance(content, str):
            raise TokenizerFileError("normalizer Replace: \"content\" must be a string")
        pattern = _pattern(spec.get("pattern"), "normalizer Replace", limits)
        shortest = _shortest_match(spec["pattern"])
        # the real bound is on growth while normalizing (normalizers.growth_limit); a step whose every
        # match grows the text past it is refused here already
        if shortest is not None and len(content) > nz.growth_limit(max(shortest, 1)):
            raise TokenizerFileError(
                f"normalizer Replace: it puts {len(content):,} characters in place of a match as short as "
                f"{shortest} character{'s' if shortest != 1 else ''}, so it would grow a text more than a "
                f"normalizer may (at most {nz.MAX_GROWTH} times as long, plus {nz.GROWTH_SLACK} characters)")
        return nz.Replace(pattern, content)
    if t == "Prepend":
        prepend = str(spec.get("prepend", ""))
        if len(prepend) > nz.GROWTH_SLACK:
            raise TokenizerFileError(f"normalizer Prepend: it adds {len(prepend):,} characters "
                                     f"(at most {nz.GROWTH_SLACK})")
        return nz.Prepend(prepend)
    if t == "Strip":
        return nz.Strip(bool(spec.get("strip_left", True)), bool(spec.get("strip_right", True)))
    raise UnsupportedComponent("normalizer", t)


def read_pre_tokenizer(spec, limits: Limits = LIMITS):
    if spec is None:
        return None
    if not isinstance(spec, dict) or "type" not in spec:
        raise TokenizerFileError("pre_tokenizer: not an object with a \"type\"")
    t = spec["type"]
    if t == "Sequence":
        steps = tuple(p for p in (read_pre_tokenizer(x, limits) for x in spec.get("pretokenizers") or [])
                      if p is not None)
        return pt.Sequence(steps) if len(steps) > 1 else (steps[0] if steps else None)
    if t == "ByteLevel":
        return pt.ByteLevel(bool(spec.get("add_prefix_space", False)), bool(spec.get("use_regex", True)))
    if t == "Split":
        behaviour = spec.get("behavior", "Isolated")
        if behaviour not in pt.BEHAVIOURS:
            raise UnsupportedComponent("pre_tokenizer Split behavior", str(behaviour))
        return pt.Split(_pattern(spec.get("pattern"), "pre_tokenizer Split", limits), behaviour,
                        bool(spec.get("invert", False)))
    if t == "Digits":
        return pt.Digits(bool(spec.get("individual_digits", False)))
    if t == "Metaspace":
        scheme = spec.get("prepend_scheme")
        if scheme is None:  # older files: add_prefix_space
            scheme = "always" if spec.get("add_prefix_space", True) else "never"
        if scheme not in ("always", "first", "never"):
            raise UnsupportedComponent("pre_tokenizer Metaspace prepend_scheme", str(scheme))
        rep = spec.get("replacement", "\u2581")
        if not isinstance(rep, str) or len(rep) != 1:
            raise TokenizerFileError("pre_tokenizer Metaspace: the replacement must be one character")
        return pt.Metaspace(rep, scheme, bool(spec.get("split", True)))
    if t == "Whitespace":
        return pt.Whitespace()
    if t == "WhitespaceSplit":
        return pt.WhitespaceSplit()
    if t == "BertPreTokenizer":
        return pt.BertPreTokenizer()
    if t == "Punctuation":
        behaviour = spec.get("behavior", "Isolated")
        if behaviour not in pt.BEHAVIOURS:
            raise UnsupportedComponent("pre_tokenizer Punctuation behavior", str(behaviour))
        return pt.Punctuation(behaviour)
    if t == "CharDelimiterSplit":
        d = spec.get("delimiter")
        if not isinstance(d, str) or len(d) != 1:
            raise TokenizerFileError("pre_tokenizer CharDelimiterSplit: the delimiter must be one character")
        return pt.CharDelimiterSplit(d)
    raise UnsupportedComponent("pre_tokenizer", t)


def pre_tokenizer_steps(p) -> list:
    """A pre-tokenizer's steps in order: a Sequence's own, a single one alone, none for None."""
    return list(p.steps) if isinstance(p, pt.Sequence) else ([p] if p is not None else [])


def single_split_pattern(pre) -> tuple[bool, str | None]:
    """(True, pattern) when the byte-level pre-tokenizer is one regex split (or none): then the model's
    `pattern` does the job and the C core can cut the text too."""
    steps = pre_tokenizer_steps(pre)
    bl = [s for s in steps if isinstance(s, pt.ByteLevel)]
    rest = [s for s in steps if not isinstance(s, pt.ByteLevel)]
    if len(bl) != 1 or bl[0].add_prefix_space or steps[-1] is not bl[0]:
        return False, None
    if bl[0].use_regex:
        return (True, GPT2_PATTERN) if not rest else (False, None)
    if not rest:
        return True, None
    if len(rest) == 1 and isinstance(rest[0], pt.Split) and rest[0].behaviour == "Isolated" and not rest[0].invert:
        return True, rest[0].pattern
    return False, None


def is_byte_level(pre) -> bool:
    """Whether a ByteLevel step is among the pre-tokenizer's, at any depth."""
    def walk(p):
        return any(isinstance(s, pt.ByteLevel) for s in pre_tokenizer_steps(p))

    return walk(pre)


def read_added_tokens(spec, limits: Limits) -> list[AddedToken]:
    """tokenizer.json's `added_tokens` list -> AddedToken each, within `limits`, or TokenizerFileError."""
    out = []
    if not isinstance(spec, list):
        raise TokenizerFileError("added_tokens: not a list")
    if len(spec) > limits.max_added:
        raise TokenizerFileError(f"added_tokens: {len(spec):,} of them (at most {limits.max_added:,})")
    for k, t in enumerate(spec):
        try:
            content, i = t["content"], t["id"]
        except (KeyError, TypeError):
            raise TokenizerFileError(f"added_tokens[{k}]: needs \"content\" and \"id\"") from None
        if not isinstance(content, str) or not content or not isinstance(i, int) or not 0 <= i <= limits.max_id:
            raise TokenizerFileError(f"added_tokens[{k}]: content must be a non-empty string and id an integer "
                                     f"from 0 to {limits.max_id:,}")
        out.append(AddedToken(content, i, bool(t.get("special", False)), bool(t.get("lstrip", False)),
                              bool(t.get("rstrip", False)), bool(t.get("single_word", False)),
                              bool(t.get("normalized", not t.get("special", False)))))
    return out


