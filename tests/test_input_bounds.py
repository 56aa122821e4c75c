"""service/limits.py, the bounds on one visitor's input: cuts fall between characters, numbers are
clamped."""

from __future__ import annotations

import math

import pytest

from service import limits


@pytest.mark.parametrize("text", ["a" * 50, "é" * 50, "한" * 50, "👩‍👩‍👧" * 10, "a" * 9 + "€" * 20])
@pytest.mark.parametrize("limit", [1, 10, 11, 12, 13, 40])
def test_cut_text_ends_between_characters_within_the_limit(text, limit):
    cut, size = limits.cut_text(text, limit)
    assert text.startswith(cut)
    assert len(cut.encode("utf-8")) <= limit
    # the longest such start: one more character would be over
    if cut != text:
        assert len(text[: len(cut) + 1].encode("utf-8")) > limit
        assert size == len(text.encode("utf-8"))


def test_cut_text_leaves_a_short_text_alone():
    assert limits.cut_text("hello", 100) == ("hello", -1)
    assert limits.cut_text("hello", 5)[0] == "hello"


@pytest.mark.parametrize("value,expected", [(5, 5), ("7", 7), (7.9, 7), (-3, 1), (10 ** 30, 100), (2 ** 63, 100),
                                            (math.nan, 42), (math.inf, 42), (-math.inf, 42), (None, 42),
                                            ("x", 42), ("²", 42)])
def test_clamp_int(value, expected):
    assert limits.clamp_int(value, 1, 100, 42) == expected
