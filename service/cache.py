"""Tokenization results kept for all visitors of one server process, within a fixed budget. No
Streamlit calls.

Pages used to keep their results in each visitor's session state. Streamlit keeps a session for two
minutes after its tab closes (up to 128 of them), so the memory those results held grew with the
number of visitors and stayed after they left (benchmarks/visitors.py). Here one store holds them
all, least recently used first out, bounded by what they cost: a result that falls out is simply
computed again on the visitor's next run. A result is keyed by its tokenizer (`id(tok)`) and the text,
so a registry tokenizer's result for a text is shared by every visitor who types it.

The store keeps alive only what it counts (issue 24): an entry is the ids and byte offsets of a text
(its cost: tokens plus characters), never the tokenizer. A TokenList holds its tokenizer, and a stored
one kept a visitor's uploaded tokenizer (190 MB for a big tokenizer.json, costed 3 for "hi") alive for
as long as any of its up to 4,000 entries stayed, after the visit ended: two visits of six uploads
each left 2.1 GB behind. Now a hit builds a TokenList around the caller's own tokenizer (0.3 ms for a
1 MB text), and a tokenizer's entries leave with it: when it is freed (its visit ends, or the visitor
removes it), a weakref finalizer drops them, before its id can be reused by another object.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable

from tokenizers.core.tokenizer import TokenList

RESULTS_COST = 8_000_000    # tokens plus characters kept: 57 MB when full (benchmarks/visitors.py, README)
RESULTS_ENTRIES = 4_000
TRIM_AFTER_COST = 500_000   # a result this big was made with a large transient peak: give the freed memory back


def _malloc_trim():
    """glibc's malloc_trim(0), or a no-op elsewhere."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0)


def limit_malloc_arenas(n: int = 2) -> None:
    """glibc's mallopt(M_ARENA_MAX, n), or nothing elsewhere: at most `n` malloc arenas from now on.
    glibc gives each thread that allocates its own arena (up to 8 per core), and Streamlit runs every
    rerun on a new thread; memory freed in an arena is mostly kept there, so after visitors who loaded big
    files left, the server stayed ~40 MB higher with the default than with 2 arenas (issue 24,
    benchmarks/memory_after_visits.py; the job runner's children get MALLOC_ARENA_MAX=2 for the same
    reason)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-8, n)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


# A megabyte of random Unicode through four tokenizers peaks ~400 MB above what the results keep; glibc
# keeps most of the freed memory in the process (the server's threads each have an arena), so the
# server's RSS stayed ~290 MB up instead of ~180 MB (8 ms per call; measured in the issue 16 note).
release_free_memory = _malloc_trim()


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]


def memory_report() -> dict:
    """Where this process's memory is, in MB, for diagnosis (service/visits.py writes one a sweep when
    TOKEN_LENS_MEMORY_LOG names a file; benchmarks/memory_after_visits.py reads them): resident
    (`rss`); Python's small-object allocator (`py_arenas`: its 1 MiB arenas, resident while any block
    in them is alive; `py_used`: the bytes of the live blocks in them, from sys._debugmallocstats, which
    writes to file descriptor 2, so this briefly points it at a temporary file: diagnosis only); glibc's
    heap (`c_used`, `c_free`: in use and free in its arenas; free pages are returned by malloc_trim, not
    counted resident) and its mmapped blocks (`c_mmap`). Linux and glibc; missing keys elsewhere."""
    import os
    import re
    import sys
    import tempfile
    from sys import _debugmallocstats  # CPython's documented allocator statistics (the sys module's docs)

    out: dict = {}
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                out["rss"] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
        out.update(c_used=round(m.uordblks / 2**20, 1), c_free=round(m.fordblks / 2**20, 1),
                   c_mmap=round(m.hblkhd / 2**20, 1))
    except (OSError, AttributeError):
        pass
    with tempfile.TemporaryFile("w+") as f:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(f.fileno(), 2)
            _debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read()
    arenas = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", text)
    used = re.search(r"# bytes in allocated blocks\s*=\s*([\d,]+)", text)
    if arenas and used:
        out.update(py_arenas=int(arenas.group(1).replace(",", "")),  # 1 MiB each (Python 3.10+, 64-bit)
                   py_used=round(int(used.group(1).replace(",", "")) / 2**20, 1))
    return out


class BoundedStore:
    """An LRU mapping whose entries have a cost; the total cost and the count stay within bounds
    (an entry costlier than the whole budget is returned but not kept).

    An entry may name an `owner` (an object its key stands for, by id, such as a tokenizer): the store
    does not keep the owner alive (the value must not hold it), and drops the owner's entries when the
    owner is freed."""

    def __init__(self, max_cost: int, max_entries: int):
        self.max_cost, self.max_entries = max_cost, max_entries
        # key -> (value, cost, id of its owner or None, the owner itself when it cannot be weakly referenced)
        self.items: OrderedDict[Hashable, tuple[object, int, int | None, object]] = OrderedDict()
        self.owned: dict[int, set[Hashable]] = {}  # id(owner) -> its keys in the store
        self.total = 0
        # re-entrant: an owner's finalizer can run in this thread while it holds the lock (whatever frees
        # the owner's last reference, at any point)
        self.lock = threading.RLock()

    def get(self, key: Hashable, make: Callable[[], object], cost: Callable[[object], int], *, owner=None):
        with self.lock:
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
                return hit[0]
        value = make()  # outside the lock: other visitors' look-ups do not wait on this one's work
        c = int(cost(value))
        if c >= TRIM_AFTER_COST:
            release_free_memory()
        with self.lock:
            if key not in self.items and c <= self.max_cost:
                oid = None if owner is None else self.watch(owner)
                self.items[key] = (value, c, oid, owner if oid is None else None)
                self.total += c
                if oid is not None:
                    self.owned[oid].add(key)
                while self.total > self.max_cost or len(self.items) > self.max_entries:
                    self.drop(next(iter(self.items)))
        return value

    def watch(self, owner) -> int:
        """id(owner), with a finalizer that drops its entries when it is freed (registered once); None
        for an object that cannot be weakly referenced (the entry then keeps it alive, so its id is
        never reused while the entry lives)."""
        oid = id(owner)
        if oid not in self.owned:
            try:
                weakref.finalize(owner, self.forget, oid).atexit = False
            except TypeError:
                return None
            self.owned[oid] = set()
        return oid

    def drop(self, key: Hashable) -> None:
        """Remove one entry (the caller holds the lock)."""
        _, c, oid, _ = self.items.pop(key)
        self.total -= c
        if oid is not None and oid in self.owned:
            self.owned[oid].discard(key)

    def forget(self, oid: int) -> None:
        """Drop the entries of the owner whose id is `oid` (called when it is freed)."""
        with self.lock:
            for key in self.owned.pop(oid, ()):
                if key in self.items:
                    self.drop(key)

    def recent(self, match: Callable[[Hashable], bool], *, scan: int, limit: int) -> list[tuple[Hashable, object]]:
        """Up to `limit` (key, value) pairs whose key `match`es, most recently used first, among the
        `scan` most recently used entries."""
        out = []
        with self.lock:
            for n, key in enumerate(reversed(self.items)):
                if n >= scan or len(out) >= limit:
                    break
                if match(key):
                    out.append((key, self.items[key][0]))
        return out

    @property
    def cost(self) -> int:
        return self.total

    def __len__(self) -> int:
        return len(self.items)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            for keys in self.owned.values():
                keys.clear()
            self.total = 0


_results = BoundedStore(RESULTS_COST, RESULTS_ENTRIES)


class _Tokens:
    """What the store keeps of a TokenList: its ids and byte offsets, not its tokenizer."""
    __slots__ = ("ids", "starts", "ends", "note")

    def __init__(self, toks: TokenList):
        self.ids, self.starts, self.ends, self.note = toks.ids, toks.byte_starts, toks.byte_ends, toks.note


class _Failed:
    """A tokenization that raised one of the caller's `catch` errors, kept like a result (a split
    pattern that ran out of time would otherwise run again on every rerun)."""
    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error.with_traceback(None)  # no frames (and no tokenizer in them) kept alive by the store


# An edit to a long text: the tokens of the nearest text this tokenizer tokenized lately (the same
# visitor's text before the keystroke, most often) are reused outside the lines the edit touched
# (Tokenizer.tokenize_edit, tokenizers/core/edits.py). Nothing more is kept for it: the earlier text is
# found among the store's own most recent entries.
EDIT_MIN_CHARS = 2_000   # shorter texts are tokenized whole (a millisecond or two)
EDIT_SCAN = 512          # the store's most recent entries looked through for an earlier text
EDIT_CANDIDATES = 4      # of this tokenizer's, with the same special-token choice


def nearest_earlier(tok, text: str, parse_special: bool) -> TokenList | None:
    """The TokenList of the stored text (this tokenizer, this special-token choice) that shares the most
    with `text` at its start and end, if that is at least half of `text`; None otherwise."""
    from tokenizers.core.edits import common_affixes

    me = id(tok)
    found = _results.recent(lambda k: k[0] == me and k[2] == parse_special and k[1] != text,
                            scan=EDIT_SCAN, limit=EDIT_CANDIDATES)
    best, shared = None, len(text) // 2
    for (_, other, _), value in found:
        if isinstance(value, _Failed) or value.note:
            continue
        p, s = common_affixes(other, text)
        if p + s > shared:
            best, shared = (other, value), p + s
    if best is None:
        return None
    other, value = best
    return TokenList(other, value.ids, value.starts, value.ends, tok, note=value.note)


def tokenized(tok, text: str, *, parse_special: bool, catch: tuple[type[BaseException], ...] = ()):
    """tok.tokenize(text) with special tokens parsed or as text (the pages' explicit choice), from the
    shared store when it is there; on a miss, from the nearest earlier text's tokens where the tokenizer
    allows (an edit costs the lines it touched). An error of a type in `catch` is remembered and raised
    again."""
    made = []

    def make():
        options = {"allowed_special": "all"} if parse_special else {"disallowed_special": ()}
        try:
            before = (nearest_earlier(tok, text, parse_special)
                      if len(text) >= EDIT_MIN_CHARS and getattr(tok, "line_local", False) else None)
            toks = (tok.tokenize_edit(before, text, **options) if before is not None
                    else tok.tokenize(text, **options))
        except catch as e:
            return _Failed(e)
        made.append(toks)
        return _Tokens(toks)

    value = _results.get((id(tok), text, parse_special), make,
                         lambda v: 1 + len(text) // 100 if isinstance(v, _Failed) else len(v.ids) + len(text),
                         owner=tok)
    if isinstance(value, _Failed):
        raise value.error
    if made:  # made on this call: the tokenizer's own TokenList
        return made[0]
    return TokenList(text, value.ids, value.starts, value.ends, tok, note=value.note)


def results_store() -> BoundedStore:
    return _results
