"""Pre-tokenization split patterns (the regexes GPT-2 and GPT-4 cut text with before BPE)."""

from __future__ import annotations

import contextlib
import contextvars
import time

import regex

# GPT-2 (tiktoken's r50k_base / gpt2): contractions, letters, numbers, other, whitespace.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# GPT-4 (cl100k_base): case-insensitive contractions, numbers of 1-3 digits, newline runs.
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

SPLIT_MODES = {"none": None, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}

# The vendors' patterns, as their packages and files spell them (tests/test_vendor_models.py holds each equal
# to its source): tiktoken 0.14's GPT-2 (r50k_base) and o200k_base (o200k_harmony's too); Llama 3
# (llama-models), Qwen (dashscope), Whisper (openai-whisper, also Hugging Face's ByteLevel spelling of
# GPT-2's), Mistral's Tekken (its file), and DeepSeek V3's three Isolated Splits (its tokenizer.json, which
# writes the newline and carriage return as themselves).
GPT2_TIKTOKEN_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
O200K_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
DEEPSEEK_V3_SPLITS = (
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
)

# The one table of the C pre-tokenizer (tokenizers/bpe/native/pretok.c), for the server's C host and the
# browser's alike: each mode (lib.MODES) with the splits it cuts exactly as `regex` does, each a pattern or,
# for a Sequence of Isolated Splits, the tuple of their patterns. A pattern is found here by what it means,
# not by one spelling: cutter_of first brings it to a canonical form that cuts every text the same way
# (below), then looks that form up; spellings that stay different but cut alike (tiktoken's GPT-2 and the
# original, Whisper's) are each listed. tests/test_native_split.py holds every spelling equal to its mode on
# every code point, in context, and under a fuzz.
CUTTERS: dict[str, tuple] = {
    "gpt2": (GPT2_PATTERN, GPT2_TIKTOKEN_PATTERN, WHISPER_PATTERN),
    "gpt4": (GPT4_PATTERN,),
    "o200k": (O200K_PATTERN,),
    "llama3": (LLAMA3_PATTERN,),
    "qwen": (QWEN_PATTERN,),
    "tekken": (TEKKEN_PATTERN,),
    "deepseek_v3": (DEEPSEEK_V3_SPLITS,),
}


def _alternatives(pattern: str) -> list[str] | None:
    """`pattern` cut at its top-level `|` (outside groups and classes), or None when it does not scan."""
    out, depth, start, i, n = [], 0, 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":  # a class: up to its closing ], which may come first ([]...]) or after ^
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            if i >= n:
                return None
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    if depth:
        return None
    out.append(pattern[start:])
    return out


def _greedy_at_end(alternative: str) -> str:
    """An alternative whose last quantifier is possessive (X++, X*+, X?+, X{m,n}+), with it greedy: it ends
    the alternative, and the alternative ends the whole pattern, so nothing after it can fail and make a
    greedy quantifier give back what it took; both take the same."""
    if len(alternative) < 3 or not alternative.endswith("+"):
        return alternative
    q = len(alternative) - 2  # the quantifier the final + would make possessive
    if alternative[q] == "}":
        brace = alternative.rfind("{", 0, q)
        if brace < 0 or not regex.fullmatch(r"\d+(?:,\d*)?", alternative[brace + 1:q]):
            return alternative  # \p{L}+ : a greedy + after a property, not a possessive one
        q = brace
    elif alternative[q] not in "+*?":
        return alternative
    escapes = len(alternative[:q]) - len(alternative[:q].rstrip("\\"))
    return alternative if escapes % 2 else alternative[:-1]  # \++ is a literal + repeated


def canonical(pattern: str) -> str:
    """A spelling of `pattern` that cuts every text as it does (see _greedy_at_end); itself when it does not scan."""
    alts = _alternatives(pattern)
    return pattern if alts is None else "|".join(_greedy_at_end(a) for a in alts)


def _canonical_split(split) -> str | tuple[str, ...]:
    return canonical(split) if isinstance(split, str) else tuple(map(canonical, split))


_CUTTER_OF: dict = {}


def cutter_of(split: "str | tuple[str, ...] | None") -> str | None:
    """The mode of CUTTERS that cuts `split` (a pattern, or a Sequence of Isolated Splits' patterns) exactly
    as `regex` does, or None: "" or None is no split, also None here (the caller's "whole text")."""
    if not split:
        return None
    if not _CUTTER_OF:
        for mode, spellings in CUTTERS.items():
            for sp in spellings:
                _CUTTER_OF[_canonical_split(sp)] = mode
    if isinstance(split, (list, tuple)) and len(split) == 1:
        split = split[0]
    return _CUTTER_OF.get(_canonical_split(tuple(split) if not isinstance(split, str) else split))


class PatternError(ValueError):
    """A split pattern that cannot be used; the message says why and how to fix it."""


# A pattern somebody typed or uploaded may backtrack for ever ("(x+x+)+y"), or be quadratic on a long
# text ("(a+)+$" tried from each of a million positions). Such patterns run under a time budget; the
# patterns of the vocabularies this library ships are trusted and run without one. The budget is one
# per text, not per call: a tokenizer that runs several uploaded patterns (a normalizer's Replace, then
# every Split of a Sequence, on every chunk the previous split made) shares UNTRUSTED_TIMEOUT seconds
# among all their calls while it encodes one text; a file that makes 40 chunks each just under the
# limit no longer runs 40 times the limit. The tokenizers open a budget where one text's work starts
# (encode, tokenize, split, normalize: `pattern_budget()`); a call made outside any budget gets one
# of its own.
UNTRUSTED_TIMEOUT = 3.0  # CPU seconds of untrusted pattern matching per text (per encode or tokenize call)
_TRUSTED: set[str] = set()


def trust_pattern(pattern: str) -> None:
    """Mark a vendor's pattern as safe to run without a time limit."""
    _TRUSTED.add(pattern)


class PatternBudget:
    """Seconds that untrusted patterns may still run for the text being encoded. Each call gets
    timeout=`left` (the `regex` module stops it there) and what it took is taken off; once nothing is
    left, the next call is refused before it starts. Seconds of CPU, as the `regex` module counts its
    timeout (the process's CPU time, measured: at least this thread's), and the calls are charged this
    thread's CPU time: the work done for this text, however busy the server is (a loaded machine
    stretches the wall time, not the work). `clock` is injectable for tests."""

    __slots__ = ("seconds", "left", "calls", "clock")

    def __init__(self, seconds: float | None = None, *, clock=time.thread_time):
        self.seconds = UNTRUSTED_TIMEOUT if seconds is None else float(seconds)
        self.left, self.calls, self.clock = self.seconds, 0, clock

    def run(self, fn, *args, role: str = "split pattern"):
        if self.left <= 0:
            raise self.error(role)
        t0 = self.clock()
        self.calls += 1
        try:
            return fn(*args, timeout=self.left)
        except TimeoutError:
            self.left = 0.0
            raise self.error(role) from None
        finally:
            self.left -= self.clock() - t0

    def error(self, role: str) -> "PatternError":
        hint = ("Simplify it, or pick the GPT-2 or GPT-4 pattern." if role == "split pattern" else
                "Fix the pattern in the file, or pick another tokenizer.")
        return PatternError(f"The {role} ran for more than {self.seconds:g} s on this text and was stopped "
                            f"(patterns from an upload or typed in get {self.seconds:g} s in all per text): it "
                            f"backtracks too much (nested repeats such as (a+)+ or (x+x+)+ do). {hint}")


_BUDGET: contextvars.ContextVar[PatternBudget | None] = contextvars.ContextVar("pattern_budget", default=None)


class pattern_budget:
    """`with pattern_budget():` one budget for every untrusted pattern call inside (this thread's);
    nested uses share the outer budget, so a tokenizer's entry points can each open one. `as b` gives
    the budget in force (b.left, b.calls). `seconds` (default UNTRUSTED_TIMEOUT, read when opened)
    and `clock` apply only when this opens a new budget."""

    __slots__ = ("_new", "_token")

    def __init__(self, seconds: float | None = None, *, clock=time.thread_time):
        self._new = None if _BUDGET.get() is not None else PatternBudget(seconds, clock=clock)
        self._token = None

    def __enter__(self) -> PatternBudget:
        if self._new is None:
            return _BUDGET.get()
        self._token = _BUDGET.set(self._new)
        return self._new

    def __exit__(self, *exc) -> None:
        if self._token is not None:
            _BUDGET.reset(self._token)
            self._token = None


NO_BUDGET = contextlib.nullcontext()  # what a tokenizer that runs no untrusted pattern opens instead (reusable)


def current_budget() -> PatternBudget:
    """The budget in force, or a fresh one for a call made outside any (a page's one split)."""
    return _BUDGET.get() or PatternBudget()


class TimedPattern:
    """A compiled regex whose matching calls run under the current PatternBudget and stop with a
    PatternError when it runs out. `role` names the pattern in that message ("split pattern",
    "normalizer's Replace pattern")."""

    def __init__(self, compiled: "regex.Pattern[str]", role: str = "split pattern"):
        self._re, self.pattern, self.role = compiled, compiled.pattern, role
        self.groups = compiled.groups

    def _call(self, name: str, *args):
        def call(*a, timeout):
            out = getattr(self._re, name)(*a, timeout=timeout)
            return list(out) if name == "finditer" else out  # the iterator would time out later

        return current_budget().run(call, *args, role=self.role)

    def findall(self, s: str):
        return self._call("findall", s)

    def finditer(self, s: str):
        return iter(self._call("finditer", s))

    def search(self, s: str):
        return self._call("search", s)

    def fullmatch(self, s: str):
        return self._call("fullmatch", s)

    def sub(self, repl, s: str):
        return self._call("sub", repl, s)


def compile_untrusted(pattern: str, role: str = "split pattern"):
    """`pattern` compiled: as it is when trusted, else a TimedPattern. A bad pattern raises
    PatternError (it does not compile, or is too large)."""
    try:
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise PatternError(f"The {role} does not compile: {e}. "
                           f"Check brackets and escapes, or pick the GPT-2 or GPT-4 pattern.") from None
    except (RecursionError, OverflowError, MemoryError) as e:
        raise PatternError(f"The {role} is too large to compile ({type(e).__name__}).") from None
    return compiled if pattern in _TRUSTED else TimedPattern(compiled, role)


def compile_pattern(pattern: str | None):
    """Compile a split pattern, or None for no split. Errors become a PatternError that teaches.
    Patterns other than the trusted ones come back as a TimedPattern (see UNTRUSTED_TIMEOUT)."""
    if pattern is None or pattern == "":
        return None
    compiled = compile_untrusted(pattern)
    if compiled.search("") is not None and compiled.fullmatch("") is not None:
        raise PatternError("The split pattern matches the empty string, so it cannot cut text "
                           "into chunks. Make every alternative consume at least one character.")
    return compiled


def split_text(text: str, compiled: "regex.Pattern[str] | None") -> list[str]:
    """Cut text into chunks. Text the pattern does not match is kept as its own chunk, so that no
    character is ever dropped (a custom pattern need not cover everything)."""
    if compiled is None:
        return [text] if text else []
    if isinstance(compiled, TimedPattern):
        with pattern_budget():  # its two calls share one budget
            return _split_text(text, compiled)
    return _split_text(text, compiled)


def _split_text(text: str, compiled) -> list[str]:
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
