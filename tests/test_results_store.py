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


def test_tokenized_is_the_tokenizers_own_result_and_shared(monkeypatch):
    tok = get_tokenizer("gpt2")
    text = "shared <|endoftext|> results"
    calls = []
    own = tok.tokenize
    monkeypatch.setattr(tok, "tokenize", lambda t, **kw: calls.append(t) or own(t, **kw))
    a = tokenized(tok, text, parse_special=False)
    assert list(a.ids) == tok.encode(text, disallowed_special=())
    b = tokenized(tok, text, parse_special=False)  # from the store: the same tokens, made once
    assert calls == [text]
    assert b.tokenizer is tok and b.text == text and b.note == a.note
    assert (list(b.ids), list(b.byte_starts), list(b.byte_ends)) == (list(a.ids), list(a.byte_starts), list(a.byte_ends))
    assert [t.bytes for t in b] == [t.bytes for t in a]
    parsed = tokenized(tok, text, parse_special=True)
    assert 50256 in list(parsed.ids) and 50256 not in list(a.ids)


def _uploaded():
    """A visitor's own tokenizer, as Compare's upload panel makes one (tokenizers.load_user_file)."""
    from tokenizers import load_user_file
    from tests.upload_samples import minbpe_file

    return load_user_file("mine.model", minbpe_file())


def test_the_store_does_not_keep_a_visitors_tokenizer_alive():
    """Issue 24 (3b): a stored result held its TokenList, which holds the tokenizer, so an uploaded
    tokenizer stayed in memory (costed as a few tokens) for as long as any of its entries did, after its
    visit ended. The store keeps ids and offsets only, and drops a tokenizer's entries when it is freed."""
    import gc
    import weakref

    from service.cache import results_store

    store = results_store()
    gc.collect()  # what earlier tests left to collect leaves the store now, not during this test's count
    before_len, before_cost = len(store), store.cost
    tok = _uploaded()
    texts = ["hi", "the tokens of a visitor", "ünïcode 한국어 👋🏽"]
    ids = [list(tokenized(tok, t, parse_special=False).ids) for t in texts]
    assert [list(tokenized(tok, t, parse_special=False).ids) for t in texts] == ids  # hits
    assert len(store) == before_len + 3
    assert store.cost == before_cost + sum(len(i) + len(t) for i, t in zip(ids, texts))
    gone = weakref.ref(tok)
    del tok
    gc.collect()
    assert gone() is None  # nothing the store holds keeps the tokenizer
    assert (len(store), store.cost) == (before_len, before_cost)  # and its entries left with it


def test_a_freed_tokenizers_id_never_finds_its_old_results():
    """An entry is keyed by id(tok); ids are reused once an object is freed. The entries go first."""
    import gc

    from service.cache import results_store

    seen = set()
    for k in range(20):
        tok = _uploaded()
        seen.add(id(tok))
        toks = tokenized(tok, "same text", parse_special=False)
        assert toks.tokenizer is tok and list(toks.ids) == tok.encode("same text")
        del tok, toks
        gc.collect()
    assert not any(key[0] in seen for key in results_store().items if isinstance(key, tuple))


def test_an_owner_that_cannot_be_weakly_referenced_is_kept_with_its_entry():
    store = BoundedStore(max_cost=100, max_entries=10)
    owner = (1, 2)  # a tuple: no weak references
    assert store.get(("k", id(owner)), lambda: "v", lambda v: 1, owner=owner) == "v"
    assert store.items[("k", id(owner))][3] is owner and store.get(("k", id(owner)), lambda: "w", len) == "v"


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
