"""Your own tokenizer file (tokenizers/user_files.py, the Compare panel), through the library and through
AppTest."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test, rerun
from tokenizers.user_files import UserFileError, load_user_file, parse_specials
from upload_samples import BAD, GOOD, trained

K = "compare_"
U = "compare_upload_"
TEXT = "Hello world, hello tokens! 안녕하세요 👋 def f(x): return 2"


# -- the library ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", list(GOOD))
def test_each_format_loads_with_the_common_interface(fmt):
    filename, make = GOOD[fmt]
    tok = load_user_file(filename, make(), pattern=r"""'s|'t| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
    assert tok.name == filename and tok.title == filename
    toks = tok.tokenize(TEXT, disallowed_special=())
    ends = list(toks.byte_ends)
    assert list(toks.byte_starts) == [0, *ends[:-1]] and ends[-1] == len(TEXT.encode())
    assert [t.id for t in toks] == tok.encode(TEXT, disallowed_special=())


def test_uploaded_byte_level_files_give_the_trained_models_ids():
    ref = trained()
    for fmt in ("minbpe", "tokenizer.json"):
        filename, make = GOOD[fmt]
        assert load_user_file(filename, make()).encode(TEXT, disallowed_special=()) == ref.encode(TEXT), fmt
    filename, make = GOOD["tiktoken"]
    tok = load_user_file(filename, make(), pattern=ref.pattern, specials='{"<|endoftext|>": 400}')
    assert tok.encode(TEXT) == ref.encode(TEXT)
    assert tok.encode("<|endoftext|>", allowed_special="all") == [400]


def test_vocab_txt_is_bert_wordpiece():
    tok = load_user_file("vocab.txt", GOOD["vocab.txt"][1]())
    assert [tok.piece_of(i) for i in tok.encode("Hello tokens, WORLD!")] == ["hello", "token", "##s", ",", "world", "!"]
    assert tok.encode("[CLS] hello", allowed_special="all")[0] == 2


@pytest.mark.parametrize("case", list(BAD))
def test_each_bad_file_gets_a_message_naming_the_problem(case):
    filename, make, words = BAD[case]
    with pytest.raises(UserFileError) as e:
        load_user_file(filename, make(), pattern="")
    assert words in str(e.value)


def test_oversized_empty_and_unknown_files():
    with pytest.raises(UserFileError, match="MB"):
        load_user_file("big.json", b" " * 50_000_001)
    with pytest.raises(UserFileError, match="empty"):
        load_user_file("empty.tiktoken", b"")
    with pytest.raises(UserFileError, match="Cannot tell the format"):
        load_user_file("vocab.bin", b"\x00\x01")


def test_tiktoken_pattern_and_specials_are_checked():
    filename, make = GOOD["tiktoken"]
    with pytest.raises(UserFileError, match="does not compile"):
        load_user_file(filename, make(), pattern="(unclosed")
    with pytest.raises(UserFileError, match="already uses"):
        load_user_file(filename, make(), specials='{"<|x|>": 5}')
    with pytest.raises(UserFileError, match="not valid JSON"):
        load_user_file(filename, make(), specials='{"<|x|>": ')
    assert parse_specials("<|a|> 500\n<|b|> 501\n") == {"<|a|>": 500, "<|b|>": 501}
    with pytest.raises(UserFileError, match="ids go from 0"):
        parse_specials('{"<|a|>": 99999999}')


@pytest.mark.slow
def test_a_catastrophic_pattern_is_stopped():
    from tokenizers.core.patterns import PatternError

    filename, make = GOOD["tiktoken"]
    tok = load_user_file(filename, make(), pattern=r"(x+x+)+y|\s+|.")
    with pytest.raises(PatternError, match="ran for more than"):
        tok.encode("x" * 5000 + "z", disallowed_special=())


def test_ids_beyond_the_bound_are_refused():
    with pytest.raises(UserFileError, match="ids up to"):
        load_user_file("big.tiktoken", b"YQ== 5000000\n")


# -- AppTest: uploads --------------------------------------------------------------------------------
def app() -> AppTest:
    at = app_test(timeout=180)
    assert not at.exception
    return at


def heads(at) -> list[str]:
    out = []
    for h in at.get("html"):
        m = re.search(r'data-tokenizer="([^"]+)"', h.proto.body)
        if m:
            out.append(m.group(1))
    return out


def upload(at, filename: str, data: bytes, **fields) -> AppTest:
    rerun(at, **{f"{U}panel": True})  # the panel draws its widgets only while open
    at.file_uploader(key=f"{U}file").set_value((filename, data, "application/octet-stream")).run()
    assert not at.exception
    for key, value in fields.items():
        widget = at.selectbox(key=f"{U}{key}") if key == "pattern" else at.text_area(key=f"{U}{key}") \
            if key == "specials" else at.text_input(key=f"{U}{key}")
        widget.set_value(value).run()
    at.button(key=f"{U}load").click().run()
    assert not at.exception
    return at


@pytest.mark.parametrize("fmt", list(GOOD))
def test_apptest_upload_each_format(fmt):
    filename, make = GOOD[fmt]
    at = app()
    fields = {"pattern": "GPT-4 (cl100k_base)"} if fmt == "tiktoken" else {}
    upload(at, filename, make(), **fields)
    assert any("Loaded" in s.value for s in at.success)
    assert filename in at.multiselect(key=f"{K}tokenizers").value
    assert filename in heads(at)
    # available to every page for the visit
    at.switch_page("app_pages/inside.py").run()
    assert not at.exception
    at.selectbox(key="inside_tok").set_value(filename).run()
    assert not at.exception  # (Inside may say a token id it kept from cl100k is not in this vocabulary)


@pytest.mark.parametrize("case", list(BAD))
def test_apptest_bad_upload_changes_nothing(case):
    filename, make, words = BAD[case]
    at = app()
    before = (at.multiselect(key=f"{K}tokenizers").value, at.session_state[f"{K}text"], heads(at))
    upload(at, filename, make())
    errors = " ".join(e.value for e in at.error)
    assert re.sub(r"\\(.)", r"\1", errors).count(words.split(":")[0]) >= 1
    after = (at.multiselect(key=f"{K}tokenizers").value, at.session_state[f"{K}text"], heads(at))
    assert after == before


def test_apptest_two_uploads_with_one_name_and_remove():
    filename, make = GOOD["vocab.txt"]
    at = app()
    upload(at, filename, make())
    upload(at, filename, make())
    chosen = at.multiselect(key=f"{K}tokenizers").value
    assert "vocab.txt" in chosen and "vocab.txt (2)" in chosen
    at.button(key=f"{U}remove_vocab.txt").click().run()
    assert not at.exception
    assert "vocab.txt" not in at.multiselect(key=f"{K}tokenizers").value


def test_apptest_file_name_with_markdown_is_escaped():
    at = app()
    upload(at, "[x](http://evil)`.model", b"minbpe v1\n\n0\n")
    assert any("Loaded" in s.value for s in at.success)
    assert all("](http" not in s.value for s in at.success)  # brackets escaped


def test_apptest_oversized_file_and_bad_regex():
    at = app()
    before = at.multiselect(key=f"{K}tokenizers").value
    upload(at, "huge.json", b" " * 21_000_001)
    assert any("MB" in e.value and "accepted" in e.value for e in at.error)
    filename, make = GOOD["tiktoken"]
    upload(at, filename, make(), pattern="Paste a regex…", regex="(unclosed [")
    assert any("does not compile" in e.value for e in at.error)
    assert at.multiselect(key=f"{K}tokenizers").value == before
