"""Issue 24's crafted tokenizer.json files, items 1 and 6, made here (a few kilobytes each), for the tests
(tests/test_pattern_budget.py) and the measurement (benchmarks/pattern_budget.py): a normalizer that
multiplies text, a Replace pattern that backtracks, and a Sequence of Splits."""

from __future__ import annotations

import json

ALPHABET = ["<unk>", "x", "a", "b", " ", "|"]


def tokenizer_json(*, normalizer=None, pre_tokenizer=None, added_tokens=()) -> bytes:
    """A character-level BPE over a few letters (no merges; anything else is <unk>) around the given stages."""
    return json.dumps({
        "version": "1.0", "added_tokens": list(added_tokens), "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "vocab": {c: i for i, c in enumerate(ALPHABET)}, "merges": [], "unk_token": "<unk>"},
    }).encode()


def replace(pattern: str, content: str, kind: str = "String") -> dict:
    return {"type": "Replace", "pattern": {kind: pattern}, "content": content}


def multiplying_file(copies: int = 1000, steps: int = 2, kind: str = "String") -> bytes:
    """Issue 24 item 1: `steps` Replace steps, each turning "x" into `copies` x's (2.3 KB at the defaults:
    each x typed would become copies ** steps characters)."""
    return tokenizer_json(normalizer={"type": "Sequence", "normalizers": [replace("x", "x" * copies, kind)] * steps})


def backtracking_replace_file(pattern: str = r"(a|aa)+$") -> bytes:
    """Issue 24 item 6: a Replace normalizer whose pattern backtracks exponentially ("a" * 49 + "b": hours)."""
    return tokenizer_json(normalizer=replace(pattern, "", "Regex"))


def split_sequence_file(patterns: list[str]) -> bytes:
    """Issue 24 item 6: a Sequence of Split pre-tokenizers (each runs on every chunk the ones before made)."""
    return tokenizer_json(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": p}, "behavior": "Isolated", "invert": False} for p in patterns]})
