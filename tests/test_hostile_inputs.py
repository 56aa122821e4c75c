"""Issue 16's hostile inputs (tests/hostile.py) driven through the pages with AppTest: each gets a
correct result or a clear message, never an exception, and the page stays usable afterwards.
Times and memory for the same inputs: benchmarks/hostile_inputs.py."""

from __future__ import annotations

import re

import pytest

import hostile
from conftest import app_test
from hostile import DRIVERS, MODEL_UPLOADS, TEXT_UPLOADS, TEXTS, outcome, text
from tokenizers import get_tokenizer
from tokenizers.core.text import clean_text
from service import limits

pytestmark = pytest.mark.filterwarnings("ignore")
MEGA = ["1M spaces", "1M a", "1M emoji", "5MB random Unicode", "endoftext x100k"]


def slow_if_mega(names) -> list:
    """The names, the megabyte texts among them marked slow: the quick tier keeps the small hostile texts."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in MEGA else n for n in names]


def drive(input_name: str, value):
    page, driver, kind = DRIVERS[input_name]
    at = driver(app_test(timeout=600), value)
    seen = outcome(at)
    assert not seen["exception"], (input_name, seen["exception"])
    return at, seen


def counts(at) -> dict[str, int]:
    """{tokenizer: token count} from the rendered column headers (text A's first)."""
    out = {}
    for h in at.get("html"):
        m = re.search(r'data-tokenizer="([^"]+)".*?class="tl-count">([\d,]+)<', h.proto.body, re.S)
        if m and m.group(1) not in out:
            out[m.group(1)] = int(m.group(2).replace(",", ""))
    return out


def words(seen: dict) -> str:
    return " ".join(" ".join(v) for k, v in seen.items() if k != "exception").replace("\\", "")


def expected_text(name: str, limit: int) -> str:
    return limits.cut_text(clean_text(text(name))[0], limit)[0]


# -- Compare: every text, counts equal the library's on what the page says it used --------------------
@pytest.mark.parametrize("name", slow_if_mega(TEXTS))
def test_compare_text_is_counted_correctly_or_cut_with_a_notice(name):
    at, seen = drive("Compare text", text(name))
    used = expected_text(name, limits.COMPARE_TEXT_BYTES)
    if len(used) < len(clean_text(text(name))[0]):
        assert "Compare works on its first 1.0 MB" in words(seen)
    got = counts(at)
    for tok_name in ("gpt2", "mistral_sp"):
        assert got[tok_name] == len(get_tokenizer(tok_name).encode(used, disallowed_special=())), tok_name
    at.session_state["compare_text"] = "hello world"  # still usable
    at.run()
    assert not at.exception and counts(at)["gpt2"] == 2


@pytest.mark.slow
def test_endoftext_100k_with_special_parsing_on():
    at, seen = drive("Compare text (special parsing on)", text("endoftext x100k"))
    used = expected_text("endoftext x100k", limits.COMPARE_TEXT_BYTES)
    n_specials = used.count("<|endoftext|>")
    assert counts(at)["gpt2"] == len(get_tokenizer("gpt2").encode(used, allowed_special="all"))
    assert counts(at)["gpt2"] >= n_specials > 70_000  # each whole one is one token; a cut tail is text
    assert "Parsing is **on**" in " ".join(seen["info"])


@pytest.mark.parametrize("name", slow_if_mega(["1M spaces", "5MB random Unicode", "10k combining marks"]))
def test_compare_text_b_is_cut_and_paged(name):
    at, seen = drive("Compare text B", text(name))
    if len(text(name).encode("utf-8")) > limits.COMPARE_TEXT_BYTES:
        assert "Text B is" in words(seen)
    spans = [c for c in at.get("bidi_component") if c.proto.component_name == "token_lens.token_spans"]
    assert spans and all(len(c.proto.bytes or b"") < 3_000_000 for c in spans)  # a page of B, not all of it


@pytest.mark.parametrize("ids", hostile.BAD_IDS)
def test_decoders_and_inside_id_answer_every_id(ids):
    for name in ("Compare decoder", "Inside decoder", "Inside token id"):
        at, seen = drive(name, ids)
        assert seen["error"] or at.get("code") or seen["info"], name  # a message or a decoded text


# -- Inside and Quirks: every text -----------------------------------------------------------------------
@pytest.mark.parametrize("name", slow_if_mega(TEXTS))
def test_inside_and_quirks_take_every_text(name):
    for input_name, limit, what in (("Inside text", limits.INSIDE_TEXT_BYTES, "Inside a token"),
                                    ("Quirks card text", limits.CARD_TEXT_BYTES, "this card")):
        at, seen = drive(input_name, text(name))
        if len(clean_text(text(name))[0].encode()) > limit:
            assert f"{what} works on its first" in words(seen), input_name


@pytest.mark.slow
def test_inside_steps_refuse_a_chunk_of_a_million_spaces_without_building_it():
    at, seen = drive("Inside text", text("1M spaces"))
    assert any("the steps are shown for chunks up to 2,000 bytes" in i for i in seen["info"])


# -- the labs: pasted corpora, regexes, vocab sizes --------------------------------------------------------
@pytest.mark.parametrize("name", slow_if_mega(["1M spaces", "1M emoji", "5MB random Unicode", "NUL and controls",
                                               "10k combining marks"]))
def test_bpe_lab_trains_on_hostile_text_or_says_why(name):
    at, seen = drive("BPE Lab pasted corpus", text(name))
    tok = at.session_state["lab_model"] if "lab_model" in at.session_state else None
    assert tok is not None or seen["error"], seen
    if tok is not None:
        assert tok.decode(tok.encode("hello", disallowed_special=())) == "hello"


@pytest.mark.slow
@pytest.mark.parametrize("pattern", hostile.CATASTROPHIC_PATTERNS)
def test_catastrophic_regex_is_stopped_by_the_time_limit(pattern):
    at, seen = drive("BPE Lab custom regex", pattern)
    if "lab_model" not in at.session_state:  # it backtracked: stopped, and the page says so
        assert "ran for more than 3 s on this text and was stopped" in words(seen)


@pytest.mark.slow
@pytest.mark.parametrize("input_name,lo,hi", [("BPE Lab vocab size", 256, 8192), ("Algorithms vocab size", 2, 8192),
                                              ("SentencePiece Lab vocab size", 1, 200_000)])
def test_vocab_sizes_at_and_past_every_bound(input_name, lo, hi):
    for value in hostile.vocab_sizes(lo, hi):
        at, seen = drive(input_name, value)
        model = at.session_state["lab_model"] if input_name.startswith("BPE") and "lab_model" in at.session_state \
            else None
        if model is not None:
            assert 256 <= model.vocab_size <= hi + 1  # + the special token


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1M a", "NUL and controls", "lone surrogates"])
def test_algorithms_train_and_segment_hostile_text(name):
    at, seen = drive("Algorithms pasted corpus", text(name))
    assert "alg_result" in at.session_state or seen["error"]
    at, seen = drive("Algorithms segment text", text(name))


@pytest.mark.parametrize("name", slow_if_mega(["1M spaces", "NUL and controls", "10k combining marks"]))
def test_sentencepiece_lab_trains_or_says_why(name):
    at, seen = drive("SentencePiece Lab pasted corpus", text(name))
    assert "sp_model" in at.session_state or seen["error"]


@pytest.mark.parametrize("name", slow_if_mega(["5MB random Unicode", "lone surrogates"]))
def test_sentencepiece_encoder_takes_hostile_text(name):
    at, seen = drive("SentencePiece Lab encode text", text(name))
    if len(text(name).encode("utf-8", "surrogatepass")) > limits.ENCODE_TEXT_BYTES:
        assert "the encoder works on its first" in words(seen)


# -- uploads ----------------------------------------------------------------------------------------------
UPLOAD_SAYS = {"6 MB text": "MB", "binary (PNG)": "binary", "random bytes": "binary", "empty": "empty"}


@pytest.mark.slow
@pytest.mark.parametrize("upload", list(TEXT_UPLOADS))
@pytest.mark.parametrize("input_name", ["BPE Lab text upload", "SentencePiece Lab text upload",
                                        "Algorithms text upload", "Languages corpus upload"])
def test_text_uploads(input_name, upload):
    filename, make = TEXT_UPLOADS[upload]
    at, seen = drive(input_name, (filename, make()))
    if upload in UPLOAD_SAYS:
        assert UPLOAD_SAYS[upload] in words(seen), seen
    if upload == "invalid UTF-8 text":
        assert "replaced" in words(seen)


@pytest.mark.slow
@pytest.mark.parametrize("upload", list(MODEL_UPLOADS))
@pytest.mark.parametrize("input_name", ["BPE Lab .model upload", "SentencePiece Lab .model upload",
                                        "Compare tokenizer file"])
def test_model_uploads_are_refused_with_a_message_or_work(input_name, upload):
    filename, make = MODEL_UPLOADS[upload]
    at, seen = drive(input_name, (filename, make()))
    loaded = "lab_bpe" in at.session_state["user_tokenizers"] or filename in at.session_state["user_tokenizers"]
    assert loaded or seen["error"], seen


@pytest.mark.slow
@pytest.mark.parametrize("upload", ["minbpe .model with ids beyond its vocabulary"])
def test_a_model_with_ids_far_past_its_vocabulary_works_on_every_page(upload):
    filename, make = MODEL_UPLOADS[upload]
    drive("BPE Lab .model, then every page", (filename, make()))  # no exception on any page (drive checks)
