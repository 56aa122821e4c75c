"""The Languages page through AppTest."""

from streamlit.testing.v1 import AppTest

from conftest import open_page, rerun
from test_quirks_page import own_tokenizer
from tokenizers.analysis.parallel import LANGUAGES, PROGRAMS, as_tsv

L = "languages_"


def languages(**state) -> AppTest:
    return open_page("languages", "Languages & code", state=state, timeout=180)


def test_languages_default_view():
    at = languages()
    table = at.dataframe[0].value
    assert len(table) == len(LANGUAGES) and table.loc["eng", "premium:gpt2"] == 1.0
    assert table.loc["hin", "tokens:cl100k_base"] == 190 and table.loc["hin", "tokens:o200k_base"] == 59
    assert len(at.get("plotly_chart")) == 2
    at.selectbox(key=f"{L}langs_metric").set_value("Bytes per token")
    at.selectbox(key=f"{L}langs_order").set_value("by the first tokenizer's value")
    at.selectbox(key=f"{L}ref").set_value("hin")
    rerun(at)
    assert at.dataframe[0].value.loc["hin", "premium:o200k_base"] == 1.0


def test_languages_programs_tab():
    at = languages(**{f"{L}tab": "Programs"})
    table = at.dataframe[0].value
    assert list(table.index) == list(PROGRAMS) and (table["premium:cl100k_base"].loc["python"] == 1.0)
    assert any(c.language == "python" for c in at.code)


def test_languages_upload_files_and_table():
    at = languages(**{f"{L}tab": "Your corpus"})
    assert any("No files yet" in i.value for i in at.info)
    at.file_uploader(key=f"{L}upload").set_value([("eng.txt", b"Good morning.\nThank you.\n", "text/plain"),
                                                   ("kor.txt", "좋은 아침.\n감사합니다.\n".encode(), "text/plain"),
                                                   ("[evil](x).txt", b"a", "text/plain")])
    rerun(at)
    table = at.dataframe[0].value
    assert list(table.index) == ["eng", "kor"] and table.loc["eng", "premium:gpt2"] == 1.0
    warnings = [w.value for w in at.warning]
    assert any("Skipped" in w for w in warnings) and not any("[evil](x)" in w for w in warnings)  # escaped
    at.file_uploader(key=f"{L}upload").set_value(("corpus.tsv", as_tsv().encode(), "text/tab-separated-values"))
    rerun(at)
    assert len(at.dataframe[0].value) == len(LANGUAGES)


def test_languages_upload_problems():
    at = languages(**{f"{L}tab": "Your corpus"})
    at.file_uploader(key=f"{L}upload").set_value([("eng.txt", b"\x00" * 1000, "text/plain")])
    rerun(at)
    assert any("binary" in w.value for w in at.warning)
    assert any("fewer than two languages" in e.value for e in at.error)
    at.file_uploader(key=f"{L}upload").set_value([("eng.txt", b"caf\xe9\n", "text/plain"),
                                                   ("fra.txt", b"", "text/plain")])
    rerun(at)
    assert any("not all valid UTF" in w.value for w in at.warning) and any("empty" in w.value for w in at.warning)


def test_a_visitors_own_tokenizer_on_the_languages_page():
    at = languages(user_tokenizers={"lab_bpe": own_tokenizer()})
    at.multiselect(key=f"{L}tokenizers").set_value(["gpt2", "lab_bpe"])
    rerun(at)
    table = at.dataframe[0].value
    assert table.loc["eng", "premium:lab_bpe"] == 1.0 and table.loc["kor", "premium:lab_bpe"] > 1
