"""One set of bounds for every uploaded tokenizer file, checked before anything is built from it
(issue 24: items 2, 4, 5 and 7). Each attack is a small crafted file; the figures of the full-size
ones (time, peak memory) are in benchmarks/upload_bounds.py."""

from __future__ import annotations

import base64
import json
import random
import re
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers import user_files
from tokenizers.core.literals import LiteralFinder, find_reference
from tokenizers.user_files import LIMITS, UserFileError, load_user_file

KB16 = "a token may be at most 16 KB (16,384 bytes)"


def doubling_model(times: int = 24) -> bytes:
    """minbpe's format, 203 bytes: merge 0 joins "a" to itself, and each next merge the last token to
    itself, so the last of 24 is "a" * 2**24, 16.8 MB."""
    lines = ["minbpe v1", "", "0", "97 97"] + [f"{255 + k} {255 + k}" for k in range(1, times)]
    return ("\n".join(lines) + "\n").encode()


def b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


def tiktoken_with(token: bytes) -> bytes:
    """The 256 bytes, "aa", and `token`."""
    lines = [f"{b64(bytes([i]))} {i}" for i in range(256)] + [f"{b64(b'aa')} 256", f"{b64(token)} 257"]
    return ("\n".join(lines) + "\n").encode()


def tekken_file(num_special: int, vocab_size: int = 1_000) -> bytes:
    vocab = [{"rank": i, "token_bytes": b64(bytes([i])), "token_str": None} for i in range(256)]
    return json.dumps({"config": {"pattern": r"\S+|\s+", "num_vocab_tokens": 256, "default_vocab_size": vocab_size,
                                  "default_num_special_tokens": num_special, "version": "v3"},
                       "vocab": vocab}).encode()


def tokenizer_json(added: list[str], vocab_extra: dict[str, int] | None = None) -> bytes:
    """A byte-level BPE with no merges and these added tokens (ids from 1,000 on)."""
    from tokenizers.hf.tokenizer_json import byte_chars

    vocab = {c: b for b, c in byte_chars().items()} | (vocab_extra or {})
    return json.dumps({
        "added_tokens": [{"id": 1_000 + k, "content": s, "special": k % 2 == 0, "lstrip": False, "rstrip": False,
                          "single_word": False, "normalized": False} for k, s in enumerate(added)],
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
        "model": {"type": "BPE", "vocab": vocab, "merges": []}}).encode()


# -- item 2: one token at most 16 KB, in every format ---------------------------------------------------
def test_the_bound_is_in_the_one_limits_and_in_its_words():
    assert LIMITS.max_token_bytes == 16_384
    assert "16 KB in one token" in user_files.limits_words()
    assert "100,000 added or special tokens" in user_files.limits_words()


def test_a_minbpe_model_that_doubles_a_token_is_refused_while_its_merges_are_replayed():
    data = doubling_model()
    assert len(data) == 203
    tracemalloc.start()
    try:
        with pytest.raises(UserFileError) as e:
            load_user_file("double.model", data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # merge 14 (line 18) would make token 270, "a" * 32,768: refused before its bytes are joined
    assert str(e.value) == ("double.model: Line 18: token 270, the merge of 269 and 269, is 32 KB (32,768 bytes); "
                            f"{KB16}.")
    assert peak < 2_000_000  # the 16 KB token before it is the largest thing built, not 16.8 MB


def test_a_minbpe_model_up_to_the_bound_loads():
    tok = load_user_file("double.model", doubling_model(14))  # the longest token: "a" * 2**14 = 16,384 bytes
    assert max(map(len, tok.vocab.values())) == 16_384


def test_a_tiktoken_file_with_a_token_over_the_bound_is_refused_before_it_is_decoded():
    with pytest.raises(UserFileError) as e:
        load_user_file("long.tiktoken", tiktoken_with(b"a" * 20_000))
    assert str(e.value) == f"long.tiktoken: the token on line 258 is 19.5 KB (20,000 bytes); {KB16}"
    load_user_file("ok.tiktoken", tiktoken_with(b"a" * 16_384))


def test_a_tokenizer_json_added_token_over_the_bound_is_refused():
    with pytest.raises(UserFileError) as e:
        load_user_file("t.json", tokenizer_json(["<|x|>", "x" * 20_000]))
    assert str(e.value) == f"t.json: added_tokens: token 1,001 ('xxxxxxxxxxxxxxxxxxxx'…) is 19.5 KB (20,000 bytes); {KB16}"


def test_a_tokenizer_json_vocab_token_is_measured_in_bytes():
    """4,100 characters of "é" are 8,200 bytes: within the bound (the old bound counted characters)."""
    tok = load_user_file("t.json", tokenizer_json([], {"é" * 4_100: 600}))
    assert tok is not None
    with pytest.raises(UserFileError, match="token 600 .* is 16.0 KB .16,400 bytes.; a token may be at most 16 KB"):
        load_user_file("t.json", tokenizer_json([], {"é" * 8_200: 600}))


def test_a_vocab_txt_line_over_the_bound_is_refused():
    data = ("[UNK]\nhello\n" + "x" * 20_000 + "\n").encode()
    with pytest.raises(UserFileError) as e:
        load_user_file("vocab.txt", data)
    assert str(e.value) == f"vocab.txt: line 3 is 19.5 KB (20,000 bytes); {KB16}."


def test_a_sentencepiece_piece_over_the_bound_is_refused_before_sentencepiece_loads_it(monkeypatch):
    from sentencepiece import sentencepiece_model_pb2

    from upload_samples import sentencepiece_file

    proto = sentencepiece_model_pb2.ModelProto.FromString(sentencepiece_file())
    proto.pieces[5000].piece = "▁" + "a" * 20_000
    import tokenizers.sentencepiece.train as train

    def never(*a, **k):
        raise AssertionError("SentencePiece was asked to load a file over the bounds")

    monkeypatch.setattr(train, "load_model", never)
    with pytest.raises(UserFileError) as e:
        load_user_file("long.model", proto.SerializeToString(), expect=("sentencepiece",))
    assert str(e.value) == f"long.model: piece 5,000 is 19.5 KB (20,003 bytes); {KB16}."


def test_a_tekken_token_over_the_bound_is_refused():
    model = json.loads(tekken_file(20, 300))
    model["vocab"].append({"rank": 256, "token_bytes": b64(b"a" * 20_000), "token_str": None})
    with pytest.raises(UserFileError) as e:
        load_user_file("tekken.json", json.dumps(model).encode())
    assert str(e.value) == f"tekken.json: token 276 (vocab entry 256) is 19.5 KB (20,000 bytes); {KB16}"


def test_the_message_is_on_the_page():
    """Compare's "Load your own tokenizer file" and the BPE Lab's upload say it, in the library's words."""
    from test_upload_readers import verdicts
    from ui.formatting import escape_markdown

    said = [escape_markdown("double.model: Line 18: token 270, the merge of 269 and 269, is 32 KB (32,768 bytes); "
                            f"{KB16}.")]
    assert verdicts("minbpe", "double.model", doubling_model()) == {
        "BPE Lab .model upload": ("refused", said), "Compare tokenizer file": ("refused", said)}


# -- item 4: declared counts before allocation ------------------------------------------------------------
def test_a_tekken_file_declaring_millions_of_special_tokens_is_refused_before_naming_them():
    data = tekken_file(2_000_000, 2_000_300)
    tracemalloc.start()
    try:
        with pytest.raises(UserFileError) as e:
            load_user_file("tekken.json", data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(e.value) == ("tekken.json: it declares 2,000,000 special tokens (default_num_special_tokens); at most "
                            "100,000 are accepted")
    assert peak < 5_000_000  # 2,000,000 names of specials would be 150 MB


@pytest.mark.parametrize("config, said", [
    ({"default_vocab_size": 5_000_000}, "it declares 5,000,000 ids of which 20 special (default_vocab_size)"),
    ({"default_num_special_tokens": -5}, "it declares -5 special tokens"),
    ({"default_num_special_tokens": "many"}, "config default_num_special_tokens is 'many', not a whole number"),
])
def test_tekken_declared_counts_are_checked(config, said):
    model = json.loads(tekken_file(20))
    model["config"].update(config)
    with pytest.raises(UserFileError, match=re.escape(said)):
        load_user_file("tekken.json", json.dumps(model).encode())


def test_a_tiktoken_file_with_more_lines_than_tokens_allowed_is_refused_before_reading_them(monkeypatch):
    import dataclasses

    monkeypatch.setattr(user_files, "LIMITS", dataclasses.replace(LIMITS, max_vocab=100))
    with pytest.raises(UserFileError, match="r.tiktoken: 258 lines; at most 100 tokens are accepted"):
        load_user_file("r.tiktoken", tiktoken_with(b"abc"))


def test_a_sentencepiece_model_declaring_a_huge_vocabulary_is_refused():
    from sentencepiece import sentencepiece_model_pb2

    from upload_samples import sentencepiece_file

    proto = sentencepiece_model_pb2.ModelProto.FromString(sentencepiece_file())
    proto.trainer_spec.vocab_size = 50_000_000
    with pytest.raises(UserFileError, match="declares a vocabulary of 50,000,000 pieces"):
        load_user_file("big.model", proto.SerializeToString(), expect=("sentencepiece",))


def test_a_wordpiece_declared_word_length_must_be_a_whole_number():
    data = json.dumps({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]",
                                 "max_input_chars_per_word": 1e400}}).encode().replace(b"Infinity", b"1e400")
    with pytest.raises(UserFileError, match="max_input_chars_per_word is 'inf'; it must be a whole number"):
        load_user_file("wp.json", data)


# -- item 5: added tokens by an automaton, held to a plain scan ------------------------------------------
def lengths_reference(strings, text):
    """A second plain reference: at each position, every length the strings have, longest first."""
    table = set(strings)
    lengths = sorted({len(s) for s in table}, reverse=True)
    out, i = [], 0
    while i < len(text):
        n = next((n for n in lengths if i + n <= len(text) and text[i:i + n] in table), 0)
        if n:
            out.append((i, i + n, text[i:i + n]))
        i += n or 1
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text("ab<|>é👋", min_size=1, max_size=6), min_size=1, max_size=12),
       st.text("ab<|>é👋x", max_size=60))
def test_the_automaton_finds_what_a_plain_scan_finds(strings, text):
    """Overlapping strings, strings that are prefixes of others, emoji (offsets in characters)."""
    assert LiteralFinder(strings).find(text) == find_reference(strings, text) == lengths_reference(strings, text)


def test_leftmost_then_longest():
    finder = LiteralFinder(["<a>", "<a>b", "b<", "ab"])
    assert finder.find("x<a>b<a>ab<") == [(1, 5, "<a>b"), (5, 8, "<a>"), (8, 10, "ab")]
    assert finder.split("x<a>b<a>") == ["x", "<a>b", "", "<a>", ""]


def test_bpe_special_tokens_use_the_automaton_with_the_old_regex_rule():
    """BPETokenizer's specials: each allowed set by the automaton, longest first at a position."""
    from tokenizers.bpe.model import BPETokenizer

    tok = BPETokenizer.from_ranks({bytes([i]): i for i in range(256)}, pattern=None, name="t",
                                  special_tokens={"<|a|>": 300, "<|a|>x": 301, "|>": 302})
    assert tok.encode("<|a|>x<|a|>y|>", allowed_special="all") == [301, 300, ord("y"), 302]
    assert tok.encode("<|a|>x<|a|>y|>", allowed_special={"<|a|>"}, disallowed_special=()) == [
        300, ord("x"), 300, ord("y"), ord("|"), ord(">")]


TIKTOKEN_FORMAT = ["gpt2", "cl100k_base", "o200k_harmony", "llama3", "qwen", "whisper", "mistral_tekken"]


@pytest.mark.parametrize("name", TIKTOKEN_FORMAT)
def test_special_tokens_are_split_as_tiktoken_splits_them(name):
    """This library's encoder (the twin) against tiktoken itself, on text dense with special tokens,
    their fragments and their neighbours, every special allowed and a few allowed."""
    from tokenizers.vocabularies.tiktoken_bpe import TiktokenTokenizer

    tok = TiktokenTokenizer(name)
    specials = sorted(tok.special_tokens)
    rng = random.Random(name)
    pieces = specials[:40] + rng.sample(specials, min(40, len(specials))) + ["<|", "|>", "<", "[", "]", " ", "x",
                                                                             "é", "👋", "\n"]
    pieces += [s[:-1] for s in specials[:10]] + [s[1:] for s in specials[:10]]
    for k in range(30):
        text = "".join(rng.choice(pieces) for _ in range(40))
        allowed = set(specials) if k % 3 else set(rng.sample(specials, min(5, len(specials))))
        want = tok.encoding.encode(text, allowed_special=allowed, disallowed_special=())
        assert tok.twin.encode(text, allowed_special=allowed, disallowed_special=()) == want, text


def test_100000_added_tokens_load_without_a_regex_of_them(monkeypatch):
    """The documented maximum. Before, one regex of all of them was compiled (222 s and 7 GB for the
    19.9 MB file of the issue, again for each set of allowed specials); now no regex of them is built,
    and the loaded tokenizer cuts text where the plain scan says."""
    import regex

    added = [f"<|t{k}|>" if k % 3 else f"w{k}" for k in range(100_000)]
    ids = {s: 1_000 + k for k, s in enumerate(added)}
    compile_ = regex.compile

    def small_only(pattern, *a, **k):
        assert len(pattern) < 20_000, "a regex of the added tokens"
        return compile_(pattern, *a, **k)

    monkeypatch.setattr(regex, "compile", small_only)
    tok = load_user_file("many.json", tokenizer_json(added))
    rng = random.Random(5)
    for _ in range(40):
        text = "".join(rng.choice([rng.choice(added), "<|t", "|>", " ", "x", "1", "w", "<|t1"]) for _ in range(30))
        expected, last = [], 0
        for a, b, s in lengths_reference(added, text):
            expected += tok.encode(text[last:a]) + [ids[s]]
            last = b
        expected += tok.encode(text[last:])
        assert tok.encode(text, allowed_special="all") == expected, text


# -- item 7: merge recovery bounded for any token ---------------------------------------------------------
class CountingRanks(dict):
    """Ranks that count their look-ups and stop the test once there are more than `budget`."""

    def __init__(self, ranks, budget: int):
        super().__init__(ranks)
        self.lookups, self.budget = 0, budget

    def get(self, key, default=None):
        self.lookups += 1
        if self.lookups > self.budget:
            raise AssertionError(f"more than {self.budget:,} rank look-ups")
        return dict.get(self, key, default)


def test_recovering_a_20000_byte_tokens_merge_is_not_quadratic():
    """The issue's token: 20,000 "a" with only "aa" below it (36 s to show its merge rank). The rule
    (quadratic) makes about 10**8 rank look-ups for it; recovery makes a few per byte."""
    from tokenizers.bpe.merges import RecoveredMerges

    ranks = CountingRanks({bytes([i]): i for i in range(256)} | {b"aa": 256, b"a" * 20_000: 257}, budget=10 * 20_000)
    vocab = {r: b for b, r in ranks.items()}
    assert RecoveredMerges(vocab, ranks).parents(257) is None
    assert ranks.lookups < 3 * 20_000


def test_a_long_tokens_merge_rank_is_shown(monkeypatch):
    """The issue's file scaled to the bound: "aa" and "a" * 16,384 (no merge makes it), and a doubling
    vocabulary whose longest token is made by a merge."""
    tok = load_user_file("long.tiktoken", tiktoken_with(b"a" * 16_384))
    assert tok.merge_parents(257) is None and tok.merge_rank(257) is None
    ranks = [f"{b64(bytes([i]))} {i}" for i in range(256)] + [f"{b64(b'a' * 2 ** k)} {255 + k}" for k in range(1, 15)]
    tok = load_user_file("double.tiktoken", ("\n".join(ranks) + "\n").encode())
    assert tok.merge_parents(269) == (268, 268) and tok.merge_rank(269) == 13


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=2, max_size=6), max_size=30), st.binary(min_size=2, max_size=300),
       st.randoms(use_true_random=False))
def test_fast_recovery_equals_the_rule(tokens, long, rng):
    """last_merge_fast against the rule itself (bpe.rule.last_merge_of) on random vocabularies (bytes
    missing from some), with ties (one pair made twice at once) and long tokens."""
    from tokenizers.bpe.merges import last_merge_fast
    from tokenizers.bpe.rule import last_merge_of

    base = [bytes([i]) for i in range(256) if rng.random() < 0.9]
    ranks: dict[bytes, int] = {}
    for b in base + tokens + [long[:k] for k in range(2, len(long), 7)] + [long]:
        ranks.setdefault(b, len(ranks))
    for data, r in ranks.items():
        assert last_merge_fast(data, ranks, r) == last_merge_of(data, ranks, r), data


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("ab<|>", min_size=1, max_size=5), min_size=1, max_size=8, unique=True),
       st.text("ab<|>x", max_size=40))
def test_the_refused_special_is_the_first_in_the_text(specials, text):
    """The disallowed-special check finds them all by one automaton; it names what one scan per special
    named: the earliest in the text, and of those starting there the first in sort order."""
    from tokenizers.bpe.model import BPETokenizer
    from tokenizers.core.tokenizer import SpecialTokenError

    tok = BPETokenizer.from_ranks({bytes([i]): i for i in range(256)}, pattern=None, name="t",
                                  special_tokens={s: 300 + k for k, s in enumerate(specials)})
    found = sorted((text.find(s), s) for s in specials if s in text)
    if not found:
        tok.encode(text)
        return
    with pytest.raises(SpecialTokenError) as e:
        tok.encode(text)
    assert repr(found[0][1]) in str(e.value).split("\n")[0]


def test_special_strings_in_a_text_with_100000_specials():
    from ui.analysis import special_strings_in

    specials = [f"<|s{k}|>" for k in range(100_000)]
    assert special_strings_in("a <|s99999|> b <|s7|><|s7|> <|s", specials) == ["<|s7|>", "<|s99999|>"]
