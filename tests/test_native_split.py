"""The C pre-tokenizer (tokenizers/bpe/native/pretok.c) against `regex`: for every mode of the one table,
tokenizers.core.patterns.CUTTERS (GPT-2 in each spelling, GPT-4, o200k_base, Llama 3, Qwen, Tekken, and
DeepSeek V3's Sequence of three Isolated Splits), it must cut every text into exactly the chunks the
library's Python path gives (split_text, or the pre-tokenizer Sequence). Skipped when the native core is
not built, except where TOKEN_LENS_REQUIRE_NATIVE=1 (then it must be there)."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers.bpe import native

from tokenizers.bpe.native import api
from tokenizers.core.patterns import CUTTERS, cutter_of, split_text
from tokenizers.pipeline.pre_tokenizers import Sequence, Split
from tokenizers.analysis.samples import mixed_scripts, stdlib_source, varied_text
from conftest import TRICKY_TEXTS


def reference(split):
    """The library's Python cut for one of CUTTERS' spellings: `regex` over a pattern (split_text), or the
    pre-tokenizer Sequence of Isolated Splits for a tuple of patterns."""
    if isinstance(split, str):
        compiled = regex.compile(split)
        return lambda text: split_text(text, compiled)
    seq = Sequence(tuple(Split(p) for p in split))
    return lambda text: seq.split(text)


SPELLINGS = [(mode, sp) for mode, spellings in CUTTERS.items() for sp in spellings]  # every one the table lists
PATTERNS = {mode: reference(spellings[0]) for mode, spellings in CUTTERS.items()}   # each mode's first, for sweeps
MODES = sorted(PATTERNS)


pytestmark = pytest.mark.usefixtures("need_native")


def assert_same_split(mode: str, text: str) -> None:
    """The C chunks of `text` equal the regex ones; on failure, show where they first differ."""
    want = PATTERNS[mode](text)
    got = api.split(mode, text)
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"{mode}: chunk {i} differs\n  C:     {got[max(0, i - 3):i + 3]!r}\n"
                    f"  regex: {want[max(0, i - 3):i + 3]!r}")


def assert_same_ends(mode: str, text: str) -> None:
    """As assert_same_split, for large texts: compares byte offsets (no list of C strings to build),
    and only builds the readable message on failure."""
    want = list(itertools.accumulate(map(len, map(str.encode, PATTERNS[mode](text)))))
    if api.split_ends(mode, text.encode("utf-8")) != want:
        assert_same_split(mode, text)  # says where
        pytest.fail(f"{mode}: byte ends differ but chunks agree?")  # not reached


# --- (a) fuzz over an alphabet rich in the cases the patterns treat specially ---------------------

PIECES = [
    # whitespace: ASCII, Unicode White_Space, and what regex's \s is NOT (U+001C..U+001F)
    " ", "  ", "   ", "\t", "\r", "\n", "\r\n", "\n\n", "\x0b", "\x0c", "\x85", "\xa0", "\u1680",
    "\u2000", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\x1c", "\x1f",
    # apostrophes and contractions, in all cases and with the letters (?i) folds onto s/k
    "'", "'", "’", "'s", "'S", "'t", "'D", "'m", "'ll", "'LL", "'lL", "'ve", "'VE", "'re", "'Re",
    "'ſ", "s", "S", "ſ", "K", "\u212a", "l", "L", "v", "V", "r", "R", "e", "E", "d", "m", "t", "T",
    # letters, numbers (ASCII, Arabic-Indic, superscript, Roman numeral, fraction, astral digit)
    "a", "Z", "word", "é", "e\u0301", "ß", "İ", "ǅ", "ʰ", "0", "7", "123", "٣", "²", "Ⅻ", "½", "𝟘",
    "〇", "𐍈", "𝒜",
    # other: punctuation, symbols, marks, controls, joiners, format characters, private use
    "!", ".", ",", "-", "(", ")", "\"", "#", "_", "$", "€", "<|endoftext|>", "\x00", "\x7f",
    "\u00ad", "\u200b", "\u200d", "\ufe0f", "\ufeff", "\u0301", "\u094d", "\ue000", "\U0010ffff",
    # scripts and emoji
    "안녕", "한", "中", "日本", "ひ", "क्ष", "👋", "👍🏽", "👨‍👩‍👧", "🇫🇷",
    # DeepSeek V3's CJK ranges and their edges (marks, symbols, punctuation and unassigned inside them)
    "カタカナ", "\u30a0", "・", "ー", "\u3099", "\u309b", "\u3040", "\u3097", "龥", "\u9fa6", "\u4dff", "\u30ff",
    "(hello", "#x", "_init", "@A", "\\n", "'S", "+1",
]
TEXTS = st.lists(st.sampled_from(PIECES) | st.characters(exclude_categories=("Cs",)),
                 max_size=40).map("".join)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_fuzz(mode, text):
    assert_same_split(mode, text)


@pytest.mark.parametrize("mode,split", SPELLINGS, ids=[f"{m}-{k}" for k, (m, _) in enumerate(SPELLINGS)])
def test_every_spelling_in_the_table_is_its_modes_cut(mode, split):
    """Each spelling CUTTERS lists (tiktoken's GPT-2 and Whisper's beside the original) cuts as its mode, on
    the tricky texts, a seeded fuzz and the short strings' worst cases; and cutter_of finds its mode."""
    import random

    assert cutter_of(split) == mode
    cut = reference(split)
    rng = random.Random(11)
    texts = [*TRICKY_TEXTS, *("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 30))) for _ in range(3000))]
    for text in texts:
        assert api.split(mode, text) == cut(text), repr(text)


# --- (b) real text ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_tricky_texts(mode):
    for text in TRICKY_TEXTS:
        assert_same_split(mode, text)


@pytest.mark.parametrize("mode", MODES)
def test_real_text(mode):
    # prose (stdlib docstrings), Python source, then many scripts, emoji and whitespace runs
    assert_same_ends(mode, varied_text(1_500_000))
    assert_same_ends(mode, stdlib_source(300_000))
    assert_same_ends(mode, mixed_scripts(200_000, seed=7))


# --- (c) every code point, alone and in company ----------------------------------------------------

def _code_points(dense_only: bool) -> list[str]:
    """All code points but the surrogates; with dense_only, above U+3FFFF (where, but for plane 14,
    everything is unassigned or private use, i.e. "other") only a sample of every 97th."""
    out = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if dense_only and cp > 0x3FFFF and not 0xE0000 <= cp <= 0xE0FFF and cp % 97 and cp != 0x10FFFF:
            continue
        out.append(chr(cp))
    return out


# Each context is a format: the code point in place of {}, the formatted pieces then joined; so in
# " {}" every code point has a space before it and after it (the next piece's).
CHEAP_CONTEXTS = ["{}", "{}{}", "'{}"]  # every code point; few chunks, as like classes merge
CONTEXTS = [" {}", "\n{}", "a{}", "1{}", "' {}", "\r\n{}{}",
            "{}a", "中{}", "-{}"]  # the dense set; the last three: a lead before a word, CJK and punctuation beside
CONTRACTION_CONTEXTS = ["'{}l", "'l{}", "'{}e", "'v{}"]  # every case-insensitive letter: GPT-4, Llama 3, Qwen
O200K_CONTRACTION_CONTEXTS = ["x'{}l", "X'l{}", "a'{}e", "A'v{}", "ʰ'{}", "é\u0301'{}"]  # after a word


@pytest.fixture(scope="module")
def code_points():
    return {False: _code_points(False), True: _code_points(True)}


def _check_context(mode, fmt, cps):
    text = "".join(fmt.format(c, c) for c in cps)
    step = 1 << 18  # in pieces, so that a failure message points somewhere near
    for i in range(0, len(text), step):
        assert_same_ends(mode, text[i:i + step])


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_every_code_point(mode, code_points):
    for fmt in CHEAP_CONTEXTS:
        _check_context(mode, fmt, code_points[False])
    for fmt in CONTEXTS:
        _check_context(mode, fmt, code_points[True])


def test_every_code_point_in_contractions(code_points):
    for fmt in CONTRACTION_CONTEXTS:
        for mode in ("gpt4", "llama3", "qwen"):
            _check_context(mode, fmt, code_points[True])
    for fmt in O200K_CONTRACTION_CONTEXTS:
        for mode in ("o200k", "tekken"):
            _check_context(mode, fmt, code_points[True])


def test_each_code_point_alone(code_points):
    # one text each, as end-of-text rules differ from mid-text ones: every 1- and 2-byte character
    # and the first 3-byte ones, the other UTF-8 length edges, and ſ and the Kelvin sign
    edges = [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF, 0x17F, 0x212A]
    for cp in edges + list(range(0, 0x3100)):
        for mode in MODES:
            assert_same_split(mode, chr(cp))


# --- (d) whitespace at the end of the text, before a final newline, and the like --------------------

def test_short_strings_exhaustive():
    """Every string of up to 4 characters over a small alphabet, and up to 6 over whitespace and
    one letter and one "other": `$`, (?!\\S) and \\s*[\\r\\n] all look at what follows the run."""
    small = [" ", "\t", "\n", "\r", "\xa0", "a", "1", ".", "'", "s"]
    spaces = [" ", "\n", "\r", "\t", "a", "."]
    for alphabet, longest in ((small, 4), (spaces, 6)):
        for k in range(1, longest + 1):
            for combo in itertools.product(alphabet, repeat=k):
                text = "".join(combo)
                for mode in MODES:
                    want = PATTERNS[mode](text)
                    if api.split(mode, text) != want:
                        assert_same_split(mode, text)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("text", [
    "x  ", "x \n", "x\n ", "x  \n", "x \n\n", "x\n\n", "x \r\n", "x\r\n ", " ", "\n", "  \n",
    "a \n b", "a  \n\n  b", "a\t\tb", "a \u3000b", "a\u3000 b", "a\n\n\nb", "a\r\n\r\nb", "}\n\n",
    " }\n\n x", "a   ", "a   \n", "a\u2028", "a \u2028", "a\x85b", "\xa0a", "'s'S'ſ'K'\u212aLL",
    "1234567", "12345 678", "١٢٣٤", "x²³⁴⁵", "ⅫⅫⅫⅫ", "don't I'LL WE'VE they're", "’s ’ll",
])
def test_edge_cases(mode, text):
    assert_same_split(mode, text)


def test_malformed_utf8_does_not_crash():
    # not valid input, but each bad byte must be cut as one "other" byte, never read past the end
    for data in [b"\xff", b"a\x80b", b"\xe2\x82", b"\xf0\x9f\x98", b"'\xc5", b" \xc0\xaf", b"\xed\xa0\x80"]:
        for mode in MODES:
            ends = api.split_ends(mode, data)
            assert ends and ends[-1] == len(data) and ends == sorted(set(ends))


def test_split_contract():
    """tl_split's own rules (tl_native.h): the count even when `cap` is smaller, -1 for an unknown
    mode, nothing for empty text."""
    import ctypes

    lib = native.load()
    data = "a b c d".encode()
    ends = (ctypes.c_int64 * 8)(*[-7] * 8)
    assert lib.tl_split(1, data, len(data), ends, 2) == 4
    assert list(ends[:3]) == [1, 3, -7]
    assert lib.tl_split(2, data, 0, ends, 8) == 0
    assert lib.tl_split(max(native.MODES.values()) + 1, data, len(data), ends, 8) == -1
    assert lib.tl_split(0, data, len(data), ends, 8) == -1
