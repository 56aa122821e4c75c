"""The Vocabulary diff page through AppTest: the three questions answered at a glance, the visit's own
tokenizers in the pickers, the one search, settings kept and the link reproducing the view, hostile
token bytes shown only as text; and the ui helpers it draws with."""

from __future__ import annotations

import base64
import csv
import io

from conftest import app_test, goto, open_page, rerun

PAGE = "vocab_diff"
TITLE = "Vocabulary diff"


def table(at):
    """The table of every token: the third dataframe from the end (the two lists apart follow it)."""
    return at.dataframe[-3].value


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_opens_on_gpt4_to_gpt4o_and_answers_the_three_questions():
    at = open_page(PAGE, TITLE)
    assert metrics(at) == {"Shared": "85,033", "Added by B": "114,965", "Dropped by B": "15,223",
                           "Share of A in B": "84.8%"}
    assert dict(at.query_params) == {"a": "cl100k_base", "b": "o200k_base"}
    at.button(key="vdiff_ask_cl100k_base_o200k_base").click().run()
    assert not at.exception and metrics(at)["Added by B"] == "114,965"
    assert at.session_state["vdiff_show"] == "added"
    at.button(key="vdiff_ask_cl100k_base_llama3").click().run()
    assert metrics(at)["Dropped by B"] == "0" and metrics(at)["Share of A in B"] == "100.0%"
    assert any("contains every one of" in m.value and "100,256" in m.value for m in at.markdown)
    assert "0 token(s)" in " ".join(c.value for c in at.caption)  # nothing dropped: the table is empty
    at.button(key="vdiff_ask_mistral_sp_llama3").click().run()
    assert metrics(at)["Shared"] == "29,110" and metrics(at)["Share of A in B"] == "91.3%"
    assert any("29,110 of" in m.value and "31,872" in m.value for m in at.markdown)
    assert dict(at.query_params) == {"a": "mistral_sp", "b": "llama3", "show": "shared"}


def test_search_kind_and_table():
    at = open_page(PAGE, TITLE)
    rerun(at, vdiff_kind="Cyrillic")
    assert "13,539 token(s)" in " ".join(c.value for c in at.caption)
    rerun(at, vdiff_kind="all kinds", vdiff_show="shared", vdiff_q="15339")  # cl100k_base's id of "hello"
    rows = table(at)
    # an id is either side's: cl100k_base's 15339 is "hello", o200k_base's is " awesome"
    assert sorted(zip(rows["token"], rows["id A"], rows["id B"])) == [("hello", 15339, 24912), ("·awesome", 12738, 15339)]
    rerun(at, vdiff_q="E4 B8 AD")  # 中 in hex
    rows = table(at)
    assert len(rows) and all("E4 B8 AD" in h for h in rows["bytes_hex"])
    assert dict(at.query_params) == {"a": "cl100k_base", "b": "o200k_base", "show": "shared", "q": "E4 B8 AD"}


def test_keeps_its_settings_and_its_link_reproduces_the_view():
    at = open_page(PAGE, TITLE)
    rerun(at, vdiff_a="gpt2", vdiff_b="cl100k_base", vdiff_show="dropped", vdiff_kind="digits", vdiff_q="9")
    link = dict(at.query_params)
    assert link == {"a": "gpt2", "b": "cl100k_base", "show": "dropped", "kind": "digits", "q": "9"}
    shown = table(at)
    goto(at, "algorithms")
    goto(at, PAGE)
    assert not at.exception
    assert (at.selectbox(key="vdiff_a").value, at.selectbox(key="vdiff_b").value) == ("gpt2", "cl100k_base")
    assert at.session_state["vdiff_show"] == "dropped" and at.selectbox(key="vdiff_kind").value == "digits"
    assert at.text_input(key="vdiff_q").value == "9"
    fresh = app_test(run=False)
    fresh.run()
    goto(fresh, PAGE, query=link)
    assert not fresh.exception
    assert dict(fresh.query_params) == link
    assert table(fresh).equals(shown)


def test_a_link_followed_during_the_visit_wins_over_what_the_page_kept():
    at = open_page(PAGE, TITLE)
    rerun(at, vdiff_a="gpt2", vdiff_q="abc")
    at.query_params.clear()
    at.query_params.update({"a": "mistral_sp", "b": "llama3", "show": "shared"})
    at.run()
    assert not at.exception
    assert (at.selectbox(key="vdiff_a").value, at.selectbox(key="vdiff_b").value) == ("mistral_sp", "llama3")
    assert metrics(at)["Shared"] == "29,110" and at.session_state["vdiff_show"] == "shared"


def test_a_bad_link_keeps_the_defaults():
    at = app_test(run=False)
    at.run()
    goto(at, PAGE, query={"a": "no_such_tokenizer", "b": "llama3", "show": "<script>", "kind": "Klingon"})
    assert not at.exception
    assert at.selectbox(key="vdiff_a").value == "cl100k_base" and at.selectbox(key="vdiff_b").value == "llama3"
    assert at.session_state["vdiff_show"] == "added"


def _hostile_tiktoken() -> bytes:
    from payloads import PAYLOADS

    tokens = [bytes([x]) for x in range(256)] + [p.encode() for p in PAYLOADS.values()]
    return "".join(f"{base64.b64encode(b).decode()} {i}\n" for i, b in enumerate(dict.fromkeys(tokens))).encode()


def test_an_uploaded_tokenizer_of_xss_payloads_reaches_the_page_only_as_text():
    from payloads import MARKERS, PAYLOADS

    from tokenizers.user_files import load_user_file

    name = PAYLOADS["img_onerror"] + ".tiktoken"
    up = load_user_file(name, _hostile_tiktoken(), pattern="GPT-4")
    at = app_test(PAGE, state={"user_tokenizers": {up.name: up}, "vdiff_a": "gpt2", "vdiff_b": up.name})
    assert not at.exception, at.exception
    assert up.name in at.selectbox(key="vdiff_b").options
    added = int(metrics(at)["Added by B"].replace(",", ""))
    assert added == len({p.encode() for p in PAYLOADS.values()} - set(_gpt2_tokens()))
    rows = table(at)
    assert {p.encode() for p in PAYLOADS.values()} - set(_gpt2_tokens()) == {bytes.fromhex(h) for h in rows["bytes_hex"]}
    # Markdown that names the upload has it escaped: no raw tag or marker survives
    for el in [*at.markdown, *at.caption]:
        assert "<img" not in el.value and not any(m in el.value.replace("\\", "") and "<" in el.value for m in MARKERS)
    assert any("\\_img src\\_x onerror" in m.value for m in at.markdown)  # the upload's name, escaped


def _gpt2_tokens():
    from tokenizers.analysis.vocab_diff import vocabulary

    return vocabulary("gpt2").ids


def test_a_visit_s_trained_tokenizer_is_offered():
    from upload_samples import trained

    lab = trained()
    at = app_test(PAGE, state={"user_tokenizers": {"lab_bpe": lab}, "vdiff_a": "lab_bpe", "vdiff_b": "cl100k_base"})
    assert not at.exception, at.exception
    assert at.selectbox(key="vdiff_a").value == "lab_bpe"
    m = metrics(at)
    assert int(m["Shared"].replace(",", "")) + int(m["Dropped by B"].replace(",", "")) == 327


# -- the ui helpers --------------------------------------------------------------------------------------
def test_csv_has_every_selected_token_with_exact_bytes():
    from tokenizers import vocab_diff
    from ui.export import vocab_diff_csv
    from ui.tables import diff_rows, diff_selection

    d = vocab_diff("cl100k_base", "llama3")
    rows = list(csv.DictReader(io.StringIO(vocab_diff_csv(d, diff_selection(d, "added", "partial UTF-8")))))
    assert len(rows) == d.by_kind["partial UTF-8"]["only_b"] == 579
    assert all(bytes.fromhex(r["bytes_hex"]) in d.b.ids and r["status"] == "only in B" for r in rows)
    assert vocab_diff_csv(d, diff_selection(d, "dropped")).splitlines() == [
        "token,bytes_hex,status,kind,bytes,id A,id B,rank A,rank B,rank shift"]
    table, matched = diff_rows(d, "all", query=" the", limit=3)
    assert len(table) == 3 and all(" the" in bytes.fromhex(r["bytes_hex"]).decode() for r in table)
    assert matched == sum(b" the" in t for t in (*d.shared, *d.only_a, *d.only_b)) == 54


def test_figure_labels_are_escaped():
    from payloads import PAYLOADS

    from tokenizers import vocab_diff
    from ui.figures import vocab_diff_figure

    d = vocab_diff("gpt2", "cl100k_base")
    fig = vocab_diff_figure(d.by_kind, PAYLOADS["script"], "B")
    assert all("<script>" not in (t.name or "") and "<script>" not in (t.hovertemplate or "") for t in fig.data)
    assert [t.y for t in fig.data][0][0] == "Latin"
