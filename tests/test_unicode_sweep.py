"""Every code point, in contexts that expose how a split pattern classes it (letter, digit, space,
upper or lower case, contraction), gives tiktoken's ids in this library's reproduction of OpenAI's
encodings. The pinned `regex` module must know the same Unicode version as tiktoken's Rust regex
engine (16.0 for tiktoken 0.14): a newer one classes newly assigned letters differently (17,480
code points, U+0558 among them, differed with regex 2026.11.15)."""

import pytest

from tokenizers import get_tokenizer

CONTEXTS = ["{c}'s", "A{c}a", "1{c}2", " {c}\n", "{c}{c}x "]
BLOCK = 1 << 15  # code points per comparison


def code_points():
    return [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def test_the_example_from_the_issue():
    assert get_tokenizer("cl100k_base").twin.encode_ordinary("\u0558's") == [145, 246, 6, 82]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_every_code_point_in_context(name):
    tok = get_tokenizer(name)
    ours, theirs = tok.twin, tok.encoding
    cps = code_points()
    differ = []
    for ctx in CONTEXTS:
        for k in range(0, len(cps), BLOCK):
            block = cps[k:k + BLOCK]
            text = "".join(ctx.format(c=chr(c)) for c in block)
            if ours.encode_ordinary(text) != theirs.encode_ordinary(text):
                # find the code points to name them
                differ += [c for c in block if ours.encode_ordinary(ctx.format(c=chr(c)))
                           != theirs.encode_ordinary(ctx.format(c=chr(c)))][:20]
    assert not differ, f"{name}: {len(differ)} code points differ, e.g. " + ", ".join(f"U+{c:04X}" for c in differ[:10])
