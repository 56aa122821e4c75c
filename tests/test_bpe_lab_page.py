"""The BPE Lab through AppTest, and its upload handling."""

import random

import pytest
from streamlit.testing.v1 import AppTest

from conftest import open_page
from service import uploads as lab

K = "lab_"


def lab_app() -> AppTest:
    return open_page("bpe_lab", "BPE Lab")


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
        lab.decode_upload("big.txt", b"a" * (lab.LIMITS.max_bytes + 1))
    with pytest.raises(lab.UploadError, match="empty"):
        lab.decode_upload("e.txt", b"")


def test_no_split_trains_on_a_smaller_prefix():
    at = train(lab_app(), "ab cd " * 50_000, 300, "No split (the plain algorithm)")
    assert any("first 200,000" in i.value and "one chunk" in i.value for i in at.info)
    assert len(at.session_state[f"{K}trained_text"]) == 200_000


def test_durations_read_well():
    from ui.formatting import duration

    assert [duration(x) for x in (0.00042, 0.035, 0.5, 1.254)] == ["0.4 ms", "35 ms", "500 ms", "1.25 s"]


def texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "caption", "info", "success", "warning", "error")
                    for e in at.get(kind))


def test_lab_view_survives_an_interaction_inside_it():
    """st.tabs forgot its tab on the rerun after the step slider moved; the view is now a keyed
    control whose choice lives in session_state."""
    at = train(lab_app())
    at.segmented_control(key="lab_view").set_value("Step by step").run()
    at.slider(key="lab_step").set_value(2).run()
    assert not at.exception
    assert at.segmented_control(key="lab_view").value == "Step by step"
    assert any("Merge **2** joined" in m.value for m in at.markdown)
    at.segmented_control(key="lab_view").set_value("Vocabulary trade-off").run()
    at.number_input(key="lab_dmodel").set_value(1024).run()
    assert at.segmented_control(key="lab_view").value == "Vocabulary trade-off"


def test_classic_example_is_one_click_and_true():
    at = lab_app()
    at.button(key="lab_classic").click().run()
    assert not at.exception
    tok = at.session_state["lab_model"]
    assert tok.encode("aaabdaaabac", disallowed_special=()) == [258, 100, 258, 97, 99]
    assert "[258, 100, 258, 97, 99]" in texts(at)
    assert at.text_area(key="lab_text").value == "aaabdaaabac"


def test_the_classic_example_is_a_small_job_of_this_visitor(monkeypatch):
    """Issue 24 (8): the page names the visitor to the job runner (one slot per visitor) and declares the
    classic example small (its own lane: it never waits behind long trainings); its own text is not."""
    from tokenizers import jobs

    asked = []
    real = jobs.run
    monkeypatch.setattr(jobs, "run", lambda fn, *a, **kw: asked.append(kw) or real(fn, *a, **kw))
    at = lab_app()
    at.button(key="lab_classic").click().run()
    assert not at.exception and len(at.session_state["lab_model"].history) == 3
    assert asked[-1]["small"] is True and asked[-1]["timeout"] <= jobs.SMALL_TIMEOUT
    # it runs at most SMALL_TIMEOUT, but waits for a slot as long as any training (ten visitors pressing
    # Train at once each got a small job and gave up after 10 s in the queue)
    assert asked[-1]["wait"] > jobs.SMALL_TIMEOUT
    owner = asked[-1]["owner"]
    assert owner.startswith("session:")  # AppTest sends no cookie: the visitor is its session
    at.text_area(key="lab_text").set_value("the cat sat on the mat " * 200).run()
    at.button(key="lab_train").click().run()
    assert not at.exception
    assert asked[-1]["small"] is False and asked[-1]["owner"] == owner


def test_hint_on_the_default_text_does_not_promise_what_it_cannot_do():
    at = lab_app()
    hint = texts(at)
    assert "Try the default text with a vocabulary of 259" not in hint


@pytest.mark.parametrize("query", [" the", "·the"])
def test_merge_search_takes_a_real_space(query):
    at = train(lab_app())
    at.text_input(key="lab_search").set_value(query).run()
    rows = at.dataframe[0].value
    assert len(rows) > 0
    assert all("·the" in r["left"] + r["right"] + r["new token"] for _, r in rows.iterrows())


def test_zero_merges_is_not_called_a_loaded_model():
    at = train(lab_app(), vocab=256)
    shown = texts(at)
    assert "loaded model" not in shown.lower()
    assert "0 merges" in shown
    for view in ("Compression", "Step by step", "Vocabulary trade-off"):
        at.segmented_control(key="lab_view").set_value(view).run()
        assert not at.exception
        assert "loaded model" not in texts(at).lower()


def test_merge_table_height_follows_its_rows(monkeypatch):
    """AppTest keeps no element heights, so the page's st.dataframe calls are recorded."""
    import streamlit as st

    calls, real = [], st.dataframe

    def spy(data=None, *args, **kwargs):
        calls.append((kwargs.get("key"), kwargs.get("height", "auto"), len(data) if data is not None else 0))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(st, "dataframe", spy)
    train(lab_app(), "aaabdaaabac", 259, "No split (the plain algorithm)")
    merges = [c for c in calls if c[0] == "lab_merges"]
    assert merges and merges[-1][2] == 3
    height = merges[-1][1]
    assert height == "auto" or (isinstance(height, int) and height < 200)  # 3 rows, not a fixed 420 px box


def test_step_view_marks_whitespace():
    at = train(lab_app())
    at.segmented_control(key="lab_view").set_value("Step by step").run()
    spans = [h.proto.body for h in at.get("html") if "tl-spans" in h.proto.body]
    assert spans and 'class="tl-ws"' in spans[0]


def test_random_bytes_are_refused_as_binary():
    from service.uploads import UploadError, decode_upload

    blob = random.Random(14).randbytes(3000)
    with pytest.raises(UploadError, match="binary"):
        decode_upload("noise.txt", blob)
    # Latin-1 text is still text: invalid UTF-8, but no control bytes
    text, replaced = decode_upload("latin1.txt", "café naïve résumé\n".encode("latin-1") * 50)
    assert replaced == 200 and text.startswith("caf")


def test_lab_model_on_compare_offers_its_download():
    at = train(lab_app(), "the cat sat on the mat " * 20, 270)
    at.switch_page("app_pages/compare.py")
    at.run()
    at.multiselect(key="compare_tokenizers").set_value(["lab_bpe", "gpt2"]).run()
    assert not at.exception
    assert "only in this visit" in texts(at)
    assert "lab_bpe.model" in [b.proto.label for b in at.get("download_button")]


# -- issue 20 (4): the tie rule, and the lecture's numbers ---------------------------------------------------
FIRST = "Met first in the text (minbpe, the lecture)"
SMALLEST = "Smallest pair (Hugging Face, rustbpe)"


def test_the_classic_example_says_259_and_follows_the_lecture():
    """The lecture's vocabulary is 256 bytes + 3 merges = 259: the example adds no <|endoftext|> (the
    field's default made it 260), and breaks ties as the lecture (minbpe) does."""
    at = lab_app()
    at.button(key="lab_classic").click().run()
    assert not at.exception
    said = texts(at)
    assert "Vocabulary: 259 tokens." in said and "260" not in said
    assert "ties to the pair met first" in said
    assert at.radio(key="lab_ties").value == FIRST and at.text_input(key="lab_specials").value == ""
    tok, report = at.session_state["lab_model"], at.session_state["lab_report"]
    assert list(tok.merges) == [(97, 97), (256, 97), (257, 98)] and report.ties == "first"
    assert tok.vocab_size == 259 and not tok.special_tokens
    at.slider(key="lab_step").set_value(1).run()  # after merge 1 the table marks the next one, by this rule
    pairs = at.dataframe[0].value
    assert (pairs.iloc[0]["pair ids"], pairs.iloc[0][""]) == ("256, 97", "◀ merged next")


def test_the_lab_reproduces_the_lecture_merge_list():
    from lecture import LECTURE_MERGES, LECTURE_TEXT

    at = lab_app()
    at.radio(key="lab_ties").set_value(FIRST)
    at = train(at, LECTURE_TEXT, 276, "No split (the plain algorithm)")
    tok = at.session_state["lab_model"]
    assert [(r.pair, r.count) for r in tok.history] == LECTURE_MERGES
    at.segmented_control(key="lab_view").set_value("Compression").run()
    assert any("616 bytes → 451 tokens after 20 merges" in c.value for c in at.caption)
    # the other rule, on the same text: the same counts, merges 3 and 4 the other way round
    at.segmented_control(key="lab_view").set_value("Merges").run()
    at.radio(key="lab_ties").set_value(SMALLEST)
    at = train(at)
    assert [r.pair for r in at.session_state["lab_model"].history][2:4] == [(105, 110), (226, 128)]
    assert "ties to the smallest pair" in texts(at)


def test_the_tie_rule_is_kept_when_the_visitor_leaves_and_returns():
    at = lab_app()
    at.radio(key="lab_ties").set_value(FIRST).run()
    at.switch_page("app_pages/compare.py").run()
    at.switch_page("app_pages/bpe_lab.py").run()
    assert not at.exception and at.radio(key="lab_ties").value == FIRST
    at.button(key="lab_train").click().run()
    assert at.session_state["lab_report"].ties == "first"


def test_the_tie_rule_reaches_the_training_job():
    from tokenizers import jobs
    from tokenizers.bpe.model import train_bpe

    tok, report = jobs.run(train_bpe, "aaabdaaabac", 259, None, [], timeout=jobs.SMALL_TIMEOUT, small=True,
                           ties="first")
    assert list(tok.merges) == [(97, 97), (256, 97), (257, 98)] and report.ties == "first"
