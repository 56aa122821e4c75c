"""The pure-Python BPE over OpenAI's ranks (BPETokenizer.from_tiktoken) gives tiktoken's ids."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers.vocabularies import from_tiktoken
from tokenizers import BPETokenizer, get_tokenizer
from tokenizers.analysis.samples import varied_text

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]
MEGABYTE = varied_text(1_000_000)


def test_sample_is_a_varied_megabyte():
    data = MEGABYTE.encode()
    assert len(data) >= 1_000_000
    assert "def " in MEGABYTE and any(0xAC00 <= ord(c) <= 0xD7A3 for c in MEGABYTE)
    assert "👨‍👩‍👧‍👦" in MEGABYTE and "    " in MEGABYTE


@pytest.mark.parametrize("name", ENCODINGS)
def test_megabyte_parity(name):
    twin = from_tiktoken(name)
    assert twin.encode(MEGABYTE, disallowed_special=()) == get_tokenizer(name).encode(MEGABYTE, disallowed_special=())


@pytest.mark.parametrize("name", ENCODINGS)
def test_special_tokens_parity(name):
    tok = get_tokenizer(name)
    text = "x<|endoftext|>y <|endoftext|>"
    assert tok.twin.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_fuzz_parity(text):
    for name in ENCODINGS:
        tok = get_tokenizer(name)
        assert tok.twin.encode(text, disallowed_special=()) == tok.encode(text, disallowed_special=())
        # with tiktoken's default (every special refused), both refuse the same texts
        assert refuses(tok.twin.encode, text) == refuses(tok.encode, text)


def refuses(encode, text) -> bool:
    try:
        encode(text)
    except ValueError:
        return True
    return False


def test_recovered_merges_encode_like_tiktoken():
    """Encoding by recovered merges (pair -> id, minbpe's rule) equals tiktoken's byte-rank rule."""
    tok = get_tokenizer("gpt2")
    twin = from_tiktoken("gpt2")
    merges = twin.merges.materialize()
    assert len(merges) == 50000  # every non-byte token of GPT-2 has two parents
    # a plain merges dict, and no whole-chunk shortcut: merges alone must get there
    by_pairs = BPETokenizer.from_model(vocab=dict(twin.vocab), merges=dict(merges.items()), pattern=twin.pattern,
                                       name="pairs", whole_chunk_shortcut=False)
    sample = MEGABYTE[:200_000]
    assert by_pairs.encode(sample) == tok.encode(sample)


@pytest.mark.parametrize("name", ENCODINGS)
def test_sampled_tokens_unfold_to_their_bytes(name):
    import random

    tok = get_tokenizer(name)
    ids = random.Random(1).sample(range(256, len(tok.encoding._mergeable_ranks)), 2000)
    for i in ids:
        p = tok.merge_parents(i)
        assert p is not None and p[0] < i and p[1] < i
        assert tok.token_bytes(p[0]) + tok.token_bytes(p[1]) == tok.token_bytes(i)


def _check_tree(tok, node) -> bytes:
    """Leaves of a merge tree, concatenated; asserts each child is older (lower id) than its parent."""
    if not node["children"]:
        assert tok.merge_parents(node["id"]) is None
        return node["bytes"]
    left, right = node["children"]
    assert left["id"] < node["id"] and right["id"] < node["id"]
    return _check_tree(tok, left) + _check_tree(tok, right)


def test_every_token_of_a_trained_vocabulary_unfolds_to_its_bytes():
    tok = get_tokenizer("custom_bpe")
    for i in range(256, max(tok.vocab) + 1):
        assert _check_tree(tok, tok.merge_tree(i)) == tok.token_bytes(i)


def test_5000_sampled_cl100k_tokens_unfold_to_their_bytes():
    import random

    tok = get_tokenizer("cl100k_base")
    ids = random.Random(7).sample(range(256, len(tok.encoding._mergeable_ranks)), 5000)
    for i in ids:
        tree = tok.merge_tree(i)
        leaves = _check_tree(tok, tree)
        assert leaves == tok.token_bytes(i)
