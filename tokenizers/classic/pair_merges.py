"""Learning merges of adjacent symbols inside words: the training loop that classic BPE (Sennrich et
al.) and WordPiece share. They differ only in how a pair is scored:

- "count" (classic BPE): how often the pair occurs;
- "wordpiece": count(pair) / (count(left) * count(right)), which prefers a pair whose parts are
  rarely seen apart over a pair of two common symbols that are merely often neighbours.

Symbols are ints; a `SymbolTable` (the model's) turns a pair into the merged symbol and gives each
symbol its spelling. The rules, written once in `learn_reference` and reproduced by `learn`:
- pairs are counted inside words only, weighted by the word's count; overlapping pairs count
  ("a a a" holds (a, a) twice);
- the chosen pair has the highest score, then the highest count, then the spellings (left, right)
  that sort first (then the smaller ids, so the order is total);
- a merge replaces occurrences left to right without overlap ("a a a a" -> X X, "a a a" -> X a);
- a merge whose result is already in the vocabulary (the same spelling reached by another pair)
  adds no token; learning stops when `new_tokens` tokens were added or no pair is left.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from tokenizers.bpe.reference import merge

RULES = ("count", "wordpiece")
TOP = 10  # candidates recorded per step


class SymbolTable(Protocol):
    def join(self, a: int, b: int) -> tuple[int, bool]:
        """The symbol that merging a and b makes, and whether it is new to the vocabulary."""

    def spelling(self, sym: int) -> str: ...


@dataclass(frozen=True)
class Step:
    """One training step. For merges: the pair, its count and the counts of its two parts at that
    moment, and the score the rule ranked it by. For the character-level model (which merges
    nothing) a step adds one character: `pair` is None and `count` is its frequency."""

    rank: int                       # 0 for the first step
    pair: tuple[int, int] | None
    new_id: int
    count: int
    score: float
    left_count: int = 0
    right_count: int = 0
    new_token: bool = True          # False: the merged spelling was already a token
    tokens_after: int = 0           # symbols in the training words after this step
    candidates: tuple["Candidate", ...] = ()  # the best pairs at this step by the rule, the chosen one first
    by_count: tuple["Candidate", ...] = ()    # the most frequent pairs at this step (= candidates for "count")


class Candidate(NamedTuple):
    """A pair as the trainer saw it at one step: its count and the counts of its two parts."""

    pair: tuple[int, int]
    count: int
    left_count: int
    right_count: int

    def score(self, rule: str) -> float:
        return score(rule, self.count, self.left_count, self.right_count)


def score(rule: str, count: int, left: int, right: int) -> float:
    """A pair's score under `rule` (see the module docstring)."""
    return float(count) if rule == "count" else count / (left * right)


def pair_stats(seqs: Sequence[Sequence[int]], weights: Sequence[int]) -> tuple[dict, dict]:
    """(pair -> count, symbol -> count) over weighted words."""
    pairs: dict[tuple[int, int], int] = {}
    symbols: dict[int, int] = {}
    for s, w in zip(seqs, weights):
        for x in s:
            symbols[x] = symbols.get(x, 0) + w
        for p in zip(s, s[1:]):
            pairs[p] = pairs.get(p, 0) + w
    return pairs, symbols


def ranked_pairs(rule: str, pairs: dict, symbols: dict, spelling: Callable[[int], str]) -> list[Candidate]:
    """Every pair with a positive count, best first by the rule's order (score, count, spellings, ids)."""
    rows = [Candidate(p, c, symbols[p[0]], symbols[p[1]]) for p, c in pairs.items() if c > 0]
    rows.sort(key=lambda r: (-r.score(rule), -r.count, spelling(r.pair[0]), spelling(r.pair[1]), r.pair))
    return rows


def learn_reference(words: Sequence[tuple[Sequence[int], int]], table: SymbolTable, new_tokens: int, rule: str,
                    progress: Callable[[int, int], None] | None = None, top: int = TOP) -> list[Step]:
    """The obvious loop: recount every pair and symbol at every step, merge the best pair everywhere."""
    seqs = [list(s) for s, _ in words]
    weights = [w for _, w in words]
    total = sum(len(s) * w for s, w in zip(seqs, weights))
    steps: list[Step] = []
    added = 0
    while added < new_tokens:
        pairs, symbols = pair_stats(seqs, weights)
        if not pairs:
            break
        ranked = ranked_pairs(rule, pairs, symbols, table.spelling)
        by_count = ranked if rule == "count" else ranked_pairs("count", pairs, symbols, table.spelling)
        best = ranked[0]
        (a, b) = best.pair
        x, new = table.join(a, b)
        seqs = [merge(s, (a, b), x) for s in seqs]
        total = sum(len(s) * w for s, w in zip(seqs, weights))
        steps.append(Step(len(steps), best.pair, x, best.count, best.score(rule), best.left_count,
                          best.right_count, new, total, tuple(ranked[:top]), tuple(by_count[:top])))
        added += new
        if progress:
            progress(added, new_tokens)
    return steps


class _LazyHeap:
    """A heap of pairs ordered by `key`, where keys may go stale. Invariant: every pair with a positive
    count has an entry whose key is at least as good as its current key (a key that improves is
    pushed again at once; one that worsens is left, and fixed when it comes out)."""

    def __init__(self, key: Callable[[tuple[int, int]], tuple], pairs, alive: Callable[[tuple[int, int]], bool]):
        self.key, self.alive = key, alive
        self.heap = [key(p) for p in pairs]
        heapq.heapify(self.heap)

    def push(self, p: tuple[int, int]) -> None:
        heapq.heappush(self.heap, self.key(p))

    def best(self, n: int) -> list[tuple[int, int]]:
        """The n best live pairs, best first, left in the heap."""
        out: list[tuple] = []
        taken: set[tuple[int, int]] = set()
        heap = self.heap
        while heap and len(out) < n:
            entry = heapq.heappop(heap)
            p = entry[-1]
            if p in taken or not self.alive(p):
                continue  # a second entry of a pair already taken, or a pair merged away
            now = self.key(p)
            if now > entry:
                heapq.heappush(heap, now)  # it got worse since it was pushed: back in at its place
                continue
            if now < entry:
                continue  # it got better and was pushed again then: that entry stands for it
            out.append(now)
            taken.add(p)
        for entry in out:
            heapq.heappush(heap, entry)
        return [e[-1] for e in out]


def learn(words: Sequence[tuple[Sequence[int], int]], table: SymbolTable, new_tokens: int, rule: str,
          progress: Callable[[int, int], None] | None = None, top: int = TOP) -> list[Step]:
    """Same steps as learn_reference, fast: pair and symbol counts kept up to date, an index from each
    pair to the words that hold it, and lazy heaps of the best pairs (as bpe/fast.py does). Under
    "wordpiece" a merge of (a, b) lowers count(a) and count(b), which *raises* the score of every
    pair holding a or b, so those are pushed again too. The walk over a word is
    `bpe.reference.merge` written inline with the count updates beside each occurrence (one pass in
    the hot loop, not a merge and then a diff); tests/test_algorithms.py holds the steps equal to
    learn_reference's."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    seqs = [list(s) for s, _ in words]
    weights = [w for _, w in words]
    total = sum(len(s) * w for s, w in zip(seqs, weights))
    counts, symbols = pair_stats(seqs, weights)
    where: dict[tuple[int, int], set[int]] = {}
    for wi, s in enumerate(seqs):
        for p in zip(s, s[1:]):
            where.setdefault(p, set()).add(wi)
    by_symbols = rule == "wordpiece"
    holding: dict[int, set[tuple[int, int]]] = {}  # symbol -> pairs it is part of (wordpiece only)
    if by_symbols:
        for p in counts:
            holding.setdefault(p[0], set()).add(p)
            holding.setdefault(p[1], set()).add(p)
    spelled: dict[int, str] = {}

    def spelling(sym: int) -> str:  # a symbol's spelling never changes: look each up once
        s = spelled.get(sym)
        if s is None:
            s = spelled[sym] = table.spelling(sym)
        return s

    def rule_key(p: tuple[int, int]) -> tuple:
        c = counts[p]
        return (-score(rule, c, symbols[p[0]], symbols[p[1]]), -c, spelling(p[0]), spelling(p[1]), p)

    def count_key(p: tuple[int, int]) -> tuple:
        return (-counts[p], spelling(p[0]), spelling(p[1]), p)

    def alive(p: tuple[int, int]) -> bool:
        return counts.get(p, 0) > 0

    def candidate(p: tuple[int, int]) -> Candidate:
        return Candidate(p, counts[p], symbols[p[0]], symbols[p[1]])

    heap = _LazyHeap(rule_key, counts, alive)
    count_heap = _LazyHeap(count_key, counts, alive) if by_symbols else None
    steps: list[Step] = []
    added = 0
    while added < new_tokens:
        ranked = [candidate(p) for p in heap.best(top)]
        if not ranked:
            break
        by_count = [candidate(p) for p in count_heap.best(top)] if count_heap else ranked
        best = ranked[0]
        pair = a, b = best.pair
        x, new = table.join(a, b)
        rose: set[tuple[int, int]] = set()

        def add(p: tuple[int, int], w: int, wi: int) -> None:
            counts[p] = counts.get(p, 0) + w
            if w > 0:
                rose.add(p)
                where.setdefault(p, set()).add(wi)
                if by_symbols:
                    holding.setdefault(p[0], set()).add(p)
                    holding.setdefault(p[1], set()).add(p)

        for wi in where.pop(pair, ()):
            s, w = seqs[wi], weights[wi]
            n = len(s)
            out: list[int] = []
            i = 0
            while i < n:
                if i + 1 < n and s[i] == a and s[i + 1] == b:
                    # subtle: the left neighbour is read from the *new* word, so "a a a a" with
                    # (a, a) first turns (a, a) into (X, a), then that (X, a) into (X, X)
                    if out:
                        add((out[-1], a), -w, wi)
                        add((out[-1], x), w, wi)
                    if i + 2 < n:
                        add((b, s[i + 2]), -w, wi)
                        add((x, s[i + 2]), w, wi)
                    out.append(x)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            merged = n - len(out)
            if merged:  # otherwise a stale index entry: the pair left this word earlier
                symbols[a] -= w * merged
                symbols[b] -= w * merged
                symbols[x] = symbols.get(x, 0) + w * merged
                total -= w * merged
                seqs[wi] = out
        del counts[pair]
        steps.append(Step(len(steps), pair, x, best.count, best.score(rule), best.left_count, best.right_count,
                          new, total, tuple(ranked), tuple(by_count)))
        added += new
        for p in rose:
            if counts[p] > 0:
                heap.push(p)
                if count_heap:
                    count_heap.push(p)
        if by_symbols:  # a and b are rarer now: every pair holding them scores higher
            for p in holding.get(a, set()) | holding.get(b, set()):
                if p not in rose and counts.get(p, 0) > 0:
                    heap.push(p)
        if progress and (added == new_tokens or len(steps) % 16 == 0):
            progress(added, new_tokens)
    return steps
