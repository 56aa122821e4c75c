"""An edit encoded again only where it changed: the lines it touched (issue 22, the server's path).

A person typing into a long text changes a few characters between two runs. Encoding the whole text
again costs the whole text (300 ms for 100 KB through Qwen's pipeline); most of its tokens are those
of the run before. `retokenize` keeps them: it cuts the new text at two *line cuts*, one before the
edit and one after it, encodes only the stretch between them, and splices that stretch's tokens
between the earlier result's tokens before the first cut and after the second (their byte offsets
shifted by what the edit added).

A line cut is a position just after a newline that has a character other than whitespace on each side
("...x\\ny..."). It splits the work of a tokenizer whose every stage is *line-local* there: the tokens of
the text are the tokens of the part before the cut followed by those of the part after it. Which
stages are, and why:

- the split patterns in LINE_LOCAL_PATTERNS (GPT-2's, GPT-4's, GPT-4o's, Llama 3's, Qwen's, Tekken's,
  Whisper's and DeepSeek V3's): none looks behind, so the chunks after a chunk that ends at the cut are
  those of the text after the cut; no alternative matches a newline together with the non-space
  character after it, so a chunk ends at the cut; and the chunk that ends there, "\\n" or "x\\n", is
  matched the same whether the text goes on or stops there: the alternatives that look ahead
  (`\\s+(?!\\S)`, `\\s++$`) see a non-space character after it, or the end, and both make them match
  the same "\\n" because the character before it is not whitespace (with whitespace before it, GPT-2's
  `\\s+(?!\\S)` leaves the newline out of the run when text follows, but not at the end). A pattern from
  an upload is trusted only if it is one of these (up to patterns.canonical, which changes no cut);
- the BPE merges, which work within one chunk;
- special and added tokens without a newline in them (a match that crossed the cut would hold the
  newline) and without lstrip, rstrip or single_word (which look at the characters around them);
- Unicode normalization (NFC, NFD, NFKC, NFKD): a newline is a starter that composes with nothing and
  decomposes to itself, so it separates what normalization can join or reorder.

Anything else (SentencePiece's leading ▁, Metaspace, Prepend and Strip, which act at a text's start or
end; an uploaded pattern) is not line-local, and its tokenizer encodes the whole text as before. The
tests hold `Tokenizer.tokenize_edit` equal to `Tokenizer.tokenize`, token by token with offsets, for every
tokenizer that declares itself line-local, on tricky texts and on random edits.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable

from tokenizers.core.patterns import CUTTERS, canonical

# the split patterns a line cut splits (see above): every pattern of the C pre-tokenizer's table, and each
# pattern of its Sequences (DeepSeek V3's three), in canonical form (patterns.canonical: the same cut)
LINE_LOCAL_PATTERNS = frozenset(canonical(p) for spellings in CUTTERS.values() for sp in spellings
                                for p in ((sp,) if isinstance(sp, str) else sp))


def line_local_pattern(pattern: str | None) -> bool:
    """Whether a line cut splits `pattern`'s work (one of LINE_LOCAL_PATTERNS, in whatever spelling cuts alike)."""
    return pattern is not None and canonical(pattern) in LINE_LOCAL_PATTERNS


MAX_CANDIDATES = 256  # newlines looked at for a cut on each side, before settling for the text's start or end


def is_line_cut(text: str, c: int) -> bool:
    """A position just after a newline with a non-whitespace character on each side ("x\\n|y")."""
    return 2 <= c < len(text) and text[c - 1] == "\n" and not text[c - 2].isspace() and not text[c].isspace()


def common_affixes(a: str, b: str) -> tuple[int, int]:
    """(characters a and b start with in common, characters they end with in common, not overlapping the
    first in either). Binary searches over slice comparisons, which run at memcmp's speed."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    p = lo
    lo, hi = 0, n - p
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return p, lo


def left_cut(text: str, before: int) -> int:
    """The last line cut c with text[:c + 1] inside text[:before] (0, the text's start, when none is
    found among the MAX_CANDIDATES newlines before)."""
    end = before - 1
    for _ in range(MAX_CANDIDATES):
        i = text.rfind("\n", 0, end) if end > 0 else -1
        if i < 0:
            return 0
        if is_line_cut(text, i + 1):
            return i + 1
        end = i
    return 0


def right_cut(text: str, after: int) -> int:
    """The first line cut c with text[c - 2:] inside text[after:] (len(text), its end, when none is
    found among the MAX_CANDIDATES newlines after)."""
    start = after + 1
    for _ in range(MAX_CANDIDATES):
        i = text.find("\n", start)
        if i < 0:
            return len(text)
        if is_line_cut(text, i + 1):
            return i + 1
        start = i + 1
    return len(text)


def _token_at(starts: array, ends: array, at: int) -> int | None:
    """The index of the first token starting at byte `at`, where a token boundary is there and no
    empty token sits on it (which side it belongs to would be a guess); None otherwise."""
    k = bisect_left(starts, at)
    if k < len(starts) and (starts[k] != at or ends[k] == at):
        return None
    if k > 0 and ends[k - 1] != at:
        return None
    return k


def _shifted(values: array, by: int) -> array:
    return values if by == 0 else array("q", [v + by for v in values])


def retokenize(before, text: str, tokenize: Callable[[str], object]):
    """The tokens of `text` as (ids, byte starts, byte ends), reusing those of `before` (a TokenList of
    an earlier text, made with the same options) outside the lines the edit touched; `tokenize` encodes
    the stretch in between (the tokenizer's own tokenize, on that stretch alone). None when nothing can
    be reused (no line cut on either side, or `before`'s tokens do not end at a cut): then the caller
    tokenizes the whole text. Only for a line-local tokenizer (see the module's notes)."""
    old = before.text
    p, s = common_affixes(old, text)
    if p == len(old) == len(text):
        return before.ids, before.byte_starts, before.byte_ends, before.note
    a = left_cut(text, p)                    # text[:a + 1] == old[:a + 1]
    c = right_cut(text, len(text) - s)       # text[c - 2:] == old[c_old - 2:]
    if a == 0 and c == len(text):
        return None
    c_old = c - len(text) + len(old)
    a_bytes = len(text[:a].encode("utf-8"))
    tail_bytes = len(text[c:].encode("utf-8"))
    if not len(before.ids) or before.note:
        return None
    old_total = before.byte_ends[-1]  # the tokens tile the old text's bytes
    i = _token_at(before.byte_starts, before.byte_ends, a_bytes)
    j = _token_at(before.byte_starts, before.byte_ends, old_total - tail_bytes) if c_old < len(old) else len(before.ids)
    if i is None or j is None or i > j:
        return None
    middle = tokenize(text[a:c])
    if getattr(middle, "note", ""):
        return None  # made some other way than usual (tiktoken gave up on it): the whole text says so itself
    new_total = a_bytes + len(text[a:c].encode("utf-8")) + tail_bytes
    shift = new_total - old_total
    ids = before.ids[:i] + middle.ids + before.ids[j:]
    starts = before.byte_starts[:i] + _shifted(middle.byte_starts, a_bytes) + _shifted(before.byte_starts[j:], shift)
    ends = before.byte_ends[:i] + _shifted(middle.byte_ends, a_bytes) + _shifted(before.byte_ends[j:], shift)
    return ids, starts, ends, before.note
