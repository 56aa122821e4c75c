"""The C core's SentencePiece BPE encoder (bpe.c tl_sp_*, api.SentencePieceEncoder) against the
sentencepiece package, the reference: the same ids for Mistral 7B's model (mistral_sp) on the tricky
texts, the hostile payloads, the seeded fuzz of the WebAssembly tests and a Hypothesis fuzz; for models
trained here with and without byte fallback; and for small hand-made models whose equal scores make
the tie rule (leftmost first) decide. Models the C core would get wrong are refused with a reason."""

from __future__ import annotations

import random

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sentencepiece import sentencepiece_model_pb2 as pb

from conftest import TRICKY_TEXTS
from tokenizers.core.text import clean_text
from tokenizers.sentencepiece.model import SentencePieceTokenizer
from wasm_parity import texts

pytestmark = pytest.mark.usefixtures("need_native")


@pytest.fixture(scope="module")
def mistral():
    from tokenizers.registry import get_tokenizer

    return get_tokenizer("mistral_sp")


def c_ids(tok: SentencePieceTokenizer, text: str) -> list[int]:
    """The C encoder's ids for `text` cleaned as the library cleans it (lone surrogates -> U+FFFD)."""
    return tok.native_encoder().encode(clean_text(text)[0].encode("utf-8"))


def sp_ids(tok: SentencePieceTokenizer, text: str) -> list[int]:
    """The reference: the sentencepiece package's ids for the same cleaned text."""
    return list(tok.sp.EncodeAsIds(clean_text(text)[0]))


def differing(tok, items) -> list[str]:
    return [repr(t[:60]) for t in items if c_ids(tok, t) != sp_ids(tok, t)]


def test_mistral_is_one_the_c_core_encodes(mistral):
    assert mistral.native_refusal() is None and mistral.engine == "C"
    text = "Hello 👋 world\n\ud800  x"
    assert mistral.encode(text) == mistral.encode_ordinary(text) == c_ids(mistral, text) == sp_ids(mistral, text)
    st_ = mistral.native_state()
    assert st_["flags"] == ["dummy_prefix", "escape_spaces", "byte_fallback"]
    assert st_["unk_id"] == 0 and st_["byte_ids"] == list(range(3, 259))
    assert len(st_["pieces"]) == 31_741 and st_["pieces"][0] == ("▁▁".encode(), 259, -1e9)


def test_mistral_vectors(mistral):
    """sentencepiece 0.2.3's ids, read piece by piece: the dummy prefix; "▁b" (score -285) beating the
    whitespace pieces (all -1e9, so among them the leftmost pair merges first: 17 spaces and the prefix
    make ▁x16 then ▁, and ▁ joins "a"); byte fallback for a newline, an emoji and a lone surrogate
    (U+FFFD's bytes); "<s>" as text."""
    cases = {
        "": [],
        " ": [259],                        # ▁▁
        "Hello world": [22557, 1526],      # ▁Hello ▁world
        "a    b": [264, 2287, 287],        # ▁a ▁▁▁ ▁b
        " " * 17 + "a": [359, 28705, 264],  # ▁x16 ▁ ▁a
        "\n": [28705, 13],                 # ▁ <0x0A>
        "👋": [28705, 243, 162, 148, 142],  # ▁ <0xF0> <0x9F> <0x91> <0x8B>
        "\ud800": [28705, 29137],          # ▁ �
        "ЖЖЖ": [11000, 28942, 28942],      # ▁Ж Ж Ж
        "<s>": [523, 28713, 28767],        # ▁< s >
    }
    for text, ids in cases.items():
        assert sp_ids(mistral, text) == ids, text
        assert c_ids(mistral, text) == ids, text


def test_mistral_equals_sentencepiece_on_the_shared_texts(mistral):
    """The tricky texts, the hostile payloads and the seeded fuzz (483 texts, as the browser test)."""
    items = texts()
    assert len(items) >= 480
    assert differing(mistral, items) == []


def test_mistral_long_texts(mistral):
    rng = random.Random(7)
    words = ["the", " ", "  ", "\n", "안녕", "👩‍👩‍👧", "\t", "▁", "x²", "東京", "\U000e0001", "\U0010fffd", "don't"]
    long = "".join(rng.choice(words) for _ in range(40_000))
    from tokenizers.analysis.samples import varied_text

    for text in (long, " " * 5000, "a" * 5000, "\n".join(TRICKY_TEXTS) * 20, varied_text(1_000_000, seed=3)):
        assert c_ids(mistral, text) == sp_ids(mistral, text)


PIECES = [" ", "  ", "   ", "\n", "\r\n", "\t", "▁", "▁▁", "a", "the", "The", " the", "ing", "안녕하세요", "한",
          "👩‍👩‍👧", "👋🏽", "\u200d", "\u0301", "é", "\U0001f600", "\U000e0001", "\U0010fffd", "\ufffd", "<s>",
          "</s>", "<unk>", "<0x0A>", "<|endoftext|>", "<script>", "123", "4", "x", "東京", "ß", "ﬁ", "\x00", "\x7f"]

chars = st.one_of(
    st.sampled_from(PIECES),
    st.characters(codec=None),  # any code point but a surrogate: astral, unassigned, private use
    st.characters(min_codepoint=0x30000, max_codepoint=0x10FFFF),
    st.integers(0xD800, 0xDFFF).map(chr),  # lone surrogates (U+FFFD once cleaned), or paired by chance
    st.sampled_from([chr(c) for c in (0x378, 0x0FFFF, 0x2FFFE, 0xE0080, 0xD800, 0xDFFF)]),  # unassigned, lone
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(chars, max_size=40).map("".join))
def test_mistral_fuzz(mistral, text):
    assert c_ids(mistral, text) == sp_ids(mistral, text)


# -- models trained here -------------------------------------------------------------------------------
CORPUS = "\n".join([*TRICKY_TEXTS] * 2 + ["the cat sat on the mat, then the cat ran. " * 30,
                                           "def f(x):\n    return x  +  1\n" * 20, "안녕하세요 세계 " * 20])


def trained(tmp_path, **options) -> SentencePieceTokenizer:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "m"), model_type="bpe",
                                   vocab_size=400, minloglevel=2, hard_vocab_limit=False, **options)
    return SentencePieceTokenizer(str(tmp_path / "m.model"), name="trained")


@pytest.mark.parametrize("options", [
    {"normalization_rule_name": "identity", "byte_fallback": True, "remove_extra_whitespaces": False,
     "allow_whitespace_only_pieces": True, "split_digits": True},
    {"normalization_rule_name": "identity", "byte_fallback": False, "remove_extra_whitespaces": False},
    {"normalization_rule_name": "identity", "add_dummy_prefix": False, "remove_extra_whitespaces": False},
], ids=["llama-like", "unk-no-byte-fallback", "no-dummy-prefix"])
def test_trained_models_equal_sentencepiece(tmp_path, options):
    tok = trained(tmp_path, **options)
    assert tok.native_refusal() is None
    items = [*TRICKY_TEXTS, "Korean 한국어 is new here ЖЖЖ", "  lead", "x\n\n  y", "unknown 🤖🤖 run"]
    assert differing(tok, items) == []
    if not options.get("byte_fallback", False):  # a run of unknown characters is one <unk>
        assert c_ids(tok, "🤖🤖🤖").count(tok.unk_id) == 1


def test_models_the_c_core_would_get_wrong_are_refused(tmp_path):
    nfkc = trained(tmp_path)  # the trainer's default normalizer (nmt_nfkc), extra spaces removed
    assert "normalizes text" in nfkc.native_refusal()
    assert nfkc.native_encoder() is None and nfkc.engine == "sentencepiece"
    assert nfkc.encode("  Ａ  b ") == sp_ids(nfkc, "  Ａ  b ")  # the library stays with the package
    with pytest.raises(ValueError, match="normalizes text"):
        nfkc.native_state()
    user = trained(tmp_path, normalization_rule_name="identity", remove_extra_whitespaces=False,
                   user_defined_symbols=["<tag>"])
    assert "user-defined" in user.native_refusal()
    spaces = trained(tmp_path, normalization_rule_name="identity")
    assert "extra whitespace" in spaces.native_refusal()


# -- hand-made models: the score order and the tie rule -------------------------------------------------
def handmade(pieces: dict[str, float], *, byte_fallback: bool = True) -> SentencePieceTokenizer:
    """A BPE model with exactly these normal pieces and scores (plus <unk>, <s>, </s> and, with byte
    fallback, the 256 byte pieces), an identity normalizer with the dummy prefix."""
    m = pb.ModelProto()
    for piece, kind in (("<unk>", pb.ModelProto.SentencePiece.UNKNOWN), ("<s>", pb.ModelProto.SentencePiece.CONTROL),
                        ("</s>", pb.ModelProto.SentencePiece.CONTROL)):
        m.pieces.add(piece=piece, score=0.0, type=kind)
    if byte_fallback:
        for b in range(256):
            m.pieces.add(piece=f"<0x{b:02X}>", score=0.0, type=pb.ModelProto.SentencePiece.BYTE)
    for piece, score in pieces.items():
        m.pieces.add(piece=piece, score=score, type=pb.ModelProto.SentencePiece.NORMAL)
    m.trainer_spec.model_type = pb.TrainerSpec.BPE
    m.trainer_spec.byte_fallback = byte_fallback
    m.trainer_spec.unk_id, m.trainer_spec.bos_id, m.trainer_spec.eos_id, m.trainer_spec.pad_id = 0, 1, 2, -1
    m.normalizer_spec.name = "identity"
    m.normalizer_spec.add_dummy_prefix = True
    m.normalizer_spec.escape_whitespaces = True
    m.normalizer_spec.remove_extra_whitespaces = False
    return SentencePieceTokenizer(model_proto=m.SerializeToString(), name="handmade")


def test_equal_scores_merge_the_leftmost_pair_first():
    # "abc": ab and bc score the same; the leftmost (ab) wins, so the result is ab|c, not a|bc
    tok = handmade({"▁": -5, "a": -5, "b": -5, "c": -5, "ab": -1, "bc": -1})
    ids = {p: tok.piece_id(p) for p in ("▁", "a", "b", "c", "ab", "bc")}
    assert sp_ids(tok, "abc") == c_ids(tok, "abc") == [ids["▁"], ids["ab"], ids["c"]]
    # a higher score wins wherever it is
    tok2 = handmade({"▁": -5, "a": -5, "b": -5, "c": -5, "ab": -2, "bc": -1})
    assert sp_ids(tok2, "abc") == c_ids(tok2, "abc") == [tok2.piece_id(p) for p in ("▁", "a", "bc")]


def test_the_joined_piece_score_decides_not_the_vocabulary_order():
    # "bc" comes first in the vocabulary but "ab" has the higher score
    tok = handmade({"bc": -3, "ab": -2, "a": -9, "b": -9, "c": -9, "▁": -9})
    assert sp_ids(tok, "abc") == c_ids(tok, "abc") == [tok.piece_id(p) for p in ("▁", "ab", "c")]


@pytest.mark.parametrize("byte_fallback", [True, False])
def test_handmade_models_with_many_ties_equal_sentencepiece(byte_fallback):
    rng = random.Random(3)
    alphabet = ["a", "b", "c", "▁"]
    for trial in range(30):
        pieces = {ch: -10.0 for ch in alphabet}
        for _ in range(25):
            p = "".join(rng.choice(alphabet) for _ in range(rng.randrange(2, 5)))
            pieces[p] = float(rng.choice([-1, -2, -3]))  # few distinct scores: ties everywhere
        tok = handmade(pieces, byte_fallback=byte_fallback)
        for _ in range(40):
            text = "".join(rng.choice("abc xé") for _ in range(rng.randrange(0, 25)))
            assert c_ids(tok, text) == sp_ids(tok, text), (trial, text, pieces)


# -- a text cut after line breaks (issue 22: the browser encodes only the lines an edit touched) ------------
def without_prefix(tok: SentencePieceTokenizer) -> spm.SentencePieceProcessor:
    """sentencepiece's own encoder of the same model with add_dummy_prefix off: how it encodes a part of a text
    that does not start the text."""
    m = pb.ModelProto()
    m.CopyFrom(tok.model_proto())
    m.normalizer_spec.add_dummy_prefix = False
    return spm.SentencePieceProcessor(model_proto=m.SerializeToString())


def cuts(text: str) -> list[int]:
    """Every place just after a line break, inside the text."""
    return [i + 1 for i, ch in enumerate(text) if ch == "\n" and i + 1 < len(text)]


def split_ids(tok, rest, text: str, c: int) -> tuple[list[int], list[int]]:
    """(sentencepiece's, the C core's) ids of text[:c] encoded as a text, then text[c:] as a part that does
    not start it (`rest`: sentencepiece without the dummy prefix; the C core's at_start=False)."""
    enc = tok.native_encoder()
    left, right = text[:c], text[c:]
    return (list(tok.sp.EncodeAsIds(left)) + list(rest.EncodeAsIds(right)),
            enc.encode(left.encode()) + enc.encode(right.encode(), at_start=False))


def test_a_text_is_its_parts_cut_after_line_breaks(mistral):
    """Why the browser may encode only the lines an edit touched with a SentencePiece model (live_spans.js
    spTable's lineLocal): when no piece holds a line break and the model has byte fallback, a line break is a
    byte piece that never merges, so the merges on either side of it are independent, and the dummy prefix
    acts only at the text's start. Then encode(text) is encode(text[:c]) + encode-without-the-prefix(text[c:])
    for a cut c after any line break, for sentencepiece itself and for the C core (tl_sp_encode_part). The
    normalizer must be local too: mistral_sp's only escapes spaces (extra whitespace removal, which is not,
    is refused for the C core and so never reaches the browser: test_models_the_c_core_would_get_wrong...)."""
    proto = mistral.model_proto()
    norm = proto.normalizer_spec
    assert (norm.name, norm.add_dummy_prefix, norm.remove_extra_whitespaces, norm.escape_whitespaces) == (
        "identity", True, False, True)
    assert proto.trainer_spec.byte_fallback and mistral.piece_id("<0x0A>") == 13
    assert not [p for p, _, _ in mistral.native_state()["pieces"] if b"\n" in p]  # no piece holds a line break
    rest = without_prefix(mistral)
    items = [t for t in (clean_text(x)[0] for x in texts()) if "\n" in t]
    items += ["a\nb", "x\n\u2581y\n \n\n▁▁ z\n", "\n" * 5, "😀\n😀\n", "end\n ", " \nx", "\n".join(TRICKY_TEXTS)]
    checked = 0
    for text in items:
        whole = sp_ids(mistral, text)
        assert c_ids(mistral, text) == whole
        for c in cuts(text):
            assert split_ids(mistral, rest, text, c) == (whole, whole), (text[:60], c)
            checked += 1
    assert checked > 350
    # the part after a cut must go without the prefix: with it, "b" would be "▁b"
    assert sp_ids(mistral, "a\nb") != sp_ids(mistral, "a\n") + sp_ids(mistral, "b")


def test_cut_after_line_breaks_needs_no_piece_with_one_and_byte_fallback():
    """The conditions are needed: a piece that holds a line break merges across it, and without byte fallback a
    run of unknown characters is one <unk> across it; the browser then encodes the whole text (spTable)."""
    base = {"▁": -5, "a": -5, "b": -5, "ab": -1}
    tok = handmade({**base, "\n": -5, "\nb": -1})
    text = "a\nb"
    assert sp_ids(tok, text) == c_ids(tok, text)
    assert split_ids(tok, without_prefix(tok), text, 2)[0] != sp_ids(tok, text)
    tok = handmade(base, byte_fallback=False)
    text = "a\n\n"  # "\n" is unknown: the whole text has one <unk> for both, the parts one each
    assert sp_ids(tok, text + "a") == c_ids(tok, text + "a")
    assert split_ids(tok, without_prefix(tok), "a\n\nb", 2)[0] != sp_ids(tok, "a\n\nb")
    local = handmade(base)  # the same pieces with byte fallback: local
    assert split_ids(local, without_prefix(local), "a\n\nb", 2) == (sp_ids(local, "a\n\nb"),) * 2
