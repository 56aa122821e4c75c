"""Issue 22, the pause rerun: a Compare column whose live box reports that the browser draws it gets a
compact payload (no segments: the options, the red edges and the pinned token) instead of span_model's
spans; every other column, and every column of a visit whose box reported nothing, gets the full model.
The report is a hint: a column without browser assets is drawn by the server whatever it says."""

from __future__ import annotations

import json

import pytest

from app_pages.kit.widgets import MAX_REPORTED, browser_heads
from conftest import app_test, rerun
from tokenizers import get_tokenizer
from ui import analysis

K = "compare_"
TEXT = "Tokenization isn't magic: 1234567 + 89 = ? 안녕하세요 👋🏽"
NAMES = "gpt2,cl100k_base,deepseek_v3,mistral_sp"


def spans_data(at) -> dict[str, dict]:
    """Each spans component's data, by its owner's tokenizer and text ("gpt2:a")."""
    out = {}
    for c in at.get("bidi_component"):
        if c.proto.component_name == "token_lens.token_spans":
            d = json.loads(c.proto.bytes or c.proto.json or c.proto.mixed.json)
            out[d["owner"].removeprefix("compare:")] = d
    return out


@pytest.fixture(autouse=True)
def deepseek_on_the_server(monkeypatch):
    """deepseek_v3 as a column the browser cannot draw (every registry tokenizer runs there now: a visitor's
    uploaded one never does, being never published), so that each test has one."""
    from service import browser_assets

    real = browser_assets.live_assets
    monkeypatch.setattr(browser_assets, "live_assets", lambda name: None if name == "deepseek_v3" else real(name))


def visit(report=None, **state):
    query = {"text": TEXT, "tokenizers": NAMES}
    if report is not None:
        state[f"{K}text_browser"] = frozenset(report)
    at = app_test(query=query, state=state)
    assert not at.exception, at.exception
    return at


def test_reported_columns_get_no_segments_the_others_the_full_model():
    at = visit(["gpt2", "cl100k_base", "deepseek_v3"])  # not mistral_sp; deepseek_v3 cannot run there (fixture)
    got = spans_data(at)
    assert set(got) == {"gpt2:a", "cl100k_base:a", "deepseek_v3:a", "mistral_sp:a"}
    for name in ("gpt2", "cl100k_base"):
        d = got[f"{name}:a"]
        assert "segs" not in d and "tips" not in d and "labels" not in d, name
        assert d["marks"] == [] and d["pinned"] is None
        assert d["live"]["assets"] and d["live"]["head"] == name
        assert d["label"] == f"{get_tokenizer(name).title}: tokens" and d["owner"] == f"compare:{name}:a"
    # reported, but the server publishes no browser assets for it: the full model
    assert got["deepseek_v3:a"]["live"]["assets"] is None
    assert len(got["deepseek_v3:a"]["segs"]) > 10
    # in the browser but not reported (a column added since the box last sent): the full model
    assert got["mistral_sp:a"]["live"]["assets"] and len(got["mistral_sp:a"]["segs"]) > 10
    # the counts and heading stay the server's
    body = "".join(h.proto.body for h in at.get("html"))
    assert f'>{len(get_tokenizer("gpt2").encode(TEXT)):,}</b>' in body


def test_without_a_report_every_column_gets_the_full_model():
    got = spans_data(visit())
    assert all(len(d["segs"]) > 10 and "marks" not in d for d in got.values())
    assert all(d["live"]["assets"] for n, d in got.items() if n != "deepseek_v3:a")


def test_the_compact_payload_carries_the_red_edges_and_the_pinned_token_of_the_full_model():
    """Marks and pinned as span_model draws them: the compact marks are the differing starts on the page,
    and the full model (the same visit without the report) puts tl-diff and tl-pin on the same tokens."""
    state = {f"{K}diff": True, f"{K}ref": "cl100k_base", f"{K}pinned": ("gpt2", "a", 3, hash(TEXT))}
    compact = spans_data(visit(["gpt2", "cl100k_base"], **state))
    full = spans_data(visit(**state))
    toks = get_tokenizer("gpt2").tokenize(TEXT, disallowed_special=())
    want = sorted(analysis.differing_starts(toks, get_tokenizer("cl100k_base").tokenize(TEXT, disallowed_special=())))
    assert want and compact["gpt2:a"]["marks"] == want and compact["gpt2:a"]["pinned"] == 3
    assert compact["cl100k_base:a"]["marks"] == [] and compact["cl100k_base:a"]["pinned"] is None  # the reference
    starts = {t.byte_span[0]: k for k, t in enumerate(toks)}
    diff_tokens = {int(seg[3]) + j for seg in full["gpt2:a"]["segs"] if "tl-diff" in seg[0]
                   for j in range(len(seg[2].split())) if toks[int(seg[3]) + j].byte_span[0] in want}
    assert diff_tokens == {starts[m] for m in want}
    [pin] = [seg for seg in full["gpt2:a"]["segs"] if "tl-pin" in seg[0]]
    assert pin[3] == 3


def test_a_cut_text_and_text_b_follow_their_own_box():
    big = "x" * 1_000_010  # over Compare's 1 MB bound: the server cuts it, the browser's text is not its text
    at = app_test(query={"tokenizers": "gpt2"}, state={f"{K}text": big, f"{K}text_browser": frozenset({"gpt2"})})
    assert not at.exception
    assert "segs" in spans_data(at)["gpt2:a"]
    at = app_test(query={"text": "hello", "text_b": "world", "ab": "1", "tokenizers": "gpt2"},
                  state={f"{K}text_b_browser": frozenset({"gpt2:b"})})
    assert not at.exception
    got = spans_data(at)
    assert "segs" in got["gpt2:a"] and "segs" not in got["gpt2:b"]
    rerun(at, **{f"{K}text_b_browser": frozenset()})  # the box reports again without it
    assert "segs" in spans_data(at)["gpt2:b"]


def test_a_report_is_a_short_list_of_short_strings_or_nothing():
    assert browser_heads(["gpt2", "gpt2:b"]) == {"gpt2", "gpt2:b"}
    assert browser_heads(["gpt2", 3, None, {"x": 1}, "y" * 300]) == {"gpt2"}
    for bad in (None, "gpt2", {"gpt2": True}, 7, ["a"] * (MAX_REPORTED + 1)):
        assert browser_heads(bad) == frozenset()


def test_the_chart_is_the_one_plotly_builds_validated_and_follows_the_counts():
    """count_bars (plain data, unvalidated, cached per chart) equals count_bars_reference (every property
    validated by plotly) and the figure built with update_layout (the old way) but for its empty template,
    and the page's chart holds the counts of its text."""
    import plotly.graph_objects as go

    from ui.figures import EMPTY_TEMPLATE, count_bars, count_bars_reference

    cases = [(("GPT-2", "&lt;b&gt;x"), (12, None), ("#123456", "#abcdef"), "tokens"),
             (("a", "b", "c"), (1.25, 0.3333, 0), ("#88CCEE", "#000000", "red"), "chars/token")]
    for args in cases:
        assert count_bars(*args).to_dict() == count_bars_reference(*args).to_dict()
    labels, values, colors = cases[0][:3]
    old = go.Figure(go.Bar(x=list(labels), y=list(values), text=list(values), marker_color=list(colors)))
    old.update_layout(showlegend=False, height=320, margin=dict(l=10, r=10, t=30, b=10),
                      xaxis_title="tokenizer", yaxis_title="tokens")
    old.layout.template = {}
    assert count_bars(labels, values, colors, "tokens").to_dict() == old.to_dict()
    assert old.to_dict()["layout"]["template"] == EMPTY_TEMPLATE == {"data": {"scatter": [{"type": "scatter"}]}}
    at = visit(["gpt2"])
    [chart] = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    # no default template: Streamlit's (placeholder colorscales for chart kinds this one is not) was 3.4 KB
    # of a 3.7 KB spec on every pause rerun
    assert spec["layout"]["template"] == {"data": {"scatter": [{"type": "scatter"}]}} and len(chart.proto.spec) < 600
    assert spec["data"][0]["y"] == [len(get_tokenizer(n).encode(TEXT)) for n in NAMES.split(",")]
    rerun(at, **{f"{K}text": TEXT + " and more words"})
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["y"] == [len(get_tokenizer(n).encode(TEXT + " and more words")) for n in NAMES.split(",")]


def test_a_compact_column_is_the_same_element_from_one_pause_to_the_next_unless_marks_need_the_text():
    """Without marks or a pin, nothing in a compact column depends on the text (one page: a round page
    size), so Streamlit can send a reference to what the browser holds; with red edges the data names its
    text ("of"), so that the browser draws them again for it."""
    at = visit(["gpt2", "cl100k_base"])
    before = spans_data(at)["gpt2:a"]
    rerun(at, **{f"{K}text": TEXT + " typed on"})
    after = spans_data(at)["gpt2:a"]
    assert after == before and "of" not in after
    per, page = after["live"]["win"]
    assert per & (per - 1) == 0 and per >= len(TEXT) and page == 0  # a power of two that holds the text
    rerun(at, **{f"{K}diff": True, f"{K}ref": "cl100k_base"})
    marked = spans_data(at)["gpt2:a"]
    rerun(at, **{f"{K}text": TEXT + " typed on and on"})
    assert marked["marks"] and spans_data(at)["gpt2:a"]["of"] != marked["of"]
