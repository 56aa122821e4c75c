"""The C core (tokenizers/bpe/native) against its pure-Python twins: the same merges, the same training
record, the same ids. Skipped when the core is not built, except where TOKEN_LENS_REQUIRE_NATIVE=1
(CI sets it: there the core must build and load)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers.vocabularies import from_tiktoken
from tokenizers import BPETokenizer
from tokenizers.bpe import files as bpe_files
from tokenizers.core.patterns import GPT2_PATTERN, GPT4_PATTERN, chunk_counts, compile_pattern
from tokenizers.analysis.samples import mixed_scripts, stdlib_source, varied_text
from conftest import ROOT, TRICKY_TEXTS



pytestmark = pytest.mark.usefixtures("need_native")


def _train(text, vocab, pattern, trainer, ties="smallest"):
    tok = BPETokenizer(pattern)
    report = tok.train(text, vocab, trainer=trainer, ties=ties)
    return tok, report


def _record(tok, report):
    return (list(tok.merges.items()), [tuple(r) for r in tok.history], report.chunks,
            report.unique_chunks, report.vocab_size, report.stopped_early)


CUSTOM = r"\p{L}+|\p{N}|[^\p{L}\p{N}]+"


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["gpt4", "gpt2", CUSTOM])
def test_native_trainer_equals_python_on_real_text(pattern):
    text = varied_text()[:400_000]
    nat = _record(*_train(text, 3000, pattern, "native"))
    py = _record(*_train(text, 3000, pattern, "python"))
    assert nat == py
    assert len(nat[0]) == 3000 - 256


@pytest.mark.slow
def test_native_trainer_equals_reference_without_split():
    text = stdlib_source(20_000)
    assert _record(*_train(text, 400, "none", "native")) == _record(*_train(text, 400, "none", "reference"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from("aab ba\n🙂é'sS1"), min_size=1, max_size=150) |
       st.text(min_size=1, max_size=60),
       vocab=st.integers(256, 320), pattern=st.sampled_from(["none", "gpt2", "gpt4"]),
       ties=st.sampled_from(["smallest", "first"]))
def test_native_trainer_fuzzed(text, vocab, pattern, ties):
    nat = _record(*_train(text, vocab, pattern, "native", ties))
    assert nat == _record(*_train(text, vocab, pattern, "reference", ties))


@pytest.mark.parametrize("pattern", ["none", "gpt4", CUSTOM])
def test_native_trainer_with_ties_first_equals_python_and_reference(pattern):
    """Ties "first" on real text: a pair's first occurrence moves as merges eat it (and, without a split,
    the one chunk is walked again to find the next); every trainer must agree merge for merge."""
    text = varied_text()[:20_000]
    nat = _record(*_train(text, 700, pattern, "native", "first"))
    assert nat == _record(*_train(text, 700, pattern, "python", "first"))
    assert nat == _record(*_train(text, 700, pattern, "reference", "first"))


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN])
def test_native_chunk_counts_equal_regex(pattern):
    from tokenizers.bpe.native import api

    text = mixed_scripts(30_000) + "".join(TRICKY_TEXTS) + stdlib_source(100_000)
    mode = api.mode_of(pattern)
    c = api.Chunks.from_text(text.encode("utf-8"), mode)
    expected = {k.encode("utf-8"): v for k, v in chunk_counts(text, compile_pattern(pattern)).items()}
    assert dict(c.items()) == expected
    assert c.total == sum(expected.values()) and c.distinct == len(expected)


def test_progress_is_reported_and_its_errors_raised():
    seen = []
    tok = BPETokenizer("gpt4")
    tok.train(varied_text()[:50_000], 256 + 400, trainer="native", progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (400, 400) and seen == sorted(seen) and len(seen) >= 100

    def stop(done, total):
        if done >= 10:
            raise KeyboardInterrupt("stop")

    with pytest.raises(KeyboardInterrupt):
        tok.train(varied_text()[:50_000], 256 + 400, trainer="native", progress=stop)


def test_stops_early_like_python():
    for text in ["aaaaaaaaaa", "ab ab ab", "x"]:
        assert _record(*_train(text, 1000, "gpt4", "native")) == _record(*_train(text, 1000, "gpt4", "python"))


@pytest.fixture(scope="module")
def trained():
    out = {}
    for pattern in ("gpt4", "gpt2", "none"):
        tok = BPETokenizer(pattern)
        tok.train(varied_text()[:200_000] if pattern != "none" else stdlib_source(30_000), 1500)
        out[pattern] = tok
    return out


@pytest.mark.parametrize("pattern", ["gpt4", "gpt2", "none"])
def test_native_encode_equals_python(trained, pattern):
    tok = trained[pattern]
    assert tok._native_encoder() is not None, "the C encoder should serve this model"
    texts = [*TRICKY_TEXTS, varied_text()[200_000:260_000], mixed_scripts(20_000),
             " " * 5000 + "x", "a" * 3000, "\n" * 70 + "word", "ſ'S 'LL 'Ve" * 30]
    for text in texts:
        assert tok.encode_ordinary(text) == tok.encode_ordinary_python(text), text[:40]
    assert tok.decode(tok.encode_ordinary(texts[10])) == texts[10]


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200))
def test_native_encode_fuzzed(trained, text):
    tok = trained["gpt4"]
    assert tok.encode_ordinary(text) == tok.encode_ordinary_python(text)


def test_specials_and_lone_surrogates(trained):
    tok = BPETokenizer("gpt4")
    tok.train(varied_text()[:50_000], 600)
    tok.register_special_tokens({"<|endoftext|>": 600})
    text = "a<|endoftext|>b \ud800 c"
    ids = tok.encode(text, allowed_special="all")
    assert 600 in ids
    assert ids == [*tok.encode_ordinary_python("a"), 600, *tok.encode_ordinary_python("b \ud800 c")]


def test_loaded_model_encodes_the_same(trained, tmp_path):
    tok = trained["gpt4"]
    bpe_files.save(tok, tmp_path / "m")
    back = bpe_files.load(tmp_path / "m.model")
    text = varied_text()[300_000:330_000]
    assert back.encode_ordinary(text) == tok.encode_ordinary(text) == tok.encode_ordinary_python(text)


@pytest.fixture(scope="module")
def cl100k():
    from tokenizers.vocabularies.tiktoken_bpe import get_encoding

    return from_tiktoken("cl100k_base"), get_encoding("cl100k_base")


def test_cl100k_reproduction_runs_in_c_with_tiktokens_ids(cl100k):
    tok, enc = cl100k
    assert tok._native_encoder() is not None  # cl100k's split is the GPT-4 pattern, ranks rule
    texts = [*TRICKY_TEXTS, varied_text(400_000, seed=3), " " * 3000 + "x", "a" * 5000, "🙂" * 300,
             "1234567890" * 50, "ſ'S 'LL\r\n\r\n  \n x"]
    for text in texts:
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text), text[:40]
    assert tok.encode_ordinary_python(texts[-1]) == enc.encode_ordinary(texts[-1])
    part = texts[len(TRICKY_TEXTS)][:60_000]
    assert tok.encode_ordinary_python(part) == tok.encode_ordinary(part)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_cl100k_reproduction_fuzzed(cl100k, text):
    tok, enc = cl100k
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "llama3", "mistral_tekken", "whisper"])
def test_every_registry_pattern_is_cut_in_c(name):
    """tiktoken's own spellings of GPT-2's and o200k's patterns, and the vendors' (issue 32): the C core
    cuts them (patterns.CUTTERS), with tiktoken's ids."""
    tok = from_tiktoken(name)
    assert tok._native_encoder() is not None and tok.engine == "C"
    text = "Hello   world's 12345 ﻿안녕하세요\n\n  x  "
    assert tok.encode_ordinary(text) == tok.encode_ordinary_python(text)


def test_a_pattern_c_does_not_know_stays_in_python():
    from tokenizers import BPETokenizer

    tok = BPETokenizer(r"\w+|\W", name="custom pattern")
    tok.train("hello hello world " * 20, 270)
    assert tok._native_encoder() is None and tok.engine == "Python split, C merges"


def test_switched_off_by_environment():
    code = ("from tokenizers import BPETokenizer; from tokenizers.bpe import native; assert not native.available(); "
            "t = BPETokenizer('gpt4'); r = t.train('hello hello world', 260); print(len(t.merges))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "TOKEN_LENS_NATIVE": "0"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "4"


def test_build_is_up_to_date():
    out = subprocess.run([sys.executable, "-m", "tokenizers.bpe.native.build", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_one_encoder_shared_by_threads(trained, cl100k):
    """Streamlit sessions share cached tokenizers, and ctypes releases the GIL: encoding from many
    threads at once must give each the ids it gives alone (a shared scratch buffer once broke it)."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [varied_text(30_000, seed=s) for s in range(8)]
    for tok in (trained["gpt4"], cl100k[0]):
        expected = [tok.encode_ordinary_python(t) for t in texts]
        for _ in range(3):
            with ThreadPoolExecutor(8) as pool:
                got = list(pool.map(tok.encode_ordinary, texts * 4))
            assert got == expected * 4


def test_huge_merge_count_allocates_only_what_the_text_allows():
    tok = BPETokenizer("gpt4")
    tok.train("ab ab", 256 + 2_000_000_000, trainer="native")  # would be 48 GB of output arrays
    assert len(tok.merges) == 2
