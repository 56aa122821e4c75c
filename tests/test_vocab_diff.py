"""The vocabulary diff (tokenizers/analysis/vocab_diff.py) against set arithmetic computed without it: over
decode_single_token_bytes for every id, and over the vendors' own files read by tiktoken and sentencepiece.
The three questions of issue 23 as exact numbers; the one token classifier on hand-picked vectors."""

from __future__ import annotations

import base64

import pytest

import tokenizers
from tokenizers import REGISTRY, UnknownTokenIdError, get_tokenizer, vocab_diff
from tokenizers.analysis.vocab_audit import KINDS, audit, token_kind
from tokenizers.analysis.vocab_diff import VocabDiff, vocabulary


# -- the reference: plain set arithmetic over the interface ----------------------------------------------
def ordinary_bytes(tok) -> dict[int, bytes]:
    """id -> bytes of every ordinary token, by asking decode_single_token_bytes for every id below n_vocab."""
    apart = set(tok.special_tokens.values()) | {tok.unk_id}
    out = {}
    for i in range(tok.n_vocab):
        if i in apart or tok.is_unused(i):
            continue
        try:
            out[i] = tok.decode_single_token_bytes(i)
        except (KeyError, UnknownTokenIdError):
            continue
    return out


def reference(a: str, b: str):
    sa, sb = set(ordinary_bytes(get_tokenizer(a)).values()), set(ordinary_bytes(get_tokenizer(b)).values())
    return sa & sb, sa - sb, sb - sa


PAIRS = [("gpt2", "cl100k_base"), ("cl100k_base", "o200k_base"), ("cl100k_base", "llama3"), ("mistral_sp", "llama3")]


@pytest.mark.parametrize("a,b", PAIRS)
def test_diff_is_set_arithmetic_over_decode_single_token_bytes(a, b):
    d = vocab_diff(a, b)
    shared, only_a, only_b = reference(a, b)
    assert set(d.shared) == shared and set(d.only_a) == only_a and set(d.only_b) == only_b
    assert len(d.shared) == len(shared) and len(d.only_a) == len(only_a) and len(d.only_b) == len(only_b)
    ta, tb = get_tokenizer(a), get_tokenizer(b)
    ranks_a = {i: r for r, i in enumerate(sorted(ordinary_bytes(ta)))}   # rank: position among ordinary ids
    ranks_b = {i: r for r, i in enumerate(sorted(ordinary_bytes(tb)))}
    for t in d.shared[::97]:
        ia, ib = d.ids(t)
        assert ta.decode_single_token_bytes(ia) == t == tb.decode_single_token_bytes(ib)
        assert d.ranks(t) == (ranks_a[ia], ranks_b[ib])
    assert [d.b.rank(t) for t in d.only_b] == sorted(d.b.rank(t) for t in d.only_b)  # in B's rank order
    assert [d.b.rank(t) for t in d.shared] == sorted(d.b.rank(t) for t in d.shared)
    assert [d.a.rank(t) for t in d.only_a] == sorted(d.a.rank(t) for t in d.only_a)
    assert d.a.ranks_of(d.shared[::37]) == [d.a.rank(t) for t in d.shared[::37]]
    assert sum(sum(c.values()) for c in d.by_kind.values()) == len(shared) + len(only_a) + len(only_b)


def test_what_gpt4o_added_over_gpt4():
    d = vocab_diff("cl100k_base", "o200k_base")
    assert (len(d.shared), len(d.only_b), len(d.only_a)) == (85_033, 114_965, 15_223)
    assert d.a.size == 100_256 and d.b.size == 199_998
    kinds = d.by_kind
    added = {k: kinds[k]["only_b"] for k in ("Cyrillic", "Arabic", "Devanagari", "CJK", "Hangul", "digits")}
    assert added == {"Cyrillic": 13_539, "Arabic": 7_910, "Devanagari": 3_920, "CJK": 7_218, "Hangul": 2_080,
                     "digits": 0}
    # the independent count of one kind: the token classifier over the reference's added tokens
    _, _, only_b = reference("cl100k_base", "o200k_base")
    assert sum(token_kind(t) == "Cyrillic" for t in only_b) == 13_539
    assert d.longest("only_b", 1) == [b"-" * 112]


def _tiktoken_ranks(path) -> dict[bytes, int]:
    """A tiktoken-format file read by tiktoken itself (not by this project's reader)."""
    from tiktoken.load import load_tiktoken_bpe

    return load_tiktoken_bpe(str(path))


def test_llama3_contains_gpt4():
    d = vocab_diff("cl100k_base", "llama3")
    assert d.only_a == () and len(d.shared) == 100_256 and len(d.only_b) == 27_744 and d.share_of_a == 1.0
    # the vendors' files, as tiktoken reads them: Llama 3's first ranks are cl100k_base's, exactly, and not
    # only the first 100,000 ("100K tokens from tiktoken", Meta's words): all 100,256 of them, in order
    import tiktoken

    from tokenizers.vocabularies.provision import cache_root, use_project_cache

    use_project_cache()
    cl100k = tiktoken.get_encoding("cl100k_base")
    llama = _tiktoken_ranks(cache_root() / "vendor" / "llama3.tiktoken")
    by_rank = {r: b for b, r in llama.items()}
    assert len(llama) == 128_000
    assert all(by_rank[r] == cl100k.decode_single_token_bytes(r) for r in range(100_000))
    assert all(by_rank[r] == cl100k.decode_single_token_bytes(r) for r in range(100_000, 100_256))
    assert len(cl100k.token_byte_values()) == 100_256 and by_rank[100_256] not in set(cl100k.token_byte_values())
    # the diff's ranks say the same: every shared token keeps its rank
    assert all(d.ranks(by_rank[r]) == (r, r) for r in range(0, 100_256, 1_000))
    assert {s.shift for s in d.rank_shifts()} == {0}


def test_how_much_of_mistral_is_in_llama3():
    d = vocab_diff("mistral_sp", "llama3")
    assert (len(d.shared), len(d.only_a), d.a.size) == (29_110, 2_762, 31_872)
    assert round(d.share_of_a, 4) == 0.9133
    # Mistral's pieces read by sentencepiece itself: ▁ is a space, <0xNN> is the byte, control pieces apart
    import sentencepiece as spm

    from tokenizers.vocabularies.provision import sentencepiece_model_path

    sp = spm.SentencePieceProcessor(model_file=str(sentencepiece_model_path()))
    mine = set()
    for i in range(sp.get_piece_size()):
        p = sp.id_to_piece(i)
        if sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i):
            continue
        mine.add(bytes([int(p[3:5], 16)]) if sp.is_byte(i) else p.replace("\u2581", " ").encode())
    assert len(mine) == 31_872 and d.a.duplicates == 32_000 - 3 - 31_872
    llama = set(_tiktoken_ranks(__import__("tokenizers.vocabularies.provision", fromlist=["x"]).cache_root()
                                / "vendor" / "llama3.tiktoken"))
    assert len(mine & llama) == 29_110


def test_gpt2_to_gpt4():
    d = vocab_diff("gpt2", "cl100k_base")
    assert (len(d.shared), len(d.only_a), len(d.only_b)) == (43_066, 7_190, 57_190)


# -- each backend spells its tokens as bytes ---------------------------------------------------------------
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_registry_tokenizer_gives_spelled_bytes(name):
    tok = get_tokenizer(name)
    v = vocabulary(tok)
    assert v.size + v.duplicates + len(v.specials) == sum(1 for _ in tok.iter_vocab())
    assert {i for i, _ in v.specials} >= set(tok.special_tokens.values())
    assert all(tok.encode_single_token(b) == i for b, i in list(v.ids.items())[::101])
    assert all(tok.decode_single_token_bytes(i) == b for b, i in v.ids.items())  # what iter_vocab gave
    # no vocabulary marker survives in an ordinary token of a file that uses one
    if tok.kind == "sentencepiece":
        assert b" the" in v.ids and all("\u2581".encode() not in b for b in v.ids)
        assert all(bytes([x]) in v.ids for x in range(256))  # <0xNN> pieces are their byte
    if name in ("gpt2", "cl100k_base", "llama3", "qwen", "deepseek_v3", "claude_legacy", "mistral_tekken"):
        assert b" the" in v.ids and "\u0120the".encode() not in v.ids  # byte-level: Ġ is a space


def test_sentencepiece_unused_pieces_are_listed_apart():
    """A SentencePiece model with an unused piece (made by marking one in Mistral's model): the piece is
    apart, not an ordinary token."""
    from tokenizers.sentencepiece.model import SentencePieceTokenizer

    mistral = get_tokenizer("mistral_sp")
    proto = mistral.model_proto()
    proto.pieces[1000].type = 5  # UNUSED
    tok = SentencePieceTokenizer(model_proto=proto.SerializeToString(), name="with_unused")
    assert tok.is_unused(1000) and not mistral.is_unused(1000) and not tok.is_special(1000)
    v = vocabulary(tok)
    assert 1000 in {i for i, _ in v.specials}
    piece = tok.decode_single_token_bytes(1000)
    assert v.ids.get(piece) != 1000 and len(vocabulary(mistral).specials) == 3 and len(v.specials) == 4


def test_an_uploaded_tiktoken_and_a_trained_model():
    from upload_samples import tiktoken_file, trained

    from tokenizers.user_files import load_user_file

    up = load_user_file("my_vocab.tiktoken", tiktoken_file(), pattern="GPT-4")
    lab = trained()
    d = vocab_diff(lab, up)
    assert d.only_a == () == d.only_b and len(d.shared) == len(ordinary_bytes(lab)) == 327
    d2 = vocab_diff(up, "cl100k_base")
    ref = set(ordinary_bytes(up).values())
    assert set(d2.only_a) == ref - set(ordinary_bytes(get_tokenizer("cl100k_base")).values())
    assert d2.a.name == "my_vocab.tiktoken" and isinstance(d2, VocabDiff)


@pytest.mark.parametrize("fmt", ["tiktoken", "sentencepiece", "minbpe", "tokenizer.json", "vocab.txt"])
def test_every_uploadable_format(fmt):
    """A file of each format the app reads: the diff's vocabulary is the reference's set, specials apart."""
    from upload_samples import GOOD

    from tokenizers.user_files import load_user_file

    filename, make = GOOD[fmt]
    tok = load_user_file(filename, make(), **({"pattern": "GPT-4"} if fmt == "tiktoken" else {}))
    v = vocabulary(tok)
    assert set(v.ids) == set(ordinary_bytes(tok).values())
    assert v.size + v.duplicates == len(ordinary_bytes(tok))
    assert {i for i, _ in v.specials} == set(tok.special_tokens.values()) | ({tok.unk_id} - {None})
    if fmt == "vocab.txt":  # WordPiece's ##s spells "s": pieces inside a word are compared by their characters
        assert b"s" in v.ids and b"##s" not in v.ids and b"[UNK]" not in v.ids


def test_hostile_tokens_are_plain_bytes():
    from payloads import PAYLOADS

    from tokenizers.user_files import load_user_file

    tokens = [bytes([x]) for x in range(256)] + [p.encode() for p in PAYLOADS.values()]
    data = "".join(f"{base64.b64encode(b).decode()} {i}\n" for i, b in enumerate(dict.fromkeys(tokens))).encode()
    up = load_user_file("<img src=x onerror=alert(1)>.tiktoken", data, pattern="GPT-4")
    d = vocab_diff("gpt2", up)
    assert {p.encode() for p in PAYLOADS.values()} <= set(d.only_b)


def test_fingerprint_is_the_content_not_the_name():
    from upload_samples import tiktoken_file

    from tokenizers.user_files import load_user_file

    one = vocabulary(load_user_file("one.tiktoken", tiktoken_file(), pattern="GPT-4"))
    two = vocabulary(load_user_file("two.tiktoken", tiktoken_file(), pattern="GPT-4"))
    assert one.fingerprint == two.fingerprint != vocabulary("gpt2").fingerprint


def test_rank_shifts():
    d = vocab_diff("cl100k_base", "o200k_base")
    s = d.rank_shifts()
    assert len(s) == len(d.shared) and s[:20] == d.rank_shifts(20)
    assert [abs(x.shift) for x in s[:50]] == sorted((abs(x.shift) for x in s[:50]), reverse=True)
    assert s[0].token == b"cri" and (s[0].rank_a, s[0].rank_b) == (745, 197_973)
    assert all(x.shift == x.rank_b - x.rank_a for x in s[::50])


def test_public_names():
    assert tokenizers.vocab_diff is vocab_diff and tokenizers.VocabDiff is VocabDiff
    assert "vocab_diff" in tokenizers.__all__ and "VocabDiff" in tokenizers.__all__


# -- the one token classifier --------------------------------------------------------------------------------
KIND_VECTORS = [
    (b" the", "Latin"), (b"x2", "Latin"), ("l'été".encode(), "Latin"), (b"Hello", "Latin"),
    ("中文".encode(), "CJK"), ("ひらがな".encode(), "CJK"), ("カタカナ".encode(), "CJK"), (" 東京".encode(), "CJK"),
    ("안녕".encode(), "Hangul"), (" привет".encode(), "Cyrillic"), ("αβγ".encode(), "Greek"),
    ("مرحبا".encode(), "Arabic"), ("नमस्ते".encode(), "Devanagari"),  # virama and vowel signs are Inherited/Devanagari
    ("שלום".encode(), "other scripts"), ("สวัสดี".encode(), "other scripts"), ("abcпр".encode(), "mixed scripts"),
    (b" 2024", "digits"), (b"7", "digits"), (b"();", "code punctuation"), (b" =>", "code punctuation"),
    (b"{\n}", "code punctuation"), (b"   ", "whitespace"), (b"\n\n", "whitespace"), (b"\t", "whitespace"),
    ("\u00a0\u3000".encode(), "whitespace"), ("—".encode(), "symbols & other"), ("👍".encode(), "symbols & other"),
    (b"3.14", "symbols & other"), (b"", "symbols & other"), (b"\x00", "symbols & other"),
    (b"\xe4\xb8", "partial UTF-8"), (b"\x80", "partial UTF-8"), (b"\xff", "partial UTF-8"),
    (b" \xf0\x9f", "partial UTF-8"), ("é".encode()[1:], "partial UTF-8"),
]


@pytest.mark.parametrize("data,kind", KIND_VECTORS)
def test_token_kind(data, kind):
    assert token_kind(data) == kind and kind in KINDS


def test_token_kind_agrees_with_the_audit():
    """The audit's partial_utf8 and all_digit lists are the classifier's partial UTF-8 and bare digits."""
    tok = get_tokenizer("cl100k_base")
    r = audit("cl100k_base")
    v = vocabulary(tok)
    partial = sorted(i for b, i in v.ids.items() if v.kinds[b] == "partial UTF-8")
    digits = sorted(i for b, i in v.ids.items() if v.kinds[b] == "digits" and b.isdigit())
    assert partial == sorted(r["partial_utf8"]) and digits == sorted(r["all_digit"])
