"""Where a prompt ends (tokenizers.token_healing) and the vocabulary search's prefix query it uses,
each against a plain scan over decode_single_token_bytes for every id, on every registered tokenizer,
the kinds trained in the app and a file of each uploadable format."""

import pytest

from test_capabilities import CASES, build
from tokenizers import BPETokenizer, TokenHealing, get_tokenizer, token_healing
from tokenizers.analysis.healing import BY_MERGE, BY_SCORE, commonness
from tokenizers.analysis.vocab_search import (PrefixIndex, ids_with_prefix_reference, prefix_end, prefix_index)
from tokenizers.core.tokenizer import UnknownTokenIdError

PROMPTS = ["http:", "Hello ", "The quick bro", "x<|endoftext|>", "안녕하", "👍", "日本", "a\n\n", "  ", "def f(x):\n    ",
           "e\u0301", "1234"]
# prefixes that hit the edges: nothing, one byte, bytes that are not UTF-8 on their own, a character cut
# after one or two of its bytes, 0xFF runs (no successor), bytes no token starts with
EDGE_PREFIXES = [b"", b" ", b":", b"http", b" bro", b"\x80", b"\xe4", b"\xe4\xb8", b"\xec\x95", b"\xf0\x9f",
                 b"\xf0\x9f\x91", b"\xff", b"\xff\xff", b"\xfe\xff", b"\x00", b"zzzzzzzzzz", b"<|", b"\n\n"]


def scan(tok) -> list[tuple[int, bytes]]:
    """Every ordinary token, one id at a time: the independent computation the tests compare with."""
    out = []
    for i in range(tok.n_vocab):
        try:
            b = tok.decode_single_token_bytes(i)
        except (KeyError, UnknownTokenIdError):
            continue
        if not tok.is_special(i) and i != tok.unk_id:
            out.append((i, b))
    return out


def prefixes_of(vocab: list[tuple[int, bytes]], k: int = 16) -> list[bytes]:
    """EDGE_PREFIXES, and every start of some of the vocabulary's tokens (a token cut mid-character too)."""
    step = max(1, len(vocab) // k)
    out = list(EDGE_PREFIXES)
    for _, b in vocab[::step]:
        out += [b[:n] for n in range(1, len(b) + 1)]
    return list(dict.fromkeys(out))


_scans: dict[int, list] = {}


def scanned(tok):
    if id(tok) not in _scans:
        _scans[id(tok)] = (tok, scan(tok))  # the tokenizer kept alive with its scan
    return _scans[id(tok)][1]


# -- the prefix query ---------------------------------------------------------------------------------
def test_prefix_end():
    assert prefix_end(b"") is None and prefix_end(b"\xff\xff") is None
    assert prefix_end(b"ab") == b"ac" and prefix_end(b"a\xff") == b"b" and prefix_end(b"\x00") == b"\x01"
    assert prefix_end(b"\xe4\xb8") == b"\xe4\xb9"


@pytest.mark.parametrize("source,name", CASES, ids=[f"{s}:{n}" for s, n in CASES])
def test_prefix_query_equals_a_scan(source, name):
    tok = build(source, name)
    vocab = scanned(tok)
    index = prefix_index(tok)
    assert len(index) == len(vocab)
    for p in prefixes_of(vocab):
        expected = [i for i, b in vocab if b.startswith(p)]
        assert index.ids_with_prefix(p) == expected, p
        assert index.count(p) == len(expected)
    assert index.ids_with_prefix(b"") == [i for i, _ in vocab]  # the empty prefix: every ordinary token


@pytest.mark.parametrize("name", ["custom_bpe", "gpt2", "mistral_sp", "claude_legacy"])
def test_prefix_query_equals_the_library_reference(name):
    tok = get_tokenizer(name)
    index = prefix_index(tok)
    for p in prefixes_of(scanned(tok), k=8):
        assert index.ids_with_prefix(p) == ids_with_prefix_reference(tok, p), p


def test_prefix_index_is_built_once_and_rebuilt_when_the_model_changes():
    tok = BPETokenizer("gpt4", name="t")
    tok.train("aaaa bbbb aaaa bbbb abab " * 20, 260)
    assert token_healing(tok, "x c").common == token_healing(tok, "x c").common == (99,)  # b"c", ranked once
    first = prefix_index(tok)
    assert prefix_index(tok) is first
    before = first.ids_with_prefix(b"a")
    tok.train("cccc dddd cccc dddd cdcd " * 20, 260)  # trained again in place, same size: other merges
    again = prefix_index(tok)
    assert again is not first
    assert again.ids_with_prefix(b"c") == [i for i, b in scan(tok) if b.startswith(b"c")]
    assert again.ids_with_prefix(b"c") != first.ids_with_prefix(b"c") and before
    h = token_healing(tok, "x c")  # the ranking kept for b"c" belonged to the old vocabulary
    assert h.candidates == tuple(i for i, b in scan(tok) if b.startswith(b"c")) and len(h.common) > 1
    tok.register_special_tokens({"<|x|>": 260})
    assert 260 not in prefix_index(tok).ids_with_prefix(b"<")


# -- token_healing against the plain computation ------------------------------------------------------
@pytest.mark.parametrize("source,name", CASES, ids=[f"{s}:{n}" for s, n in CASES])
def test_token_healing_equals_a_scan(source, name):
    tok = build(source, name)
    vocab = scanned(tok)
    how, key = commonness(tok)
    for text in PROMPTS:
        ids = tok.encode_ordinary(text)
        if not ids:
            with pytest.raises(ValueError, match="no tokens"):
                token_healing(tok, text)
            continue
        h = token_healing(tok, text)
        assert isinstance(h, TokenHealing)
        assert list(h.prefix_ids) == ids[:-1] and h.last_id == ids[-1] and h.n_tokens == len(ids)
        partial = tok.decode_single_token_bytes(ids[-1]) if ids[-1] != tok.unk_id else h.covered
        assert h.partial == partial
        assert list(h.candidates) == [i for i, b in vocab if b.startswith(partial)], text
        assert h.last_id in h.candidates or tok.is_special(h.last_id) or h.last_id == tok.unk_id
        assert list(h.common) == sorted(h.candidates, key=key)[:10] and h.ranking == how
        if h.last_id != tok.unk_id:
            spelled = b"".join(map(tok.decode_single_token_bytes, ids))
            assert b"".join(map(tok.decode_single_token_bytes, h.prefix_ids)) + partial == spelled


@pytest.mark.parametrize("source,name", CASES, ids=[f"{s}:{n}" for s, n in CASES])
def test_bytes_are_spelled_bytes(source, name):
    """Every backend spells a SentencePiece-style piece's ▁ as the space it stands for, so `partial` and
    the candidates are compared in one space of bytes (a piece ▁bro is the bytes " bro")."""
    tok = build(source, name)
    marked = 0
    for i, b in scanned(tok):
        piece = tok.piece_of(i)
        if "\u2581" in piece and not tok.is_byte_fallback(i):
            marked += 1
            assert b == piece.replace("\u2581", " ").encode("utf-8"), (i, piece, b)
    assert marked or tok.capabilities.model_type != "unigram"


# -- hand-checked vectors -----------------------------------------------------------------------------
def test_cl100k_http_colon():
    tok = get_tokenizer("cl100k_base")
    h = token_healing(tok, "http:")
    assert (h.prefix_ids, h.last_id, h.partial, h.covered) == ((1277,), 25, b":", b":")  # "http" + ":"
    assert tok.decode_single_token_bytes(1129) == b"://" and 1129 in h.candidates
    assert len(h.candidates) == 324 and h.longer == 323
    # cl100k's ids are its merge ranks (single bytes 0-255 first): the most common are the lowest ids
    assert h.ranking == BY_MERGE and h.common == (25, 487, 512, 1129, 1473, 2904, 3047, 3349, 4989, 5583)
    assert [tok.decode_single_token_bytes(i) for i in h.common[:4]] == [b":", b"::", b":\n", b"://"]


def test_trailing_space_and_half_a_word():
    gpt2 = get_tokenizer("gpt2")
    h = token_healing(gpt2, "Hello ")
    assert (h.prefix_ids, h.last_id, h.partial) == ((15496,), 220, b" ")
    assert gpt2.encode_single_token(b" world") in h.candidates and len(h.candidates) == 33135
    cl = get_tokenizer("cl100k_base")
    h = token_healing(cl, "The quick bro")
    assert (h.prefix_ids, h.last_id, h.partial) == ((791, 4062), 2967, b" bro")
    assert cl.encode_single_token(b" brown") == 14198 and 14198 in h.candidates and len(h.candidates) == 32


def test_sentencepiece_spells_its_word_marker_as_a_space():
    sp = get_tokenizer("mistral_sp")
    h = token_healing(sp, "Hello")  # one token, "▁Hello": nothing kept, and the ▁ is a space
    assert (h.prefix_ids, h.last_id, h.partial, h.covered) == ((), 22557, b" Hello", b"Hello")
    assert h.candidates == (22557,)
    h = token_healing(sp, "Hello ")  # "▁Hello" + "▁": every piece that starts a word follows
    assert (h.prefix_ids, h.last_id, h.partial) == ((22557,), 28705, b" ")
    assert sp.piece_of(28705) == "\u2581" and sp.encode_single_token(b" world") in h.candidates
    assert 35 in h.candidates and sp.is_byte_fallback(35)  # <0x20>: the byte 20, a space too
    # ranked by piece score (minus the merge order in this BPE model); byte pieces last
    assert h.ranking == BY_SCORE and [sp.piece_of(i) for i in h.common[:4]] == ["▁t", "▁a", "▁s", "▁the"]
    scores = [sp.score_of(i) for i in h.common]
    assert scores == sorted(scores, reverse=True)
    h = token_healing(sp, "http:")
    assert (h.prefix_ids, h.last_id, h.partial) == ((3550,), 28747, b":")
    assert [sp.piece_of(i) for i in h.common[:2]] == ["::", "://"]


def test_partial_utf8_ends():
    cl = get_tokenizer("cl100k_base")
    h = token_healing(cl, "👍")  # F0 9F 91 8D in three tokens: F0 9F, 91, 8D
    assert (h.prefix_ids, h.last_id, h.partial) == ((9468, 239), 235, b"\x8d")
    assert h.char_span == (0, 1) and h.covered == b"\x8d"
    assert all(cl.decode_single_token_bytes(i).startswith(b"\x8d") for i in h.candidates)


# -- edge cases -----------------------------------------------------------------------------------------
def test_empty_text_is_a_clear_error():
    for name in ["cl100k_base", "mistral_sp"]:
        with pytest.raises(ValueError, match="no tokens .*empty.*no last token"):
            token_healing(get_tokenizer(name), "")


def test_one_token_text_keeps_nothing():
    tok = get_tokenizer("cl100k_base")
    h = token_healing(tok, "hello")
    assert h.prefix_ids == () and h.last_id == tok.encode_single_token("hello") and h.partial == b"hello"


def test_special_looking_end_is_text():
    for name in ["cl100k_base", "gpt2", "o200k_harmony", "qwen"]:
        tok = get_tokenizer(name)
        h = token_healing(tok, "The end.<|endoftext|>")
        assert tok.eot_token not in (*h.prefix_ids, h.last_id)
        assert tok.decode_bytes([*h.prefix_ids, h.last_id]) == b"The end.<|endoftext|>"
        assert not any(tok.is_special(i) for i in h.candidates) and h.partial.endswith(b">")


def test_lone_surrogates_become_u_fffd():
    tok = get_tokenizer("cl100k_base")
    h = token_healing(tok, "abc\ud800")
    assert h.replaced == 1 and h.text == "abc\ufffd"
    assert tok.decode_bytes([*h.prefix_ids, h.last_id]) == "abc\ufffd".encode()


def test_unknown_token_backs_off_to_the_text_it_stood_for():
    from tokenizers.classic import algorithms

    tok = algorithms.train("char", "abcabc aabbcc", 10)
    h = token_healing(tok, "abz")
    assert h.last_id == tok.unk_id and h.partial == h.covered == b"z" and h.candidates == ()
    assert tok.unk_id not in prefix_index(tok).ids_with_prefix(b"")


def test_a_long_text_is_encoded_once(monkeypatch):
    tok = get_tokenizer("cl100k_base")
    text = "The quick brown fox jumps over the lazy dog. " * 23_000 + "http:"  # ~1 MB
    assert len(text.encode()) > 1_000_000
    tokens = tok.tokenize(text, disallowed_special=())
    calls = []
    monkeypatch.setattr(tok, "tokenize", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(tok, "encode", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(tok, "encode_ordinary", lambda *a, **k: calls.append(1))
    h = token_healing(tok, text, tokens=tokens)
    assert not calls and h.partial == b":" and len(h.prefix_ids) == len(tokens) - 1
    assert h.char_span == (len(text) - 1, len(text))
    with pytest.raises(ValueError, match="not this tokenizer's tokens"):
        token_healing(tok, text + "x", tokens=tokens)
    with pytest.raises(ValueError, match="not this tokenizer's tokens"):
        token_healing(get_tokenizer("gpt2"), text, tokens=tokens)


def test_prefix_index_type():
    assert isinstance(prefix_index(get_tokenizer("gpt2")), PrefixIndex)
