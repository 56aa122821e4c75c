"""An edit encoded again only where it changed (issue 22, the server's path): Tokenizer.tokenize_edit and
tokenizers/core/edits.py, held equal to the reference, Tokenizer.tokenize of the whole text, token by
token with byte offsets, for every registry tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TRICKY_TEXTS
from tokenizers import REGISTRY, get_tokenizer
from tokenizers.core import edits

# the registry's tokenizers (every one the browser runs too, and the server's path serves a pause, a paste and a
# visitor's own tokenizer): every one is line-local but SentencePiece, whose leading ▁ belongs to the text's start
LINE_LOCAL = ("custom_bpe", "gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "llama3", "mistral_tekken", "qwen",
              "deepseek_v3", "claude_legacy", "whisper")
PROSE = ("The lighthouse keeper counted the ships.\nEach night she wrote their names: 12 in May, 7 in June.\n"
         "안녕하세요 👋\ndef f(x):\n    return x ** 2\n")


def tok_of(name):
    try:
        return get_tokenizer(name)
    except Exception as e:  # noqa: BLE001 - a vocabulary this machine has not provisioned
        pytest.skip(f"{name}: {e}")


def options(parse: bool) -> dict:
    return {"allowed_special": "all"} if parse else {"disallowed_special": ()}


def same(got, ref) -> None:
    assert got.text == ref.text
    assert list(got.ids) == list(ref.ids)
    assert list(zip(got.byte_starts, got.byte_ends)) == list(zip(ref.byte_starts, ref.byte_ends))
    assert got.note == ref.note
    assert [t.char_span for t in got] == [t.char_span for t in ref]


def test_which_tokenizers_are_line_local():
    for name in REGISTRY:
        tok = tok_of(name)
        assert tok.line_local == (name in LINE_LOCAL), name


def edited(text: str, at: int, delete: int, insert: str) -> str:
    return text[:at] + insert + text[at + delete:]


@pytest.mark.parametrize("name", LINE_LOCAL)
@pytest.mark.parametrize("parse", [False, True])
def test_tricky_edits_equal_the_whole_text(name, parse):
    """Each tricky text typed into a long text, at its start, middle and end, then deleted again."""
    tok = tok_of(name)
    base = PROSE * 8
    for tricky in [t for t in TRICKY_TEXTS if t] + ["\ud800 lone \udfff", "<|endoftext|>\n<|endoftext|>x"]:
        for at in (0, len(base) // 2, len(base) - 1, len(base)):
            before = tok.tokenize(base, **options(parse))
            after = edited(base, at, 0, tricky)
            got = tok.tokenize_edit(before, after, **options(parse))
            same(got, tok.tokenize(after, **options(parse)))
            back = tok.tokenize_edit(got, base, **options(parse))  # and deleted again
            same(back, before)


ALPHABET = st.sampled_from(list("ab Z\n\n\t\r19.,'-/") + ["é", "e\u0301", "\u094d", "한", "日本", "👋", "👨‍👩‍👧",
                                                         "\ufdfa", "ﬁ", "Σ", "<|endoftext|>", "<｜fim▁hole｜>",
                                                         "\n\n", "  ", "\ud800"])
EDITS = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), st.lists(ALPHABET, max_size=4).map("".join)),
                 min_size=1, max_size=6)


@pytest.mark.parametrize("name", LINE_LOCAL)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.lists(ALPHABET, max_size=40).map("".join), edit_list=EDITS, parse=st.booleans())
def test_random_edits_equal_the_whole_text(name, start, edit_list, parse):
    tok = tok_of(name)
    text = PROSE * 2 + start + PROSE
    before = tok.tokenize(text, **options(parse))
    for where, delete, insert in edit_list:
        text = edited(text, int(where * len(text)), delete, insert)
        got = tok.tokenize_edit(before, text, **options(parse))
        same(got, tok.tokenize(text, **options(parse)))
        before = got


def test_an_edit_encodes_only_the_lines_it_touched():
    """The stretch tokenized again is the edited line (between the line cuts around it), not the text."""
    tok = tok_of("deepseek_v3")
    text = PROSE * 50
    before = tok.tokenize(text, disallowed_special=())
    seen = []
    real = tok._tokenize

    def spy(part, specials):
        seen.append(part)
        return real(part, specials)

    tok._tokenize = spy
    try:
        at = text.index("7 in June", len(text) // 2)
        after = edited(text, at, 1, "8")
        got = tok.tokenize_edit(before, after, disallowed_special=())
    finally:
        del tok._tokenize
    same(got, tok.tokenize(after, disallowed_special=()))
    assert seen == ["Each night she wrote their names: 12 in May, 8 in June.\n"]


def test_sentencepiece_and_other_tokenizers_encode_the_whole_text():
    tok = tok_of("mistral_sp")
    before = tok.tokenize(PROSE * 3)
    after = PROSE * 3 + "x"
    same(tok.tokenize_edit(before, after), tok.tokenize(after))


def test_a_tokenizer_of_another_pattern_is_not_line_local():
    from tokenizers.bpe.model import BPETokenizer

    assert BPETokenizer("gpt4").line_local
    assert not BPETokenizer(r"[\s\S]{1,4}").line_local  # a chunk may hold a newline and what follows it
    assert not BPETokenizer(None).line_local
    tok = BPETokenizer("gpt4")
    tok.register_special_tokens({"<|line|>\n": 256})
    assert not tok.line_local


@pytest.mark.parametrize("a, b, want", [("", "", (0, 0)), ("abc", "abc", (3, 0)), ("abcX", "abcYZ", (3, 0)),
                                        ("xbc", "ybc", (0, 2)), ("aa", "aaa", (2, 0)), ("abXcd", "abcd", (2, 2)),
                                        ("日本語", "日本X語", (2, 1))])
def test_common_affixes(a, b, want):
    assert edits.common_affixes(a, b) == want


@pytest.mark.parametrize("text, c, want", [("a\nb", 2, True), (" \nb", 2, False), ("a\n b", 2, False),
                                           ("a\r\nb", 3, False), ("a\n", 2, False), ("\nb", 1, False),
                                           ("日\n本", 2, True), ("ab", 1, False)])
def test_line_cut(text, c, want):
    assert edits.is_line_cut(text, c) == want


def test_normalized_spans_of_a_line_do_not_depend_on_another_line():
    """Qwen normalizes (NFC). Its spans on a line already in NFC were the tokens' own bytes when the whole
    text was in NFC, and a space and the mark after it shared one span when another line was not: the
    first line's spans changed when the second line did."""
    tok = tok_of("qwen")
    first = "ab \u094d\u0937c\n"
    plain, composed = tok.tokenize(first + "zz"), tok.tokenize(first + "ze\u0301")
    n = len(tok.tokenize(first))
    spans = [t.byte_span for t in plain[:n]]
    assert spans == [t.byte_span for t in composed[:n]]
    assert (2, 3) in spans  # the space alone


def test_the_store_reuses_the_visitors_earlier_text():
    """service/cache.py: a keystroke's text, tokenized from the earlier text in the store, equals the
    whole text's tokens."""
    from service import cache

    tok = tok_of("qwen")
    text = PROSE * 40
    cache.tokenized(tok, text, parse_special=False)
    calls = []
    real = tok.tokenize_edit

    def spy(before, after, **kw):
        calls.append(before.text)
        return real(before, after, **kw)

    tok.tokenize_edit = spy
    try:
        after = edited(text, len(text) // 3, 0, "q")
        got = cache.tokenized(tok, after, parse_special=False)
    finally:
        del tok.tokenize_edit
    assert calls == [text]
    same(got, tok.tokenize(after, disallowed_special=()))
