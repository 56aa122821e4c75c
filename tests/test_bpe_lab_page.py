"""The BPE Lab through AppTest, and its upload handling."""

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_test
from service import uploads as lab

K = "lab_"


def lab_app() -> AppTest:
    at = app_test("bpe_lab")
    assert [t.value for t in at.title] == ["BPE Lab"]
    assert not at.exception
    return at


def train(at, text=None, vocab=None, split=None, **extra):
    if text is not None:
        at.text_area(key=f"{K}text").set_value(text)
    if vocab is not None:
        at.number_input(key=f"{K}vocab").set_value(vocab)
    if split is not None:
        at.selectbox(key=f"{K}split").set_value(split)
    for key, value in extra.items():
        at.text_input(key=f"{K}{key}").set_value(value)
    at.button(key=f"{K}train").click().run()
    assert not at.exception
    return at


def test_classic_vector_and_step_view():
    at = train(lab_app(), "aaabdaaabac", 259, "No split (the plain algorithm)")
    tok = at.session_state[f"{K}model"]
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert any("Learned 3 merges" in s.value for s in at.success)
    from tokenizers.bpe import native

    engine = "C core" if native.available() else "pure Python"
    assert any(engine in s.value for s in at.success)  # the page says which engine trained
    merges = at.dataframe[0].value
    assert list(merges["new token"]) == ["aa", "ab", "aaab"] and list(merges["count"]) == [4, 2, 2]
    at.segmented_control(key=f"{K}view").set_value("Step by step").run()
    at.slider(key=f"{K}step").set_value(1).run()
    assert any("Merge **1** joined `a` + `a` → `aa`" in m.value for m in at.markdown)
    pairs = at.dataframe[0].value  # the step view shows the pair counts (the merge table is in its own view)
    assert pairs.iloc[0]["left"] == "a" and pairs.iloc[0]["right"] == "b" and pairs.iloc[0][""] == "◀ merged next"
    assert pairs.iloc[0]["count"] == 2


def test_first_merge_of_aaab():
    at = train(lab_app(), "aaab", 257, "No split (the plain algorithm)")
    assert list(at.session_state[f"{K}model"].merges) == [(97, 97)]


def test_trained_tokenizer_joins_the_compare_page():
    at = train(lab_app(), "the cat sat on the mat with the hat", 270)
    at.switch_page("app_pages/compare.py")
    at.run()
    assert not at.exception
    assert "Lab BPE (271 tokens)" in at.multiselect(key="compare_tokenizers").options
    at.multiselect(key="compare_tokenizers").set_value(["lab_bpe", "gpt2"]).run()
    assert not at.exception
    heads = [h.proto.body for h in at.get("html") if 'class="tl-head"' in h.proto.body]
    assert len(heads) == 2 and 'data-tokenizer="lab_bpe"' in heads[0]


def test_search_filters_merges():
    at = train(lab_app())  # default text and options
    everything = len(at.dataframe[0].value)
    at.text_input(key=f"{K}search").set_value("at").run()
    found = at.dataframe[0].value
    assert 0 < len(found) < everything
    assert all("at" in (r["left"] + r["right"] + r["new token"]) for _, r in found.iterrows())


def test_builtin_corpus_curves_and_downloads():
    at = lab_app()
    at.radio(key=f"{K}source").set_value("Built-in corpus").run()
    train(at, vocab=600)
    tok = at.session_state[f"{K}model"]
    assert len(tok.merges) == 344 and tok.special_tokens == {"<|endoftext|>": 600}
    charts = 0
    for view in ("Compression", "Vocabulary trade-off", "Tokens"):
        at.segmented_control(key=f"{K}view").set_value(view).run()
        charts += len(at.get("plotly_chart"))
    assert charts == 3
    at.segmented_control(key=f"{K}view").set_value("Save").run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["lab_bpe.model", "lab_bpe.vocab", "lab_bpe.tiktoken", "lab_bpe.json"]


@pytest.mark.parametrize("text,message", [("", "empty"), ("aaaaaaaa", "Stopped after")])
def test_bad_corpora_give_clear_messages(text, message):
    at = train(lab_app(), text, 400)
    shown = " ".join(m.value for m in [*at.error, *at.warning])
    assert message in shown
    assert at.text_area(key=f"{K}text").value == text  # the user's text stays


def test_bad_regex_blocks_training_with_a_reason():
    at = lab_app()
    at.selectbox(key=f"{K}split").set_value("Custom regex").run()
    at.text_input(key=f"{K}regex").set_value("(unclosed").run()
    assert any("does not compile" in e.value for e in at.error)
    assert at.button(key=f"{K}train").disabled
    at.text_input(key=f"{K}regex").set_value(r"\w+|\s+").run()
    train(at)
    assert at.session_state[f"{K}model"].pattern == r"\w+|\s+"


def test_upload_decoding():
    text, replaced = lab.decode_upload("a.txt", "héllo".encode() + b"\xff\xfe!")
    assert text == "héllo\ufffd\ufffd!" and replaced == 2
    with pytest.raises(lab.UploadError, match="binary"):
        lab.decode_upload("x.png", b"\x89PNG\x00\x00\x00" * 100)
    with pytest.raises(lab.UploadError, match="up to 5 MB"):
        lab.decode_upload("big.txt", b"a" * (lab.MAX_UPLOAD_BYTES + 1))
    with pytest.raises(lab.UploadError, match="empty"):
        lab.decode_upload("e.txt", b"")


def test_no_split_trains_on_a_smaller_prefix():
    at = train(lab_app(), "ab cd " * 50_000, 300, "No split (the plain algorithm)")
    assert any("first 200,000" in i.value and "one chunk" in i.value for i in at.info)
    assert len(at.session_state[f"{K}trained_text"]) == 200_000


def test_durations_read_well():
    from ui.formatting import duration

    assert [duration(x) for x in (0.00042, 0.035, 0.5, 1.254)] == ["0.4 ms", "35 ms", "500 ms", "1.25 s"]
