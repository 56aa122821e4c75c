"""The Inside-a-token page through AppTest."""

from streamlit.testing.v1 import AppTest

from tokenizers import get_tokenizer

K = "inside_"


def inside_app(**state) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.run()
    at.switch_page("app_pages/inside.py")
    for k, v in state.items():
        at.session_state[f"{K}{k}"] = v
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Inside a token"]
    return at


def test_tree_for_a_typed_id():
    at = inside_app(tok="cl100k_base", by_id=True, id="15339")
    assert any("**Token 15339**" in m.value and "68 65 6C 6C 6F" in m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) >= 1


def test_unknown_and_bad_ids_are_named():
    at = inside_app(tok="gpt2", by_id=True, id="99999999")
    assert any("99999999" in e.value for e in at.error)
    at = inside_app(tok="gpt2", by_id=True, id="abc")
    assert any("'abc'" in e.value for e in at.error)


def test_step_by_step_ends_in_encode():
    at = inside_app(tok="gpt2", text=" tokenization")
    table = [d for d in at.dataframe if "step" in d.value.columns][0].value
    assert int(table.iloc[-1]["new id"]) in get_tokenizer("gpt2").encode(" tokenization")
    assert any("ids [" in c.value for c in at.caption)


def test_decode_explains_a_lone_continuation_byte():
    at = inside_app(tok="cl100k_base")
    assert any("not a complete UTF-8 character" in c.value for c in at.caption)


def test_chars_and_clusters():
    at = inside_app(text="e\u0301👨\u200d👩\u200d👧🇰🇷")
    md = " ".join(m.value for m in at.markdown)
    assert "ZERO WIDTH JOINER" in md and "flag" in md and "combining" in md
    counts = [d for d in at.dataframe if "graphemes" in d.value.columns][0].value
    assert int(counts.iloc[0]["graphemes"]) == 3 and int(counts.iloc[0]["code points"]) == 9


def test_vocabulary_search_and_sentencepiece():
    at = inside_app(tok="mistral_sp", vq="▁hell")
    rows = [d for d in at.dataframe if "bytes_hex" in d.value.columns and "length" in d.value.columns][0].value
    assert 6312 in list(rows["id"])
    at = inside_app(tok="cl100k_base", vcat="only Hangul", vq="")
    rows = [d for d in at.dataframe if "length" in d.value.columns][0].value
    assert len(rows) > 10


def test_empty_and_tricky_text_keep_the_page():
    for text in ["", "<script>alert(1)</script>", "<|endoftext|>", "a\ud83db"]:
        at = inside_app(text=text)
        assert not at.exception
