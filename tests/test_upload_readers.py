"""One reader per kind of upload, each with one `Limits`: a tokenizer file gets the same verdict and
the same message on every page that takes its kind (tokenizers.user_files.load_user_file, bounded by
user_files.LIMITS), and an uploaded text the same on every page that takes text
(service.uploads.decode_upload, bounded by uploads.LIMITS). Driven through AppTest."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import app_test
from hostile import DRIVERS, outcome
from service import uploads
from tokenizers import user_files
from ui.formatting import escape_markdown
from upload_samples import BAD, GOOD, trained

# the pages that take each kind of .model, by their hostile.DRIVERS name, and the name the page
# keeps a loaded tokenizer under (Compare: the file's name)
TAKES = {"minbpe": {"BPE Lab .model upload": "lab_bpe", "Compare tokenizer file": None},
         "sentencepiece": {"SentencePiece Lab .model upload": "sp_upload", "Compare tokenizer file": None}}
TEXT_PAGES = ["BPE Lab text upload", "SentencePiece Lab text upload", "Algorithms text upload",
              "Languages corpus upload"]


def verdict(page: str, kept_as: str | None, filename: str, data: bytes) -> tuple[str, list[str]]:
    """("loaded" or "refused", the page's error messages) after uploading the file on `page`."""
    page_name, driver, _ = DRIVERS[page]
    at = driver(app_test(timeout=600), (filename, data))
    seen = outcome(at)
    assert not seen["exception"], (page, seen["exception"])
    loaded = (kept_as or filename) in at.session_state["user_tokenizers"]
    return ("loaded" if loaded else "refused"), seen["error"]


def verdicts(kind: str, filename: str, data: bytes) -> dict[str, tuple[str, list[str]]]:
    return {page: verdict(page, kept_as, filename, data) for page, kept_as in TAKES[kind].items()}


def not_a_minbpe_text() -> bytes:
    return b"minbpe v1\n\n0\n97 97\n\xff\xfe\n"


CASES = {  # (kind, file name, content, what every page must do)
    "a good minbpe .model": ("minbpe", *GOOD["minbpe"], "loaded"),
    "a broken minbpe .model": ("minbpe", BAD["minbpe"][0], BAD["minbpe"][1], "refused"),
    "a minbpe .model that is not UTF-8": ("minbpe", "bytes.model", not_a_minbpe_text, "refused"),
    "a good SentencePiece .model": ("sentencepiece", *GOOD["sentencepiece"], "loaded"),
    "a cut SentencePiece .model": ("sentencepiece", BAD["sentencepiece"][0], BAD["sentencepiece"][1], "refused"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_model_file_gets_one_verdict_and_one_message_on_every_page(case):
    kind, filename, make, expected = CASES[case]
    data = make()
    seen = verdicts(kind, filename, data)
    assert {v for v, _ in seen.values()} == {expected}, seen
    messages = {tuple(m) for _, m in seen.values()}
    assert len(messages) == 1, seen  # word for word the same
    if expected == "refused":
        with pytest.raises(user_files.UserFileError) as e:
            user_files.load_user_file(filename, data, expect=(kind,))
        assert messages == {(escape_markdown(str(e.value)),)}  # the library's own words
    else:
        assert messages == {()}


def test_a_sentencepiece_model_over_the_token_bound_is_refused_alike(monkeypatch):
    """Mistral's 32,000 pieces against a bound of 1,000: the SentencePiece Lab used to load it anyway
    (it read .model files without the token-count bound Compare applied)."""
    monkeypatch.setattr(user_files, "LIMITS", dataclasses.replace(user_files.LIMITS, max_vocab=1_000))
    filename, make = GOOD["sentencepiece"]
    seen = verdicts("sentencepiece", filename, make())
    expected = [escape_markdown(f"{filename} has 32,000 pieces; at most 1,000 are accepted.")]
    assert seen == {"SentencePiece Lab .model upload": ("refused", expected),
                    "Compare tokenizer file": ("refused", expected)}


def test_one_limits_bounds_tokenizer_files_on_every_page(monkeypatch):
    """Each bound is written once, in user_files.LIMITS: lowered there, every page refuses."""
    monkeypatch.setattr(user_files, "LIMITS", dataclasses.replace(user_files.LIMITS, max_merges=10))
    filename, make = GOOD["minbpe"]
    seen = verdicts("minbpe", filename, make())
    assert len(trained().merges) == 71  # the sample's model
    expected = [escape_markdown(f"{filename} has 71 merges; at most 10 are accepted.")]
    assert seen == {"BPE Lab .model upload": ("refused", expected), "Compare tokenizer file": ("refused", expected)}
    monkeypatch.setattr(user_files, "LIMITS", dataclasses.replace(user_files.LIMITS, max_bytes=500))
    for kind in TAKES:
        filename, make = GOOD[kind]
        data = make()
        said = escape_markdown(f"{filename} is {len(data) / 1e6:.1f} MB; tokenizer files up to 0 MB are accepted.")
        assert all(v == ("refused", [said]) for v in verdicts(kind, filename, data).values()), kind


def test_the_tokenizer_file_bound_is_twenty_megabytes_everywhere():
    assert user_files.LIMITS.max_bytes == 20_000_000
    with pytest.raises(user_files.UserFileError, match="up to 20 MB are accepted"):
        user_files.load_user_file("big.model", b"minbpe v1\n" + b" " * 20_000_000, expect=("minbpe",))


def test_a_page_that_takes_one_kind_names_it():
    filename, make = GOOD["tokenizer.json"]
    with pytest.raises(user_files.UserFileError) as e:
        user_files.load_user_file(filename, make(), expect=("minbpe",))
    assert str(e.value) == ("tokenizer.json is a Hugging Face tokenizer.json; here only a minbpe model (.model) can "
                            "be loaded.")


def test_one_limits_bounds_uploaded_texts_on_every_page(monkeypatch):
    """uploads.LIMITS lowered to 10 KB: the three labs and the Languages page refuse a 20 KB text with
    the same message (the labs as an error, the Languages page as a note beside the other files)."""
    monkeypatch.setattr(uploads, "LIMITS", dataclasses.replace(uploads.LIMITS, max_bytes=10_000))
    data = b"a line of text\n" * 1400
    said = escape_markdown("eng.txt is 0.0 MB; text files up to 10 KB are read. Upload a part of it.")
    for page in TEXT_PAGES:
        page_name, driver, _ = DRIVERS[page]
        at = driver(app_test(timeout=600), ("eng.txt", data))
        seen = outcome(at)
        assert not seen["exception"], (page, seen["exception"])
        assert said in seen["error"] + seen["warning"], (page, seen)


def test_the_parallel_corpus_is_read_as_a_table_or_one_file_per_language():
    table = uploads.parallel_corpus([("corpus.tsv", "eng\tfra\nHello\tBonjour\n".encode()),
                                     ("kor.txt", "안녕\n".encode()), ("bin.txt", b"\x00" * 100)])
    assert table.texts == {"eng": "Hello", "fra": "Bonjour"}
    assert table.notes[0].startswith("bin.txt looks like a binary file")
    assert table.notes[1] == ("Upload either one table (TSV/CSV) or one text file per language, not both; the table "
                              "was used.")
    files = uploads.parallel_corpus([("eng.txt", b"Hello\n"), ("fra.txt", "Bonjour\n".encode())])
    assert files.texts == {"eng": "Hello", "fra": "Bonjour"} and files.notes == []
