"""Corpus metrics (tokenizers.analysis.metrics): each count against a plain loop written here, the
Rényi efficiency against tokenization-scorer 1.1.8 (a test-only reference), counts summed over
batches against one pass, hand-worked vectors, and hostile corpora."""

from __future__ import annotations

import math
import pickle

import pandas as pd
import pytest

from tests.conftest import TRICKY_TEXTS
from tokenizers import CorpusCounts, Tokenizer, available_tokenizers, corpus_metrics, get_tokenizer
from tokenizers.analysis import metrics
from tokenizers.analysis.metrics import COLUMNS, count_corpus, count_text, metrics_frame, renyi_efficiency
from tokenizers.analysis.parallel import language_texts

TEXTS = [*TRICKY_TEXTS, *language_texts().values(), "a\ud83d lone surrogate \udc00 and a pair \ud83d\ude00",
         "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u202f\u205f\u3000 every whitespace\u3000全角", "x"]


# -- the independent computation: a plain loop over characters and Token objects --------------------------
def slow_counts(tok: Tokenizer, text: str) -> dict:
    tokens = tok.tokenize(text, disallowed_special=())
    clean = tokens.text
    words, start = [], None
    for i, ch in enumerate(clean):
        if ch.isspace():
            if start is not None:
                words.append((start, i))
            start = None
        elif start is None:
            start = i
    if start is not None:
        words.append((start, len(clean)))
    touched_by = [set() for _ in clean]  # which tokens touch each character
    for k, t in enumerate(tokens):
        if t.byte_span[1] > t.byte_span[0]:
            for c in range(*t.char_span):
                touched_by[c].add(k)
    continued = sum(1 for a, b in words if len(set().union(*touched_by[a:b])) >= 2)
    ids = tok.encode_ordinary(text)
    return {"tokens": len(ids), "words": len(words), "continued_words": continued,
            "bytes": len(clean.encode("utf-8")), "chars": len(clean),
            "fallback": sum(1 for i in ids if tok.is_byte_fallback(i)),
            "unknown": sum(1 for i in ids if i == tok.unk_id), "split": len(clean.split())}


@pytest.mark.parametrize("name", available_tokenizers())
def test_counts_equal_a_plain_loop(name, monkeypatch):
    tok = get_tokenizer(name)
    total = dict.fromkeys(["tokens", "words", "continued_words", "bytes", "chars", "fallback", "unknown"], 0)
    for text in TEXTS:
        c, want = count_text(tok, text), slow_counts(tok, text)
        assert want["words"] == want["split"], text  # the loop's words are text.split()'s
        got = {k: getattr(c, k) for k in want if k != "split"}
        assert got == {k: v for k, v in want.items() if k != "split"}, (name, text)
        assert sum(c.token_counts.values()) == c.tokens and c.vocab_size == tok.n_vocab
        total = {k: v + want[k] for k, v in total.items()}
    # count_corpus counts texts in batches, joined: no word runs from one text into the next ("x" "y")
    texts = [*TEXTS, "x", "y", "👍", "👍"]
    total = {k: v + sum(slow_counts(tok, t)[k] for t in texts[len(TEXTS):]) for k, v in total.items()}
    for batch in (4096, 3, 1):
        monkeypatch.setattr(metrics, "BATCH_TEXTS", batch)
        c = count_corpus(tok, texts)
        assert {k: getattr(c, k) for k in total} == total and c.texts == len(texts), batch


# -- hand-worked vectors ----------------------------------------------------------------------------------
class Greedy(Tokenizer):
    """A toy vocabulary, encoded by longest match: tokens may cross spaces."""

    name = "greedy"
    special_tokens = {}

    def __init__(self, pieces):
        self.pieces = [p.encode() for p in pieces]

    @property
    def vocab_size(self):
        return len(self.pieces)

    def token_bytes(self, i):
        return self.pieces[i]

    def _encode(self, text, specials):
        data, out = text.encode(), []
        while data:
            i = max((i for i, p in enumerate(self.pieces) if data.startswith(p)), key=lambda i: len(self.pieces[i]))
            out.append(i)
            data = data[len(self.pieces[i]):]
        return out


@pytest.mark.parametrize("text, words, continued", [
    ("ab a b", 3, 0),     # "ab" " " "a b": one token touches both a and b, each once
    ("aab", 1, 1),        # "a" "ab"
    (" ab  ", 1, 0),      # " ab" then "  "... whitespace around a word touches nothing
    ("a  b", 2, 0),       # "a" "  " "b"
    ("", 0, 0),
    ("   ", 0, 0),
])
def test_continued_words_hand_worked(text, words, continued):
    tok = Greedy(["a", "b", " ", "ab", "a b", " ab", "  "])
    c = count_text(tok, text)
    assert (c.words, c.continued_words) == (words, continued)


def test_gpt2_hand_worked():
    # "Hello" " token" "ization" " world": the leading space of " token" is not part of the word
    c = count_text(get_tokenizer("gpt2"), "Hello tokenization world")
    assert (c.tokens, c.words, c.continued_words, c.bytes, c.chars) == (4, 3, 1, 24, 24)
    # 👍 is 4 bytes, two byte-level tokens in GPT-2 (b'\xf0\x9f\x91' b'\x8d'): both touch the one character
    c = count_text(get_tokenizer("gpt2"), "ok 👍")
    assert (c.words, c.continued_words, c.chars, c.bytes) == (2, 1, 4, 7)
    df = metrics_frame({"gpt2": count_text(get_tokenizer("gpt2"), "Hello tokenization world")})
    assert df.loc["gpt2", "fertility"] == 4 / 3 and df.loc["gpt2", "continued_words"] == 1 / 3
    assert df.loc["gpt2", "bytes_per_token"] == 6.0 and df.loc["gpt2", "fallback_rate"] == 0.0


def test_byte_fallback_counted():
    tok = get_tokenizer("mistral_sp")
    text = "ok \U0001fab8 \u0e3f"  # a coral emoji and a baht sign: no pieces for them, so bytes
    c = count_text(tok, text)
    assert c.fallback == sum(1 for i in tok.encode_ordinary(text) if tok.is_byte_fallback(i)) > 0
    assert c.unknown == 0
    df = metrics_frame({"m": c})
    assert df.loc["m", "fallback_rate"] == c.fallback / c.tokens


# -- Rényi efficiency against tokenization-scorer ----------------------------------------------------------
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "mistral_sp", "o200k_base"])
def test_renyi_equals_tokenization_scorer(name):
    from tokenization_scorer import score  # 1.1.8, requirements-dev.txt

    tok = get_tokenizer(name)
    texts = list(language_texts().values())
    c = count_corpus(tok, texts)
    # the scorer reads whitespace-separated strings: one string per token id, the same sequences
    lines = [[f"t{i}" for i in tok.encode_ordinary(t)] for t in texts]
    want = score(lines, metric="renyi", power=2.5, vocab=tok.n_vocab)
    assert c.renyi_efficiency() == pytest.approx(want, rel=1e-12)
    assert metrics_frame({name: c}).loc[name, "renyi_efficiency"] == pytest.approx(want, rel=1e-12)
    # alpha = 1 is Shannon's
    assert c.renyi_efficiency(1.0) == pytest.approx(score(lines, metric="shannon", vocab=tok.n_vocab), rel=1e-12)


def test_renyi_hand_worked():
    # two tokens equally often in a vocabulary of 4: H_alpha = log 2 for every alpha, so log 2 / log 4
    assert renyi_efficiency({1: 5, 2: 5}, 4) == pytest.approx(0.5)
    # one token only: entropy 0
    assert renyi_efficiency({7: 3}, 100) == 0.0
    assert math.isnan(renyi_efficiency({}, 100)) and math.isnan(renyi_efficiency({1: 1}, 1))


# -- merging ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["gpt2", "mistral_sp"])
def test_batches_add_up_to_one_pass(name):
    tok = get_tokenizer(name)
    one = count_corpus(tok, TEXTS)
    parts = [count_corpus(tok, TEXTS[k:k + 7]) for k in range(0, len(TEXTS), 7)]
    assert sum(parts) == one
    assert sum(parts[1:], parts[0]) == one and parts[0].merge(parts[1]) == parts[0] + parts[1]
    assert CorpusCounts() + one == one and one + CorpusCounts() == one
    assert pickle.loads(pickle.dumps(one)) == one
    assert one.texts == len(TEXTS)
    pd.testing.assert_frame_equal(metrics_frame({name: sum(parts)}), metrics_frame({name: one}))


def test_adding_two_vocabularies_is_refused():
    a = count_corpus(get_tokenizer("gpt2"), ["hi"])
    b = count_corpus(get_tokenizer("cl100k_base"), ["hi"])
    with pytest.raises(ValueError, match="same tokenizer"):
        a + b


# -- the frame and corpus_metrics -------------------------------------------------------------------------
def test_corpus_metrics_frame():
    texts = list(language_texts().values())
    df = corpus_metrics(texts, tokenizers=["gpt2", get_tokenizer("o200k_base")], reference="gpt2")
    assert list(df.index) == ["gpt2", "o200k_base"] and df.index.name == "tokenizer"
    assert list(df.columns) == [*COLUMNS, "premium"]
    for name in df.index:
        tok = get_tokenizer(name)
        want = sum(len(tok.encode_ordinary(t)) for t in texts)
        assert df.loc[name, "tokens"] == want
        assert df.loc[name, "words"] == sum(len(t.split()) for t in texts)
        assert df.loc[name, "premium"] == want / df.loc["gpt2", "tokens"]
    assert df.loc["gpt2", "premium"] == 1.0
    assert "premium" not in corpus_metrics(texts[:2], ["gpt2"]).columns
    seen = []
    corpus_metrics(texts[:3], ["gpt2", "cl100k_base"], progress=lambda k, n: seen.append((k, n)))
    assert seen == [(k, 6) for k in range(1, 7)]


def test_a_string_is_one_text():
    pd.testing.assert_frame_equal(corpus_metrics("hello world", ["gpt2"]), corpus_metrics(["hello world"], ["gpt2"]))


def test_empty_corpus():
    with pytest.raises(ValueError, match="No texts"):
        corpus_metrics([], ["gpt2"])
    with pytest.raises(ValueError, match="No tokenizers"):
        corpus_metrics(["x"], [])
    with pytest.raises(ValueError, match="share a name"):
        corpus_metrics(["x"], ["gpt2", "gpt2"])
    with pytest.raises(ValueError, match="reference"):
        corpus_metrics(["x"], ["gpt2"], reference="eng")
    df = corpus_metrics(["", "   \n"], ["gpt2"], reference="gpt2")  # texts without words or tokens
    row = df.loc["gpt2"]
    assert row["words"] == 0 and row["tokens"] == len(get_tokenizer("gpt2").encode_ordinary("   \n")) > 0
    assert math.isnan(row["fertility"]) and math.isnan(row["continued_words"])
    df = metrics_frame({"gpt2": CorpusCounts(), "x": CorpusCounts()}, reference="gpt2")
    assert df[[c for c in df.columns if c not in ("tokens", "words")]].isna().all().all()


def test_special_token_strings_are_text():
    tok = get_tokenizer("cl100k_base")
    c = count_text(tok, "<|endoftext|>")
    assert c.tokens == len(tok.encode_ordinary("<|endoftext|>")) > 1 and c.words == 1 and c.continued_words == 1


def test_hostile_texts():
    tok = get_tokenizer("gpt2")
    korean = "해는 아침에 뜹니다."
    assert count_text(tok, korean).words == 3
    zwj = "👨‍👩‍👧‍👦 family"
    c = count_text(tok, zwj)
    assert (c.words, c.continued_words, c.chars) == (2, 1, 14)  # 4 emoji + 3 joiners, a space, 6 letters
    lone = "a\ud83d b"  # the lone surrogate is U+FFFD once encoded, as tiktoken does
    c = count_text(tok, lone)
    assert (c.words, c.chars, c.bytes) == (2, 4, 6)


@pytest.mark.slow
def test_a_5mb_line():
    tok = get_tokenizer("gpt2")
    unit = "слово, word! 👍 "
    line = unit * 250_000  # 5.25 MB, no line break
    assert len(line.encode()) > 5_000_000
    c = count_text(tok, line)
    assert c.words == 3 * 250_000 and c.tokens == len(tok.encode_ordinary(line))
    # GPT-2's pieces start at spaces, so the line is 250 copies of its first 1,000 units
    assert c.continued_words == 250 * slow_counts(tok, unit * 1000)["continued_words"]


# -- languages: the token premium and the metrics come from one count ------------------------------------------
def test_language_metrics_and_the_token_premium_agree():
    from tokenizers.analysis.languages import token_premium
    from tokenizers.analysis.metrics import language_counts, language_metrics, overall

    texts = language_texts()
    names = ["gpt2", "mistral_sp"]
    counts = language_counts(texts, names)
    long = language_metrics(counts, reference="eng")
    assert long.index.names == ["tokenizer", "language"] and len(long) == 2 * len(texts)
    premium = token_premium(texts, names, "eng")
    for name in names:
        tok = get_tokenizer(name)
        assert long.loc[name, "premium"].tolist() == premium[("premium", name)].tolist()
        assert long.loc[(name, "kor"), "tokens"] == len(tok.encode_ordinary(texts["kor"]))
        assert long.loc[(name, "kor"), "words"] == len(texts["kor"].split())
        assert overall(counts)[name] == count_corpus(tok, list(texts.values()))
    seen = []
    language_counts({"eng": "a", "fra": "b"}, ["gpt2"], progress=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 2), (2, 2)]


def test_with_premium_changes_the_reference_without_the_counts():
    from tokenizers.analysis.metrics import language_counts, language_metrics, with_premium

    counts = language_counts({"eng": "Good morning.", "kor": "좋은 아침.", "nul": ""}, ["gpt2", "o200k_base"])
    plain = language_metrics(counts)
    assert "premium" not in plain.columns
    for ref in ("eng", "kor"):
        pd.testing.assert_frame_equal(with_premium(plain, ref), language_metrics(counts, reference=ref))
    assert with_premium(plain, "nul")["premium"].isna().all()  # an empty reference: NaN, not an error
    with pytest.raises(ValueError, match="reference"):
        with_premium(plain, "fra")
