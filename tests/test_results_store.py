"""service/cache.py, the results store all visitors share: it keeps to its budget, shares a tokenizer's own
result and remembers failures; and a tokenizer's own chunk cache is bounded too."""

from __future__ import annotations

import pytest

from tokenizers import get_tokenizer
from service.cache import BoundedStore, tokenized


def test_the_store_keeps_to_its_budget_least_recently_used_out():
    store = BoundedStore(max_cost=10, max_entries=3)
    made = []

    def get(key, cost):
        return store.get(key, lambda: made.append(key) or key.upper(), lambda v: cost)

    assert get("a", 4) == "A" and get("b", 4) == "B"
    assert get("a", 4) == "A" and made == ["a", "b"]  # a hit, and now the most recent
    get("c", 4)  # over the budget: b (least recent) goes
    assert store.cost <= 10 and len(store) == 2
    get("b", 4)
    assert made == ["a", "b", "c", "b"]
    assert get("huge", 11) == "HUGE" and len(store) <= 3 and store.cost <= 10  # returned, not kept
    get("huge", 11)
    assert made.count("huge") == 2
    for k in "defgh":
        get(k, 1)
    assert len(store) == 3


def test_tokenized_is_the_tokenizers_own_result_and_shared():
    tok = get_tokenizer("gpt2")
    text = "shared <|endoftext|> results"
    a = tokenized(tok, text, parse_special=False)
    assert list(a.ids) == tok.encode(text, disallowed_special=())
    assert tokenized(tok, text, parse_special=False) is a
    parsed = tokenized(tok, text, parse_special=True)
    assert 50256 in list(parsed.ids) and 50256 not in list(a.ids)


def test_a_failure_is_remembered_and_raised_again():
    calls = []

    class Failing:
        def tokenize(self, text, **kw):
            calls.append(text)
            raise ValueError("ran out of time")

    tok = Failing()
    for _ in range(3):
        with pytest.raises(ValueError, match="ran out of time"):
            tokenized(tok, "x" * 1000, parse_special=False, catch=(ValueError,))
    assert len(calls) == 1
    with pytest.raises(RuntimeError):  # not in `catch`: raised, not remembered
        tokenized(type("T", (), {"tokenize": lambda self, t, **kw: (_ for _ in ()).throw(RuntimeError())})(),
                  "y", parse_special=False, catch=(ValueError,))


def test_a_tokenizers_chunk_cache_is_bounded_in_characters(monkeypatch):
    from tokenizers.bpe.model import BPETokenizer, _ChunkCache

    monkeypatch.setattr(_ChunkCache, "CHAR_LIMIT", 5_000)
    tok = BPETokenizer("gpt4", name="t")
    tok.train("the cat sat on the mat " * 20, 300)
    words = [f" w{k:06d}" + "x" * 90 for k in range(200)]  # 200 distinct chunks of 98 characters
    text = "".join(words)
    ids = tok.encode(text)
    cache = tok._chunk_cache  # noqa: SLF001 (the test looks at the bound itself)
    assert cache.chars <= 5_000 and len(cache) <= 5_000 // 98 + 60
    assert sum(map(len, cache)) == cache.chars
    assert tok.encode(text) == ids == tok.encode_ordinary(text)  # chunks past the bound are still encoded right
