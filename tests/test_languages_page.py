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


# -- the corpus metrics view ------------------------------------------------------------------------------------
def test_corpus_metrics_view_on_the_parallel_text():
    from tokenizers import get_tokenizer
    from tokenizers.analysis.parallel import language_texts

    at = languages(**{f"{L}view": "Corpus metrics"})
    total = at.dataframe[0].value
    titles = {n: get_tokenizer(n).title for n in at.multiselect(key=f"{L}tokenizers").value}
    texts = language_texts()
    gpt2 = total.loc[titles["gpt2"]]
    assert gpt2["tokens"] == sum(len(get_tokenizer("gpt2").encode_ordinary(t)) for t in texts.values())
    assert gpt2["words"] == sum(len(t.split()) for t in texts.values())
    assert set(total.columns) >= {"fertility", "continued_words", "bytes_per_token", "chars_per_token",
                                  "fallback_rate", "renyi_efficiency"}
    assert total.loc[titles["mistral_sp"], "fallback_rate"] > 0 == total.loc[titles["gpt2"], "fallback_rate"]
    assert len(at.get("plotly_chart")) == 2  # the panels and the by-language bars
    explained = " ".join(m.value for m in at.markdown)
    assert "Zouhar et al. 2023" in explained and "Rust et al. 2021" in explained
    # the by-language table carries the premium against the reference, the same as the premium view's
    at.selectbox(key=f"{L}ref").set_value("kor")
    at.selectbox(key=f"{L}langs_lmetric").set_value("premium")
    rerun(at)
    by_lang = at.dataframe[1].value
    assert by_lang.loc[(titles["gpt2"], "kor"), "premium"] == 1.0
    at.segmented_control(key=f"{L}view").set_value("Token premium")
    rerun(at)
    assert at.dataframe[0].value.loc["kor", "premium:gpt2"] == 1.0
    assert at.dataframe[0].value.loc["eng", "premium:gpt2"] == round(by_lang.loc[(titles["gpt2"], "eng"), "premium"], 3)


def test_corpus_metrics_of_an_upload_and_hostile_files():
    at = languages(**{f"{L}tab": "Your corpus", f"{L}view": "Corpus metrics"})
    # one language is enough for the metrics (the premium needs two)
    at.file_uploader(key=f"{L}upload").set_value([("kor.txt", "해는 아침에 뜹니다.\n👨‍👩‍👧‍👦 가족\n".encode(), "text/plain")])
    rerun(at)
    assert not at.error and at.dataframe[0].value["words"].tolist() == [5] * len(at.dataframe[0].value)
    # an empty file, a binary one and one that is not UTF-8: each named in a clear message, the rest measured
    at.file_uploader(key=f"{L}upload").set_value([("eng.txt", b"", "text/plain"),
                                                   ("deu.txt", bytes(range(256)) * 8, "text/plain"),
                                                   ("fra.txt", "Le caf\xe9 est chaud.\n".encode("latin-1"), "text/plain")])
    rerun(at)
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")  # they are Markdown-escaped
    assert "eng.txt is empty" in warnings and "binary" in warnings and "not all valid UTF-8" in warnings
    assert list(at.dataframe[0].value["words"]) == [4] * len(at.dataframe[0].value)
    at.file_uploader(key=f"{L}upload").set_value([("eng.txt", b"\x00" * 100, "text/plain")])
    rerun(at)
    assert any("no text to measure" in e.value for e in at.error) and not at.exception
    at.segmented_control(key=f"{L}view").set_value("Token premium")
    rerun(at)
    assert any("fewer than two languages" in e.value for e in at.error)


def test_the_measure_is_kept_across_pages_and_read_from_the_link():
    from conftest import app_test, goto

    at = app_test("languages", query={"languages_view": "Corpus metrics"}, timeout=180)
    assert not at.exception and at.segmented_control(key=f"{L}view").value == "Corpus metrics"
    assert "fertility" in at.dataframe[0].value.columns
    goto(at, "algorithms")
    goto(at, "languages")
    assert not at.exception and at.segmented_control(key=f"{L}view").value == "Corpus metrics"
    assert "fertility" in at.dataframe[0].value.columns


def test_corpus_metrics_of_a_visitors_own_tokenizer_titled_like_a_registry_one():
    tok = own_tokenizer()
    tok.title = "GPT-2"  # an uploaded file may call itself anything
    at = languages(user_tokenizers={"lab_bpe": tok}, **{f"{L}view": "Corpus metrics"})
    at.multiselect(key=f"{L}tokenizers").set_value(["gpt2", "lab_bpe"])
    rerun(at)
    total = at.dataframe[0].value
    assert list(total.index) == ["GPT-2 (gpt2)", "GPT-2 (lab_bpe)"]
    assert total.loc["GPT-2 (lab_bpe)", "tokens"] > total.loc["GPT-2 (gpt2)", "tokens"]
