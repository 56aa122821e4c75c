"""The custom BPE engine: hand-worked vectors, fast == reference, save/load, tiktoken export."""

import tiktoken
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers import BPETokenizer, PatternError, TrainingError
from tokenizers.bpe import files as bpe_files
from tokenizers.bpe.reference import get_stats, merge
from tokenizers.core.corpus import stdlib_docstrings
from lecture import LECTURE_MERGES, LECTURE_TEXT, LECTURE_TOKENS_AFTER, LECTURE_VOCAB, minbpe_merges

TRAINERS = ["reference", "python", "fast"]
EVERY_TRAINER = ["reference", "python", "native"]  # native: the C core, skipped where it is not built
TIES = ("smallest", "first")  # BPETokenizer.train's tie rules (tokenizers.bpe.reference.TIES)


def _need(trainer, request):
    if trainer == "native":
        request.getfixturevalue("need_native")


def test_helpers_by_hand():
    assert get_stats([1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    assert get_stats([97, 97, 97]) == {(97, 97): 2}  # overlapping pairs both count
    assert merge([1, 2, 3, 1, 2], (1, 2), 4) == [4, 3, 4]
    assert merge([97, 97, 97, 97], (97, 97), 256) == [256, 256]
    assert merge([97, 97, 97], (97, 97), 256) == [256, 97]  # left to right, no overlap


@pytest.mark.parametrize("trainer", TRAINERS)
def test_wikipedia_example(trainer):
    tok = BPETokenizer("none")
    tok.train("aaabdaaabac", 256 + 3, trainer=trainer)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.decode([258, 100, 258, 97, 99]) == "aaabdaaabac"
    # tie between (256, 97) and (97, 98), both twice: the smaller pair wins
    assert list(tok.merges) == [(97, 97), (97, 98), (256, 257)]
    assert [r.count for r in tok.history] == [4, 2, 2]
    assert [r.tokens_after for r in tok.history] == [9, 7, 5]


@pytest.mark.parametrize("trainer", TRAINERS)
def test_aaab_first_merge(trainer):
    tok = BPETokenizer("none")
    tok.train("aaab", 257, trainer=trainer)
    assert list(tok.merges) == [(97, 97)]


# -- ties: issue 20 (4), the lecture's merge list ------------------------------------------------------

def test_the_lecture_vector_is_what_minbpe_computes():
    assert (len(LECTURE_TEXT), len(LECTURE_TEXT.encode("utf-8"))) == (533, 616)
    assert minbpe_merges(LECTURE_TEXT, LECTURE_VOCAB) == (LECTURE_MERGES, LECTURE_TOKENS_AFTER)


@pytest.mark.parametrize("trainer", EVERY_TRAINER)
def test_lecture_merges_in_order_with_ties_first(trainer, request):
    _need(trainer, request)
    tok = BPETokenizer("none")
    report = tok.train(LECTURE_TEXT, LECTURE_VOCAB, trainer=trainer, ties="first")
    assert [(r.pair, r.count) for r in tok.history] == LECTURE_MERGES
    assert list(tok.merges.values()) == list(range(256, 276))
    assert report.text_bytes == 616 and tok.history[-1].tokens_after == LECTURE_TOKENS_AFTER == 451
    assert len(tok.encode(LECTURE_TEXT)) == 451
    assert report.ties == "first" and report.trainer == trainer


@pytest.mark.parametrize("trainer", EVERY_TRAINER)
def test_lecture_text_with_ties_smallest_parts_from_merge_3(trainer, request):
    """The default rule (Hugging Face's, rustbpe's) agrees on the counts but not the order: merges 3 and 4
    both occur 12 times, and the smaller pair (105, 110) goes first."""
    _need(trainer, request)
    tok = BPETokenizer("none")
    report = tok.train(LECTURE_TEXT, LECTURE_VOCAB, trainer=trainer)
    pairs = [r.pair for r in tok.history]
    assert pairs[:4] == [(101, 32), (240, 159), (105, 110), (226, 128)]
    assert [r.count for r in tok.history] == [c for _, c in LECTURE_MERGES]
    assert tok.history[-1].tokens_after == 451 and report.ties == "smallest"


@pytest.mark.parametrize("trainer", EVERY_TRAINER)
def test_classic_example_under_each_tie_rule(trainer, request):
    """After aa -> Z, (Z, a) and (a, b) both occur twice: Z a comes first in the text, (a, b) is smaller.
    Either way the text ends as X d X a c, [258, 100, 258, 97, 99]."""
    _need(trainer, request)
    for ties, merges in [("first", [(97, 97), (256, 97), (257, 98)]), ("smallest", [(97, 97), (97, 98), (256, 257)])]:
        tok = BPETokenizer("none")
        tok.train("aaabdaaabac", 259, trainer=trainer, ties=ties)
        assert list(tok.merges) == merges
        assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_ties_first_follows_chunk_order_not_pair_order():
    """With a split, "first" means the first chunk in the text that holds the pair, however often each
    chunk repeats: (c, d) ties with (a, b) and comes first."""
    for trainer in ("reference", "python", "fast"):
        tok = BPETokenizer(r"\S+|\s+")
        tok.train("cd ab ab cd", 257, trainer=trainer, ties="first")
        assert list(tok.merges) == [(99, 100)]
        tok = BPETokenizer(r"\S+|\s+")
        tok.train("cd ab ab cd", 257, trainer=trainer, ties="smallest")
        assert list(tok.merges) == [(97, 98)]


def test_an_unknown_tie_rule_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="'smallest', 'first'"):
        BPETokenizer("none").train("aaab", 257, ties="largest")
    with pytest.raises(ValueError, match="ties must be"):
        BPETokenizer("none").train("aaab", 257, trainer="reference", ties="")


@pytest.mark.parametrize("ties", TIES)
def test_pair_counts_follow_the_tie_rule(ties):
    """The Lab's step view marks the top pair as "merged next": under either rule it is merge k."""
    tok = BPETokenizer("none")
    tok.train(LECTURE_TEXT, LECTURE_VOCAB, ties=ties)
    for k, record in enumerate(tok.history):
        assert tok.pair_counts_at(LECTURE_TEXT, k, ties=ties)[0] == (record.pair, record.count)


def test_a_model_trained_with_ties_first_saves_and_loads(tmp_path):
    tok = BPETokenizer("none")
    tok.train(LECTURE_TEXT, LECTURE_VOCAB, ties="first")
    model, _ = tok.save(tmp_path / "lecture")
    back = BPETokenizer.load(model)
    assert list(back.merges.items()) == list(tok.merges.items())
    assert back.encode(LECTURE_TEXT) == tok.encode(LECTURE_TEXT)


def _merges(text, vocab, pattern, trainer, ties="smallest"):
    tok = BPETokenizer(pattern)
    tok.train(text, vocab, trainer=trainer, ties=ties)
    return list(tok.merges.items()), [tuple(r) for r in tok.history]


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("pattern", ["none", "gpt2", "gpt4"])
def test_fast_equals_reference_on_real_text(pattern, ties):
    # "python" is the pure-Python fast trainer; "fast" is the C core when built (else "python")
    text = stdlib_docstrings(30_000)
    ref = _merges(text, 600, pattern, "reference", ties)
    assert _merges(text, 600, pattern, "python", ties) == ref
    assert _merges(text, 600, pattern, "fast", ties) == ref


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from("aab ba\n🙂é"), max_size=120) |
       st.text(max_size=60),
       vocab=st.integers(256, 300), pattern=st.sampled_from(["none", "gpt2", "gpt4"]), ties=st.sampled_from(TIES))
def test_fast_equals_reference_fuzzed(text, vocab, pattern, ties):
    if not text:
        return
    ref = _merges(text, vocab, pattern, "reference", ties)
    assert _merges(text, vocab, pattern, "python", ties) == ref
    assert _merges(text, vocab, pattern, "fast", ties) == ref


def test_training_text_reencodes_to_recorded_count():
    text = stdlib_docstrings(20_000)
    tok = BPETokenizer("gpt4")
    tok.train(text, 512)
    assert len(tok.encode(text)) == tok.history[-1].tokens_after


def test_bad_training_input():
    tok = BPETokenizer("gpt4")
    with pytest.raises(TrainingError, match="at least 256"):
        tok.train("hello", 100)
    with pytest.raises(TrainingError, match="empty"):
        tok.train("", 300)
    report = tok.train("aaaaaaaa", 1000)  # one repeated character: runs out of pairs
    assert report.stopped_early and report.vocab_size < 1000
    assert tok.decode(tok.encode("aaaaaaaa")) == "aaaaaaaa"
    report = BPETokenizer("none").train(b"ok \xff\xfe bytes", 260)
    assert report.replaced_bytes == 2
    with pytest.raises(PatternError, match="does not compile"):
        BPETokenizer(r"(unclosed")
    with pytest.raises(PatternError, match="empty string"):
        BPETokenizer(r"x*")


def test_pattern_that_matches_nothing_keeps_every_character():
    tok = BPETokenizer(r"\d+")  # matches no letters at all
    tok.train("abc abc abc 12 12", 270)
    assert tok.decode(tok.encode("abc xyz 12")) == "abc xyz 12"


def test_save_load_round_trip(tmp_path):
    tok = BPETokenizer("gpt4")
    tok.train(stdlib_docstrings(20_000), 400)
    tok.register_special_tokens({"<|endoftext|>": 400})
    model, vocab = bpe_files.save(tok, tmp_path / "m")
    assert model.read_text().startswith("minbpe v1\n")
    back = bpe_files.load(model)
    assert back.merges == tok.merges and back.special_tokens == tok.special_tokens and back.pattern == tok.pattern
    text = "Return the <|endoftext|> value"
    assert back.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    assert "[ ][t] -> [ t]" in vocab.read_text()


def test_corrupt_model_file_is_named():
    with pytest.raises(bpe_files.ModelFormatError, match="first line"):
        bpe_files.loads("hello\n")
    with pytest.raises(bpe_files.ModelFormatError, match="Line 4"):
        bpe_files.loads("minbpe v1\n\n0\n97 x\n")
    with pytest.raises(bpe_files.ModelFormatError, match="no earlier line"):
        bpe_files.loads("minbpe v1\n\n0\n97 999\n")


def test_tiktoken_loads_an_exported_model(tmp_path):
    tok = BPETokenizer("gpt4")
    tok.train(stdlib_docstrings(50_000), 800)
    tok.register_special_tokens({"<|endoftext|>": 800})
    ranks_file, meta = bpe_files.export_tiktoken(tok, tmp_path / "m")
    from tiktoken.load import load_tiktoken_bpe
    import json

    info = json.loads(meta.read_text())
    enc = tiktoken.Encoding("exported", pat_str=info["pattern"], mergeable_ranks=load_tiktoken_bpe(str(ranks_file)),
                            special_tokens=info["special_tokens"])
    text = stdlib_docstrings(200_000)[50_000:] + " 안녕 👋🏽 <|endoftext|>"
    assert enc.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


BLOCK_PATTERNS = ["gpt2", "gpt4", r"\w+|\s+$", r"\d+", r"[^\s]+|\s+(?!\S)|\s"]


@pytest.mark.parametrize("pattern", BLOCK_PATTERNS)
@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_block_counting_equals_whole_text(pattern, block):
    from collections import Counter

    from tokenizers.bpe import resolve_pattern
    from tokenizers.core.patterns import chunk_counts, compile_pattern, split_text
    from tokenizers.analysis.samples import varied_text

    compiled = compile_pattern(resolve_pattern(pattern))
    text = varied_text(60_000) + "   \n\n  end   "
    assert chunk_counts(text, compiled, block=block) == Counter(split_text(text, compiled))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab 1\n\t'sé👋"), max_size=200),
       block=st.integers(1, 40), pattern=st.sampled_from(BLOCK_PATTERNS))
def test_block_counting_fuzzed(text, block, pattern):
    from collections import Counter

    from tokenizers.bpe import resolve_pattern
    from tokenizers.core.patterns import chunk_counts, compile_pattern, split_text

    compiled = compile_pattern(resolve_pattern(pattern))
    assert chunk_counts(text, compiled, block=block) == Counter(split_text(text, compiled))


def test_step_views_agree_with_training():
    text = stdlib_docstrings(15_000)
    tok = BPETokenizer("gpt4")
    tok.train(text, 300)
    for k in [0, 1, 10, 43]:
        top = tok.pair_counts_at(text, k)
        assert top[0] == (tok.history[k].pair, tok.history[k].count)  # what the trainer picked
        small = tok.truncated(k)
        assert small.vocab_size == 256 + k
        expected = tok.history[k - 1].tokens_after if k else len(text.encode())
        assert len(small.encode(text)) == expected


@pytest.mark.parametrize("name", ["custom_bpe", "gpt2", "cl100k_base", "o200k_base"])
def test_encode_steps_end_in_encode(name):
    from tokenizers import get_tokenizer
    from tokenizers.core.patterns import split_text

    tok = get_tokenizer(name)
    bpe = getattr(tok, "twin", tok)
    text = " tokenization hello 안녕하세요 👋     1234567 unbelievably don't"
    got = []
    for chunk in split_text(text, bpe._compiled):
        start, steps = bpe.encode_steps(chunk)
        got.extend(steps[-1].parts if steps else start)
        for s in steps:
            assert bpe.token_bytes(s.new_id) == bpe.token_bytes(s.pair[0]) + bpe.token_bytes(s.pair[1])
    assert got == tok.encode(text)


def test_chars_and_graphemes():
    from tokenizers.analysis.characters import char_rows, describe_cluster, graphemes, invalid_utf8_spans

    rows = char_rows("é👋")
    assert [(r.code_point, r.utf8, r.n_bytes) for r in rows] == [("U+00E9", "C3 A9", 2), ("U+1F44B", "F0 9F 91 8B", 4)]
    assert rows[0].name == "LATIN SMALL LETTER E WITH ACUTE"
    family = "👨\u200d👩\u200d👧"
    assert graphemes(family + "🇰🇷e\u0301") == [family, "🇰🇷", "e\u0301"]
    assert "ZERO WIDTH JOINER" in describe_cluster(family) and "flag" in describe_cluster("🇰🇷")
    assert "combining" in describe_cluster("e\u0301")
    assert invalid_utf8_spans(b"ok\x8bok\xf0\x9f") == [(2, 3), (5, 7)]


@pytest.mark.slow
def test_a_backtracking_split_pattern_is_stopped_with_a_message():
    """(a|aa)+$ backtracks exponentially, (a+)+$ is quadratic over a long text of a's: both stop at
    the time limit that typed and uploaded patterns get, with a message, instead of running for ever."""
    import time

    from tokenizers.core.patterns import UNTRUSTED_TIMEOUT

    for pattern, text in [(r"(a|aa)+$", "a" * 5000 + "b"), (r"(a+)+$", "a" * 300_000 + "b")]:
        tok = BPETokenizer(pattern, name="typed")
        t0 = time.perf_counter()
        with pytest.raises(PatternError, match="backtracks"):
            tok.train(text, 300)
        assert time.perf_counter() - t0 < 2 * UNTRUSTED_TIMEOUT + 5


def test_hostile_model_files_are_refused_at_load():
    from tokenizers.bpe.files import ModelFormatError

    with pytest.raises(ModelFormatError, match="far beyond"):
        BPETokenizer.loads("minbpe v1\n\n1\n<x> 90000000000\n97 97\n")
    with pytest.raises(ModelFormatError, match="already made"):
        BPETokenizer.loads("minbpe v1\n\n1\n<x> 256\n97 97\n")
    with pytest.raises(ModelFormatError, match="at most"):
        BPETokenizer.loads("minbpe v1\n\n0\n" + "97 97\n" * 1_000_010)
    with pytest.raises(ModelFormatError, match="special tokens"):
        BPETokenizer.loads("minbpe v1\n\n99999999\n")


def test_ids_with_gaps_decode_and_name_the_unused_ones():
    from tokenizers import UnknownTokenIdError

    tok = BPETokenizer.loads("minbpe v1\n\n1\n<x> 900000\n97 97\n")
    assert tok.vocab_size == 900_001 and tok.decode([256, 900_000]) == "aa<x>"
    with pytest.raises(UnknownTokenIdError, match="unused"):
        tok.decode([5000])
    with pytest.raises(UnknownTokenIdError):
        tok.decode([-3])
