"""Exact token ids from the course material, checked against every path that produces them."""

import pytest

from tokenizers import get_tokenizer

VECTORS = [
    ("gpt2", "hello world", [31373, 995]),
    ("gpt2", "    hello world!!!", [220, 220, 220, 23748, 995, 10185]),
    ("cl100k_base", "hello world", [15339, 1917]),
    ("cl100k_base", "    hello world!!!", [262, 24748, 1917, 12340]),
    ("cl100k_base", "안녕하세요 👋 (hello in Korean!)",
     [31495, 230, 75265, 243, 92245, 62904, 233, 320, 15339, 304, 16526, 16715]),
]


@pytest.mark.parametrize("name,text,ids", VECTORS)
def test_openai_vectors(name, text, ids):
    tok = get_tokenizer(name)
    assert tok.encode(text) == ids
    assert [t.id for t in tok.tokenize(text)] == ids
    assert tok.decode(ids) == text


@pytest.mark.parametrize("name,text,ids", VECTORS)
def test_pure_python_twin_matches(name, text, ids):
    """The pure-Python BPE over tiktoken's ranks gives the same ids as tiktoken."""
    assert get_tokenizer(name).twin.encode(text) == ids


def test_sentencepiece_byte_fallback_vector():
    tok = get_tokenizer("mistral_sp")
    toks = tok.tokenize("hello 안녕하세요")
    assert [t.piece for t in toks] == ["▁hell", "o", "▁", "안", "<0xEB>", "<0x85>", "<0x95>", "하", "세", "요"]
    assert [t.byte_fallback for t in toks] == [False] * 4 + [True] * 3 + [False] * 3
    assert b"".join(t.bytes for t in toks[4:7]) == "녕".encode()
    assert tok.vocab_size == 32000


def test_merge_parents_unfold_to_token_bytes():
    for name, tid in [("gpt2", 31373), ("cl100k_base", 15339), ("o200k_base", 24912)]:
        tok = get_tokenizer(name)
        tree = tok.merge_tree(tid)

        def leaves(node):
            return [node["bytes"]] if not node["children"] else leaves(node["children"][0]) + leaves(node["children"][1])

        def ranks_ok(node):
            return all(c["id"] < node["id"] and ranks_ok(c) for c in node["children"])

        assert b"".join(leaves(tree)) == tok.token_bytes(tid) == b"hello"
        assert all(len(b) == 1 for b in leaves(tree))
        assert ranks_ok(tree)
