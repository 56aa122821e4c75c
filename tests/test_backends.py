"""The one interface, held over every registered backend."""

import subprocess
import sys

import pytest

from conftest import ROOT, TRICKY_TEXTS
from tokenizers import (SpecialTokenError, UnknownTokenIdError, available_tokenizers, default_tokenizers,
                        get_tokenizer)
from tokenizers.core.text import clean_text

NAMES = available_tokenizers()


def test_registry_names():
    assert default_tokenizers() == ["custom_bpe", "gpt2", "cl100k_base", "mistral_sp"]
    assert "o200k_base" in NAMES
    with pytest.raises(KeyError, match="choose from"):
        get_tokenizer("gpt5")


def test_one_function_tiles_spans():
    """tokenizers/core/spans.tile: lengths laid end to end from byte 0 (an empty token stays empty);
    SpanBuilder's ends and a chat's lengths go through it."""
    from tokenizers.core.spans import SpanBuilder, tile
    from tokenizers.pipeline.normalizers import identity_offs
    from tokenizers.pipeline.pre_tokenizers import Piece

    assert tile([]) == ([], [])
    assert tile([1, 0, 3]) == ([0, 1, 1], [1, 1, 4])
    assert tile(iter([2, 2])) == ([0, 2], [2, 4])
    text = "  hé x "
    b = SpanBuilder(text)
    b.add_piece(Piece("hé", identity_offs("hé", 2)), [7, 8], [1, 2])  # the leading spaces go to h
    b.add_matched(9, 5)  # " " up to character 5, the x's start
    b.add_piece(Piece("x", identity_offs("x", 5)), [10], [1])  # and the last token runs to the end
    assert b.result() == ([7, 8, 9, 10], [0, 3, 5, 6], [3, 5, 6, 8])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", TRICKY_TEXTS)
def test_spans_tile_the_input(name, text):
    tok = get_tokenizer(name)
    toks = tok.tokenize(text, disallowed_special=())
    data = text.encode("utf-8")
    # a tokenizer that normalizes first (Qwen: NFC, Claude's legacy file: NFKC) encodes the normalized
    # text: its tokens' bytes are that text's, and their spans say which input bytes each came from
    # (tokenizers/core/spans.py), so a token cut from the same input character as the one before it
    # has an empty span
    normalized = tok.normalize(text) if getattr(tok, "normalizer", None) is not None else text
    pos = 0
    for t in toks:
        assert t.byte_span[0] == pos
        pos = t.byte_span[1]
        # the dummy-prefix piece of SentencePiece is the one token with an empty span, unless the
        # tokenizer normalizes
        if t.byte_span[0] == t.byte_span[1]:
            assert (tok.kind == "sentencepiece" and t.piece == "▁") or normalized != text
    assert pos == len(data)
    assert [t.id for t in toks] == tok.encode(text, disallowed_special=())
    if tok.kind == "bpe":
        assert b"".join(t.bytes for t in toks) == normalized.encode("utf-8")
        if normalized == text:
            for t in toks:
                assert data[t.byte_span[0]:t.byte_span[1]] == t.bytes
        assert tok.decode(tok.encode(text, disallowed_special=())) == normalized


@pytest.mark.parametrize("name", NAMES)
def test_partial_tokens_are_flagged(name):
    text = "👨‍👩‍👧"
    toks = get_tokenizer(name).tokenize(text)
    chars = len(text)
    for t in toks:
        c0, c1 = t.char_span
        assert 0 <= c0 <= c1 <= chars
        b = text.encode()
        starts_mid = t.byte_span[0] < len(b) and (b[t.byte_span[0]] & 0xC0) == 0x80
        ends_mid = t.byte_span[1] < len(b) and (b[t.byte_span[1]] & 0xC0) == 0x80
        assert t.partial == (starts_mid or ends_mid)
    # 👨 is 4 bytes and no vocabulary here holds it whole after a joiner: something is partial
    assert any(t.partial for t in toks)


@pytest.mark.parametrize("name", ["custom_bpe", "gpt2", "cl100k_base", "o200k_base"])
def test_special_tokens_default_to_text(name):
    tok = get_tokenizer(name)
    text = "a <|endoftext|> b"
    as_text = tok.tokenize(text, disallowed_special=())
    assert not any(t.special for t in as_text)
    parsed = tok.tokenize(text, allowed_special="all")
    specials = [t for t in parsed if t.special]
    assert len(specials) == 1 and specials[0].id == tok.special_tokens["<|endoftext|>"]
    assert text.encode()[slice(*specials[0].byte_span)] == b"<|endoftext|>"
    assert tok.encode(text, allowed_special={"<|endoftext|>"}) == [t.id for t in parsed]
    with pytest.raises(SpecialTokenError) as e:
        tok.encode(text, allowed_special="raise")
    msg = str(e.value)
    assert "allowed_special='all'" in msg and "as text" in msg and "remove it" in msg


def test_sentencepiece_never_parses_specials_from_text():
    tok = get_tokenizer("mistral_sp")
    assert tok.encode("<s>hi</s>", allowed_special="all") == tok.encode("<s>hi</s>")
    assert tok.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}


@pytest.mark.parametrize("name", NAMES)
def test_lone_surrogates_become_replacement_chars(name):
    tok = get_tokenizer(name)
    text = "a\ud83db\udc4b"
    clean, n = clean_text(text)
    assert clean == "a\ufffdb\ufffd" and n == 2
    assert tok.encode(text) == tok.encode(clean)
    assert sum(t.byte_span[1] - t.byte_span[0] for t in tok.tokenize(text)) == len(clean.encode())


def test_surrogate_pair_is_joined_not_replaced():
    assert clean_text("\ud83d\udc4b") == ("👋", 0)


@pytest.mark.parametrize("name", NAMES)
def test_unknown_ids_are_named(name):
    tok = get_tokenizer(name)
    with pytest.raises(UnknownTokenIdError, match=str(tok.vocab_size + 5)):
        tok.decode([1, tok.vocab_size + 5])
    with pytest.raises(UnknownTokenIdError):
        tok.token_bytes(-1)


def test_cl100k_hole_is_unknown():
    with pytest.raises(UnknownTokenIdError, match="100256"):
        get_tokenizer("cl100k_base").decode([100256])


@pytest.mark.parametrize("name", NAMES)
def test_megabyte_of_text(name):
    text = ("Tokenizers 🧩 split text; 토큰 나누기. " * 40000)[:1_000_000]
    tok = get_tokenizer(name)
    toks = tok.tokenize(text)
    assert toks[-1].byte_span[1] == len(text.encode())


def test_library_does_not_import_streamlit():
    code = ("import sys; from tokenizers import get_tokenizer; get_tokenizer('gpt2').tokenize('hi'); "
            "assert 'streamlit' not in sys.modules, 'tokenizers imported streamlit'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["▁ literal marker ▁▁", " leading space", "\t\ttabs first"])
def test_sentencepiece_fast_spans_equal_its_own_offsets(text):
    """The fast path (ids + piece lengths) against SentencePiece's own byte offsets."""
    tok = get_tokenizer("mistral_sp")
    toks = tok.tokenize(text)
    ids, starts, ends = tok._exact_spans(text)
    assert list(toks.ids) == ids
    assert list(toks.byte_starts) == starts and list(toks.byte_ends) == ends


def test_token_list_is_compact_and_lazy():
    import tracemalloc

    text = "Tokenizers split text; 토큰 나누기 👋. " * 20000  # ~860 KB
    tok = get_tokenizer("cl100k_base")
    tracemalloc.start()
    toks = tok.tokenize(text)
    kept, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert kept < 40 * len(toks) + 10_000_000  # arrays, not ~300-byte Token objects
    assert toks[-1].byte_span[1] == len(text.encode()) and toks[5:8] == [toks[5], toks[6], toks[7]]


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["aé👋b\u0301"])
def test_byte_char_tables_equal_the_lookups(text):
    """ByteCharMap's bulk tables say, for every byte offset, what char_at and is_boundary say."""
    from tokenizers.core.text import ByteCharMap, clean_text

    m = ByteCharMap.of(clean_text(text)[0])
    assert m.char_of_byte.tolist() == [m.char_at(b) for b in range(m.n_bytes + 1)]
    assert m.boundary_flags == bytes(int(m.is_boundary(b)) for b in range(m.n_bytes + 1))
