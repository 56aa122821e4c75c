"""Tokenization results kept for all visitors of one server process, within a fixed budget. No
Streamlit calls.

Pages used to keep their results in each visitor's session state. Streamlit keeps a session for two
minutes after its tab closes (up to 128 of them), so the memory those results held grew with the
number of visitors and stayed after they left (benchmarks/visitors.py). Here one store holds them
all, least recently used first out, bounded by what they cost: a result that falls out is simply
computed again on the visitor's next run. Keys name the tokenizer object itself (`id(tok)`: an entry
holds its TokenList, which holds the tokenizer, so the id cannot be reused while the entry lives)
and the text, so a registry tokenizer's result for a text is shared by every visitor who types it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

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


# A megabyte of random Unicode through four tokenizers peaks ~400 MB above what the results keep; glibc
# keeps most of the freed memory in the process (the server's threads each have an arena), so the
# server's RSS stayed ~290 MB up instead of ~180 MB (8 ms per call; measured in the issue 16 note).
release_free_memory = _malloc_trim()


class BoundedStore:
    """An LRU mapping whose entries have a cost; the total cost and the count stay within bounds
    (an entry costlier than the whole budget is returned but not kept)."""

    def __init__(self, max_cost: int, max_entries: int):
        self.max_cost, self.max_entries = max_cost, max_entries
        self.items: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self.total = 0
        self.lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], object], cost: Callable[[object], int]):
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
                self.items[key] = (value, c)
                self.total += c
                while self.total > self.max_cost or len(self.items) > self.max_entries:
                    _, (_, old) = self.items.popitem(last=False)
                    self.total -= old
        return value

    @property
    def cost(self) -> int:
        return self.total

    def __len__(self) -> int:
        return len(self.items)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.total = 0


def token_list_cost(toks) -> int:
    return len(toks) + len(getattr(toks, "text", ""))


_results = BoundedStore(RESULTS_COST, RESULTS_ENTRIES)


class _Failed:
    """A tokenization that raised one of the caller's `catch` errors, kept like a result (a split
    pattern that ran out of time would otherwise run again on every rerun)."""
    __slots__ = ("error", "owner")

    def __init__(self, error: BaseException, owner):
        self.error = error.with_traceback(None)  # no frames kept alive by the store
        self.owner = owner  # the tokenizer, kept alive with the entry so that its id in the key is never reused


def tokenized(tok, text: str, *, parse_special: bool, catch: tuple[type[BaseException], ...] = ()):
    """tok.tokenize(text) with special tokens parsed or as text (the pages' explicit choice), from the
    shared store when it is there. An error of a type in `catch` is remembered and raised again."""
    def make():
        try:
            return (tok.tokenize(text, allowed_special="all") if parse_special
                    else tok.tokenize(text, disallowed_special=()))
        except catch as e:
            return _Failed(e, tok)

    value = _results.get((id(tok), text, parse_special), make,
                         lambda v: 1 + len(text) // 100 if isinstance(v, _Failed) else token_list_cost(v))
    if isinstance(value, _Failed):
        raise value.error
    return value


def results_store() -> BoundedStore:
    return _results
