"""tiktoken's Encoding API on every registry tokenizer, and the one BPE rule held equal to every
fast path that applies it."""

import copy
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TRICKY_TEXTS
from tokenizers import BPETokenizer, SpecialTokenError, UnknownTokenIdError, available_tokenizers, get_tokenizer
from tokenizers.bpe import native
from tokenizers.bpe.model import _merge_by_pairs, apply_merges
from tokenizers.bpe.rule import bpe_encode_ids, bpe_merge
from tokenizers.bpe.merges import Merges, RecoveredMerges
from tokenizers.analysis.samples import varied_text

NAMES = available_tokenizers()
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]
TEXTS = [t for t in TRICKY_TEXTS if t] + [varied_text(20_000, seed=5)]


def tiktoken_of(name):
    from tokenizers.vocabularies.tiktoken_files import get_encoding

    return get_encoding(name)  # tiktoken's own Encoding, from the provisioned files


# -- encode -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in NAMES if n != "mistral_sp"])
def test_special_token_strings_follow_tiktoken(name):
    tok = get_tokenizer(name)
    # <|endoftext|>, or the vocabulary's first special token where it has none (Llama 3, DeepSeek ...)
    special = "<|endoftext|>" if "<|endoftext|>" in tok.special_tokens else min(tok.special_tokens,
                                                                                key=tok.special_tokens.get)
    text = f"a {special} b"
    with pytest.raises(SpecialTokenError) as e:
        tok.encode(text)  # the default refuses, as tiktoken does
    assert "disallowed_special=()" in str(e.value) and "allowed_special=" in str(e.value)
    as_text = tok.encode(text, disallowed_special=())
    assert as_text == tok.encode_ordinary(text)
    parsed = tok.encode(text, allowed_special={special})
    assert tok.special_tokens[special] in parsed and parsed != as_text
    assert tok.encode(text, allowed_special="all") == parsed
    if name in OPENAI:
        assert special == "<|endoftext|>"
        enc = tiktoken_of(name)
        assert as_text == enc.encode(text, disallowed_special=())
        assert parsed == enc.encode(text, allowed_special={"<|endoftext|>"})
        with pytest.raises(ValueError):
            enc.encode(text)


def test_allowing_one_special_still_refuses_the_others():
    tok = get_tokenizer("cl100k_base")
    text = "<|endoftext|> and <|fim_prefix|>"
    with pytest.raises(SpecialTokenError, match="fim_prefix"):
        tok.encode(text, allowed_special={"<|endoftext|>"})
    ids = tok.encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=())
    assert ids == tiktoken_of("cl100k_base").encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=())
    # only the named strings are checked
    assert tok.encode("<|fim_prefix|>", disallowed_special={"<|endoftext|>"}) == tok.encode_ordinary("<|fim_prefix|>")


def test_sentencepiece_has_nothing_to_refuse():
    tok = get_tokenizer("mistral_sp")
    assert tok.encode("<s>hi</s>") == tok.encode("<s>hi</s>", allowed_special="all") == tok.encode_ordinary("<s>hi</s>")


@pytest.mark.parametrize("name", NAMES)
def test_batches_equal_one_by_one(name):
    tok = get_tokenizer(name)
    texts = [t for t in TEXTS if "<|" not in t]
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]
    assert tok.encode_ordinary_batch(TEXTS, num_threads=3) == [tok.encode_ordinary(t) for t in TEXTS]
    assert tok.encode_batch(TEXTS, disallowed_special=()) == [tok.encode_ordinary(t) for t in TEXTS]
    if name in OPENAI:
        assert tok.encode_ordinary_batch(TEXTS) == tiktoken_of(name).encode_ordinary_batch(TEXTS)


# -- decode -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_decoding_family(name):
    tok = get_tokenizer(name)
    text = "naïve 👋🏽 안녕 <|endoftext|> code:\n\tx = 1"
    ids = tok.encode_ordinary(text)
    parts = tok.decode_tokens_bytes(ids)
    assert parts == [tok.decode_single_token_bytes(i) for i in ids] == [tok.token_bytes(i) for i in ids]
    assert tok.decode_bytes(ids) == b"".join(parts)
    if tok.kind == "bpe":
        assert tok.decode(ids) == text
        emoji = tok.encode_ordinary("👋")
        if len(emoji) > 1:  # a part of a character alone
            assert "\ufffd" in tok.decode(emoji[:1])
            with pytest.raises(UnicodeDecodeError):
                tok.decode(emoji[:1], errors="strict")


@pytest.mark.parametrize("name", NAMES)
def test_decode_with_offsets(name):
    tok = get_tokenizer(name)
    text = "hello 👋🏽 안녕하세요 naïve"
    ids = tok.encode_ordinary(text)
    out, offsets = tok.decode_with_offsets(ids)
    assert out == tok.decode_bytes(ids).decode("utf-8")
    assert offsets == sorted(offsets) and len(offsets) == len(ids)
    if name in OPENAI:
        assert (out, offsets) == tiktoken_of(name).decode_with_offsets(ids)


@pytest.mark.parametrize("name", NAMES)
def test_unknown_ids_of_every_kind_are_named(name):
    tok = get_tokenizer(name)
    for bad in ([-1], [tok.n_vocab], [2 ** 64], [1, 10 ** 30]):
        with pytest.raises(UnknownTokenIdError):
            tok.decode(bad)
        with pytest.raises(UnknownTokenIdError):
            tok.decode_bytes(bad)


# tiktoken raises KeyError for an id its vocabulary lacks, and code written for tiktoken catches that:
# its own suite's test_single_token_roundtrip walks range(n_vocab), skipping the ids whose
# decode_single_token_bytes raises KeyError (cl100k_base's 100256, o200k_base's gaps). The loop below is
# that case's contract, run on ours. mistral_sp is left out: SentencePiece's byte-fallback pieces
# (<0x20> ...) have the same bytes as character pieces, so bytes cannot name one id there.
@pytest.mark.parametrize("name", [n for n in NAMES if n != "mistral_sp"])
def test_single_token_roundtrip_as_tiktoken_suite_runs_it(name):
    tok = get_tokenizer(name)
    skipped = 0
    for token in range(tok.n_vocab):
        try:
            token_bytes = tok.decode_single_token_bytes(token)
        except KeyError:
            skipped += 1
            continue
        assert tok.encode_single_token(token_bytes) == token
    if name in OPENAI:  # the same holes as tiktoken's
        enc = tiktoken_of(name)
        holes = 0
        for token in range(enc.n_vocab):
            try:
                enc.decode_single_token_bytes(token)
            except KeyError:
                holes += 1
        assert skipped == holes


@pytest.mark.parametrize("name", ["cl100k_base", "llama3"])
def test_unknown_id_is_a_key_error_and_a_value_error_without_quotes(name):
    tok = get_tokenizer(name)
    bad = 100256 if name == "cl100k_base" else tok.n_vocab
    for call, arg in ((tok.decode, [bad]), (tok.decode_bytes, [1, bad]), (tok.decode_single_token_bytes, bad)):
        with pytest.raises(KeyError) as e:
            call(arg)
        assert isinstance(e.value, ValueError) and isinstance(e.value, UnknownTokenIdError)
        # KeyError's own str() would be "'cl100k_base has no token id 100256 (...)'": pages show str(e)
        assert str(e.value) == e.value.args[0] and str(e.value).startswith(f"{name} has no token id {bad} (")
    with pytest.raises(KeyError):
        tiktoken_of("cl100k_base").decode_single_token_bytes(100256)  # tiktoken's own, the same type


# -- the vocabulary -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPENAI)
def test_vocabulary_facts_match_tiktoken(name):
    tok, enc = get_tokenizer(name), tiktoken_of(name)
    assert tok.n_vocab == enc.n_vocab and tok.max_token_value == enc.max_token_value
    assert tok.eot_token == enc.eot_token
    assert tok.special_tokens_set == enc.special_tokens_set
    assert tok.token_byte_values() == enc.token_byte_values()
    for i in random.Random(3).sample(range(enc.n_vocab - 300), 300):
        b = enc.decode_single_token_bytes(i)
        assert tok.encode_single_token(b) == enc.encode_single_token(b) == i
    assert tok.encode_single_token("<|endoftext|>") == enc.encode_single_token("<|endoftext|>")
    with pytest.raises(KeyError):
        tok.encode_single_token("this is not one token at all")


@pytest.mark.parametrize("name", NAMES)
def test_iter_vocab_and_single_tokens(name):
    tok = get_tokenizer(name)
    pairs = list(tok.iter_vocab())
    ids = [i for i, _ in pairs]
    assert ids == sorted(set(ids)) and len(ids) <= tok.n_vocab and ids[-1] < tok.n_vocab
    for i, b in random.Random(1).sample(pairs, 200):
        assert tok.token_bytes(i) == b
    assert hasattr(tok, "eot_token") == (tok.kind == "sentencepiece" or "<|endoftext|>" in tok.special_tokens)


def test_gpt2_model_has_all_its_merges():
    tok = get_tokenizer("gpt2")
    assert isinstance(tok, BPETokenizer)
    assert len(tok.twin.merges) == len(tok.merges) == 50000
    assert tok.merges[(220, 75)] == 300 and tok.merge_parents(300) == (220, 75)


# -- saving, pickling, copying --------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_pickle_and_deepcopy_after_encoding(name):
    tok = get_tokenizer(name)
    text = varied_text(5_000, seed=9)
    ids = tok.encode_ordinary(text)  # builds the C encoder / caches first
    for other in (pickle.loads(pickle.dumps(tok)), copy.deepcopy(tok)):
        assert other.encode_ordinary(text) == ids
        assert other.decode(ids) == tok.decode(ids)


@pytest.mark.parametrize("name", NAMES)
def test_save_and_load_methods(name, tmp_path):
    tok = get_tokenizer(name)
    paths = tok.save(tmp_path / name)
    back = type(tok).load(paths[0]) if not hasattr(tok, "encoding") else BPETokenizer.load(paths[0])
    text = "Hello, 안녕하세요 👋 world 12345"
    assert back.encode_ordinary(text) == tok.encode_ordinary(text)


# -- one rule, every fast path --------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    tok = BPETokenizer("gpt4")
    tok.train(varied_text(150_000, seed=2), 1200)
    return tok


def _paths(tok, data: bytes) -> dict[str, list[int]]:
    ids = [tok.byte_ids[b] for b in data]
    out = {"reference": bpe_encode_ids(ids, tok.merges), "pairs": _merge_by_pairs(list(ids), tok.merges),
           "heap": apply_merges(list(ids), tok.merges.get)}
    if native.available():
        from tokenizers.bpe.native import api

        # merges as pairs for a trained model, the byte form for recovered ones; no shortcut: the rule alone
        if isinstance(tok.merges, RecoveredMerges):
            enc = api.Encoder(tok.byte_ids, None, tok.merges.ranks, shortcut=False)
        else:
            enc = api.Encoder(tok.byte_ids, tok.merges, {b: i for i, b in tok.vocab.items()}, shortcut=False)
        out["C"] = enc.encode(0, data)
    return out


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=120) | st.text(alphabet=st.sampled_from("ab e\nt'h🙂"), max_size=300))
def test_every_fast_path_applies_the_reference_rule(trained, text):
    data = text.encode("utf-8", "replace")
    for tok in (trained, get_tokenizer("cl100k_base")):
        got = _paths(tok, data)
        assert len(set(map(tuple, got.values()))) == 1, got


def test_the_rule_by_hand():
    # parts a b c, ranks: (b, c) before (a, b): c joins b first, and then nothing joins a
    merges = Merges({(98, 99): 256, (97, 98): 257})
    assert bpe_encode_ids([97, 98, 99], merges) == [97, 256]
    # equal ranks go left to right: "aaaa" with (a, a) -> X gives X X
    assert bpe_encode_ids([97] * 4, Merges({(97, 97): 256})) == [256, 256]
    seen = []
    m = Merges({(97, 97): 256})
    bpe_merge([97, 97, 97], lambda a, b: m.get((a, b)), visualise=lambda parts, at, r: seen.append((parts, at)))
    assert seen == [([97, 97, 97], -1), ([256, 97], 0)]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_the_rule_alone_reaches_every_openai_token(name):
    """tiktoken looks a whole chunk up before it merges; by the rule alone (recovered merges, no
    shortcut) every token's bytes still become that one token."""
    tok = get_tokenizer(name)
    missed = [i for i, data in tok.vocab.items()
              if bpe_encode_ids([tok.byte_ids[b] for b in data], tok.merges) != [i]]
    assert not missed, missed[:10]


def test_a_million_spaces_in_o200k():
    """tiktoken's regex engine gives up on this input; the reproduction answers and says so."""
    tok = get_tokenizer("o200k_base")
    text = " " * 1_000_000
    toks = tok.tokenize(text, disallowed_special=())
    assert toks.note and "tiktoken could not encode" in toks.note
    assert toks.byte_ends[-1] == len(text) and tok.decode(list(toks.ids)) == text
    assert list(toks.ids) == tok.twin.encode_ordinary(text)
    assert not get_tokenizer("cl100k_base").tokenize(text, disallowed_special=()).note


def test_encodings_with_the_same_ranks_share_one_table():
    """o200k_harmony is o200k_base's ranks with the harmony specials: one copy of the 200,000 ranks and
    of the vocabulary in the process (it was 80 MB more), and the same ids for ordinary text."""
    from tokenizers.vocabularies.tiktoken_files import encoding_params

    base, harmony = get_tokenizer("o200k_base"), get_tokenizer("o200k_harmony")
    assert encoding_params("o200k_base")["mergeable_ranks"] is encoding_params("o200k_harmony")["mergeable_ranks"]
    assert base.vocab is harmony.vocab
    assert base.special_tokens != harmony.special_tokens  # the specials stay each encoding's own
    assert "<|start|>" in harmony.special_tokens and "<|start|>" not in base.special_tokens
    text = "Hello world, 안녕하세요 👋"
    from tokenizers.vocabularies.tiktoken_files import get_encoding  # tiktoken itself, on the provisioned files (offline)

    assert harmony.encode(text) == base.encode(text) == get_encoding("o200k_base").encode(text)
    assert harmony.encode("<|start|>", allowed_special="all") == [harmony.special_tokens["<|start|>"]]
