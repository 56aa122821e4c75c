"""The Quirks page through AppTest."""

import re
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from conftest import TRICKY_TEXTS, app_test, goto, open_page, rerun
from tokenizers import available_tokenizers, default_tokenizers, get_tokenizer
from ui.formatting import md_inline_code
from ui.quirks import CARD_BY_KEY, CARDS

Q = "quirks_"


def quirks(card: str | None = None, **state) -> AppTest:
    """Quirks, on `card` (a card's key) when given: the gallery shows one card at a time."""
    return open_page("quirks", "Quirks", state={**({f"{Q}card": card} if card else {}), **state}, timeout=180)


def counts(at: AppTest) -> list[tuple[str, str, int]]:
    """(tokenizer, header title, count) of every rendered panel, in order."""
    out = []
    for h in at.get("html"):
        for m in re.finditer(r'data-tokenizer="([^"]+)".*?<b style="color:#111827">([^<]*)</b> · '
                             r'<b class="tl-count">([\d,]+)<', h.proto.body, re.S):
            out.append((m.group(1), m.group(2), int(m.group(3).replace(",", ""))))
    return out


def links(at: AppTest) -> list[tuple[str, dict]]:
    """The card's ways to Compare: (label, the link's parameters)."""
    return [(p.proto.label, parse_qs(p.proto.query_string)) for p in at.get("page_link")
            if p.proto.label != "Link to this card"]


def shown(at: AppTest) -> list[str]:
    """The titles of the cards on screen."""
    return [s.value for s in at.subheader]


def test_the_gallery_shows_its_first_card_with_live_counts():
    at = quirks()
    assert shown(at) == [CARDS[0].title]
    panels = counts(at)
    names = default_tokenizers()
    # the spelling card: A is ".DefaultCellStyle", B the spaced letters
    first = [(n, c) for n, t, c in panels[:2 * len(names)]]
    assert first[:2] == [("custom_bpe", len(get_tokenizer("custom_bpe").encode_ordinary(".DefaultCellStyle"))),
                         ("custom_bpe", 17)]
    assert ("cl100k_base", 1) in first
    for name, title, n in panels:
        assert name in names
    [(label, q), _] = links(at)
    assert label == "Open A on Compare" and q["text"] == [".DefaultCellStyle"]
    assert q["tokenizers"] == [",".join(names)] and q["special"] == ["0"] and q["ab"] == ["0"]


# -- the deck (issue 20, item 6): one card at a time, Previous / Next / the list, the card in the link ---------
def test_previous_and_next_go_through_the_deck_and_round_it():
    """Failed on main: every card was drawn at once (19 screens at 1280x720), with no Previous or Next."""
    at = quirks()
    assert at.selectbox(key=f"{Q}card").value == CARDS[0].key
    assert at.selectbox(key=f"{Q}card").options == [f"{i + 1} / {len(CARDS)} · {c.title}" for i, c in enumerate(CARDS)]
    at.button(key=f"{Q}next_top").click().run()
    assert shown(at) == [CARDS[1].title] and at.query_params["card"] == CARDS[1].key
    at.button(key=f"{Q}next_end").click().run()  # the same buttons under the card
    assert shown(at) == [CARDS[2].title] and at.selectbox(key=f"{Q}card").value == CARDS[2].key
    for _ in range(3):
        at.button(key=f"{Q}prev_top").click().run()
    assert shown(at) == [CARDS[-1].title]  # before the first: the last
    assert any(c.value == f"Card {len(CARDS)} of {len(CARDS)}" for c in at.caption)
    at.button(key=f"{Q}next_end").click().run()
    assert shown(at) == [CARDS[0].title] and "card" not in at.query_params  # the first card: the plain link
    at.selectbox(key=f"{Q}card").set_value("glitch").run()
    assert shown(at) == [CARD_BY_KEY["glitch"].title] and at.query_params["card"] == "glitch"
    assert not at.exception


def test_the_card_is_in_the_link_and_each_card_links_to_itself():
    at = app_test("quirks", query={"card": "special", "tokenizers": "gpt2,cl100k_base"}, timeout=180)
    assert not at.exception and shown(at) == [CARD_BY_KEY["special"].title]
    assert at.selectbox(key=f"{Q}card").value == "special" and not at.info
    [me] = [p.proto for p in at.get("page_link") if p.proto.label == "Link to this card"]
    assert me.page == "quirks" and parse_qs(me.query_string) == {"card": ["special"],
                                                                 "tokenizers": ["gpt2,cl100k_base"]}


@pytest.mark.parametrize("raw", ["no-such-card", "<script>alert(1)</script>", "**bold** [x](http://e.com)"])
def test_an_unknown_card_in_the_link_opens_the_first_card_with_a_note(raw):
    at = app_test("quirks", query={"card": raw}, timeout=180)
    assert not at.exception and shown(at) == [CARDS[0].title]
    [note] = [i.value for i in at.info if "does not have" in i.value]
    assert f"card named {md_inline_code(raw, limit=60)}, which" in note and "first card is shown" in note
    at.button(key=f"{Q}next_top").click().run()
    assert shown(at) == [CARDS[1].title] and not [i for i in at.info if "does not have" in i.value]


def test_open_on_compare_stays_in_the_visit_and_back_on_quirks_the_card_is_there():
    """Failed on main: "Open on Compare" was a link to a new tab (a new visit, without the visitor's own
    tokenizers and settings), and Compare read its link only on a visit's first run."""
    tok = own_tokenizer()
    at = app_test(timeout=180, state={"user_tokenizers": {"lab_bpe": tok}})
    rerun(at, compare_text="the visitor's own text")
    at.toggle(key="compare_ws").set_value(True).run()
    goto(at, "quirks", quirks_card="case", quirks_tokenizers=["gpt2", "lab_bpe"])
    assert shown(at) == [CARD_BY_KEY["case"].title]
    [(label, q), _] = links(at)
    assert label == "Open A on Compare" and q["tokenizers"] == ["gpt2,lab_bpe"] and q["text"] == ["Egg."]
    [link] = [p.proto for p in at.get("page_link") if p.proto.label == label]
    assert link.page == "" and not link.external  # Compare, the default page, in this tab
    goto(at, "compare", query={k: v[0] for k, v in q.items()})  # what following the link does
    assert not at.exception
    assert at.session_state["compare_text"] == "Egg."
    assert at.multiselect(key="compare_tokenizers").value == ["gpt2", "lab_bpe"]
    assert at.toggle(key="compare_ws").value is True  # Compare's own settings are still there
    goto(at, "quirks")
    assert shown(at) == [CARD_BY_KEY["case"].title] and at.session_state["quirks_case_a"] == "Egg."


def test_special_card_parses_on_the_right_only():
    at = quirks("special")
    special = [h.proto.body for h in at.get("html") if "· parsed" in h.proto.body or "· as text" in h.proto.body]
    parsed = [b for b in special if "· parsed" in b and "tl-tok tl-special" in b]
    as_text = [b for b in special if "· as text" in b and "tl-tok tl-special" in b]
    assert len(parsed) == 3 and not as_text  # every byte-level BPE parses it; SentencePiece never does
    at.selectbox(key=f"{Q}special_preset").set_value("Injected into a prompt")
    rerun(at)
    assert at.toggle(key=f"{Q}special_two").value
    assert [(label, q["special"]) for label, q in links(at)] == [
        ("Compare A as text", ["0"]), ("Compare A parsed", ["1"]), ("Compare B as text", ["0"]),
        ("Compare B parsed", ["1"])]
    assert any('data-ids="100276"' in h.proto.body and "cl100k_base (GPT-4) · parsed" in h.proto.body
               for h in at.get("html"))


def test_egg_table_is_a_row_per_spelling_with_every_column_in_view():
    """A column per spelling ran off the card's right edge (its last columns hidden): one row per
    tokenizer and spelling, five short columns."""
    at = quirks("case")
    [table] = [d.value for d in at.dataframe if "pieces" in d.value.columns]
    assert list(table.columns) == ["tokenizer", "text", "tokens", "pieces", "ids"]
    assert len(table) == 4 * len(default_tokenizers())
    row = table[(table["tokenizer"] == "cl100k_base (GPT-4)") & (table["text"] == "I have an Egg.")].iloc[0]
    ids = get_tokenizer("cl100k_base").encode("I have an Egg.")
    assert (row["tokens"], row["ids"], row["pieces"]) == (len(ids), " ".join(map(str, ids)), "I ·have ·an ·Egg .")


def test_presets_toggle_and_edits():
    at = quirks("unicode")
    at.selectbox(key=f"{Q}unicode_preset").set_value("Precomposed (NFC) vs combining accents (NFD)")
    rerun(at)
    a, b = at.session_state[f"{Q}unicode_a"], at.session_state[f"{Q}unicode_b"]
    assert a != b and len(b) > len(a) and at.selectbox(key=f"{Q}unicode_preset").value is None
    rerun(at, **{f"{Q}card": "indentation"})
    at.selectbox(key=f"{Q}indentation_preset").set_value("The course's example")
    rerun(at)
    assert at.session_state[f"{Q}indentation_a"] == "    hello world!!!"
    assert not at.toggle(key=f"{Q}indentation_two").value  # a one-text example switches B off
    assert (("gpt2", "GPT-2", 6) in counts(at)) and (("cl100k_base", "cl100k_base (GPT-4)", 4) in counts(at))
    rerun(at, **{f"{Q}card": "pair"})
    at.toggle(key=f"{Q}pair_two").set_value(False)
    at.session_state[f"{Q}pair_a"] = "hello world"
    rerun(at)
    assert ("gpt2", "GPT-2", 2) in counts(at)


def test_card_text_survives_a_visit_to_another_tab():
    at = quirks("pair")
    at.session_state[f"{Q}pair_a"] = "my own words"
    at.multiselect(key=f"{Q}tokenizers").set_value(["gpt2"])
    rerun(at)
    at.session_state[f"{Q}tab"] = "Numbers"
    rerun(at)
    at.session_state[f"{Q}tab"] = "Gallery"
    rerun(at)
    assert at.session_state[f"{Q}pair_a"] == "my own words" and shown(at) == [CARD_BY_KEY["pair"].title]
    assert at.multiselect(key=f"{Q}tokenizers").value == ["gpt2"]
    assert {n for n, _, _ in counts(at)} == {"gpt2"}


@pytest.mark.parametrize("text", TRICKY_TEXTS + ["x" * 50_000])
def test_tricky_text_in_a_card(text):
    at = quirks("pair")
    at.session_state[f"{Q}pair_a"] = text
    at.session_state[f"{Q}pair_b"] = text[::-1]
    rerun(at)
    assert at.session_state[f"{Q}pair_a"] == text
    if text:
        assert ("gpt2", "GPT-2 · A", len(get_tokenizer("gpt2").encode(text, disallowed_special=()))) in counts(at)
    for h in at.get("html"):
        assert "<script>" not in h.proto.body
    if len(text) > 2000:
        assert any(b.proto.disabled for b in at.button if b.key and b.key.startswith(f"{Q}pair_open"))


def test_no_tokenizer_chosen():
    at = quirks()
    at.multiselect(key=f"{Q}tokenizers").set_value([])
    rerun(at)
    assert any("Pick at least one" in i.value for i in at.info)


def test_numbers_tab():
    at = quirks(**{f"{Q}tab": "Numbers"})
    table = at.dataframe[0].value.set_index("tokenizer")
    assert table.loc["cl100k_base (GPT-4)", "all-digit tokens"] == 1110
    assert table.loc["o200k_base (GPT-4o)", "all-digit tokens"] == 1110
    assert table.loc["cl100k_base (GPT-4)", "1 token"] == 1000
    assert table.loc["Mistral 7B (SentencePiece)", "5+ tokens"] == 9000
    assert len(at.get("plotly_chart")) == len(available_tokenizers())


def test_numbers_tab_needs_no_audit(monkeypatch):
    """Issue 20 (8): the Numbers tab took 17–29 s on a fresh server, most of it auditing every
    vocabulary (encoding each token: Qwen's and DeepSeek's take seconds) for one column, the all-digit
    tokens, which a scan of the vocabulary gives (vocab_audit.digit_tokens)."""
    import streamlit as st

    from tokenizers.analysis import vocab_audit

    def no_audit(*args, **kwargs):
        raise AssertionError("the Numbers tab ran the whole vocabulary audit")

    st.cache_resource.clear()
    st.cache_data.clear()
    monkeypatch.setattr(vocab_audit, "audit", no_audit)
    monkeypatch.setattr(vocab_audit, "audit_tokenizer", no_audit)
    at = quirks(**{f"{Q}tab": "Numbers"})
    assert not at.exception
    table = at.dataframe[0].value.set_index("tokenizer")
    assert table.loc["GPT-2", "all-digit tokens"] == 994 and table.loc["cl100k_base (GPT-4)", "all-digit tokens"] == 1110


def test_numbers_heatmaps_share_one_labelled_color_scale():
    import json

    at = quirks(**{f"{Q}tab": "Numbers"})
    maps = [json.loads(c.proto.spec)["data"][0] for c in at.get("plotly_chart")]
    most = max(max(v for row in m["z"] for v in row if v is not None) for m in maps)
    assert most == 5  # Mistral: ▁ and four digits
    for m in maps:  # one scale: 1 token is the same color everywhere, and so is 5
        assert (m["zmin"], m["zmax"], m["colorscale"]) == (maps[0]["zmin"], maps[0]["zmax"], maps[0]["colorscale"])
        assert m["colorbar"]["title"]["text"] == "tokens per number"
        assert m["colorbar"]["tickvals"] == [1, 2, 3, 4, 5]
    assert (maps[0]["zmin"], maps[0]["zmax"]) == (0.5, 5.5)


def test_audit_tab_lists_and_search():
    at = quirks(**{f"{Q}tab": "Vocabulary audit"})
    summary = at.dataframe[0].value.set_index("tokenizer")
    assert summary.loc["cl100k_base (GPT-4)", "unreachable"] == 0
    assert summary.loc["o200k_base (GPT-4o)", "unreachable"] == 12
    rows = at.dataframe[1].value  # o200k_base's unreachable tokens by default
    assert len(rows) == 12 and rows.loc[rows["id"] == 3914, "split pattern's chunks"].item() == "↵ | //"
    assert any("span a cut" in m.value for m in at.markdown)
    at.selectbox(key=f"{Q}audit_tok").set_value("gpt2")
    at.selectbox(key=f"{Q}audit_list").set_value("Partial UTF-8")
    at.text_input(key=f"{Q}audit_q").set_value("FF")
    rerun(at)
    found = at.dataframe[1].value
    assert get_tokenizer("gpt2").encode_single_token(b"\xff") in set(found["id"])
    assert all("FF" in h for h in found["bytes_hex"])
    at.selectbox(key=f"{Q}audit_tok").set_value("cl100k_base")
    at.selectbox(key=f"{Q}audit_list").set_value("Unreachable")
    rerun(at)
    assert any("no unreachable tokens" in i.value for i in at.info)


def test_rare_tab_shows_gpt2_glitch_candidates():
    at = quirks(**{f"{Q}tab": "Rare long tokens"})
    cand = at.dataframe[0].value
    assert cand["token"].iloc[0] == "rawdownloadcloneembedreportprint"
    assert (cand["published GPT-2 glitch token"] == "yes").sum() >= 5
    published = at.dataframe[1].value
    assert published.loc[published["string"] == "' SolidGoldMagikarp'", "GPT-2 id"].item() == 43453
    assert any("arXiv:2405.05417" in m.value for m in at.markdown)


def own_tokenizer():
    from tokenizers import BPETokenizer

    tok = BPETokenizer("gpt4", name="lab_bpe")
    tok.train("the cat sat on the mat, 1234 5678. " * 40, 300)
    tok.title = "Lab BPE"
    return tok


def test_lone_surrogate_in_a_card_is_reported():
    at = quirks("pair", **{f"{Q}pair_a": "a\ud83db"})
    assert any("Lone surrogate" in w.value for w in at.warning)
    assert at.session_state[f"{Q}pair_a"] == "a\ufffdb"


def test_a_visitors_own_tokenizer_joins_the_gallery_and_the_evidence():
    tok = own_tokenizer()
    at = quirks(user_tokenizers={"lab_bpe": tok})
    at.multiselect(key=f"{Q}tokenizers").set_value(["lab_bpe", "gpt2"])
    rerun(at)
    assert ("lab_bpe", "Lab BPE · A", len(tok.encode_ordinary(".DefaultCellStyle"))) in counts(at)
    assert links(at)[0][1]["tokenizers"] == ["lab_bpe,gpt2"]  # Compare opens in this visit, which has it
    for tab in ("Numbers", "Vocabulary audit", "Rare long tokens"):
        at.session_state[f"{Q}tab"] = tab
        rerun(at)
    at.session_state[f"{Q}tab"] = "Vocabulary audit"
    rerun(at)
    summary = at.dataframe[0].value.set_index("tokenizer")
    assert summary.loc["Lab BPE", "ordinary tokens"] == tok.vocab_size and summary.loc["Lab BPE", "unreachable"] == 0
