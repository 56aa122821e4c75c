"""Pre-tokenization split patterns (the regexes GPT-2 and GPT-4 cut text with before BPE)."""

from __future__ import annotations

import regex

# GPT-2 (tiktoken's r50k_base / gpt2): contractions, letters, numbers, other, whitespace.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# GPT-4 (cl100k_base): case-insensitive contractions, numbers of 1-3 digits, newline runs.
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

SPLIT_MODES = {"none": None, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}


class PatternError(ValueError):
    """A split pattern that cannot be used; the message says why and how to fix it."""


# A split pattern somebody typed or uploaded may backtrack for ever ("(x+x+)+y"), or be quadratic
# on a long text ("(a+)+$" tried from each of a million positions). Such patterns get a time limit
# per call; the patterns of the vocabularies this library ships are trusted and run without one.
UNTRUSTED_TIMEOUT = 3.0  # seconds per call (split_text may make two calls)
_TRUSTED: set[str] = set()


def trust_pattern(pattern: str) -> None:
    """Mark a vendor's split pattern as safe to run without a time limit."""
    _TRUSTED.add(pattern)


class TimedPattern:
    """A compiled regex whose matching calls stop after `timeout` seconds with a PatternError."""

    def __init__(self, compiled: "regex.Pattern[str]", timeout: float):
        self._re, self.timeout, self.pattern = compiled, timeout, compiled.pattern
        self.groups = compiled.groups

    def _call(self, name: str, *args):
        try:
            out = getattr(self._re, name)(*args, timeout=self.timeout)
            return list(out) if name == "finditer" else out  # the iterator would time out later
        except TimeoutError:
            raise PatternError(f"The split pattern ran for more than {self.timeout:g} s on this text and was stopped: "
                               "it backtracks too much (nested repeats such as (a+)+ or (x+x+)+ do). Simplify it, "
                               "or pick the GPT-2 or GPT-4 pattern.") from None

    def findall(self, s: str):
        return self._call("findall", s)

    def finditer(self, s: str):
        return iter(self._call("finditer", s))

    def search(self, s: str):
        return self._call("search", s)

    def fullmatch(self, s: str):
        return self._call("fullmatch", s)


def compile_pattern(pattern: str | None):
    """Compile a split pattern, or None for no split. Errors become a PatternError that teaches.
    Patterns other than the trusted ones come back as a TimedPattern (see UNTRUSTED_TIMEOUT)."""
    if pattern is None or pattern == "":
        return None
    try:
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise PatternError(f"The split pattern does not compile: {e}. "
                           f"Check brackets and escapes, or pick the GPT-2 or GPT-4 pattern.") from None
    except (RecursionError, OverflowError, MemoryError) as e:
        raise PatternError(f"The split pattern is too large to compile ({type(e).__name__}).") from None
    if pattern not in _TRUSTED:
        compiled = TimedPattern(compiled, UNTRUSTED_TIMEOUT)
    if compiled.search("") is not None and compiled.fullmatch("") is not None:
        raise PatternError("The split pattern matches the empty string, so it cannot cut text "
                           "into chunks. Make every alternative consume at least one character.")
    return compiled


def split_text(text: str, compiled: "regex.Pattern[str] | None") -> list[str]:
    """Cut text into chunks. Text the pattern does not match is kept as its own chunk, so that no
    character is ever dropped (a custom pattern need not cover everything)."""
    if compiled is None:
        return [text] if text else []
    # findall gives the groups' text when the pattern has capturing groups; the matches are wanted
    chunks = [m.group() for m in compiled.finditer(text)] if compiled.groups else compiled.findall(text)
    # matches never overlap and come in order, so equal total length means no gaps (the usual case
    # for GPT-2/GPT-4 patterns, which cover every character); otherwise collect the gaps too
    if sum(map(len, chunks)) == len(text):
        return chunks
    chunks, pos = [], 0
    for m in compiled.finditer(text):
        if m.start() > pos:
            chunks.append(text[pos:m.start()])
        if m.end() > m.start():
            chunks.append(m.group())
        pos = max(pos, m.end())
    if pos < len(text):
        chunks.append(text[pos:])
    return chunks


trust_pattern(GPT2_PATTERN)
trust_pattern(GPT4_PATTERN)

# A space between two letters is a chunk boundary under the GPT-2 and GPT-4 patterns: every
# alternative that can consume the letter before it stops at the space (letters, contractions), and
# none reads past it, so splitting the text there changes no chunk.
_SAFE_CUT = regex.compile(r"(?<=\p{L}) (?=\p{L})")
_CUTTABLE = {GPT2_PATTERN, GPT4_PATTERN}


def chunk_counts(text: str, compiled: "regex.Pattern[str] | None", block: int = 1 << 20) -> dict[str, int]:
    """{chunk: occurrences}, equal to Counter(split_text(text, compiled)). For the GPT-2 and GPT-4
    patterns the text is split about `block` characters at a time, at safe cuts only, so the list of
    all chunks (10 MB of text is ~2.5 M strings) never exists at once."""
    from collections import Counter

    if compiled is None:
        return Counter([text]) if text else Counter()
    if compiled.pattern not in _CUTTABLE:
        return Counter(split_text(text, compiled))
    counts: Counter = Counter()
    pos, n = 0, len(text)
    while pos < n:
        m = _SAFE_CUT.search(text, pos + block) if pos + block < n else None
        end = m.start() if m else n
        counts.update(split_text(text[pos:end], compiled))
        pos = end
    return counts
