"""Declared capabilities (`Tokenizer.capabilities`) hold exactly when the feature works, on every
registered tokenizer, on every kind of model the app trains (the Algorithms page's five, and a
SentencePiece BPE model from the SentencePiece Lab) and on a file of each format a person can upload."""

import pytest

from tokenizers import BPETokenizer, VocabularyMissingError, available_tokenizers, get_tokenizer
from tokenizers.classic import algorithms
from tokenizers.core.corpus import stdlib_docstrings
from tokenizers.core.patterns import GPT4_PATTERN
from tokenizers.core.tokenizer import Capabilities, Tokenizer

UNSEEN = "\U00020000"  # 𠀀, CJK Extension B: in no small training text, and in few vocabularies
TRAIN_TEXT = stdlib_docstrings()[:40_000] + "\ncafé naïve résumé déjà vu\n" * 20

_trained: dict[str, Tokenizer] = {}


def trained(kind: str) -> Tokenizer:
    if kind not in _trained:
        if kind == "sp_bpe":
            from tokenizers.sentencepiece.train import train

            _trained[kind] = train(TRAIN_TEXT, model_type="bpe", vocab_size=400, name="caps_sp_bpe")
        else:
            _trained[kind] = algorithms.train(kind, TRAIN_TEXT, 400)
    return _trained[kind]


UPLOADS = {"sample.tiktoken": "tiktoken_file", "sample.model": "minbpe_file", "tokenizer.json": "tokenizer_json_file",
           "vocab.txt": "vocab_txt_file", "sp.model": "sentencepiece_file"}  # tests/upload_samples.py

CASES = [("registry", n) for n in available_tokenizers()] + [("trained", k) for k in algorithms.NAMES] + [
    ("trained", "sp_bpe")] + [("uploaded", f) for f in UPLOADS]


def build(source: str, name: str) -> Tokenizer:
    if source == "trained":
        return trained(name)
    if source == "uploaded":
        import upload_samples
        from tokenizers import load_user_file

        return load_user_file(name, getattr(upload_samples, UPLOADS[name])(), pattern=GPT4_PATTERN)
    try:
        return get_tokenizer(name)
    except VocabularyMissingError as e:
        pytest.skip(str(e))


def _is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def sample_ids(tok: Tokenizer, n: int = 3000) -> list[int]:
    step = max(1, tok.vocab_size // n)
    return [i for i, _ in tok.iter_vocab() if i % step == 0 or i < 300]


@pytest.mark.parametrize("source,name", CASES, ids=[f"{s}:{n}" for s, n in CASES])
def test_capabilities_hold_exactly(source, name):
    tok = build(source, name)
    caps = tok.capabilities
    assert isinstance(caps, Capabilities)
    assert caps.model_type in ("bpe", "unigram", "wordpiece", "char", "word", "unknown")
    ids = sample_ids(tok)
    ordinary = [i for i in ids if not tok.is_special(i) and not tok.is_byte_fallback(i) and i != tok.unk_id]

    # merge trees: a token made by a merge has the two parents whose bytes it joins
    made = [(i, tok.merge_parents(i)) for i in ordinary]
    made = [(i, p) for i, p in made if p is not None]
    if caps.merge_trees:
        assert made, f"{name} declares merge trees, but no sampled token has parents"
        for i, (a, b) in made[:200]:
            assert tok.token_bytes(a) + tok.token_bytes(b) == tok.token_bytes(i)
            assert tok.merge_tree(i)["children"]
    else:
        assert made == []

    # merge steps: the byte-level BPE model's own data, replayed chunk by chunk
    assert caps.merge_steps == isinstance(getattr(tok, "model", tok), BPETokenizer)  # itself, or inside a pipeline
    if caps.merge_steps:
        start, steps = tok.encode_steps("tokenization")
        assert len(start) == len(b"tokenization") and len(tok.byte_ids) == 256 and tok.split("a b") == ["a", " b"]

    # byte fallback and the unknown token: what a character outside the vocabulary becomes
    unseen = tok.encode(f"a{UNSEEN}b", disallowed_special=())
    fallback = [i for i in unseen if tok.is_byte_fallback(i)]
    if caps.byte_fallback:
        assert b"".join(tok.token_bytes(i) for i in fallback) == UNSEEN.encode("utf-8")
    else:
        assert fallback == []
    if caps.unknown_token:
        assert tok.unk_id is not None and tok.unk_id in unseen
    else:
        assert tok.unk_id is None or tok.unk_id not in unseen
    if tok.unk_id is None:  # byte-level: every character is bytes, nothing is unknown
        assert tok.decode_bytes(unseen).decode("utf-8").endswith(f"{UNSEEN}b")

    # training history: the steps training took here
    assert caps.training_history == (len(tok.history) > 0)

    # scores: a log-probability per piece
    if caps.scores:
        assert all(tok.score_of(i) <= 0 for i in ordinary[:50])
    else:
        assert not hasattr(tok, "score_of")

    # base tokens (no parents): whole characters, or bytes (some of them not UTF-8 on their own)
    base = [tok.token_bytes(i) for i in ordinary if tok.merge_parents(i) is None and tok.token_bytes(i)]
    assert base
    whole = [b for b in base if _is_utf8(b)]
    assert (whole == base) == caps.code_points, f"{len(base) - len(whole)} base tokens are not whole characters"

    # special tokens parsed from text
    if tok.special_tokens:
        s, i = next(iter(tok.special_tokens.items()))
        assert (tok.encode(s, allowed_special="all") == [i]) == caps.parses_specials


def test_capabilities_follow_the_model_loaded():
    sp_bpe, unigram = trained("sp_bpe"), trained("unigram")
    assert (sp_bpe.capabilities.model_type, sp_bpe.capabilities.merge_trees) == ("bpe", True)
    assert (unigram.capabilities.model_type, unigram.capabilities.merge_trees) == ("unigram", False)
    fresh = BPETokenizer("gpt4")
    assert fresh.capabilities.training_history is False
    fresh.train("low lower lowest " * 50, 260)
    assert fresh.capabilities == Capabilities(model_type="bpe", merge_trees=True, merge_steps=True,
                                              training_history=True)
    assert Tokenizer.capabilities == Capabilities()


def test_the_span_hook_is_public():
    """Backends answer the documented hook (span_lengths, aligned_spans), which tokenize calls."""
    tok = get_tokenizer("gpt2")
    assert list(tok.span_lengths("hello world", [31373, 995])) == [5, 6]
    assert "span_lengths" in Tokenizer.__doc__ and "aligned_spans" in Tokenizer.__doc__
    for cls in (trained("wordpiece"), trained("unigram")):
        assert type(cls).aligned_spans is not Tokenizer.aligned_spans


def test_span_lengths_read_all_at_once_are_token_length_of_each():
    """The byte-level default reads token_length's table for all ids at once, and fills it for ids not in it
    yet (first seen, or repeated within one text): the same lengths as token_length one by one."""
    from tokenizers.analysis.samples import mixed_scripts

    for name in ("gpt2", "cl100k_base", "custom_bpe"):
        tok = get_tokenizer(name)
        text = mixed_scripts(300) + " naïve café 👋🏽 <|endoftext|>"
        ids = tok.encode(text, allowed_special="all")
        tok._length_table = None  # as a retrained model resets it: nothing known yet
        assert list(tok.span_lengths(text, ids)) == [len(tok.decode_single_token_bytes(i)) for i in ids]
        assert list(tok.span_lengths(text, ids)) == [tok.token_length(i) for i in ids]
